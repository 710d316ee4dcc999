"""`judgegrid serve-local`: the embedded models behind OpenAI-compatible servers on 127.0.0.1."""

from __future__ import annotations

from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import fail
from judgegrid.core.errors import InputError


def serve_local(
    judge: Annotated[
        list[str] | None, typer.Option("--judge", help="A local chat judge (default: all).")
    ] = None,
    embedding: Annotated[
        list[str] | None,
        typer.Option("--embedding", help="A local embedding model (default: all with a server)."),
    ] = None,
    judge_port: Annotated[
        int, typer.Option(min=1, max=65535, help="Port of the first judge server.")
    ] = 8431,
    embedding_port: Annotated[
        int, typer.Option(min=1, max=65535, help="Port of the first embedding server.")
    ] = 8432,
) -> None:
    """Serve the local models over HTTP on 127.0.0.1 with the OpenAI API (for
    model_matrices/local-http.yaml, as vLLM or Ollama would be); Ctrl-C stops them."""
    try:
        servers = api.plan_servers(judge, embedding, judge_port, embedding_port)
        api.serve_forever(servers, echo=typer.echo)
    except InputError as exc:
        fail(exc)
    except api.ServeError as exc:
        typer.echo(f"judgegrid: {exc}", err=True)
        raise typer.Exit(1) from None
