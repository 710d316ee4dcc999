"""`judgegrid plan`: calls, tokens, cost and time of a run before it is made."""

from __future__ import annotations

from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import (
    DEFAULT_MATRIX,
    ColumnsOption,
    ListDelimiterOption,
    MatrixArgument,
    ProbesOption,
    default_matrix,
    fail,
    reading,
)
from judgegrid.core.errors import InputError


def plan(
    matrix: MatrixArgument = DEFAULT_MATRIX,
    dataset: Annotated[
        str | None,
        typer.Option("--dataset", "-d", help="Data set; overrides the matrix's dataset."),
    ] = None,
    columns: ColumnsOption = None,
    list_delimiter: ListDelimiterOption = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=1, help="Plan only the first N samples."),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Plan as `run --no-cache`: no cache hits.")
    ] = False,
    probes: ProbesOption = False,
) -> None:
    """Calls, tokens, cost and time a run would take, per judge and step, and the calls the
    cross-run cache would answer; calls no model and needs no API key."""
    try:
        read = reading(limit, no_cache, columns, list_delimiter, probes)
        grid_plan = api.plan_grid(default_matrix(matrix), dataset, **read)
    except InputError as exc:
        fail(exc)
    typer.echo(api.render_plan(grid_plan))
