"""`judgegrid label` (the labelling page of the app on 127.0.0.1) and `judgegrid labels
import|export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import (
    MarginOption,
    OutFileOption,
    OverwriteOption,
    fail,
    login_name,
    serve_app,
)
from judgegrid.core.errors import InputError, OptionError, Problem
from judgegrid.core.options import duration_words, parse_duration


def label(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help="Only this metric or criterion of the run; repeat for several (default: all).",
        ),
    ] = None,
    n: Annotated[
        int,
        typer.Option(
            "--n",
            min=1,
            help="How many labels to ask for in this session (drawn from the queue's design; "
            "draws left unanswered last time come first).",
        ),
    ] = 20,
    annotator: Annotated[
        str | None,
        typer.Option("--annotator", help="Who is labelling (default: your login name)."),
    ] = None,
    batch: Annotated[
        int | None,
        typer.Option(
            "--batch",
            min=1,
            help="Draw this many labels of each metric at a time: a metric's next batch is "
            "drawn when its last is answered, from the queue's design as the labels given by "
            "then make it (focused where the leading judge and its rivals disagree); default: "
            "all --n at once, from the labels given before the session.",
        ),
    ] = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")
    ] = 0,
    show_judges: Annotated[
        bool,
        typer.Option(
            "--show-judges",
            help="Show the judges' names and scores in 'why this sample' and name the judges "
            "in the state line after each answer (the page is blind by default, naming them "
            "only once the queue is answered: labels given after seeing a judge's number "
            "drift towards it); the labels record that they were not blind.",
        ),
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--again",
            help="Ask what other people have labelled instead of drawing new samples (the "
            "queue draws each sample once, for everyone): a second person's labels of the "
            "same samples, for the people's agreement and the Alternative Annotator Test; "
            "the verdict reads each sample's draw once. Not with --batch or a pairs run.",
        ),
    ] = False,
    margin: MarginOption = None,
    left_after: Annotated[
        str,
        typer.Option(
            "--left-after",
            metavar="DURATION",
            help="How long another person's draws not yet answered stay theirs once they have "
            "neither drawn nor labelled (e.g. 20m, 2h; at least 1m): then they are left, and "
            "your queue asks them before any new draw. Shorten it when people label side by "
            "side and one has gone home.",
        ),
    ] = "1h",
) -> None:
    """Label the samples that separate the judges, in a page served on 127.0.0.1; each answer
    is saved in the run's database at once. Ctrl-C stops the server."""
    try:
        session = api.open_label_view(
            run_dir,
            login_name() if annotator is None else annotator,
            metric,
            api.SessionAsk(n, show_judges, batch, again, margin, _seconds(left_after)),
        )
    except InputError as exc:
        fail(exc)
    labels = session.labels
    if not labels.queue:  # a page with nothing to ask would only say so, after a browser trip
        typer.echo(labels.nothing_to_ask(str(run_dir)))
        return
    count = len(labels.queue)
    questions = f"{count} question{'s' if count != 1 else ''}"
    if batch is not None and count < n:  # the rest follow: not a queue cut short
        questions += f" (a first batch: more are drawn as you answer them, up to --n {n})"
    else:
        questions += labels.fewer_words(n)
    opening = (
        f"labelling: {questions} about {labels.run_dir}, as {labels.annotator!r} (every "
        f"answer is saved at once{_taken_over_words(labels.taken_over, labels.left_after)})"
    )
    serve_app(session, port, opening)
    typer.echo(f"\nstopped; every answer is saved in {run_dir}/run.sqlite")
    typer.echo(f"see validity against them:  judgegrid report {run_dir}")


def _seconds(left_after: str) -> float:
    """``--left-after`` in seconds, or an OptionError naming it."""
    try:
        return parse_duration(left_after)
    except ValueError:
        message = f"expected a duration such as 20m or 2h, got {left_after!r}"
        raise OptionError("--left-after", [Problem("", message)]) from None


def _taken_over_words(count: int, held: float) -> str:
    """The questions drawn for someone else, who left them unanswered for ``held`` seconds."""
    if not count:
        return ""
    hold = duration_words(held)
    if count == 1:
        return f"; 1 of them was drawn for a person who left it unanswered for {hold}"
    return f"; {count} of them were drawn for people who left them unanswered for {hold}"


labels_app = typer.Typer(
    help="People's labels of a run: import them from CSV, JSONL or Parquet, export them.",
    no_args_is_help=True,
)


@labels_app.command("import")
def labels_import(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    file: Annotated[
        Path,
        typer.Argument(
            help="CSV, JSONL or Parquet with sample_id, metric, annotator, value (and note); "
            "what `labels export` writes."
        ),
    ],
    annotator: Annotated[
        str | None,
        typer.Option(
            "--annotator",
            help="Who gave the labels, for a file without an annotator column (refused for a "
            "file with one).",
        ),
    ] = None,
) -> None:
    """Add labels from a file; a file with any bad row is refused whole (each row named)."""
    try:
        count = api.import_labels(run_dir, file, annotator)
    except InputError as exc:
        fail(exc)
    typer.echo(f"{count} labels imported into {run_dir}/run.sqlite; judgegrid report {run_dir}")


@labels_app.command("export")
def labels_export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    output: OutFileOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Every label of a run (from the page, imports and the data set), one row each, in the
    format the file's extension names; `judgegrid labels import` reads it back."""
    try:
        inputs = api.run_input_files(run_dir)
        if output is not None:
            api.check_output(output, "--out", overwrite=overwrite, inputs=inputs)
        frame = api.export_labels(run_dir)
        if output is not None:
            api.write_table_file(frame, output, "--out", overwrite=overwrite, inputs=inputs)
    except InputError as exc:
        fail(exc)
    if output is None:
        typer.echo(frame.to_csv(index=False), nl=False)
    else:
        typer.echo(f"{len(frame)} labels written to {output}")
