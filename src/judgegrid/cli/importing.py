"""`judgegrid import`: verdicts recorded elsewhere (a long table, JudgeBench's files) as a run
directory that report, view, label, labels and export read; calls no model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgegrid import api
from judgegrid.cli.common import fail
from judgegrid.core.errors import InputError, OptionError, Problem


def import_verdicts(
    files: Annotated[
        list[Path], typer.Argument(help="The files of recorded verdicts (one or more).")
    ],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="The run directory to write (new, or an empty folder)."),
    ],
    format: Annotated[
        str,
        typer.Option(
            "--format",
            help="long: one verdict a row (CSV, JSONL or Parquet: sample_id, judge, metric, "
            "score or answer, order for a pair, and more); judgebench: JudgeBench's run_judge.py "
            "files as they are, one judge a file; inspect: Inspect AI's .eval or .json logs "
            "(a scorer's score per sample and epoch); promptfoo: promptfoo eval -o results.json "
            "(each llm-rubric, g-eval and closedqa grading); ragas: Ragas' "
            "EvaluationResult.to_pandas() saved as CSV or Parquet (a row per sample, a column "
            "per metric; name its judge with --judge); deepeval: DeepEval's saved test run "
            "(test_run_*.json, .deepeval/.latest_test_run.json); auto: detected from the "
            "first file, and said.",
        ),
    ] = "auto",
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help="A long table's columns under your export's names, e.g. "
            "judge=model,score=value,sample_id=id; judge=A|B takes a row's first of A and B "
            "with a value (quote it in the shell).",
        ),
    ] = None,
    combine: Annotated[
        str,
        typer.Option(
            "--combine",
            help="How a pair's two orders make one verdict, for the pairwise criteria of a "
            "long table: mt-bench (the answer both orders chose, else a tie) or sum "
            "(JudgeBench's: +1 an order for a, -1 for b; the sum's sign). JudgeBench's files "
            "are read with sum.",
        ),
    ] = "mt-bench",
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="The judge of a Ragas results file (Ragas does not record it): once per file, "
            "in the files' order. Without it, each file's judge is its name (gpt-4o.csv: "
            "gpt-4o).",
        ),
    ] = None,
) -> None:
    """Write verdicts recorded elsewhere as a run directory: each cell keeps the file and line
    it came from and records that no call was made; cost, tokens and latency where the source
    has them, else unknown. Then `judgegrid report OUT` gives its card."""
    try:
        if combine not in ("mt-bench", "sum"):
            raise OptionError(
                "--combine", [Problem("", f"expected mt-bench or sum, got {combine!r}")]
            )
        mapped = api.parse_columns(columns) if columns is not None else None
        result = api.import_verdicts(
            files,
            out,
            format=format,
            columns=mapped,
            combine=combine,  # type: ignore[arg-type]
            judges=judge,
        )
    except InputError as exc:
        fail(exc)
    how = "detected" if result.detected else "as named"
    typer.echo(f"format: {result.format} ({how})")
    for note in result.notes:
        typer.echo(f"  {note}")
    typer.echo(
        f"{result.cells} cells of {len(result.judges)} judges on {result.samples} samples"
        f"{f', {result.labels} labels' if result.labels else ''} written to {result.run_dir} "
        "(no call made)"
    )
    typer.echo(f"next: judgegrid report {result.run_dir}")
