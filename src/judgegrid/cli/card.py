"""The decision card at the end of `judgegrid run` and `judgegrid report`: a table with colour in
a terminal, the same columns as plain aligned text when piped (``outputs.terminal_card`` fits
both to 120 columns)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judgegrid import api


def print_card(run_dir: Path) -> None:
    """The card of ``run_dir``, as its report wrote it."""
    card = api.terminal_card(run_dir)
    if not sys.stdout.isatty():
        typer.echo("\n" + "\n".join(card.plain_lines()))
        return
    console = Console(width=api.CARD_WIDTH, highlight=False)
    console.print()
    console.print(
        _table(
            card.rows, card.widths, "decision per metric  (basis: people > pairs > probes > judges)"
        )
    )
    if card.probes:
        console.print(
            _table(
                card.probes,
                card.probe_widths,
                "probes: directional probes detected (+k: rose on injection)",
            )
        )
    console.print()
    for note in card.notes:
        console.print(note, style="dim", soft_wrap=True)


def _table(rows: list[tuple[str, ...]], widths: list[int], title: str) -> Table:
    """The fitted rows; each column exactly as wide as ``terminal_card`` made it."""
    table = Table(
        box=box.SIMPLE_HEAD,
        title=title,
        title_justify="left",
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    for header, width in zip(rows[0], widths, strict=True):
        table.add_column(header, no_wrap=True, min_width=width, max_width=width)
    for row in rows[1:]:
        table.add_row(*(_styled(k, cell) for k, cell in enumerate(row)))
    return table


def _styled(column: int, cell: str) -> str:
    if column == 1 and cell and cell != api.NO_VERDICT:
        return f"[bold green]{escape(cell)}[/]"
    if column == 5 and cell:
        return f"[yellow]{escape(cell)}[/]"
    return escape(cell)
