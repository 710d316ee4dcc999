"""`judgegrid validate` and `judgegrid metrics`: what the inputs and the metrics are, with no
call to any model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from judgegrid import api
from judgegrid.cli.common import (
    DEFAULT_MATRIX,
    EXIT_BAD_INPUT,
    ColumnsOption,
    ListDelimiterOption,
    MatrixArgument,
    default_matrix,
    fail,
)
from judgegrid.core.errors import InputError


def validate(
    matrix: MatrixArgument = DEFAULT_MATRIX,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            "-d",
            help="Also check this data set, and show the naming scheme detected and where "
            "each field goes.",
        ),
    ] = None,
    columns: ColumnsOption = None,
    list_delimiter: ListDelimiterOption = None,
) -> None:
    """Check a matrix (fields, models, metrics, API keys) and its data set; calls no model."""
    try:
        matrix = default_matrix(matrix)
        check = api.check_inputs(matrix, dataset, api.parse_columns(columns), list_delimiter)
    except InputError as exc:
        fail(exc)
    if check.problems:
        for line in check.problems:
            typer.echo(line, err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    for line in check.summary(matrix):
        typer.echo(line)


def metrics() -> None:
    """List the metrics with the sample fields each needs and its parameters."""
    for name, metric in api.METRICS.items():
        params = ", ".join(_param_text(n, f) for n, f in metric.Params.model_fields.items())
        axes = ["judge"]
        if metric.uses_embeddings:
            axes.append("embedding × dimension")
        if metric.uses_strictness:
            axes.append("strictness")
        direction = "higher is better" if metric.higher_is_better else "lower is better"
        typer.echo(
            f"{name} ({metric.title}): {metric.description}\n"
            f"    needs: {', '.join(metric.required_fields)}"
            f"{'; and ' + metric.also_needs if metric.also_needs else ''}\n"
            f"    varies with: {' × '.join(axes)}; {direction}\n"
            f"    judge calls per sample: {metric.judge_calls}\n"
            f"    parameters: {params or 'none'}"
        )


def _param_text(name: str, field: Any) -> str:
    """'mode=auto (…description…)' for one metric parameter."""
    default = "unset" if field.default is None else field.default
    return f"{name}={default} ({field.description})" if field.description else f"{name}={default}"
