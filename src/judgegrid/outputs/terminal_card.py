"""The decision card as a person reads it in a terminal: one row per metric, 120 columns at most.

summary.md and report.html keep every figure and test behind a verdict; the terminal gets what a
person takes in at a glance (the metric, the verdict, its basis, the one figure it rests on with
its n, the flags) and a pointer to the rest. The probes come as one grid (metric x judge, the
directional probes detected) when it fits, else as a one-line pointer. Cells too long for their
column end in an ellipsis; the full text is in the files the footer names.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from judgegrid.outputs.card_short import card_row, number
from judgegrid.outputs.report import TABLES_DIR

CARD_WIDTH = 120
CARD_HEADER = ("metric", "verdict", "basis", "figure (95% CI)", "n", "flags")
# Columns that give way first when a row is too wide, widest first (metric, basis, figure and n
# are short and are never cut).
_SHRINKABLE = (1, 5)
_GAP = 2


@dataclass(frozen=True)
class TerminalCard:
    """A card fitted to ``CARD_WIDTH``: its rows, the probes' grid (or a pointer), the footer."""

    rows: list[tuple[str, ...]]  # the header first
    widths: list[int]
    probes: list[tuple[str, ...]] = field(default_factory=list)  # the header first; or empty
    probe_widths: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def plain_lines(self) -> list[str]:
        """The card as aligned text (a pipe, a file, a terminal without colours)."""
        lines = ["decision per metric (basis, strongest first: people > pairs > probes > judges)"]
        lines += aligned(self.rows, self.widths)
        if self.probes:
            lines += ["", "probes: directional probes detected (score rose on injection)"]
            lines += aligned(self.probes, self.probe_widths)
        return [*lines, "", *self.notes]


def terminal_card(run_dir: Path) -> TerminalCard:
    """The card of a run directory, from the tables its report wrote."""
    tables = run_dir / TABLES_DIR
    card = pd.read_csv(tables / "decision_card.csv", keep_default_na=False)
    rows = [CARD_HEADER, *(card_row(r) for r in card.to_dict("records"))]
    rows, widths = fit(rows, CARD_WIDTH, _SHRINKABLE)
    probes, probe_widths = probe_grid(_read_optional(tables / "probes_brief.csv"))
    return TerminalCard(rows, widths, probes, probe_widths, footer(run_dir, card, bool(probes)))


def probe_grid(
    brief: pd.DataFrame, width: int = CARD_WIDTH
) -> tuple[list[tuple[str, ...]], list[int]]:
    """Metric x judge: directional probes detected of those scored, ``+k`` where the score rose
    on injection in k pairs (``!`` when flagged). Empty when there are no probes or the grid does
    not fit ``width``."""
    if brief.empty:
        return [], []
    judges = list(dict.fromkeys(str(j) for j in brief["judge"]))
    rows: list[tuple[str, ...]] = [("metric", *judges)]
    for metric, block in brief.groupby("metric", sort=False):
        cells = {str(r["judge"]): _probe_cell(r) for r in block.to_dict("records")}
        rows.append((str(metric), *(cells.get(j, "–") for j in judges)))
    widths = column_widths(rows)
    if sum(widths) + _GAP * (len(widths) - 1) > width:
        return [], []
    return rows, widths


def footer(run_dir: Path, card: pd.DataFrame, probes_shown: bool) -> list[str]:
    """Where the full reasons are, and the one command that would strengthen the card (the run
    directory's path is the one thing here that can make a line longer than the card)."""
    where = "every figure and test behind a verdict: summary.md and report.html"
    if not probes_shown and (run_dir / TABLES_DIR / "probes_brief.csv").exists():
        where += " (probes: its Probes section)"
    notes = [where + f" in {run_dir}"]
    steps = [str(s) for s in card.get("next_step", []) if str(s).startswith("judgegrid label")]
    if steps:
        notes.append(f"to decide more metrics, label samples: judgegrid label {run_dir}")
    return notes


def fit(
    rows: Sequence[tuple[str, ...]], width: int, shrinkable: Sequence[int]
) -> tuple[list[tuple[str, ...]], list[int]]:
    """The rows with the ``shrinkable`` columns cut (an ellipsis ends a cut cell) until a line is
    at most ``width`` characters."""
    widths = column_widths(rows)
    floor = 12
    while sum(widths) + _GAP * (len(widths) - 1) > width:
        column = max(shrinkable, key=lambda k: widths[k])
        if widths[column] <= floor:
            break
        widths[column] -= 1
    return [tuple(_cut(c, widths[k]) for k, c in enumerate(row)) for row in rows], widths


def column_widths(rows: Sequence[tuple[str, ...]]) -> list[int]:
    return [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]


def aligned(rows: Sequence[tuple[str, ...]], widths: Sequence[int]) -> list[str]:
    """Rows as left-aligned columns, a rule under the header."""
    gap = " " * _GAP
    lines = [
        gap.join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    rule = gap.join("─" * w for w in widths)
    return [lines[0], rule, *lines[1:]]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _probe_cell(record: Mapping[Hashable, object]) -> str:
    probes = number(record.get("probes")) or 0
    detected = f"{int(number(record.get('detected')) or 0)}/{int(probes)}" if probes else "–"
    rose = int(number(record.get("injection_rose")) or 0)
    if not rose:
        return detected
    return f"{detected} +{rose}{'!' if record.get('flagged') in (True, 'True') else ''}"


def _read_optional(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size <= 1:
        return pd.DataFrame()
    return pd.read_csv(path)
