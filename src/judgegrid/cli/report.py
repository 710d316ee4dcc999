"""`judgegrid report`: a run's outputs rebuilt from its database; no model is called."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.card import print_card
from judgegrid.cli.common import MarginOption, fail, terminal_columns
from judgegrid.core.errors import InputError


def report(
    context: typer.Context,
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory (holds run.sqlite), or one of judgegrid pairs.")
    ],
    margin: MarginOption = None,
    blind_only: Annotated[
        bool,
        typer.Option(
            "--blind-only",
            help="Leave out labels given with the judges shown (judgegrid label --show-judges).",
        ),
    ] = False,
) -> None:
    """Rebuild summary.md, tables/*.csv and report.html of a run from its database, and print
    its decision card (for a judgegrid pairs directory: every aspect run, and pairs_summary.md
    printed); calls no model."""
    try:
        paths = api.rebuild_report(run_dir, margin, blind_only, read_ahead=context.obj)
    except InputError as exc:
        fail(exc)
    if api.is_pairs_dir(run_dir):
        summary = paths[0].read_text(encoding="utf-8")  # pairs_summary.md
        typer.echo(api.markdown_for_terminal(summary, terminal_columns()))
        return
    typer.echo("\n".join(listed("outputs:", [str(p) for p in paths], terminal_columns())))
    print_card(paths[0].parent)


def listed(lead: str, items: list[str], width: int) -> list[str]:
    """``lead`` and the items on one line when it fits ``width``, else each item on a line of
    its own beneath it (a path is never cut)."""
    line = f"{lead} {', '.join(items)}"
    return [line] if len(line) <= width else [lead, *(f"  {item}" for item in items)]
