"""What every command shares: exit codes, the default matrix, the data set's reading options,
one way to print input problems, the progress bar, SIGTERM as Ctrl-C, and the terminal with
every key masked."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import typer
from tqdm import tqdm

from judgegrid import api
from judgegrid.core.cells import Cell
from judgegrid.core.errors import InputError, Problem
from judgegrid.core.redaction import redact_text

# Exit codes, for a CI job (docs/errors.md#exit-codes).
EXIT_OK = 0  # every cell scored (skipped cells allowed)
EXIT_BELOW_FAIL_UNDER = 1  # with --fail-under: the scored share of attempted cells fell short
EXIT_BAD_INPUT = 2  # a matrix, data set, run directory or option that cannot be used
EXIT_FAILED_CELLS = 3  # the run finished, some cells failed (without --fail-under)
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM; finished cells are kept, --resume goes on

DEFAULT_MATRIX = Path("model_matrices/local.yaml")
# Beside the installed package in a checkout (src/judgegrid/cli -> the repository's
# model_matrices/).
INSTALLED_MATRIX = Path(__file__).resolve().parents[3] / DEFAULT_MATRIX


def default_matrix(matrix: Path) -> Path:
    """The matrix named; for the default, the working directory's, else the one beside the
    installed judgegrid, else an error saying how to name one."""
    if matrix != DEFAULT_MATRIX or matrix.exists():
        return matrix
    if INSTALLED_MATRIX.exists():
        return INSTALLED_MATRIX
    raise InputError(
        str(matrix),
        [
            Problem(
                "",
                "no model matrix here and none beside the installed judgegrid; name one: "
                "judgegrid run PATH/TO/matrix.yaml (examples: model_matrices/ of the "
                "judgegrid repository)",
            )
        ],
    )


MatrixArgument = Annotated[Path, typer.Argument(help="Model matrix YAML.")]

# How a data set's fields are read, on every command that takes --dataset (docs/datasets.md).
ColumnsOption = Annotated[
    str | None,
    typer.Option(
        "--columns",
        help="Map sample fields to your data set's names, e.g. "
        "user_input=question,response=answer,retrieved_contexts=docs (fields: id, user_input, "
        "response, retrieved_contexts, reference, reference_contexts, labels, language). Other "
        "fields are "
        "then left out.",
    ),
]
ListDelimiterOption = Annotated[
    str | None,
    typer.Option(
        "--list-delimiter",
        help="Split a list field's text cell (retrieved_contexts in a CSV) on this text, e.g. "
        "'|'. Default: a JSON or Python list in the cell; '|' for DeepEval's files.",
    ),
]
ProgressOption = Annotated[bool, typer.Option(help="Show a progress bar.")]
MarginOption = Annotated[
    float | None,
    typer.Option(
        "--margin",
        min=0,
        max=1,
        help="Non-inferiority margin (overrides the matrix's decision: {margin}): the decision "
        "card names the cheapest judge shown (one-sided 95%) within this much of the best, and "
        "the labelling page's state line asks the same of the labels; give label and report "
        "the same one, and they agree.",
    ),
]
# The table a command writes (export, labels export): the same option, --out as everywhere
# (``--output`` kept for labels export, which had it first).
OutFileOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        "--output",
        "-o",
        help="A .csv, .jsonl or .parquet file, the format its extension names (its folder "
        "is made if missing; an existing file only with --overwrite; default: CSV on "
        "stdout).",
    ),
]
# Every command that writes a file the user names (init, export, labels export): the same flag.
OverwriteOption = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace the file if it exists (refused without it). Never one of the command's "
        "own inputs nor a file in a run directory.",
    ),
]


def terminal_columns() -> int:
    """The width to print in: ``COLUMNS`` when it is a whole number above 0, else the
    terminal's own, else (a pipe, a file) the widest card's. Not ``TERMINAL_WIDTH``, which is
    help's alone (``command.wide_help_when_piped`` sets it wide when piped)."""
    return shutil.get_terminal_size((api.CARD_WIDTH, 24)).columns


def fail(exc: InputError) -> NoReturn:
    """Each problem on a line of its own (file: where: what), exit 2, no traceback."""
    for problem in exc.problems:
        typer.echo(problem.render(exc.source), err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def reading(
    limit: int | None,
    no_cache: bool,
    columns: str | None,
    list_delimiter: str | None,
    probes: bool = False,
) -> dict[str, Any]:
    """How `run` and `plan` read the grid: the same samples, cache, field names and probes."""
    return {
        "limit": limit,
        "use_cache": not no_cache,
        "columns": api.parse_columns(columns),
        "list_delimiter": list_delimiter,
        "probes": probes,
    }


ProbesOption = Annotated[
    bool,
    typer.Option(
        "--probes",
        help="Score probes too (the matrix's `probes:`, else all probes, 4 samples per "
        "metric): copies of the samples made worse in known ways (README: Probes).",
    ),
]


def login_name() -> str:
    """Who labels, by default: the login name, else "annotator"."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "annotator"


def serve_app(session: api.ViewSession, port: int, opening: str) -> None:
    """Serve the app of ``session`` until Ctrl-C; a port that cannot be used is exit 2 (the
    run's database already closed again)."""
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_until_interrupted(session, port, opening))
    except InputError as exc:
        fail(exc)


async def serve_until_interrupted(session: api.ViewSession, port: int, opening: str) -> None:
    """Serve the app of ``session`` until Ctrl-C, after printing ``opening``, its URL and where
    it can be reached from."""
    runner, bound = await api.serve_view(session, port)
    try:
        url = api.page_url(bound, session.token)
        viewer = api.page_url(bound, session.token, "/view")
        also = f"(every sample and judge's answers: {viewer})\n" if session.front == "label" else ""
        echo_unredacted(  # the page's own token: the one secret meant to be shown
            f"{opening}; open in your browser:\n\n    {url}\n\n"
            + (also if session.has_viewer else "")
            + "(only this machine can reach it; Ctrl-C stops it)",
        )
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def stop_on_sigterm() -> None:
    """A kill (SIGTERM) stops a run the way Ctrl-C does: finished cells saved, resumable."""
    signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(signum: int, frame: Any) -> None:
    """It calls the SIGINT handler in force (asyncio's while the grid runs: it cancels the run in
    good order), not ``raise_signal``: a process started in the background by a script has
    SIGINT ignored, and a SIGTERM must still stop it — then by raising the interrupt here."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


class ProgressBar:
    """tqdm bar: cells done/total, failures, calls made, elapsed time and ETA."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr is not None
        self._bar: Any = None
        self._tally: api.Tally | None = None

    def update(self, tally: api.Tally, cell: Cell, status: str) -> None:
        if not self.enabled:
            return
        if self._bar is not None and tally is not self._tally:
            self.close()  # a new run (judgegrid pairs runs one per aspect)
        self._tally = tally
        if self._bar is None:
            self._bar = tqdm(
                total=tally.total,
                initial=tally.already,
                unit="cell",
                desc="cells",
                dynamic_ncols=True,
                file=sys.stderr,
                mininterval=0.2 if sys.stderr.isatty() else 15.0,  # a log file gets few lines
            )
        self._bar.update(1)
        self._bar.set_postfix(
            failed=tally.failed, skipped=tally.skipped, calls=tally.calls, refresh=False
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class RedactedStream:
    """A terminal stream that masks every key in what is written to it (``redact_text``: keys,
    URLs' credentials). The one place the terminal is redacted, whoever writes: judgegrid's
    messages, the progress bar, litellm's logs, warnings. Everything else is the stream's."""

    def __init__(self, stream: IO[str]):
        self.unredacted = stream

    def write(self, text: str) -> int:
        self.unredacted.write(redact_text(text) if isinstance(text, str) else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unredacted, name)


@contextlib.contextmanager
def redacted_terminal() -> Iterator[None]:
    """stdout and stderr redacted (``RedactedStream``) while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactedStream(out), RedactedStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def echo_unredacted(text: str) -> None:
    """A line the user must see whole (a loopback page's URL with its session token)."""
    typer.echo(text, file=getattr(sys.stdout, "unredacted", sys.stdout))
