"""The decision card in the terminal: a row per metric within 120 columns, piped or not."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.analyses.decision.card import CARD_COLUMNS
from judgegrid.cli import app
from judgegrid.cli.card import print_card
from judgegrid.outputs.card_short import card_row
from judgegrid.outputs.terminal_card import CARD_WIDTH, fit, probe_grid, terminal_card

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG = "scripted/a-judge-whose-name-goes-on-and-on-like-a-gateway-route-v2"


@pytest.fixture
def long_named_run(tmp_path, write_matrix, scripted_provider):
    """Three judges, one of them with a very long name, a jury and every probe."""
    matrix = write_matrix(
        judges=[{"id": LONG}, {"id": "scripted/b"}, {"id": "scripted/c"}],
        juries=[["scripted/b", "scripted/c"]],
        probes="all",
    )
    return run_grid(matrix, "demo", run_dir=tmp_path / "run", limit=4).run_dir


def _card_lines(text: str) -> list[str]:
    start = text.index("decision per metric")
    return [ANSI.sub("", line) for line in text[start:].splitlines()]


def _widest(lines: list[str], run_dir) -> int:
    """The widest line, not counting the run directory's path (the footer names it)."""
    return max(len(line.replace(str(run_dir), "")) for line in lines)


def test_the_piped_card_fits_120_columns_and_names_every_metric(long_named_run):
    result = CliRunner().invoke(app, ["report", str(long_named_run)])
    assert result.exit_code == 0, result.output
    lines = _card_lines(result.stdout)
    assert _widest(lines, long_named_run) <= CARD_WIDTH, "\n".join(lines)
    card = pd.read_csv(long_named_run / "tables" / "decision_card.csv")
    for metric in card["metric"]:
        assert any(line.startswith(metric + " ") for line in lines), metric
    assert f"{long_named_run}/summary.md" in result.stdout
    assert "## Run-to-run stability" not in result.stdout  # summary.md stays in its file


def test_the_terminal_card_is_a_table_of_the_same_width(long_named_run, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    print_card(long_named_run)
    lines = _card_lines(capsys.readouterr().out)
    assert _widest(lines, long_named_run) <= CARD_WIDTH, "\n".join(lines)
    assert sum(1 for line in lines if line.lstrip().startswith("faithfulness")) >= 1


def _record(**fields):
    record = dict.fromkeys(CARD_COLUMNS, "")
    record.update(metric="faithfulness", basis="people", measure="rho", n=12)
    return record | fields


def test_a_row_gives_the_verdict_in_short_and_the_figure_it_rests_on():
    named = _record(verdict="judge-a", judge="judge-a", value=0.7512, low=0.31, high=0.9)
    assert card_row(named) == (
        "faithfulness",
        "judge-a",
        "people",
        "rho 0.75 [0.31, 0.90]",
        "12",
        "",
    )
    tied = _record(
        verdict="a or b or c: not separated; take b (the cheapest)",
        judge="b",
        value=0.6,
        low=0.2,
        high=0.8,
        basis="preference pairs",
        measure="accuracy",
        flags="b: 20% failed",
    )
    assert card_row(tied)[1:4] == ("b (1 of 3 not separated)", "pairs", "acc 0.60 [0.20, 0.80]")
    assert card_row(tied)[5] == "b: 20% failed"
    margin = _record(verdict="b (within 0.05 of a; the cheapest)", judge="b", value=0.5)
    assert card_row(margin)[1] == "b (within margin)"
    none = _record(verdict="no verdict", judge="", value="", basis="nothing measurable", n="")
    assert card_row(none)[1:5] == ("no verdict", "none", "–", "")
    contrasts = _record(verdict="no verdict", basis="designed contrasts", value="")
    assert card_row(contrasts)[2] == "contrasts"


def test_a_take_that_is_not_the_top_shows_its_figure_and_the_tops_value():
    take = _record(
        verdict="strong or mid: not separated; take mid (the cheapest); "
        "cheap: not separated but not above chance",
        judge="mid",
        value=11 / 12,
        low=0.65,
        high=0.99,
        top_value=1.0,
        basis="preference pairs",
        measure="accuracy",
    )
    assert card_row(take)[1:4] == (
        "mid (1 of 2 not separated, 1 more not above chance)",
        "pairs",
        "acc 0.92 [0.65, 0.99] (top 1.00)",
    )
    alone = _record(
        verdict="strong; other and cheap: not separated but not above chance",
        judge="strong",
        value=1.0,
        low=0.68,
        high=1.0,
        top_value="",
    )
    assert card_row(alone)[1] == "strong (2 not separated but not above chance)"
    flagged = alone | {"verdict": alone["verdict"] + " (flagged: obeys a note to the evaluator)"}
    assert card_row(flagged)[1] == (
        "strong (2 not separated but not above chance) (flagged: obeys a note to the evaluator)"
    )
    assert card_row(alone)[3] == "rho 1.00 [0.68, 1.00]"


def test_a_card_whose_take_is_not_the_top_still_fits_120_columns(tmp_path):
    """The widest figure (detection, an interval, the top's value) beside long judge names."""
    record = _record(
        metric="context_precision_without_reference",
        verdict=f"{LONG} or {LONG}-2: not separated; take {LONG}-2 (the cheapest); "
        f"{LONG}-3: not separated but not above chance",
        judge=f"{LONG}-2",
        basis="probes",
        measure="detection",
        value=0.75,
        low=0.41,
        high=0.93,
        top_value=1.0,
        n=1000,
        flags=f"{LONG}-2: 25% failed; {LONG}-2: injection 3/8",
    )
    (tmp_path / "tables").mkdir()
    pd.DataFrame([record], columns=CARD_COLUMNS).to_csv(tmp_path / "tables" / "decision_card.csv")
    lines = terminal_card(tmp_path).plain_lines()
    assert _widest(lines, tmp_path) <= CARD_WIDTH, "\n".join(lines)
    assert "detected 0.75 [0.41, 0.93] (top 1.00)" in lines[3]


def test_long_cells_end_in_an_ellipsis_and_short_columns_are_never_cut():
    rows = [("metric", "verdict", "basis"), ("faithfulness", "x" * 300, "people")]
    fitted, widths = fit(rows, 60, shrinkable=(1,))
    assert sum(widths) + 2 * (len(widths) - 1) <= 60
    assert fitted[1][0] == "faithfulness" and fitted[1][2] == "people"
    assert fitted[1][1].endswith("…") and len(fitted[1][1]) == widths[1]


def test_a_probe_grid_too_wide_gives_way_to_a_pointer():
    brief = pd.DataFrame(
        {
            "metric": ["faithfulness"] * 12,
            "judge": [f"judge-number-{k}" for k in range(12)],
            "probes": 4,
            "detected": 3,
            "injection_rose": 0,
            "flagged": False,
        }
    )
    assert probe_grid(brief) == ([], [])
    rows, widths = probe_grid(brief.head(2))
    assert rows[1] == ("faithfulness", "3/4", "3/4") and len(widths) == 3
