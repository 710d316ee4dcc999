"""`judgegrid view RUN_DIR`: the app over a run on 127.0.0.1 (decision, samples, one sample,
two configurations side by side, labelling)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import fail, login_name, serve_app
from judgegrid.core.errors import InputError


def view(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")
    ] = 0,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator", help="Who labels from the app's Label page (default: your login name)."
        ),
    ] = None,
) -> None:
    """See why the judges disagree: every sample × configuration, each judge's statements,
    verdicts and calls, two configurations side by side, and labelling, in a page served on
    127.0.0.1. Reads the run; writes only the labels you give. Ctrl-C stops the server."""
    try:
        session = api.open_view(run_dir, login_name() if annotator is None else annotator)
    except InputError as exc:
        fail(exc)
    serve_app(session, port, f"viewing {session.run_dir}")
    typer.echo("\nstopped")
