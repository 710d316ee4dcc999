"""The run's score by people's standard through the products: `judgegrid export --format
true-score`, tables/true_score.csv and summary.md's section, on an imported run (a long table:
two judges on every sample, people's labels on a few), each figure checked against ppi_py on
the arrays built here from the file itself."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import ppi_py
import pytest
from typer.testing import CliRunner

from judgegrid import api
from judgegrid.cli import app

runner = CliRunner()
SAMPLES, LABELLED = 200, 40


def long_table(path: Path) -> pd.DataFrame:
    """A lenient judge, a noisy one and a person, one row a verdict (the person's rows are
    ``source: people``)."""
    rng = np.random.default_rng(43)
    truth = rng.beta(3, 2, SAMPLES)
    rows = []
    for i, t in enumerate(truth):
        sid = f"s{i:03d}"
        lenient = float(np.clip(t + 0.2 + rng.normal(0, 0.05), 0, 1))
        noisy = float(np.clip(t + rng.normal(0, 0.3), 0, 1))
        rows += [
            {"sample_id": sid, "judge": "lenient", "metric": "faithfulness", "score": lenient},
            {"sample_id": sid, "judge": "noisy", "metric": "faithfulness", "score": noisy},
        ]
        if i < LABELLED:
            rows.append(
                {"sample_id": sid, "judge": "ann", "metric": "faithfulness",
                 "score": float(round(t, 2)), "source": "people"}
            )  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


@pytest.fixture
def imported(tmp_path) -> tuple[Path, pd.DataFrame]:
    frame = long_table(tmp_path / "verdicts.csv")
    api.import_verdicts(tmp_path / "verdicts.csv", tmp_path / "run", format="long")
    return tmp_path / "run", frame


def _expected(frame: pd.DataFrame, judge: str) -> tuple[float, float, float]:
    mine = frame[frame["judge"] == judge].set_index("sample_id")["score"]
    people = frame[frame["source"] == "people"].set_index("sample_id")["score"]
    rest = mine.drop(people.index).to_numpy()  # PPI's unlabelled set: the other samples
    point = ppi_py.ppi_mean_pointestimate(people.to_numpy(), mine[people.index].to_numpy(), rest)
    low, high = ppi_py.ppi_mean_ci(
        people.to_numpy(), mine[people.index].to_numpy(), rest, alpha=0.05
    )
    return float(np.ravel(point)[0]), float(np.ravel(low)[0]), float(np.ravel(high)[0])


def test_export_true_score_through_the_cli_equals_ppi_py(imported, tmp_path):
    run_dir, frame = imported
    out = tmp_path / "true.csv"
    result = runner.invoke(
        app, ["export", str(run_dir), "--format", "true-score", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "2 rows written" in result.output
    table = pd.read_csv(out)
    assert list(table["judge"]) == ["lenient", "noisy"]
    assert table["system"].isna().all()  # no pairwise criterion here
    for _, row in table.iterrows():
        point, low, high = _expected(frame, row["judge"])
        assert row["corrected"] == pytest.approx(point, abs=1e-9)
        assert (row["corrected_low"], row["corrected_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["scored"] == SAMPLES and row["labels"] == LABELLED
        assert row["judge_mean"] == pytest.approx(
            frame.loc[frame["judge"] == row["judge"], "score"].mean()
        )
    lenient = table.set_index("judge").loc["lenient"]
    assert lenient["judge_mean"] - lenient["corrected"] > 0.15  # its leniency, taken out
    assert lenient["effective_labels"] > 4 * LABELLED


def test_the_report_writes_the_table_and_its_section(imported):
    run_dir, frame = imported
    api.rebuild_report(run_dir)
    table = pd.read_csv(run_dir / "tables" / "true_score.csv")
    assert set(table["judge"]) == {"lenient", "noisy"}
    summary = (run_dir / "summary.md").read_text(encoding="utf-8")
    assert "## Your system's score by people's standard" in summary
    point, low, high = _expected(frame, "lenient")
    assert f"{point:.3f} [{low:.3f}, {high:.3f}]" in summary
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "score by people" in page and "tables/true_score.csv" in page
    decision = summary.split("## Decision", 1)[1].split("\n## ", 1)[0]
    assert f"by people's standard {point:.2f} [{low:.2f}, {high:.2f}]" in decision


def test_an_unknown_format_names_every_format(imported):
    run_dir, _ = imported
    result = runner.invoke(app, ["export", str(run_dir), "--format", "nope"])
    assert result.exit_code != 0
    assert "true-score" in result.output
