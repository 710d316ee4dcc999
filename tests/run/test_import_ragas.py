"""Ragas' own result tables (``tests/fixtures/ragas_results``: ``EvaluationResult.to_pandas()`` of
``ragas.evaluate`` offline, saved as CSV and as Parquet, see its README) imported and reported:
each (metric, judge)'s mean and count equal the file's read here with pandas, Ragas'
``answer_relevancy`` is judgegrid's ``response_relevancy``, a NaN score is no cell (never a 0),
the samples keep their texts (``retrieved_contexts`` from the CSV's Python list), the judge is the
file's name or ``--judge``'s, and ``report`` and ``view`` open the run."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import api, import_verdicts
from support.imports import assert_figures_are, imported
from support.servers import view_of_run

HERE = Path(__file__).parents[1] / "fixtures" / "ragas_results"
CSV, PARQUET = HERE / "lenient-judge.csv", HERE / "strict-judge.parquet"
OURS = {
    "faithfulness": "faithfulness",
    "answer_relevancy": "response_relevancy",
    "context_recall": "context_recall",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    said = (
        "format: ragas (detected)",
        "judge named after the file: strict-judge (name it with --judge)",
        "left NaN (the metric failed), no verdict, left out: faithfulness (1)",
        "23 cells of 2 judges on 4 samples",
    )
    return imported(tmp_path_factory.mktemp("ragas") / "run", [str(CSV), str(PARQUET)], said)


def _the_files() -> dict[str, pd.DataFrame]:
    """Each judge's table as Ragas wrote it, read here on its own (the CSV's lists parsed)."""
    lenient = pd.read_csv(CSV)
    lenient["retrieved_contexts"] = lenient["retrieved_contexts"].map(ast.literal_eval)
    strict = pd.read_parquet(PARQUET)
    strict["retrieved_contexts"] = strict["retrieved_contexts"].map(list)
    return {"lenient-judge": lenient, "strict-judge": strict}


def test_each_metric_s_figures_are_the_file_s(run):
    expected = {
        (OURS[column], judge): table[column].dropna().tolist()
        for judge, table in _the_files().items()
        for column in OURS
    }
    assert_figures_are(run, expected)
    summary = pd.read_csv(run / "tables" / "config_summary.csv").set_index(["metric", "judge"])
    assert summary.loc[("faithfulness", "strict-judge"), "scored"] == 3  # the NaN: no cell
    assert summary.loc[("faithfulness", "strict-judge"), "failed"] == 0  # nor a failure
    assert summary.loc[("response_relevancy", "strict-judge"), "embedding"] == (
        "unrecorded-embedding"
    )


def test_the_export_is_ragas_table_again(run):
    """judgegrid's own Ragas export of the import gives back each file: texts and scores."""
    exported = api.export_run(run, "ragas")
    for judge, table in _the_files().items():
        ours = exported[exported["judge"] == judge].set_index("sample_id").sort_index()
        theirs = table.rename(columns=OURS)
        theirs.index = theirs.index.astype(str)
        columns = ["user_input", "response", "reference", "retrieved_contexts"]
        assert ours[columns].to_dict("index") == theirs[columns].to_dict("index")
        pd.testing.assert_frame_equal(
            ours[list(OURS.values())], theirs[list(OURS.values())], check_names=False
        )


def test_the_python_api_names_the_judges(tmp_path):
    result = import_verdicts(
        [CSV, PARQUET], tmp_path / "named", format="ragas", judges=["gpt-4o", "claude"]
    )
    assert (result.format, result.detected) == ("ragas", False)
    assert result.judges == ["gpt-4o", "claude"] and result.cells == 23
    scores, calls = api.load_run(tmp_path / "named")
    assert calls.empty and (scores["calls"] == 0).all()
    assert set(scores["judge"]) == {"gpt-4o", "claude"}
    nan_sample = scores[(scores["judge"] == "claude") & (scores["metric"] == "faithfulness")]
    assert sorted(nan_sample["sample_id"]) == ["0", "1", "2"]  # row 3's NaN left out


def test_report_and_view_open_the_import(run, tmp_path):
    assert (run / "report.html").is_file() and (run / "summary.md").is_file()
    assert "faithfulness" in (run / "summary.md").read_text(encoding="utf-8")
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    viewed = view_of_run(copy, "faithfulness")
    assert viewed.samples["total"] == 4 and len(viewed.samples["columns"]) == 2
    first = _the_files()["lenient-judge"].iloc[0]
    assert viewed.detail["fields"]["user_input"] == first["user_input"]
    assert viewed.detail["fields"]["retrieved_contexts"] == first["retrieved_contexts"]
    assert {c["judge"]: c["score"] for c in viewed.detail["cells"]} == {
        "lenient-judge": first["faithfulness"],
        "strict-judge": _the_files()["strict-judge"].iloc[0]["faithfulness"],
    }
