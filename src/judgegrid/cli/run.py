"""`judgegrid run`: a grid, or the rest of an interrupted one (--resume); the plan first."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from judgegrid import api
from judgegrid.cli.card import print_card
from judgegrid.cli.common import (
    DEFAULT_MATRIX,
    EXIT_BELOW_FAIL_UNDER,
    EXIT_FAILED_CELLS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ColumnsOption,
    ListDelimiterOption,
    MarginOption,
    MatrixArgument,
    ProbesOption,
    ProgressBar,
    ProgressOption,
    default_matrix,
    fail,
    reading,
    stop_on_sigterm,
)
from judgegrid.core.errors import InputError, OptionError, Problem


def run(
    matrix: MatrixArgument = DEFAULT_MATRIX,
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
    probes: ProbesOption = False,
    reports_dir: Annotated[
        Path, typer.Option("--reports-dir", help="Where new run directories are made.")
    ] = Path("reports"),
    margin: MarginOption = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Finish the interrupted run in this directory instead."),
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="With --resume: score failed cells again.")
    ] = False,
    add_judges: Annotated[
        Path | None,
        typer.Option(
            "--add-judges",
            help="With --resume on an imported run (judgegrid import): a YAML file of "
            "judges: [...] in the matrix's judge syntax, called beside the recorded judges on "
            "the same samples, metrics and criteria (the matrix's defaults and retry apply; "
            "criteria: [{name, definition}] says what an imported criterion asks); the "
            "recorded judges are never called.",
        ),
    ] = None,
    progress: ProgressOption = True,
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
    stop_on_sigterm()
    bar = ProgressBar(progress)
    run_dir: Path | None = None
    prepared: api.PreparedRun | None = None
    try:
        given = {
            "a matrix": matrix != DEFAULT_MATRIX,
            "--dataset": dataset,
            "--columns": columns,
            "--list-delimiter": list_delimiter,
            "--limit": limit,
            "--margin": margin,
            "--probes": probes,
        }
        api.check_resume_options(
            resume, retry_failed, [k for k, v in given.items() if v], add_judges is not None
        )
        if resume is not None:
            resumed = api.resume_options(
                retry_failed=retry_failed,
                use_cache=False if no_cache else None,  # None: as the run was started
                workers=workers,
                backend=backend,
                address=address,
                add_judges=None if add_judges is None else str(add_judges),
            )
            # prepared and executed apart (not api.resume_run): the plan of what is left is
            # held to --max-cost in between
            prepared = api.prepare_resume(resume, resumed)
            run_dir = resume
            check_plan(api.plan_prepared(prepared), max_cost)
        else:
            read = reading(limit, no_cache, columns, list_delimiter, probes)
            options = api.run_options(
                **read, workers=workers, backend=backend, address=address, margin=margin
            )
            # every check first (nothing is printed before a refusal), then the plan, held to
            # --max-cost, then the run directory
            checked = api.check_run(default_matrix(matrix), dataset, options)
            check_plan(api.plan_checked(checked), max_cost)
            prepared = api.start_run(checked, reports_dir=reports_dir)
            run_dir = prepared.run_dir
            _print_start(prepared)
        result = api.execute_run(prepared, on_progress=bar.update)
    except InputError as exc:
        if prepared is not None:
            prepared.close()
        fail(exc)
    except KeyboardInterrupt:
        bar.close()
        _print_interrupted(run_dir)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    _print_result(result)
    code = run_exit_code(result.scores, fail_under)
    if code == EXIT_FAILED_CELLS:  # the last line: what to run, as it is to be typed
        typer.echo(f"score the failed cells again with:\n  {retry_command(result.run_dir)}")
    raise typer.Exit(code)


def retry_command(run_dir: Path) -> str:
    """The command that scores a run's failed cells again."""
    return f"judgegrid run --resume {shlex.quote(str(run_dir))} --retry-failed"


def on_terminal() -> bool:
    """Whether someone can be asked: stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def check_plan(plan: api.GridPlan, max_cost: float | None) -> None:
    """Print the plan; above ``max_cost`` ask on a terminal, else refuse (exit 2)."""
    typer.echo(api.render_plan(plan) + "\n")
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
    above = f"the estimated cost {api.money(plan.cost)} is above --max-cost {api.money(max_cost)}"
    if not on_terminal():
        raise OptionError(
            "--max-cost", [Problem("", f"{above}, and there is no terminal to confirm on")]
        )
    if not typer.confirm(f"{above}; run anyway?", default=False):
        raise OptionError("--max-cost", [Problem("", f"{above}; not confirmed")])


def run_exit_code(scores: pd.DataFrame, fail_under: float | None) -> int:
    """0 when every attempted cell scored; else 3, or with ``fail_under`` 0/1 by the share."""
    attempted = scores[scores["status"] != "skipped"]
    failed = int((attempted["status"] == "failed").sum())
    if fail_under is None:
        return EXIT_FAILED_CELLS if failed else EXIT_OK
    share = (len(attempted) - failed) / len(attempted) if len(attempted) else 1.0
    return EXIT_OK if share >= fail_under else EXIT_BELOW_FAIL_UNDER


def _print_start(prepared: api.PreparedRun) -> None:
    mapping = prepared.data.mapping
    scheme = f", read as {mapping.scheme}" if mapping and mapping.scheme else ""
    probes = sum(1 for s in prepared.data if s.probe is not None)
    made = f" and {probes} probes made from them" if probes else ""
    typer.echo(
        f"run directory: {prepared.run_dir}  ({len(prepared.data) - probes} samples from "
        f"{prepared.data.source}{scheme}{made})"
    )


def _print_interrupted(run_dir: Path | None) -> None:
    if run_dir is None:
        typer.echo("\ninterrupted before the run started; nothing was written", err=True)
        return
    typer.echo(
        f"\ninterrupted: finished cells are saved in {run_dir}/run.sqlite.\n"
        + _pending_note(run_dir)
        + f"finish the run with:  judgegrid run --resume {run_dir}",
        err=True,
    )


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
    """What the run did, then the decision card (last, where the eye ends)."""
    t = result.tally
    typer.echo(
        f"score rows: {len(result.scores)}; the matrix implies: {result.expected_cells}"
        f" ({t.scored} scored, {t.failed} failed, {t.skipped} skipped this session; "
        f"{t.already} were already done)"
    )
    causes = api.cell_causes(result.scores)
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
        f"run.sqlite, {api.RESOLVED_MATRIX}"
    )
    print_card(result.run_dir)
