"""`judgegrid pairs`: human-preference pairs scored, each judge's accuracy per aspect."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import (
    EXIT_INTERRUPTED,
    ProgressBar,
    ProgressOption,
    fail,
    stop_on_sigterm,
    terminal_columns,
)
from judgegrid.core.errors import InputError


def pairs(
    matrix: Annotated[Path, typer.Argument(help="Model matrix YAML (judges, embeddings).")],
    pairs_file: Annotated[
        Path, typer.Option("--pairs", help="Human-preference pairs (JSONL, WikiEval format).")
    ],
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="Only the first N pairs.")
    ] = None,
    repeats: Annotated[
        int | None, typer.Option("--repeats", min=1, help="Override the matrix's repeats.")
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option("--judge", help="Only this judge (its label); repeat for several."),
    ] = None,
    reports_dir: Annotated[
        Path, typer.Option("--reports-dir", help="Where the run directory is made.")
    ] = Path("reports"),
    progress: ProgressOption = True,
) -> None:
    """Score human-preference pairs and report each judge's accuracy per aspect."""
    stop_on_sigterm()
    bar = ProgressBar(progress)
    try:
        result = api.run_pairs(
            matrix,
            pairs_file,
            reports_dir=reports_dir,
            limit=limit,
            repeats=repeats,
            judges=judge,
            on_progress=bar.update,
        )
    except InputError as exc:
        fail(exc)
    except KeyboardInterrupt:
        bar.close()
        typer.echo(
            "\ninterrupted: finished cells are saved in the aspect run directories; "
            "finish each with judgegrid run --resume DIR",
            err=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    summary = (result.run_dir / "pairs_summary.md").read_text(encoding="utf-8")
    outputs = (
        f"outputs: {result.run_dir}/pairs_summary.md, pairs_accuracy.csv, and one run "
        f"directory per aspect: {', '.join(result.aspect_runs)}"
    )
    typer.echo(api.markdown_for_terminal(f"{summary}\n{outputs}", terminal_columns()), nl=False)
