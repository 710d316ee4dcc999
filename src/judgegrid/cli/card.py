"""The decision card at the end of `judgegrid run` and `judgegrid report`, fitted to the
terminal's width (``outputs.terminal_card`` lays it out): coloured in a terminal, the same
lines as plain text when piped."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from judgegrid import api
from judgegrid.cli.common import terminal_columns

# what each piece of a card's line is, as the terminal shows it
STYLES = {
    "head": "bold",
    "rule": "dim",
    "metric": "bold",
    "verdict": "bold green",
    "flag": "yellow",
    "state": "cyan",
    "note": "dim",
}


def print_card(run_dir: Path) -> None:
    """The card of ``run_dir``, as its report wrote it, as wide as the terminal."""
    card = api.terminal_card(run_dir)
    width = terminal_columns()
    if not sys.stdout.isatty():
        typer.echo("\n" + "\n".join(card.plain_lines(width)))
        return
    console = Console(width=width, highlight=False)
    console.print()
    for line in card.lines(width):
        styled = Text.assemble(*((text, STYLES.get(kind, "")) for text, kind in line))
        console.print(styled, soft_wrap=True)
