"""The decision card's options end to end: juries and a margin in the matrix, --margin on run
and report."""

from __future__ import annotations

import pandas as pd
import yaml
from typer.testing import CliRunner

from judgegrid.cli import app

runner = CliRunner()


def test_a_jury_and_a_margin_reach_the_tables_the_report_and_the_card(tmp_path, write_matrix):
    matrix = write_matrix(
        metrics=["faithfulness"],
        embeddings=[],
        strictness=[1],
        repeats=1,
        juries=True,
        decision={"margin": 0.1},
    )
    reports = tmp_path / "reports"
    args = ["run", str(matrix), "--reports-dir", str(reports), "--no-progress", "--limit", "6"]
    result = runner.invoke(app, [*args, "--margin", "0.2"])
    assert result.exit_code == 0, result.output
    (run_dir,) = reports.iterdir()
    resolved = yaml.safe_load((run_dir / "matrix.resolved.yaml").read_text())
    assert resolved["decision"]["margin"] == 0.2 and resolved["juries"] is True
    summary = pd.read_csv(run_dir / "tables" / "config_summary.csv")
    assert set(summary["judge"]) == {"a", "b", "jury(a + b)"}
    scores = pd.read_csv(run_dir / "scores.csv")
    assert "jury(a + b)" not in set(scores["judge"])  # no call, no cell of its own
    assert "jury(a + b)" in (run_dir / "summary.md").read_text()
    assert "jury(a + b)" in (run_dir / "report.html").read_text()
    rebuilt = runner.invoke(app, ["report", str(run_dir), "--margin", "0.05", "--blind-only"])
    assert rebuilt.exit_code == 0, rebuilt.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv")
    assert "by agreement only" not in " ".join(card["verdict"].astype(str))
    assert set(card["margin"]) == {0.05}  # the card says what it was decided with
    # the terminal card's footer carries it on to the label command it suggests
    assert card["next_step"].astype(str).str.startswith("judgegrid label").any()
    assert f"judgegrid label {run_dir} --margin 0.05" in " ".join(rebuilt.output.split())
    unset = runner.invoke(app, ["report", str(run_dir), "--blind-only"])
    assert unset.exit_code == 0, unset.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv")
    # the matrix's own margin (0.2, from run --margin), which report reads without the option
    assert set(card["margin"]) == {0.2}
