"""`judgegrid report`: a run's outputs rebuilt from its database; no model is called."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import MarginOption, fail
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
    """Rebuild summary.md, tables/*.csv and report.html of a run from its database (for a
    judgegrid pairs directory: every aspect run and pairs_summary.md); calls no model."""
    try:
        paths = api.rebuild_report(run_dir, margin, blind_only, read_ahead=context.obj)
    except InputError as exc:
        fail(exc)
    typer.echo(paths[0].read_text(encoding="utf-8"))  # summary.md, or pairs_summary.md
    if len(paths) > 1:
        typer.echo("outputs: " + ", ".join(str(p) for p in paths))
