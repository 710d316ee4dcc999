"""The decision card in the terminal: fitted to the terminal's width (120 columns at most),
piped or not."""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.analyses.decision.card import CARD_COLUMNS
from judgegrid.cli import app
from judgegrid.cli.card import print_card
from judgegrid.outputs.card_short import card_row
from judgegrid.outputs.terminal_card import CARD_WIDTH, card_of, probe_grid, terminal_card

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG = "scripted/a-judge-whose-name-goes-on-and-on-like-a-gateway-route-v2"
NUMBER = re.compile(r"\d+(?:[./]\d+)*")  # 0.75, 12, 11/16: a cut "11/1…" is another token


@pytest.fixture(scope="module")
def demo_like_run(tmp_path_factory):
    """A finished scripted run named as the demo's (two small judges, their jury, two
    embedding models, every probe), in a folder a test can work in: ``root/run``."""
    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    root = tmp_path_factory.mktemp("demo-like")
    matrix = matrix_dict(
        judges=[
            {"id": "scripted/smollm2-135m", "label": "smollm2-135m"},
            {"id": "scripted/gemma-270m", "label": "gemma-270m"},
        ],
        juries=[["smollm2-135m", "gemma-270m"]],
        embeddings=[
            {"id": "scripted/bow", "label": "e5-small", "dimensions": [64]},
            {"id": "scripted/bow2", "label": "minilm", "dimensions": [64]},
        ],
        probes="all",
        strictness=[1],
    )
    (root / "matrix.yaml").write_text(yaml.safe_dump(matrix, sort_keys=False))
    run_grid(root / "matrix.yaml", run_dir=root / "run", limit=6)
    return root


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
    result = CliRunner().invoke(app, ["report", str(long_named_run)], env={"COLUMNS": "120"})
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
    monkeypatch.setenv("COLUMNS", "120")
    print_card(long_named_run)
    lines = _card_lines(capsys.readouterr().out)
    assert _widest(lines, long_named_run) <= CARD_WIDTH, "\n".join(lines)
    assert sum(1 for line in lines if line.lstrip().startswith("faithfulness")) >= 1


def _card_figures(run_dir) -> Counter[str]:
    """Every figure the card's table holds: each verdict's figure with its interval and n, and
    the figures of each flag (``injection 11/16``), as many times as it holds them."""
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv", keep_default_na=False)
    figures: Counter[str] = Counter()
    for record in card.to_dict("records"):
        for column in ("value", "low", "high", "top_value"):
            if record[column] != "":
                figures[f"{float(record[column]):.2f}".lstrip("-")] += 1
        if record["n"] != "":
            figures[str(int(float(record["n"])))] += 1
        for flag in str(record["flags"]).split("; "):
            figures.update(NUMBER.findall(flag.partition(": ")[2]))
    return +figures


@pytest.mark.parametrize("columns", [80, 120])
def test_report_fits_the_terminal_and_shows_every_figure_whole(demo_like_run, monkeypatch, columns):
    monkeypatch.chdir(demo_like_run)  # the run named as a user in its folder names it: "run"
    result = CliRunner().invoke(app, ["report", "run"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns, result.stdout
    assert not re.search(r"\d…", result.stdout), result.stdout  # no number cut
    figures = _card_figures(demo_like_run / "run")
    assert any(k.count("/") for k in figures), figures  # the run has flags with their counts
    assert not figures - Counter(NUMBER.findall(result.stdout)), result.stdout


@pytest.mark.parametrize("columns", [80, 120])
def test_the_card_in_a_terminal_fits_it_too(demo_like_run, monkeypatch, capsys, columns):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", str(columns))
    print_card(demo_like_run / "run")
    lines = _card_lines(capsys.readouterr().out)
    assert _widest(lines, demo_like_run / "run") <= columns, "\n".join(lines)
    assert any(line.startswith("response_relevancy") for line in lines)


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
        "mid (1 of 2 not separated; 1 more not clear of chance)",
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
    assert card_row(alone)[1] == "strong (alone clear of chance; 2 others not separated)"
    flagged = alone | {"verdict": alone["verdict"] + " (flagged: obeys a note to the evaluator)"}
    assert card_row(flagged)[1] == (
        "strong (alone clear of chance; 2 others not separated) "
        "(flagged: obeys a note to the evaluator)"
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


def test_a_word_too_long_for_its_column_is_cut_in_the_middle_and_short_columns_never(tmp_path):
    record = _record(
        verdict="x" * 150 + "-v2", judge="x" * 150 + "-v2", value=0.5, low=0.1, high=0.9
    )
    lines = card_of([record], pd.DataFrame(), tmp_path).plain_lines(100)
    assert max(len(line) for line in lines) <= 100
    row = next(line for line in lines if line.startswith("faithfulness "))
    _, verdict, *rest = row.split()
    assert verdict.startswith("xxxx") and "…" in verdict and verdict.endswith("x-v2")
    assert rest == ["people", "rho", "0.50", "[0.10,", "0.90]", "12"]


def _brief(judges: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["faithfulness"] * judges,
            "judge": [f"judge-number-{k}" for k in range(judges)],
            "probes": 4,
            "detected": 3,
            "injection_rose": 0,
            "flagged": False,
        }
    )


def test_a_probe_grid_too_wide_gives_way_to_a_pointer(tmp_path):
    brief = _brief(20)  # 20 columns: at least 8 characters each, with the gap
    assert probe_grid(brief.head(2))[1] == ("faithfulness", "3/4", "3/4")
    text = "\n".join(card_of([_record()], brief, tmp_path).plain_lines(120))
    assert "probes: directional" not in text and "(probes: its Probes section)" in text
    text = "\n".join(card_of([_record()], brief.head(2), tmp_path).plain_lines(120))
    assert "probes: directional" in text and "Probes section" not in text


def test_a_probe_grid_cuts_its_judges_names_to_fit_not_its_cells(tmp_path):
    text = "\n".join(card_of([_record()], _brief(5), tmp_path).plain_lines(60))
    header = next(line for line in text.splitlines() if line.startswith("metric "))
    assert len(header) <= 60 and header.count("…") == 5
    assert "faithfulness  3/4" in text


def test_a_run_without_probes_is_not_pointed_at_a_probes_section(tmp_path):
    """The report writes probes_brief.csv, its header alone, for a run with no probes (an
    HTTP-served or criteria run): the footer once sent the reader to a Probes section that has
    nothing to show."""
    tables = tmp_path / "tables"
    tables.mkdir()
    pd.DataFrame([_record(verdict="judge-a", judge="judge-a")]).to_csv(
        tables / "decision_card.csv", index=False
    )
    _brief(0).to_csv(tables / "probes_brief.csv", index=False)
    assert (tables / "probes_brief.csv").read_text().startswith("metric,judge")
    text = " ".join(" ".join(terminal_card(tmp_path).plain_lines(120)).split())
    assert "every figure and test behind a verdict: summary.md and report.html in" in text
    assert "Probes section" not in text
    _brief(20).to_csv(tables / "probes_brief.csv", index=False)  # too wide to draw: pointed at
    text = " ".join(" ".join(terminal_card(tmp_path).plain_lines(120)).split())
    assert "(probes: its Probes section)" in text
