"""Scripted runs for the view's tests (tests/view/): two judges made to disagree on one sample
(judge b finds a statement judge a did not, and flips a verdict), plus a sample holding markup;
and a run with criteria of the user's own (one of each type, one in three wordings, one
weighted by log-probabilities that only one judge returns)."""

from __future__ import annotations

import atexit
import json
import math
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from judgegrid import run_grid
from judgegrid.core.records import ScoreRow
from judgegrid.core.sample import Dataset
from judgegrid.inputs.dataset import load_demo
from judgegrid.store.run_db import RunStore

DISPUTED = "tokyo-noisy"
EXTRA = "Judge b found a statement of its own."


_BUILT: list[Path] = []  # this process's one build of the run, copied for each test
REPORT_TEXT = {".md", ".html", ".csv", ".yaml"}  # the files that may name the run's directory


def make_view_run(root: Path) -> Path:
    """The run under ``root/run`` (its matrix beside it, ``root/m.yaml``), a test's own to label.
    Four modules each want it; it is built once per process (a scripted run and its report) and
    copied, since the same matrix on the scripted judge always gives the same run."""
    return copy_of_run(_BUILT, _build_view_run, root)


def copy_of_run(built: list[Path], build: Callable[[Path], Path], root: Path) -> Path:
    """``root/run``: a copy of the run ``build`` makes, built once per process (into
    ``built``'s one folder). The reports name their run directory: the copy's name it, as they
    would have."""
    if not built:
        template = Path(tempfile.mkdtemp(prefix="judgegrid-view-run-"))
        atexit.register(shutil.rmtree, template, ignore_errors=True)
        build(template)
        built.append(template)
    shutil.copytree(built[0], root, dirs_exist_ok=True)
    for path in root.rglob("*"):
        if path.suffix in REPORT_TEXT:
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(str(built[0]), str(root)), encoding="utf-8")
    return root / "run"


def _build_view_run(root: Path) -> Path:
    from conftest import matrix_dict
    from support import scripted
    from support.demo_sets import demo_with_hostile_sample

    scripted.register()
    scripted.SCRIPT.reset()
    matrix = root / "m.yaml"
    matrix.write_text(
        yaml.safe_dump(
            matrix_dict(
                metrics=["faithfulness", "response_relevancy", "context_precision"],
                embeddings=[{"id": "scripted/bow", "label": "bow", "dimensions": [64]}],
                strictness=[1],
                repeats=2,
            )
        )
    )
    # no cross-run cache: a module-scoped fixture would read the session's, which another module
    # may have filled with these very answers, and the run would then have no calls to show
    run = run_grid(matrix, demo_with_hostile_sample(), run_dir=root / "run", use_cache=False)
    store = RunStore(run.run_dir / "run.sqlite")
    for row in store.scores_frame().itertuples(index=False):
        if row.metric == "faithfulness" and row.judge == "b" and row.sample_id == DISPUTED:
            values = row._asdict()
            details = json.loads(values["details"])
            verdicts = details["verdicts"]
            verdicts[0]["verdict"] = 1 - verdicts[0]["verdict"]  # b judges the first otherwise
            verdicts[0]["reason"] = "judge b thinks otherwise"
            verdicts.append({"statement": EXTRA, "reason": "not in the context", "verdict": 0})
            details = {"statements": [v["statement"] for v in verdicts], "verdicts": verdicts}
            values["details"] = json.dumps(details)
            values["score"] = sum(v["verdict"] for v in verdicts) / len(verdicts)
            store.write_score(ScoreRow(**values), replace=True)
    store.close()
    return run.run_dir


# -- a run with criteria of the user's own ----------------------------------------------------

WORDINGS = ["Would the user feel treated with courtesy?", "Does the reply avoid any rudeness?"]
VIEW_CRITERIA = [
    {
        "name": "polite",
        "definition": "Is the reply polite?",
        "type": "binary",
        "strictness": 3,
        "wordings": WORDINGS,
    },
    {
        "name": "correctness",
        "definition": "Compared with the reference, is the reply correct?",
        "type": "labels",
        "labels": {"correct": 1, "partial": 0.5, "wrong": 0},
        "fields": ["user_input", "response", "reference"],
    },
    {
        "name": "helpful",
        "definition": "How helpful is the reply?",
        "type": "scale",
        "scale": {1: "no help", 2: "some help", 3: "helpful"},
        "weighting": "auto",
    },
]
CRITERIA_SAMPLES = 5
HELPFUL_P = {"1": 0.2, "2": 0.5, "3": 0.3}  # judge a's probabilities of the levels (b gives none)
_BUILT_CRITERIA: list[Path] = []


def criteria_answer(step: str, prompt: str, model: str) -> Any:
    """The scripted judge's answers, made to differ where the view must show it: judge a
    fails the politeness question in its second rewording (wording 2) and passes it otherwise;
    judge b calls every reply wrong where a calls it correct."""
    from support import scripted

    answer = scripted.default_answer(step, prompt, model)
    if step != "criterion":
        return answer
    if "verdict" in answer:
        passes = not (model.endswith("judge-a") and WORDINGS[1] in prompt)
        return {"verdict": "pass" if passes else "fail", "reason": f"asked by {model}"}
    if "label" in answer and model.endswith("judge-b"):
        return {"label": "wrong", "reason": "judge b finds it wrong"}
    return answer


def helpful_logprobs(step: str, prompt: str, model: str, text: str) -> dict[str, float] | None:
    if model.endswith("judge-b") or '"level"' not in text:
        return None
    return {level: math.log(p) for level, p in HELPFUL_P.items()}


def make_criteria_view_run(root: Path) -> Path:
    """A scripted run with a built-in metric (faithfulness) and the three criteria above, two
    repeats, over the first demo samples, and its report; built once per process and copied
    (as ``make_view_run``). The run directory is ``root/run``."""
    return copy_of_run(_BUILT_CRITERIA, _build_criteria_run, root)


def _build_criteria_run(root: Path) -> Path:
    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    scripted.SCRIPT.answer = criteria_answer
    scripted.SCRIPT.alternatives = helpful_logprobs
    matrix = root / "m.yaml"
    spec = matrix_dict(
        metrics=["faithfulness"], embeddings=[], criteria=VIEW_CRITERIA, repeats=2, strictness=[1]
    )
    matrix.write_text(yaml.safe_dump(spec, sort_keys=False))
    try:
        run = run_grid(matrix, limit=CRITERIA_SAMPLES, run_dir=root / "run", use_cache=False)
    finally:
        scripted.SCRIPT.reset()
    return run.run_dir


# -- a run with every kind of page: metrics, criteria, a pairwise criterion and probes ---------

EVERY_KIND_SAMPLES = ["canal-grounded", "water-direct", "austen-complete", "austen-noncommittal"]
BETTER_REPLY = {
    "name": "better_reply",
    "type": "pairwise",
    "definition": "Which reply answers the question better?",
    "compare": ["response", "response_b"],
}
EVERY_KIND_METRICS = ["faithfulness", "response_relevancy", "context_precision"]
EVERY_KIND_CRITERIA = [*VIEW_CRITERIA, BETTER_REPLY]
# long names, as real judges' and embedding models' are: the grid's headers must show them whole
EMBEDDING_LABEL = "bag-of-words"
JUDGES = [
    {"id": "scripted/judge-a", "label": "scripted-a"},
    {"id": "scripted/judge-b", "label": "scripted-b"},
]
_BUILT_EVERY_KIND: list[Path] = []


def every_kind_samples() -> Dataset:
    """Four demo samples, two with contexts and a reference and two with a question and an
    answer only (what ResponseRelevancy needs), each with a second reply (``response_b``) and
    the people's preference between the two (the first), so the pairwise criterion is probed."""
    demo = load_demo().by_id()
    samples = tuple(
        demo[k].model_copy(
            update={
                "extra": {"response_b": "I could not say."},
                "labels": {BETTER_REPLY["name"]: "a"},
            }
        )
        for k in EVERY_KIND_SAMPLES
    )
    return Dataset("every-kind", samples)


def make_every_kind_run(root: Path) -> Path:
    """A scripted run with a page of every kind: three metrics (one labelled by ticking
    contexts, one whose samples have no contexts half the time), the three criteria above, a
    pairwise criterion, and probes of each metric and criterion; with its report. Built once
    per process and copied (as ``make_view_run``); the run directory is ``root/run``."""
    return copy_of_run(_BUILT_EVERY_KIND, _build_every_kind_run, root)


def _build_every_kind_run(root: Path) -> Path:
    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    matrix = root / "m.yaml"
    spec = matrix_dict(
        metrics=EVERY_KIND_METRICS,
        judges=JUDGES,
        embeddings=[{"id": "scripted/bow", "label": EMBEDDING_LABEL, "dimensions": [64]}],
        criteria=EVERY_KIND_CRITERIA,
        strictness=[1],
        repeats=1,
        probes={"per-metric": 1},
    )
    matrix.write_text(yaml.safe_dump(spec, sort_keys=False))
    run = run_grid(matrix, every_kind_samples(), run_dir=root / "run", use_cache=False)
    return run.run_dir
