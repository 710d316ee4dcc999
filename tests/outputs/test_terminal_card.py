"""The terminal card fitted to any width: no line wider than the terminal, no figure cut, and
names cut only where they stay distinct."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegrid.analyses.decision.card import CARD_COLUMNS, NOT_ABOVE_CHANCE
from judgegrid.outputs.terminal_card import CARD_WIDTH, Shortener, card_of

# a figure as a person reads it: 0.75, 12, 11/16 (a cut "11/1…" is another token)
NUMBER = re.compile(r"\d+(?:[./]\d+)*")
RUN = Path("reports/20261125-101500-local")
FLAGGED = " (flagged: obeys a note to the evaluator)"
REAL_NAMES = ["smollm2-135m", "gemma-270m", "e5-small", "minilm", "gpt-4o-mini", "claude-3-5"]

word = st.from_regex(r"[a-z][a-z-]{0,11}[a-z]", fullmatch=True)
long_word = st.from_regex(r"[a-z][a-z0-9-]{40,80}[a-z]", fullmatch=True)
part = st.one_of(st.sampled_from(REAL_NAMES), word, long_word)
judge_name = st.one_of(
    part,
    st.builds(lambda a, b: f"jury({a} + {b})", part, part),
    st.builds(lambda j, e, d: f"{j} / {e}@{d}", part, part, st.sampled_from([64, 128, 384])),
)
count = st.integers(0, 999)


@st.composite
def flag(draw: Any, judges: list[str]) -> tuple[str, list[str]]:
    """A flag as the card's CSV holds it, and the figures in it."""
    judge = draw(st.sampled_from(judges))
    a, b = draw(count), draw(st.integers(1, 999))
    kind = draw(st.sampled_from(["injection", "failed", "wording", "logprobs"]))
    words = {
        "injection": f"injection {a}/{b}",
        "failed": f"{a}% failed",
        "wording": f"wording changes verdict {a}/{b}",
        "logprobs": f"no logprobs {a}/{b}",
    }[kind]
    return f"{judge}: {words}", NUMBER.findall(words)


@st.composite
def verdict(draw: Any, judges: list[str]) -> tuple[str, str, list[str]]:
    """A verdict in each of the forms the card writes, the judge it names, and the counts its
    short form gives."""
    pick, *others = judges
    kind = draw(st.sampled_from(["none", "named", "set", "alone", "margin"]))
    tied = others[: draw(st.integers(1, max(len(others), 1)))]
    unproven = others[len(tied) :]
    if kind == "none" or not others:
        return "no verdict", draw(st.sampled_from(["", pick])), []
    flagged = FLAGGED if draw(st.booleans()) else ""
    if kind == "named":
        return pick + flagged, pick, []
    if kind == "margin":
        return f"{pick} (within 0.05 of {others[0]}; the cheapest){flagged}", pick, []
    left = f"; {' and '.join(unproven)}{NOT_ABOVE_CHANCE}" if unproven else ""
    if kind == "alone" and unproven:
        return f"{pick}{left}{flagged}", pick, [str(len(unproven))]
    words = f"{' or '.join([*tied, pick])}: not separated; take {pick} (the cheapest){left}"
    counts = [str(len(tied) + 1)] + ([str(len(unproven))] if unproven else [])
    return words + flagged, pick, counts


@st.composite
def card_record(draw: Any, metric: str) -> tuple[dict[str, Any], list[str]]:
    """One metric's row of decision_card.csv, and every figure the card must show whole."""
    judges = draw(st.lists(judge_name, min_size=1, max_size=20, unique=True))
    words, pick, counts = draw(verdict(judges))
    value, low, high = (draw(st.floats(-1, 1)) for _ in range(3))
    top = draw(st.one_of(st.just(""), st.floats(-1, 1)))
    n = draw(st.integers(1, 100_000))
    flags = draw(st.lists(flag(judges), max_size=6))
    state, state_figures = draw(label_state(judges))
    record = dict.fromkeys(CARD_COLUMNS, "")
    record |= {
        "metric": metric,
        "verdict": words,
        "judge": pick,
        "basis": draw(st.sampled_from(["people", "preference pairs", "probes", "other judges"])),
        "measure": draw(st.sampled_from(["rho", "tau-b", "accuracy", "detection"])),
        "value": value,
        "low": low,
        "high": high,
        "top_value": top,
        "n": n,
        "flags": "; ".join(f for f, _ in flags),
        "label_state": state,
    }
    figures = [f"{x:.2f}".lstrip("-") for x in (value, low, high)] + [str(n)]
    figures += [f"{top:.2f}".lstrip("-")] if top != "" else []
    figures += counts + state_figures
    return record, figures + [x for _, numbers in flags for x in numbers]


@st.composite
def label_state(draw: Any, judges: list[str]) -> tuple[str, list[str]]:
    """A labelling state line as the card's CSV holds it (empty: nothing labelled), and the
    counts in it."""
    labels, more = draw(st.integers(1, 9999)), draw(st.integers(1, 9999))
    leader, *others = judges
    kind = draw(st.sampled_from(["none", "leads", "named"]))
    if kind == "none":
        return "", []
    if kind == "named" or not others:
        return (
            f"{labels} labels · {leader} is better than {', '.join(others)} and chance",
            [str(labels)],
        )
    rest = ", ".join(others)
    line = f"{labels} labels · {leader} leads {rest}, not yet separated · about {more} more"
    return line, [str(labels), str(more)]


@st.composite
def cards(draw: Any) -> tuple[list[dict[str, Any]], pd.DataFrame, list[str], list[str]]:
    """A card's rows, its probes' brief, the figures of its rows and those of its probe grid."""
    metrics = draw(
        st.lists(
            st.one_of(st.sampled_from(["faithfulness", "response_relevancy"]), word, long_word),
            min_size=1,
            max_size=8,
            unique=True,
        )
    )
    drawn = [draw(card_record(m)) for m in metrics]
    judges = draw(st.lists(judge_name, max_size=8, unique=True))
    brief = [
        {
            "metric": m,
            "judge": j,
            "probes": draw(st.integers(1, 999)),
            "detected": draw(count),
            "injection_rose": draw(count),
            "flagged": draw(st.booleans()),
        }
        for m in metrics
        for j in judges
    ]
    grid = [
        f"{r['detected']}/{r['probes']}"
        + (f" +{r['injection_rose']}" if r["injection_rose"] else "")
        for r in brief
    ]
    return [r for r, _ in drawn], pd.DataFrame(brief), [x for _, f in drawn for x in f], grid


def _tokens(lines: list[str]) -> Counter[str]:
    return Counter(NUMBER.findall("\n".join(lines)))


def _missing(figures: list[str], lines: list[str]) -> Counter[str]:
    """The figures not shown whole, as many times as the card holds them."""
    return Counter(figures) - _tokens(lines)


@settings(max_examples=100, deadline=None)
@given(cards(), st.one_of(st.sampled_from([80, 100, 120]), st.integers(60, 200)))
def test_every_line_fits_the_width_and_every_figure_is_shown_whole(card, width):
    records, brief, figures, grid = card
    lines = card_of(records, brief, RUN).plain_lines(width)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= width, text
    assert not _missing(figures, lines), text
    if "probes: directional probes detected" in text:  # the grid is drawn: its cells whole
        assert not _missing([x for cell in grid for x in NUMBER.findall(cell)], lines), text
    elif not brief.empty:
        assert "Probes section" in " ".join(text.split())  # else a pointer to it


@settings(max_examples=100, deadline=None)
@given(st.lists(long_word, min_size=2, max_size=30, unique=True), st.integers(6, 40))
def test_a_cut_name_stands_for_one_name_alone(names, width):
    """Each cut form could be read as one of the names only: never two names the same."""
    short = Shortener(names)
    for name in names:
        form = short.fit(name, width)
        if form is None:  # no cut tells it apart: it is shown whole over lines
            continue
        assert len(form) <= width
        head, _, tail = form.partition("…")
        readable = [n for n in names if _could_be(n, head, tail)] if "…" in form else [form]
        assert readable == [name], (form, readable)


def _could_be(name: str, head: str, tail: str) -> bool:
    return len(name) > len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def test_a_cut_never_splits_a_run_of_digits():
    names = ["judge-2025-11-28-v12345", "judge-2025-11-28-v99999"]
    for width in range(6, 24):
        for name in names:
            form = Shortener(names).fit(name, width)
            if form is None:  # too narrow to tell them apart without cutting digits
                assert width < len("judge…v12345"), width
                continue
            if "…" not in form:  # it fits whole
                assert form == name and len(name) <= width
                continue
            head, _, tail = form.partition("…")
            assert not head[-1:].isdigit(), form
            cut_at = len(name) - len(tail)
            assert not (tail[:1].isdigit() and name[cut_at - 1].isdigit()), form


def _demo_card() -> list[dict[str, Any]]:
    """The demo's response_relevancy row: a top alone with five left out, and three flags."""
    record = dict.fromkeys(CARD_COLUMNS, "")
    others = [
        "gemma-270m / minilm",
        "jury(smollm2-135m + gemma-270m) / minilm",
        "jury(smollm2-135m + gemma-270m) / e5-small",
        "smollm2-135m / e5-small",
        "smollm2-135m / minilm",
    ]
    record |= {
        "metric": "response_relevancy",
        "verdict": f"gemma-270m / e5-small; {' and '.join(others)}{NOT_ABOVE_CHANCE}{FLAGGED}",
        "judge": "gemma-270m / e5-small",
        "basis": "designed contrasts",
        "measure": "accuracy",
        "value": 1.0,
        "low": 0.6756,
        "high": 1.0,
        "n": 8,
        "flags": "gemma-270m: injection 11/16; jury(smollm2-135m + gemma-270m): injection 10/16; "
        "smollm2-135m: injection 4/16",
    }
    return [record]


STATE = (
    "23 labels · pass/fail at 0.5: gemma-270m / e5-small leads smollm2-135m / e5-small, "
    "not yet separated · about 15 more"
)


def _labelled_card() -> list[dict[str, Any]]:
    """The demo's row with people's labels on its samples: the card's labelling state."""
    return [record | {"label_state": STATE} for record in _demo_card()]


def test_the_labelling_state_is_shown_under_its_metric_at_any_width():
    """The line summary.md and report.html give (judges named) is on the terminal's card too,
    whole over lines, in the stacked card and in the table alike; a metric nobody labelled
    has none."""
    for width in (60, 80, 120):
        lines = card_of(_labelled_card(), pd.DataFrame(), RUN).plain_lines(width)
        text = " ".join(" ".join(lines).split())
        assert f"labelling: {STATE}" in text, "\n".join(lines)
        assert max(len(line) for line in lines) <= width
        start = next(k for k, line in enumerate(lines) if "labelling:" in line)
        assert lines[start].startswith("  "), lines[start]  # under its metric, not a row
        flag = next(k for k, line in enumerate(lines) if "! gemma-270m: injection" in line)
        assert start < flag  # the state before the flags
    unlabelled = card_of(_demo_card(), pd.DataFrame(), RUN).plain_lines(120)
    assert not any("labelling:" in line for line in unlabelled)


def test_at_80_columns_the_card_stacks_each_metric_over_its_figures():
    lines = card_of(_demo_card(), pd.DataFrame(), RUN).plain_lines(80)
    start = lines.index("response_relevancy")
    below = lines[start + 1 :]
    assert below[0].startswith("  gemma-270m / e5-small (alone clear of chance; 5 others")
    assert "  contrasts · acc 1.00 [0.68, 1.00] · n 8" in below
    for shown in ("gemma-270m: injection 11/16", "smollm2-135m: injection 4/16"):
        assert f"  ! {shown}" in below
    assert "  ! jury(smollm2-135m + gemma-270m): injection 10/16" in below


def test_at_120_columns_the_card_is_a_table_with_the_flags_under_its_row():
    lines = card_of(_demo_card(), pd.DataFrame(), RUN).plain_lines(120)
    header = next(line for line in lines if line.startswith("metric "))
    assert header.split() == ["metric", "verdict", "basis", "figure", "(95%", "CI)", "n"]
    row = next(line for line in lines if line.startswith("response_relevancy "))
    assert "gemma-270m / e5-small" in row and "acc 1.00 [0.68, 1.00]" in row
    indent = " " * header.index("verdict")
    assert f"{indent}! jury(smollm2-135m + gemma-270m): injection 10/16" in lines
    assert max(len(line) for line in lines) <= CARD_WIDTH


def test_a_wider_terminal_gets_the_120_column_card_and_a_narrow_one_the_narrowest():
    card = card_of(_demo_card(), pd.DataFrame(), RUN)
    assert card.plain_lines(200) == card.plain_lines(CARD_WIDTH)
    assert card.plain_lines(10) == card.plain_lines(40)


def test_the_footers_label_command_carries_the_margin_the_card_was_decided_with():
    """A card made by ``report --margin 0.1``: pasting the footer's command gives a page that
    asks what the card asked (``label`` alone reads only the matrix's margin)."""
    plain, under = _demo_card(), _demo_card()
    plain[0]["next_step"] = "judgegrid label RUN --metric response_relevancy --n 40"
    under[0]["next_step"] = plain[0]["next_step"] + " --margin 0.1"
    under = [record | {"margin": 0.1} for record in under]
    footers = [card_of(c, pd.DataFrame(), RUN).plain_lines(120)[-1] for c in (plain, under)]
    assert footers[0].endswith(f"label samples: judgegrid label {RUN}")
    assert footers[1].endswith(f"label samples: judgegrid label {RUN} --margin 0.1")
    unasked = card_of(_demo_card(), pd.DataFrame(), RUN).plain_lines(120)[-1]
    assert unasked.startswith("every figure and test behind a verdict")  # no label step: none
