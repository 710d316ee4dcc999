"""`judgegrid init`: write a first, commented matrix for one's own models and data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import OverwriteOption, fail
from judgegrid.core.errors import InputError


def init(
    path: Annotated[
        Path,
        typer.Argument(
            help="Where to write the matrix (its folder made if missing; refused if it exists, "
            "unless --overwrite)."
        ),
    ] = Path(api.INIT_NAME),
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            "-d",
            help="Your data set: the matrix names it and the columns: mapping detected in it.",
        ),
    ] = None,
    spring: Annotated[
        Path | None,
        typer.Option(
            "--from",
            help="A Spring AI application.yaml to translate into a judgegrid matrix, or a "
            "promptfooconfig.yaml whose llm-rubric, g-eval and model-graded-closedqa assertions "
            "become criteria and whose tests' vars become the data set (thresholds are said, "
            "not carried).",
        ),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Write a commented starter matrix: judges and embeddings from the providers whose keys
    are set (else the embedded local models), and a data-set template unless --dataset; with
    --from, the models of a Spring AI file or the rubrics and tests' vars of a promptfoo config
    (what it holds that a matrix cannot, such as a threshold, said on stderr)."""
    try:
        starter = api.init_matrix(path, dataset=dataset, spring=spring, overwrite=overwrite)
    except InputError as exc:
        fail(exc)
    typer.echo(f"wrote {starter.matrix} (models: {'; '.join(starter.chosen)})")
    if starter.template is not None:
        typer.echo(f"wrote {starter.template} (two sample rows to replace with yours)")
    if starter.samples is not None:
        typer.echo(f"wrote {starter.samples} ({starter.sample_count} samples from the tests' vars)")
    for line in starter.notices:
        typer.echo(line, err=True)
    typer.echo(f"next: judgegrid validate {starter.matrix} && judgegrid plan {starter.matrix}")
