"""DeepEval's test run, read as DeepEval saves it (deepeval 4.x, ``TestRun`` dumped by alias):

- ``test_run_<YYYYMMDD_HHMMSS>.json``, which ``evaluate(..., display_config=DisplayConfig(
  results_folder=...))`` (or ``DEEPEVAL_RESULTS_FOLDER``) writes per run;
- ``.deepeval/.latest_run_full.json``, the same, rewritten by every run;
- ``.deepeval/.latest_test_run.json``, which ``evaluate`` and ``deepeval test run`` leave when
  nothing is uploaded: the run under ``testRunData`` (only a link when it was uploaded to
  Confident AI: refused, and said).

Each test case (``testCases[i]``) is a sample: its ``name`` the id (``test_case_0``, as
``evaluate`` names them), its ``input``, ``actualOutput``, ``retrievalContext``,
``expectedOutput`` and ``context`` judgegrid's ``user_input``, ``response``,
``retrieved_contexts``, ``reference`` and ``reference_contexts``. Each of its ``metricsData`` is a
verdict of the judge the metric names (``evaluationModel``): a metric judgegrid has (``METRICS``:
Faithfulness, Answer Relevancy, Contextual Precision, Contextual Recall) by its ``score``; any
other (GEval, Contextual Relevancy, Hallucination, a custom metric) as a binary criterion whose
verdict is DeepEval's own ``success`` at the metric's threshold, as the long table reads a metric
not judgegrid's. The score, success, threshold, strict mode and reason are kept in the verdict's
details, the evaluation cost and tokens as the cell's where DeepEval recorded them (a custom model
records none: unknown). A metric that errored (``error``, no score) is no verdict: no cell, and
said. Multi-turn (``conversationalTestCases``) are left out, and said.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.sample import Sample
from judgegrid.inputs.formats import context_text
from judgegrid.inputs.peers import slug
from judgegrid.inputs.recorded.lines import head_bytes
from judgegrid.inputs.recorded.verdicts import (
    Recorded,
    json_details,
    pass_fail_criterion,
    place,
    read_json_document,
    samples_of,
    verdict_frame,
)

NAME = "deepeval"
METRICS = {  # DeepEval's metric name -> judgegrid's metric
    "Faithfulness": "faithfulness",
    "Answer Relevancy": "answer_relevancy",  # judgegrid's answer_relevancy is DeepEval's
    "Contextual Precision": "context_precision",
    "Contextual Recall": "context_recall",
}
WRAPPED = "testRunData"  # .deepeval/.latest_test_run.json: {"testRunData": TestRun}
UPLOADED = "testRunLink"  # the same file, when the run went to Confident AI
NO_MODEL = "deepeval-unnamed-model"
_OPENING = re.compile(rb'^\s*\{\s*"(testRunData|testRunLink|testFile|testCases)"\s*:')
MARK = "deepeval_results"
TEXTS = {
    "input": "user_input",
    "actualOutput": "response",
    "expectedOutput": "reference",
    "retrievalContext": "retrieved_contexts",
    "context": "reference_contexts",
}
FIELDS = ("sample_id", "judge", "metric", "score", "cost", "tokens_in", "tokens_out")


def sniff(path: Path) -> dict[str, Any] | None:
    """A test run's mark when the file opens as DeepEval writes one, else None; reads a few
    bytes."""
    head = head_bytes(path) if path.suffix.lower() == ".json" else None
    return {MARK: str(path)} if head is not None and _OPENING.match(head) else None


def looks_like(record: Any) -> bool:
    """Whether a file's first record is DeepEval's test run (``sniff``'s mark, or the run)."""
    if not isinstance(record, dict):
        return False
    return MARK in record or WRAPPED in record or isinstance(record.get("testCases"), list)


def read(paths: Sequence[Path]) -> Recorded:
    """Every file's metric results as one ``Recorded``; DatasetError naming the file and the
    place in it (``testCases[2].metricsData[1].score``) of each fault."""
    found: list[tuple[str, Sample]] = []
    columns: dict[str, list[Any]] = {k: [] for k in (*FIELDS, "details", "file", "line")}
    criteria: dict[str, CriterionSpec] = {}
    errored: Counter[str] = Counter()
    turns = 0
    for path in paths:
        source = str(path)
        run = _run(path, source)
        turns += len(run.get("conversationalTestCases") or [])
        problems: list[Problem] = []
        for i, case in enumerate(_cases(run, source)):
            where = f"testCases[{i}]"
            try:
                sample = _sample(case)
            except (ValueError, DatasetError) as exc:
                problems.append(Problem(where, _said(exc)))
                continue
            found.append((place(source, where), sample))
            for k, data in enumerate(case.get("metricsData") or []):
                at = f"{where}.metricsData[{k}]"
                try:
                    row = _row(data)
                except ValueError as exc:
                    problems.append(Problem(at, str(exc)))
                    continue
                if row is None:
                    errored[str(data.get("name"))] += 1
                    continue
                if row["metric"] not in METRICS.values():
                    spec = _pass_fail(row["metric"], data, source, at)
                    criteria.setdefault(row["metric"], spec)
                for name in FIELDS:
                    columns[name].append(sample.id if name == "sample_id" else row[name])
                columns["details"].append(row["details"])
                columns["file"].append(source)
                columns["line"].append(at)
        if problems:
            raise DatasetError(source, problems[:50])
    samples = samples_of(found, paths)
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(samples),
        verdict_frame(columns),
        criteria=tuple(criteria.values()),
        notes=tuple(_notes(columns, errored, turns)),
    )


def _notes(columns: dict[str, list[Any]], errored: Counter[str], turns: int) -> list[str]:
    notes = []
    if errored:
        counted = ", ".join(f"{name} ({n})" for name, n in errored.most_common())
        notes.append(f"metrics that errored (no score), no verdict, left out: {counted}")
    if turns:
        notes.append(f"multi-turn test cases (conversationalTestCases), left out: {turns}")
    if NO_MODEL in columns["judge"]:
        notes.append(f"a metric that names no evaluationModel is judge {NO_MODEL!r}")
    return notes


def _run(path: Path, source: str) -> dict[str, Any]:
    """The file's ``TestRun``, unwrapped from ``.latest_test_run.json``'s ``testRunData``."""
    document = read_json_document(path, source)
    if isinstance(document, dict) and UPLOADED in document and WRAPPED not in document:
        message = (
            "only a link to the run on Confident AI (it was uploaded); read the run DeepEval "
            "saved locally: test_run_*.json in its results_folder, or .deepeval/"
            ".latest_run_full.json"
        )
        raise DatasetError(source, [Problem(UPLOADED, message)])
    if isinstance(document, dict) and WRAPPED in document:
        document = document[WRAPPED]
    if not isinstance(document, dict) or not isinstance(document.get("testCases"), list):
        message = (
            "not DeepEval's test run: no testCases (DeepEval writes test_run_*.json to its "
            "results_folder, and .deepeval/.latest_test_run.json)"
        )
        raise DatasetError(source, [Problem("", message)])
    return document


def _cases(run: dict[str, Any], source: str) -> list[dict[str, Any]]:
    cases = run["testCases"]
    bad = [i for i, case in enumerate(cases) if not isinstance(case, dict)]
    if bad:
        problem = Problem(f"testCases[{bad[0]}]", "expected a test case (an object)")
        raise DatasetError(source, [problem])
    return list(cases)


def _sample(case: dict[str, Any]) -> Sample:
    """A test case's texts as a sample, named by the test case's ``name``."""
    name = case.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: expected the test case's name (test_case_0, ...)")
    fields: dict[str, Any] = {}
    for theirs, ours in TEXTS.items():
        value = case.get(theirs)
        if value is None:
            continue
        if ours in ("retrieved_contexts", "reference_contexts"):
            if not isinstance(value, list):
                raise ValueError(f"{theirs}: expected a list of texts")
            value = [context_text(v) for v in value]
        elif not isinstance(value, str):
            raise ValueError(f"{theirs}: expected a text, got {json.dumps(value)[:40]}")
        fields[ours] = value
    return Sample(id=name.strip(), **fields)


def _said(exc: Exception) -> str:
    if isinstance(exc, DatasetError):
        return "; ".join(p.render() for p in exc.problems)
    return str(exc)


def _row(data: Any) -> dict[str, Any] | None:
    """A metric result's verdict, or None when the metric errored (no score); ValueError
    naming the field of a result that is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError("name: expected a metric's result with its name")
    name, score, success = data["name"], data.get("score"), data.get("success")
    if data.get("error") is not None or score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise ValueError(f"score: expected a number, got {json.dumps(score)}")
    metric = METRICS.get(name)
    if metric is None:
        if not isinstance(success, bool):
            raise ValueError(f"success: expected true or false, got {json.dumps(success)}")
        value = 1.0 if success else 0.0
    else:
        value = float(score)
    kept = ("score", "success", "threshold", "strictMode", "reason")
    return {
        "judge": data.get("evaluationModel") or NO_MODEL,
        "metric": metric or slug(name),
        "score": value,
        "cost": _number(data.get("evaluationCost")),
        "tokens_in": _number(data.get("inputTokenCount")),
        "tokens_out": _number(data.get("outputTokenCount")),
        "details": json_details({"metric": name} | {k: data.get(k) for k in kept}),
    }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _pass_fail(name: str, data: dict[str, Any], source: str, where: str) -> CriterionSpec:
    """A metric judgegrid does not have, as the binary criterion of DeepEval's pass."""
    threshold = data.get("threshold")
    at = f" at threshold {threshold:g}" if isinstance(threshold, int | float) else ""
    definition = (
        f"DeepEval's {data['name']} passes{at} (its verdicts imported; the file does not say the "
        "question)"
    )
    return pass_fail_criterion(name, definition, source, f"{where}.name")
