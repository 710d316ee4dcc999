"""Scripted judges made to disagree, and people's labels of fixed values: what a report needs
to have something to tell apart (agreement, validity, the card), on every run the same.

``disagreeing_answer`` is the scripted judge's answer with the judges whose model id ends in
``judge-b`` or ``judge-c`` flipping some verdicts, labels and preferences (by a fixed hash of the
item). ``people_labels`` writes three annotators' labels of two metrics on every sample a run
scored. The report's pinned runs (tests/outputs/test_report_golden.py) and the report seen at
1280 px (tests/outputs/test_report_fit_browser.py) are built with them.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid import load_run
from support.scripted import default_answer

ANNOTATORS = ("ann1", "ann2", "ann3")
LABELLED_METRICS = ("faithfulness", "response_relevancy")


def _flip(text: str, model: str) -> bool:
    """Whether ``model`` answers ``text`` otherwise than the plain scripted judge: judge b on a
    third of the items, judge c on a quarter (a fixed hash, so every run is the same)."""
    code = zlib.crc32(text.encode())
    if model.endswith("judge-b"):
        return code % 3 == 0
    if model.endswith("judge-c"):
        return code % 4 == 1
    return False


def disagreeing_answer(step: str, prompt: str, model: str) -> Any:
    """The scripted judge's answer, with judges b and c flipping some verdicts, labels and
    preferences, so that agreement, validity and the card have something to tell apart."""
    answer = default_answer(step, prompt, model)
    if step == "verdicts":
        for item in answer["statements"]:
            if _flip(item["statement"], model):
                item["verdict"] = 1 - item["verdict"]
    elif step == "usefulness" and _flip(prompt, model):
        answer["verdict"] = 1 - answer["verdict"]
    elif step == "classify":
        for item in answer["classifications"]:
            if _flip(item["statement"], model):
                item["attributed"] = 1 - item["attributed"]
    elif step == "relevance":
        for item in answer["verdicts"]:
            if _flip(str(item), model):
                item["verdict"] = "no" if item["verdict"] == "yes" else "yes"
    elif step == "question" and _flip(prompt, model):
        answer["noncommittal"] = 1 - answer["noncommittal"]
    elif step == "criterion" and _flip(prompt, model):
        answer = _other_criterion_answer(answer)
    elif step == "pairwise" and _flip(prompt, model):
        answer = {**answer, "verdict": {"A": "B", "B": "A"}.get(answer.get("verdict"), "A")}
    return answer


def _other_criterion_answer(answer: dict[str, Any]) -> dict[str, Any]:
    if "verdict" in answer:
        return {**answer, "verdict": "fail" if answer["verdict"] == "pass" else "pass"}
    if "label" in answer:
        return {**answer, "label": "wrong" if answer["label"] != "wrong" else "correct"}
    if "level" in answer:
        return {**answer, "level": 5 if answer["level"] != 5 else 1}
    return answer


def people_labels(run_dir: Path, directory: Path) -> Path:
    """Three annotators' labels of two metrics on every sample the run scored (fixed values),
    written to ``directory/labels.csv`` for ``import_labels``."""
    scores, _ = load_run(run_dir)
    samples = sorted(set(scores["sample_id"]) - {s for s in scores["sample_id"] if "~" in s})
    rows = [
        {
            "sample_id": sample,
            "metric": metric,
            "annotator": annotator,
            "value": (zlib.crc32(f"{sample}{metric}{annotator}".encode()) % 5) / 4,
        }
        for sample in samples
        for metric in LABELLED_METRICS
        for annotator in ANNOTATORS
    ]
    path = directory / "labels.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path
