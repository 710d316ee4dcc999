"""DeepEval's own saved test runs (``tests/fixtures/deepeval_results``: a ``test_run_*.json`` from
``results_folder`` and a ``.deepeval/.latest_test_run.json``, written by ``deepeval.evaluate``
offline, see its README) imported and reported: each (metric, judge)'s mean and count equal the
files' read here with json (a metric judgegrid has by its score, Contextual Relevancy as a
binary criterion by DeepEval's success), the judge is the metric's evaluation model, an errored
metric is no cell, the test cases' texts are the samples', and ``report`` and ``view`` open the
run."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import api, import_verdicts
from support.imports import assert_figures_are, imported
from support.servers import view_of_run

HERE = Path(__file__).parents[1] / "fixtures" / "deepeval_results"
FILES = [HERE / "test_run_judge_a.json", HERE / "latest_test_run.json"]
OURS = {
    "Faithfulness": "faithfulness",
    "Answer Relevancy": "answer_relevancy",
    "Contextual Relevancy": "contextual_relevancy",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    said = (
        "format: deepeval (detected)",
        "errored (no score), no verdict, left out: Answer Relevancy (1)",
        "17 cells of 2 judges on 3 samples",
    )
    return imported(tmp_path_factory.mktemp("deepeval") / "run", list(map(str, FILES)), said)


def _test_cases() -> list[dict]:
    """Every test case of both files, read here on its own (the latest run under its key)."""
    cases = []
    for path in FILES:
        document = json.loads(path.read_text(encoding="utf-8"))
        cases += document.get("testRunData", document)["testCases"]
    return cases


def _the_files_figures() -> dict[tuple[str, str], list[float]]:
    figures: dict[tuple[str, str], list[float]] = defaultdict(list)
    for case in _test_cases():
        for data in case["metricsData"]:
            if data.get("error"):
                continue
            metric = OURS[data["name"]]
            value = data["score"] if metric != "contextual_relevancy" else float(data["success"])
            figures[(metric, data["evaluationModel"])].append(value)
    return figures


def test_each_metric_s_figures_are_the_files(run):
    assert_figures_are(run, _the_files_figures())
    summary = pd.read_csv(run / "tables" / "config_summary.csv").set_index(["metric", "judge"])
    assert summary.loc[("answer_relevancy", "scripted-judge-b"), "scored"] == 2  # one errored
    assert summary.loc[("faithfulness", "scripted-judge-b"), "mean_score"] == pytest.approx(0.5)


def test_samples_details_and_unknown_cost(run):
    scores, calls = api.load_run(run)
    assert calls.empty and (scores["calls"] == 0).all()
    assert scores["cost"].isna().all()  # a custom model records none: unknown, not 0
    wide = api.export_run(run, "wide").set_index("sample_id")
    for case in _test_cases():
        row = wide.loc[case["name"]]
        assert row["user_input"] == case["input"]
        assert row["response"] == case["actualOutput"]
        assert list(row["retrieved_contexts"]) == case["retrievalContext"]
    cell = scores[
        (scores["judge"] == "scripted-judge-a")
        & (scores["metric"] == "contextual_relevancy")
        & (scores["sample_id"] == "test_case_2")
    ].iloc[0]
    details = json.loads(cell["details"])
    assert details["imported"]["line"] == "testCases[2].metricsData[2]"
    assert (details["score"], details["success"], details["threshold"]) == (0.5, True, 0.5)
    assert details["reason"] == "scripted-judge-a read the case."


def test_the_python_api_reads_one_file(tmp_path):
    result = import_verdicts(FILES[1], tmp_path / "one", format="deepeval")
    assert (result.format, result.detected) == ("deepeval", False)
    assert result.judges == ["scripted-judge-b"] and result.cells == 8 and result.samples == 3


def test_report_and_view_open_the_import(run, tmp_path):
    assert (run / "report.html").is_file() and (run / "summary.md").is_file()
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    viewed = view_of_run(copy, "faithfulness")
    assert viewed.samples["total"] == 3 and len(viewed.samples["columns"]) == 2
    first = _test_cases()[0]
    assert viewed.detail["fields"]["user_input"] == first["input"]
    by_judge = {c["judge"]: c["score"] for c in viewed.detail["cells"]}
    assert by_judge["scripted-judge-a"] == first["metricsData"][0]["score"]
