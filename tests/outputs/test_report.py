"""The report a user decides from: written at the end of a run, rebuilt by `judgegrid report`
from the database alone (no model call), with tidy CSVs and one escaped, self-contained HTML."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.outputs.html_report import SECTIONS
from support.demo_sets import demo_with_hostile_sample
from support.html_tables import html_tables

runner = CliRunner()


@pytest.fixture
def run_dir(tmp_path, write_matrix):
    result = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    assert result.complete
    return result.run_dir


def test_a_run_writes_summary_tables_and_html(run_dir):
    summary = (run_dir / "summary.md").read_text()
    for heading in (
        "## Faithfulness",
        "## ResponseRelevancy",
        "## Failures by metric",
        "## Decision",
        "## Judges ranked by validity, cost and time",
        "## Run-to-run stability",
        "## Agreement between judges",
        "## Variance components",
        "## Strictness trade-off",
        "## Validity: pairwise-preference accuracy",
    ):
        assert heading in summary, heading
    tables = {p.stem for p in (run_dir / "tables").glob("*.csv")}
    assert {
        "stability",
        "agreement_judges",
        "agreement_judge_pairs",
        "variance_components",
        "decision_study",
        "strictness",
        "validity_pairs",
        "judge_ranking",
    } <= tables
    agreement = pd.read_csv(run_dir / "tables" / "agreement_judges.csv")
    assert set(agreement["alpha_missing"]) == {
        "pairable values: every sample with at least two ratings"
    }
    # the demo set's contrasts are preference pairs for faithfulness and response relevancy
    validity = pd.read_csv(run_dir / "tables" / "validity_pairs.csv")
    assert set(validity["source"]) == {"contrast"}
    assert {"faithfulness", "response_relevancy"} <= set(validity["metric"])
    page = (run_dir / "report.html").read_text()
    for key in SECTIONS:
        assert f'<section id="{key}">' in page, key
    assert "<script>alert" not in page and "&lt;script&gt;alert(" in page
    assert "hostile&lt;script&gt;" in page
    assert page.count("data:image/png;base64,") >= 5
    assert "http://" not in page and "https://" not in page  # self-contained


def test_report_command_rebuilds_everything_without_a_model_call(run_dir, scripted_provider):
    before = (run_dir / "summary.md").read_text()
    html_before = (run_dir / "report.html").read_text()
    for name in ("summary.md", "report.html", "scores.csv"):
        (run_dir / name).unlink()
    shutil.rmtree(run_dir / "tables")
    scripted_provider.calls.clear()
    scripted_provider.fail = lambda model, step, n: 500  # any call would fail loudly
    result = runner.invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    assert scripted_provider.calls == []
    assert (run_dir / "summary.md").read_text() == before
    assert (run_dir / "report.html").read_text() == html_before
    assert (run_dir / "tables" / "stability.csv").exists()
    assert "decision per metric" in result.stdout  # the card; summary.md stays in its file


def test_report_names_a_directory_that_is_not_a_run(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a run directory" in result.stderr and "Traceback" not in result.output


def test_report_of_a_run_with_one_judge_and_one_repeat_explains_the_gaps(tmp_path, write_matrix):
    matrix = write_matrix(judges=[{"id": "scripted/judge-a", "label": "a"}], repeats=1)
    result = run_grid(matrix, limit=3, run_dir=tmp_path / "run")
    page = (result.run_dir / "report.html").read_text()
    assert '<section id="agreement">' in page
    stability = pd.read_csv(result.run_dir / "tables" / "stability.csv")
    assert stability["icc1"].isna().all()
    assert stability["note"].str.contains("fewer than two repeats").all()


def test_agreement_heatmaps_are_coloured_tables_of_the_pairs_csv(run_dir):
    """Each agreement group is a rater × rater table (tau-b, then mean |difference|) whose
    numbers are those of tables/agreement_judge_pairs.csv, both halves of the square filled."""
    section = (run_dir / "report.html").read_text().split('<section id="agreement">')[1]
    heats = [t for t in html_tables(section.split("</section>")[0]) if "heat" in t.classes]
    pairs = pd.read_csv(run_dir / "tables" / "agreement_judge_pairs.csv")
    taus = [t for t in heats if t.caption.startswith("Kendall tau-b")]
    differences = [t for t in heats if t.caption.startswith("mean |difference|")]
    assert taus and len(taus) == len(differences)
    table = taus[0]
    names = table.rows[0][1:]
    cells = {(row[0], names[j]): row[1 + j] for row in table.rows[1:] for j in range(len(names))}
    assert all(cells[(n, n)] == "1.00" for n in names)
    group = dict(part.split("=", 1) for part in table.caption.split(": ", 1)[1].split(", "))
    shown = pairs[
        np.logical_and.reduce([pairs[c].astype(str) == v for c, v in group.items()])
        & pairs["tau_b"].notna()
    ]
    assert len(shown) >= 1, (table.caption, pairs.head(3).to_dict("records"))
    for _, pair in shown.iterrows():
        expected = f"{pair['tau_b']:.2f}"
        assert cells[(pair["rater_a"], pair["rater_b"])] == expected
        assert cells[(pair["rater_b"], pair["rater_a"])] == expected


@pytest.mark.parametrize("name", ["repeat_spread", "sample_disagreement"])
def test_the_per_sample_tables_written_by_arrow_read_back_as_the_analysis_made_them(run_dir, name):
    from judgegrid.analyses.consistency.disagreement import sample_disagreement
    from judgegrid.analyses.frames.tables import repeat_spread
    from judgegrid.store.run_db import RunStore

    store = RunStore(run_dir / "run.sqlite")
    expected = repeat_spread(store.scores_frame())
    store.close()
    if name == "sample_disagreement":
        expected = sample_disagreement(expected)
    path = run_dir / "tables" / f"{name}.csv"
    assert path.read_text().splitlines()[1].startswith('"')  # Arrow quotes string values
    written = pd.read_csv(path, keep_default_na=False, na_values=[""])
    assert list(written.columns) == list(expected.columns) and len(written) == len(expected)
    for column in expected.columns:
        if expected[column].dtype.kind in "fi":
            np.testing.assert_allclose(written[column], expected[column], rtol=0, atol=0)
        else:
            assert (
                written[column].fillna("").astype(str).tolist()
                == expected[column].astype(str).tolist()
            ), column
