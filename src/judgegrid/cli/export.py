"""`judgegrid export`: a run's scores as a table for other tools (Ragas' result table)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import OutFileOption, OverwriteOption, fail
from judgegrid.core.errors import InputError


def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="ragas: a row per sample × judge configuration, a column per metric, as Ragas' "
            "result table; wide: a row per sample, a column per metric × configuration. A "
            "criterion has a column per wording with the judge's modal answer beside it "
            "(polite, polite.answer, polite.w1, polite.w1.answer and so on). true-score: a "
            "row per labelled metric and judge: the judge's mean, people's mean on the labelled "
            "samples, the mean by people's standard (the judge corrected by the labels, PPI++) "
            "with its 95% interval and the labels it is worth; the card's judge marked.",
        ),
    ] = "ragas",
    out: OutFileOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """The run's scores as a table for the tools you have: each metric is the mean of its
    scored repeats; NaN where none scored (the failed and skipped columns count why)."""
    try:
        inputs = api.run_input_files(run_dir)
        if out is not None:
            api.check_output(out, "--out", overwrite=overwrite, inputs=inputs)
        table = api.export_run(run_dir, format)
        if out is not None:
            api.write_table(table, out, overwrite=overwrite, inputs=inputs)
    except InputError as exc:
        fail(exc)
    if out is None:
        typer.echo(api.csv_text(table), nl=False)
        return
    if format == api.TRUE_SCORE_FORMAT:
        typer.echo(f"{len(table)} rows written to {out} (true-score: a row a metric and judge)")
        return
    counts = {status: table.attrs.get(status, 0) for status in ("scored", "failed", "skipped")}
    typer.echo(
        f"{len(table)} rows written to {out} ({format}), from {counts['scored']} scored, "
        f"{counts['failed']} failed and {counts['skipped']} skipped cells; a metric is the mean "
        "of its scored repeats, NaN where none scored"
    )
