"""`judgegrid cache stats|clear`: the cross-run cache of judge answers and vectors."""

from __future__ import annotations

from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import fail
from judgegrid.core.errors import InputError

cache_app = typer.Typer(
    no_args_is_help=True,
    help="The cross-run cache of judge answers and embedding vectors "
    "($JUDGEGRID_CACHE_DIR/cache.sqlite, else ~/.cache/judgegrid/cache.sqlite).",
)


@cache_app.command("stats")
def cache_stats() -> None:
    """Where the cache is, its size, and its entries per model."""
    try:
        stats = api.cache_stats()
    except InputError as exc:
        fail(exc)
    typer.echo(f"cache: {stats.path} ({stats.size_bytes / 1e6:.1f} MB)")
    typer.echo(f"judge answers: {stats.answers}; embedding vectors: {stats.vectors}")
    for model, count in sorted(stats.answers_by_model.items()):
        typer.echo(f"  answers  {count:>8}  {model}")
    for model, count in sorted(stats.vectors_by_model.items()):
        typer.echo(f"  vectors  {count:>8}  {model}")


@cache_app.command("clear")
def cache_clear(
    model: Annotated[
        str | None, typer.Option("--model", help="Only this model id's entries.")
    ] = None,
) -> None:
    """Delete the cache's entries (all, or one model's); the next run calls again."""
    try:
        answers, vectors, path = api.clear_cache(model)
    except InputError as exc:
        fail(exc)
    typer.echo(f"deleted {answers} judge answers and {vectors} vectors from {path}")
