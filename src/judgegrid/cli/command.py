"""The `judgegrid` command as one Typer app: each command group's functions registered in the
order `judgegrid --help` lists them, and ``main``, the console script."""

from __future__ import annotations

import atexit
import gc
import os
import sys
import time
import traceback
from importlib.metadata import version
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli import cache, export, labels, pairs, plan, report, run, serve, validate, view
from judgegrid.cli import importing as import_command
from judgegrid.cli import init as init_command
from judgegrid.cli.common import EXIT_BAD_INPUT, EXIT_OK, redacted_terminal
from judgegrid.core.errors import JudgegridError
from judgegrid.core.redaction import redact_text

# At exit the interpreter's last garbage collections walk every object scipy, pandas and
# matplotlib made: 0.4-0.8 s of every command, measured. Frozen at exit, they are freed with
# the process; an object is still released when its last reference goes, so files and
# connections close as before, and the exit handlers all run.
atexit.register(gc.freeze)

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Score RAG metrics under a grid of LLM judges and embedding models, with repeats, "
    "and see how far the judges agree.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"judgegrid {version('judgegrid')}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Score RAG metrics under a grid of LLM judges and embedding models, with repeats, and see
    how far the judges agree."""


app.command()(init_command.init)
app.command()(run.run)
app.command()(validate.validate)
app.command()(plan.plan)
app.command()(report.report)
app.command()(export.export)
app.command()(pairs.pairs)
app.command("import")(import_command.import_verdicts)
app.command()(validate.metrics)
app.add_typer(cache.cache_app, name="cache")
app.command()(view.view)
app.command()(labels.label)
app.add_typer(labels.labels_app, name="labels")
app.command("serve-local")(serve.serve_local)


# `--help` piped (`judgegrid run --help | cat`, a docs build): rich would draw it 80 columns wide
# and cut a long word of an option's text with "…"; this is wide enough that none is cut.
PIPED_HELP_WIDTH = 200
TERMINAL_WIDTH = "TERMINAL_WIDTH"  # typer's help width, read when it first draws help


def wide_help_when_piped() -> None:
    """Help text whole when stdout is not a terminal, unless TERMINAL_WIDTH says otherwise.
    Typer reads its width when it first draws help (its rich module, 60 ms to import, is not
    imported for a command that prints none); if it is already loaded, it is set there."""
    if sys.stdout.isatty() or TERMINAL_WIDTH in os.environ:
        return
    rich_utils = sys.modules.get("typer.rich_utils")
    if rich_utils is not None:
        rich_utils.MAX_WIDTH = PIPED_HELP_WIDTH  # type: ignore[attr-defined]
    else:
        os.environ[TERMINAL_WIDTH] = str(PIPED_HELP_WIDTH)


# rich pads each help line to the width: 20 digits of columns overflow an index (OverflowError)
MOST_COLUMNS = 10_000


def drop_bad_terminal_width() -> None:
    """A TERMINAL_WIDTH that is not a whole number of columns (``abc``, ``0``, ``-5``), or
    more than any screen has, would crash typer or rich when they draw help (``int`` on it, a
    line padded to it): dropped, with a one-line warning."""
    value = os.environ.get(TERMINAL_WIDTH)
    if not value or (value.strip().isdigit() and 0 < int(value) <= MOST_COLUMNS):
        return
    del os.environ[TERMINAL_WIDTH]
    typer.echo(
        f"judgegrid: {TERMINAL_WIDTH}={value!r} is not a whole number of columns "
        f"from 1 to {MOST_COLUMNS:,}; ignored",
        err=True,
    )


def main(read_ahead: object = None) -> None:
    """The console script: judgegrid's own errors as one line, anything else as a short
    "please report" with the traceback in a log file, never on the terminal. ``read_ahead``:
    the scores `judgegrid report` will need, already being read (``judgegrid.entry``), handed
    to the command as its context's object."""
    drop_bad_terminal_width()
    wide_help_when_piped()
    with redacted_terminal():  # every key masked in what the command prints
        try:
            app(obj=read_ahead)
        except JudgegridError as exc:
            typer.echo(f"judgegrid: {redact_text(str(exc))}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except Exception as exc:
            typer.echo(
                f"judgegrid: unexpected error (please report it): {type(exc).__name__}: "
                f"{redact_text(str(exc))[:300]}\n{_crash_log(exc)}",
                err=True,
            )
            sys.exit(1)


def _crash_log(exc: BaseException) -> str:
    """Where the traceback, keys redacted, was written: a file under the cache directory, or,
    when that cannot be written (a JUDGEGRID_CACHE_DIR that is a file, a full disk), the
    terminal itself: the crash logger never crashes in its turn."""
    text = redact_text("".join(traceback.format_exception(exc)))
    try:
        folder = api.crash_log_folder()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(text, encoding="utf-8")
    except (OSError, RuntimeError) as why:  # RuntimeError: Path.home() without a home
        return f"the traceback (no log file could be written: {redact_text(str(why))}):\n{text}"
    return f"the traceback is in {path}"
