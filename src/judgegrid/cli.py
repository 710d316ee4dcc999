"""The ``judgegrid`` command: run a grid, resume it, validate inputs, list metrics.

Every input error is printed as one line per problem (file: path.inside.it: what is wrong) with
exit code 2 and no traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import signal
import sys
import time
import traceback
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer
from tqdm import tqdm

from judgegrid import api
from judgegrid.analyses.tables import cell_causes
from judgegrid.cache import ResultCache, default_cache_path
from judgegrid.cells import Cell
from judgegrid.errors import InputError, JudgegridError, OptionError, Problem
from judgegrid.estimate import GridPlan, make_plan
from judgegrid.export import csv_text, write_table
from judgegrid.formats import mapping_lines, parse_columns
from judgegrid.labelling import LabelSession, open_session, page_url, serve
from judgegrid.labels import export_labels, import_labels
from judgegrid.matrix import inspect_matrix, read_matrix_text
from judgegrid.metrics import METRICS
from judgegrid.orchestrate import resolve_dataset
from judgegrid.plan_table import money, render_plan
from judgegrid.preflight import matrix_problems, sample_problems
from judgegrid.redaction import redact_text
from judgegrid.rundir import RESOLVED_MATRIX
from judgegrid.runner import Tally
from judgegrid.tasks import expected_cell_count

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


DEFAULT_MATRIX = Path("model_matrices/local.yaml")
# Beside the installed package in a checkout (src/judgegrid -> the repository's model_matrices/).
INSTALLED_MATRIX = Path(__file__).resolve().parents[2] / DEFAULT_MATRIX


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


# Exit codes, for a CI job (README: "Exit codes").
EXIT_OK = 0  # every cell scored (skipped cells allowed)
EXIT_BELOW_FAIL_UNDER = 1  # with --fail-under: the scored share of attempted cells fell short
EXIT_BAD_INPUT = 2  # a matrix, data set, run directory or option that cannot be used
EXIT_FAILED_CELLS = 3  # the run finished, some cells failed (without --fail-under)
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM; finished cells are kept, --resume goes on


# How a data set's fields are read, on every command that takes --dataset (README: "Data sets").
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


def _fail(exc: InputError) -> None:
    for problem in exc.problems:
        typer.echo(problem.render(exc.source), err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


@app.command()
def run(
    matrix: Annotated[Path, typer.Argument(help="Model matrix YAML.")] = DEFAULT_MATRIX,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset",
            "-d",
            help="Data set (.jsonl/.json/.csv/.parquet/.arrow, a save_to_disk folder, or 'demo'; "
            "Ragas or DeepEval names); overrides the matrix's dataset.",
        ),
    ] = None,
    columns: ColumnsOption = None,
    list_delimiter: ListDelimiterOption = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            min=1,
            help="Score only the first N samples (overrides the matrix's limit).",
        ),
    ] = None,
    reports_dir: Annotated[
        Path, typer.Option("--reports-dir", help="Where new run directories are made.")
    ] = Path("reports"),
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Finish the interrupted run in this directory instead."),
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="With --resume: score failed cells again.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    fail_under: Annotated[
        float | None,
        typer.Option(
            "--fail-under",
            min=0.0,
            max=1.0,
            help="Exit 0 if at least this share of attempted cells scored, else 1 (without it: "
            "exit 3 when any cell failed).",
        ),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Neither read nor write the cross-run cache of answers and vectors "
            "(see `judgegrid cache`); every call is made.",
        ),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(
            "--max-cost",
            min=0.0,
            help="Above this estimated cost in USD (the plan printed first, see `judgegrid "
            "plan`), ask before starting; refuse (exit 2) when not on a terminal, or when the "
            "estimate is unknown because litellm's price map lacks a model.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            help="Score the run in shards on N worker processes (overrides the matrix's "
            "execution.workers; 1: in this process). Each worker gets 1/N of every "
            "concurrency and per-minute limit.",
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help="Where the workers run: 'processes' (this machine, the default) or 'ray' "
            "(a local Ray instance, or the cluster at --address).",
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="With --backend ray: the address of a running Ray cluster "
            "(ray://host:10001 or auto).",
        ),
    ] = None,
) -> None:
    """Score every metric under every judge × embedding × dimension × strictness × repeat.

    The plan (calls, tokens, cost and time; `judgegrid plan`) is printed first."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    bar = _ProgressBar(progress)
    run_dir: Path | None = None
    try:
        read = {"--columns": columns, "--list-delimiter": list_delimiter}
        _check_resume_options(resume, retry_failed, matrix, {"--dataset": dataset, **read}, limit)
        if resume is not None:
            run_dir = resume
            prepared = api.prepare_resume(
                resume, retry_failed=retry_failed, use_cache=False if no_cache else None
            )
            resumed = make_plan(prepared.matrix, prepared.data, prepared.use_cache, prepared.store)
            _check_plan(resumed, max_cost)
        else:
            reading = _reading(limit, no_cache, columns, list_delimiter)
            _check_plan(api.plan_grid(default_matrix(matrix), dataset, **reading), max_cost)
            prepared = api.prepare_run(
                default_matrix(matrix), dataset, reports_dir=reports_dir, **reading
            )
            run_dir = prepared.run_dir
            mapping = prepared.data.mapping
            scheme = f", read as {mapping.scheme}" if mapping and mapping.scheme else ""
            typer.echo(
                f"run directory: {run_dir}  ({len(prepared.data)} samples from "
                f"{prepared.data.source}{scheme})"
            )
        execution = api.execution_for(prepared.matrix, workers, backend, address)
        result = api.execute_run(prepared, on_progress=bar.update, execution=execution)
    except InputError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        bar.close()
        if run_dir is None:
            typer.echo("\ninterrupted before the run started; nothing was written", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        typer.echo(
            f"\ninterrupted: finished cells are saved in {run_dir}/run.sqlite.\n"
            + _pending_note(run_dir)
            + f"finish the run with:  judgegrid run --resume {run_dir}",
            err=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    _print_result(result)
    raise typer.Exit(run_exit_code(result.scores, fail_under))


def _reading(
    limit: int | None, no_cache: bool, columns: str | None, list_delimiter: str | None
) -> dict[str, Any]:
    """How `run` and `plan` read the grid: the same samples, cache and field names."""
    return {
        "limit": limit,
        "use_cache": not no_cache,
        "columns": parse_columns(columns),
        "list_delimiter": list_delimiter,
    }


def _on_terminal() -> bool:
    """Whether someone can be asked: stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _check_plan(plan: GridPlan, max_cost: float | None) -> None:
    """Print the plan; above ``max_cost`` ask on a terminal, else refuse (exit 2)."""
    typer.echo(render_plan(plan) + "\n")
    if max_cost is None or (plan.cost is not None and plan.cost <= max_cost):
        return
    if plan.cost is None:
        lacking = ", ".join(plan.unpriced)
        raise OptionError(
            "--max-cost",
            [
                Problem(
                    "",
                    f"the estimated cost is unknown (litellm's price map lacks {lacking}), "
                    "so it cannot be held to a maximum; drop --max-cost to run anyway",
                )
            ],
        )
    above = f"the estimated cost {money(plan.cost)} is above --max-cost {money(max_cost)}"
    if not _on_terminal():
        raise OptionError(
            "--max-cost", [Problem("", f"{above}, and there is no terminal to confirm on")]
        )
    if not typer.confirm(f"{above}; run anyway?", default=False):
        raise OptionError("--max-cost", [Problem("", f"{above}; not confirmed")])


def _check_resume_options(
    resume: Path | None,
    retry_failed: bool,
    matrix: Path,
    data_options: dict[str, str | None],
    limit: int | None,
) -> None:
    """--retry-failed only with --resume; --resume takes everything else from the run."""
    if retry_failed and resume is None:
        raise OptionError(
            "--retry-failed", [Problem("", "only with --resume RUN_DIR (failed cells of a run)")]
        )
    options = {"a matrix": matrix != DEFAULT_MATRIX, **data_options, "--limit": limit}
    given = [name for name, value in options.items() if value]
    if resume is not None and given:
        message = f"the run directory holds its matrix, data set and limit; drop {', '.join(given)}"
        raise OptionError("--resume", [Problem("", message)])


def run_exit_code(scores: pd.DataFrame, fail_under: float | None) -> int:
    """0 when every attempted cell scored; else 3, or with ``fail_under`` 0/1 by the share."""
    attempted = scores[scores["status"] != "skipped"]
    failed = int((attempted["status"] == "failed").sum())
    if fail_under is None:
        return EXIT_FAILED_CELLS if failed else EXIT_OK
    share = (len(attempted) - failed) / len(attempted) if len(attempted) else 1.0
    return EXIT_OK if share >= fail_under else EXIT_BELOW_FAIL_UNDER


def _raise_interrupt(signum: int, frame: Any) -> None:
    """A kill (SIGTERM) stops the run the way Ctrl-C does: finished cells saved, resumable.

    It calls the SIGINT handler in force (asyncio's while the grid runs: it cancels the run in
    good order), not ``raise_signal``: a process started in the background by a script has
    SIGINT ignored, and a SIGTERM must still stop it — then by raising the interrupt here."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


def _pending_note(run_dir: Path) -> str:
    """Batches still at the provider when a run stops: paid for, and read by --resume."""
    pending = api.pending_batches(run_dir)
    if not pending:
        return ""
    lines = sum(len(b.custom_ids) for b in pending)
    return (
        f"{len(pending)} batch{'es' if len(pending) != 1 else ''} ({lines} requests) "
        "still run at the provider and will be charged; --resume reads their answers "
        "instead of sending them again.\n"
    )


def _print_result(result: api.GridResult) -> None:
    _print_card(result.run_dir)
    t = result.tally
    typer.echo(
        f"score rows: {len(result.scores)}; the matrix implies: {result.expected_cells}"
        f" ({t.scored} scored, {t.failed} failed, {t.skipped} skipped this session; "
        f"{t.already} were already done)"
    )
    causes = cell_causes(result.scores)
    for status, block in causes.groupby("status", sort=False):
        typer.echo(f"why cells were {status}:")
        for cause, cells in zip(block["cause"], block["cells"], strict=True):
            typer.echo(f"  {cells:>5} × {cause}")
    if t.shards_rerun:
        typer.echo(f"shards run again after a worker was lost: {t.shards_rerun}")
    if t.cached_answers or t.cached_vectors:
        typer.echo(
            f"from the cache: {t.cached_answers} judge answers, {t.cached_vectors} vectors "
            "(`--no-cache` to call anyway)"
        )
    typer.echo(
        f"outputs: {result.run_dir}/summary.md, report.html, tables/*.csv, scores.csv, "
        f"run.sqlite, {RESOLVED_MATRIX}"
    )


def _print_card(run_dir: Path) -> None:
    """The decision card (every table is in summary.md and report.html)."""
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv", keep_default_na=False)
    typer.echo("\ndecision, per metric (basis: people > preference pairs > other judges):")
    for row in card.itertuples():
        typer.echo(f"  {row.metric}: {row.verdict} [{row.basis}] — {row.reason}")
        typer.echo(f"      next: {row.next_step}")
    typer.echo("")


class _ProgressBar:
    """tqdm bar: cells done/total, failures, calls made, elapsed time and ETA."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr is not None
        self._bar: Any = None
        self._tally: Tally | None = None

    def update(self, tally: Tally, cell: Cell, status: str) -> None:
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


@app.command()
def validate(
    matrix: Annotated[Path, typer.Argument(help="Model matrix YAML.")] = DEFAULT_MATRIX,
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
        text = read_matrix_text(matrix)
        column_map = parse_columns(columns)
    except InputError as exc:
        _fail(exc)
    parsed, problems = inspect_matrix(text, str(matrix))
    if parsed is not None:
        problems += matrix_problems(parsed)
    lines = [p.render(str(matrix)) for p in problems]
    data = None
    unchecked: list[str] = []
    if parsed is not None:
        try:
            data = resolve_dataset(parsed, matrix, dataset, column_map, list_delimiter)
            data = data.head(parsed.limit)
            too_long, unchecked = sample_problems(parsed, data)
            lines += [p.render(data.source) for p in too_long]
        except InputError as exc:
            lines += [p.render(exc.source) for p in exc.problems]
    if lines:
        for line in lines:
            typer.echo(line, err=True)
        raise typer.Exit(EXIT_BAD_INPUT)
    assert parsed is not None and data is not None
    cells = expected_cell_count(parsed, len(data))
    typer.echo(
        f"{matrix}: ok — {len(parsed.judges)} judges, {len(parsed.embeddings)} embedding "
        f"models, {len(parsed.metrics)} metrics, {parsed.repeats} repeats; "
        f"{len(data)} samples from {data.source}: {cells} cells"
    )
    if data.mapping is not None:
        typer.echo(f"{data.source}: read as {data.mapping.scheme or 'mapped by --columns'}")
        for line in mapping_lines(data.mapping):
            typer.echo(f"  {line}")
    for note in unchecked:
        typer.echo(f"not checked: {note}")


@app.command()
def plan(
    matrix: Annotated[Path, typer.Argument(help="Model matrix YAML.")] = DEFAULT_MATRIX,
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
) -> None:
    """Calls, tokens, cost and time a run would take, per judge and step, and the calls the
    cross-run cache would answer; calls no model and needs no API key."""
    try:
        reading = _reading(limit, no_cache, columns, list_delimiter)
        grid_plan = api.plan_grid(default_matrix(matrix), dataset, **reading)
    except InputError as exc:
        _fail(exc)
    typer.echo(render_plan(grid_plan))


@app.command()
def report(
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory (holds run.sqlite), or one of judgegrid pairs.")
    ],
) -> None:
    """Rebuild summary.md, tables/*.csv and report.html of a run from its database (for a
    judgegrid pairs directory: every aspect run and pairs_summary.md); calls no model."""
    try:
        paths = api.rebuild_report(run_dir)
    except InputError as exc:
        _fail(exc)
    typer.echo(paths[0].read_text(encoding="utf-8"))  # summary.md, or pairs_summary.md
    if len(paths) > 1:
        typer.echo("outputs: " + ", ".join(str(p) for p in paths))


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="ragas: a row per sample × judge configuration, a column per metric, as Ragas' "
            "result table; wide: a row per sample, a column per metric × configuration.",
        ),
    ] = "ragas",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="A .csv, .jsonl or .parquet file (default: CSV on stdout)."
        ),
    ] = None,
) -> None:
    """The run's scores as a table for the tools you have: each metric is the mean of its
    scored repeats; NaN where none scored (the failed and skipped columns count why)."""
    try:
        _refuse_pairs_parent(run_dir, "export the scores of")
        table = api.export_run(run_dir, format)
        if out is not None:
            write_table(table, out)
    except InputError as exc:
        _fail(exc)
    if out is None:
        typer.echo(csv_text(table), nl=False)
        return
    counts = {status: table.attrs.get(status, 0) for status in ("scored", "failed", "skipped")}
    typer.echo(
        f"{len(table)} rows written to {out} ({format}), from {counts['scored']} scored, "
        f"{counts['failed']} failed and {counts['skipped']} skipped cells; a metric is the mean "
        "of its scored repeats, NaN where none scored"
    )


@app.command()
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
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Score human-preference pairs and report each judge's accuracy per aspect."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    bar = _ProgressBar(progress)
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
        _fail(exc)
    except KeyboardInterrupt:
        bar.close()
        typer.echo(
            "\ninterrupted: finished cells are saved in the aspect run directories; "
            "finish each with judgegrid run --resume DIR",
            err=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    typer.echo((result.run_dir / "pairs_summary.md").read_text(encoding="utf-8"))
    typer.echo(
        f"outputs: {result.run_dir}/pairs_summary.md, pairs_accuracy.csv, and one run "
        f"directory per aspect: {', '.join(result.aspect_runs)}"
    )


@app.command()
def metrics() -> None:
    """List the metrics with the sample fields each needs and its parameters."""
    for name, metric in METRICS.items():
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


cache_app = typer.Typer(
    no_args_is_help=True,
    help="The cross-run cache of judge answers and embedding vectors "
    "($JUDGEGRID_CACHE_DIR/cache.sqlite, else ~/.cache/judgegrid/cache.sqlite).",
)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats() -> None:
    """Where the cache is, its size, and its entries per model."""
    cache = ResultCache()
    try:
        stats = cache.stats()
    finally:
        cache.close()
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
    cache = ResultCache()
    try:
        answers, vectors = cache.clear(model)
    finally:
        cache.close()
    typer.echo(f"deleted {answers} judge answers and {vectors} vectors from {cache.path}")


@app.command()
def label(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (holds run.sqlite).")],
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", help="Only this metric; repeat for several (default: all)."),
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="How many samples to ask about.")] = 20,
    annotator: Annotated[
        str | None,
        typer.Option("--annotator", help="Who is labelling (default: your login name)."),
    ] = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")
    ] = 0,
) -> None:
    """Label the samples that separate the judges, in a page served on 127.0.0.1; each answer
    is saved in the run's database at once. Ctrl-C stops the server."""
    try:
        _refuse_pairs_parent(run_dir)
        session = open_session(run_dir, annotator or _login_name(), metric, n)
    except InputError as exc:
        _fail(exc)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_until_interrupted(session, port))
    typer.echo(f"\nstopped; every answer is saved in {run_dir}/run.sqlite")
    typer.echo(f"see validity against them:  judgegrid report {run_dir}")


def _refuse_pairs_parent(run_dir: Path, what: str = "label the pairs of") -> None:
    """A judgegrid pairs directory holds one run per aspect: label or export one of them."""
    if api.is_pairs_dir(run_dir):
        aspects = sorted(p.parent.name for p in run_dir.glob("*/run.sqlite"))
        choices = " or ".join(f"{run_dir / a}" for a in aspects)
        message = f"a judgegrid pairs directory; {what} one aspect: {choices}"
        raise OptionError(str(run_dir), [Problem("", message)])


async def _serve_until_interrupted(session: LabelSession, port: int) -> None:
    runner, bound = await serve(session, port)
    try:
        url = page_url(bound, session.token)
        typer.echo(
            f"labelling: {len(session.queue)} questions about {session.run_dir}, as "
            f"{session.annotator!r}; open in your browser:\n\n    {url}\n\n"
            "(only this machine can reach it; Ctrl-C stops it — every answer is already saved)",
        )
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "annotator"


labels_app = typer.Typer(
    help="People's labels of a run: import them from CSV/JSONL, export them.",
    no_args_is_help=True,
)
app.add_typer(labels_app, name="labels")


@labels_app.command("import")
def labels_import(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    file: Annotated[
        Path,
        typer.Argument(help="CSV or JSONL with sample_id, metric, annotator, value (and note)."),
    ],
    annotator: Annotated[
        str | None,
        typer.Option("--annotator", help="For rows without an annotator column."),
    ] = None,
) -> None:
    """Add labels from a file; a file with any bad row is refused whole (each row named)."""
    try:
        count = import_labels(run_dir, file, annotator)
    except InputError as exc:
        _fail(exc)
    typer.echo(f"{count} labels imported into {run_dir}/run.sqlite; judgegrid report {run_dir}")


@labels_app.command("export")
def labels_export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="A .csv or .jsonl file (default: CSV on stdout)."),
    ] = None,
) -> None:
    """Every label of a run (from the page, imports and the data set), one row each."""
    try:
        frame = export_labels(run_dir)
    except InputError as exc:
        _fail(exc)
    if output is None:
        typer.echo(frame.to_csv(index=False), nl=False)
    elif output.suffix.lower() == ".jsonl":
        frame.to_json(output, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_csv(output, index=False)
    if output is not None:
        typer.echo(f"{len(frame)} labels written to {output}")


@app.command("serve-local")
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
    from judgegrid import serve  # starts no server and imports no model until asked

    try:
        servers = serve.plan_servers(judge, embedding, judge_port, embedding_port)
        serve.serve_forever(servers, echo=typer.echo)
    except InputError as exc:
        _fail(exc)
    except serve.ServeError as exc:
        typer.echo(f"judgegrid: {exc}", err=True)
        raise typer.Exit(1) from None


def main() -> None:
    """The console script: judgegrid's own errors as one line, anything else as a short
    "please report" with the traceback in a log file, never on the terminal."""
    try:
        app()
    except JudgegridError as exc:
        typer.echo(f"judgegrid: {redact_text(str(exc))}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except Exception as exc:
        log = _crash_log(exc)
        typer.echo(
            f"judgegrid: unexpected error (please report it): {type(exc).__name__}: "
            f"{redact_text(str(exc))[:300]}\nthe traceback is in {log}",
            err=True,
        )
        sys.exit(1)


def _crash_log(exc: BaseException) -> Path:
    """The traceback, keys redacted, in a file under the cache directory."""
    folder = default_cache_path().parent / "crash-logs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    text = "".join(traceback.format_exception(exc))
    path.write_text(redact_text(text), encoding="utf-8")
    return path
