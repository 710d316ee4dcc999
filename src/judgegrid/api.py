"""The public Python API: run a grid, resume it, score preference pairs, read and report runs.

>>> result = run_grid("model_matrices/local.yaml", limit=2)   # doctest: +SKIP
>>> result.scores.groupby(["metric", "judge"])["score"].mean() # doctest: +SKIP

Each entry point is a few lines over ``orchestrate`` (prepare, execute, resume, outputs) and
``pairs`` (the preference-pairs workflow); the CLI calls the same functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from judgegrid.estimate import GridPlan, make_plan
from judgegrid.export import EXPORT_FORMATS, export_table
from judgegrid.orchestrate import (
    DatasetArg,
    GridResult,
    MatrixArg,
    PreparedRun,
    check_limit,
    execute_run,
    execution_for,
    pending_batches,
    prepare_resume,
    prepare_run,
    read_matrix,
    read_tables,
    rebuild_outputs,
    resolve_dataset,
)
from judgegrid.pairs import PairsResult, is_pairs_dir, rebuild_pairs_outputs, run_pairs
from judgegrid.runner import ProgressHook

__all__ = [
    "EXPORT_FORMATS",
    "GridPlan",
    "GridResult",
    "PairsResult",
    "PreparedRun",
    "execute_run",
    "execution_for",
    "export_run",
    "load_run",
    "pending_batches",
    "plan_grid",
    "prepare_resume",
    "prepare_run",
    "rebuild_report",
    "resume_run",
    "run_grid",
    "run_pairs",
]


def run_grid(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    *,
    reports_dir: str | Path = "reports",
    run_dir: str | Path | None = None,
    limit: int | None = None,
    on_progress: ProgressHook | None = None,
    use_cache: bool = True,
    columns: Mapping[str, str] | None = None,
    list_delimiter: str | None = None,
    workers: int | None = None,
    backend: str | None = None,
) -> GridResult:
    """Score every cell of ``matrix`` over ``dataset`` into a new run directory.

    ``dataset``: a file ('demo', .jsonl/.json/.csv/.parquet/.arrow, a ``save_to_disk`` folder),
    a list of samples or dicts, a pandas DataFrame, a Ragas ``EvaluationDataset``, a DeepEval
    ``EvaluationDataset`` or list of ``LLMTestCase``/``Golden``, or a Hugging Face ``Dataset``;
    Ragas or DeepEval field names are detected. ``columns`` maps sample fields to other names
    ({"user_input": "question"}); ``list_delimiter`` splits a list field's text cell.

    With ``use_cache`` (the default) judge answers and vectors are looked up in, and saved to,
    the cross-run cache (``$JUDGEGRID_CACHE_DIR`` or ~/.cache/judgegrid). ``workers`` and
    ``backend`` override the matrix's ``execution:`` block.
    """
    prepared = prepare_run(
        matrix,
        dataset,
        reports_dir=reports_dir,
        run_dir=run_dir,
        limit=limit,
        use_cache=use_cache,
        columns=columns,
        list_delimiter=list_delimiter,
    )
    return execute_run(prepared, on_progress, execution_for(prepared.matrix, workers, backend))


def plan_grid(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    *,
    limit: int | None = None,
    use_cache: bool = True,
    columns: Mapping[str, str] | None = None,
    list_delimiter: str | None = None,
) -> GridPlan:
    """The calls, tokens, cost and time a run of ``matrix`` would take, and the calls the
    cross-run cache would answer; asks no model and needs no key (``judgegrid plan``)."""
    loaded, matrix_path = read_matrix(matrix)
    check_limit(limit)
    limit = limit if limit is not None else loaded.limit
    data = resolve_dataset(loaded, matrix_path, dataset, columns, list_delimiter).head(limit)
    return make_plan(loaded, data, use_cache)


def resume_run(
    run_dir: str | Path,
    *,
    retry_failed: bool = False,
    on_progress: ProgressHook | None = None,
    use_cache: bool | None = None,
    workers: int | None = None,
    backend: str | None = None,
) -> GridResult:
    """Finish an interrupted run: cells already in the database are not scored again.

    ``use_cache`` None: as the run was started (``--no-cache`` is remembered). ``workers`` and
    ``backend``: as in ``run_grid`` (a run may be resumed on other workers than it began on).
    """
    prepared = prepare_resume(run_dir, retry_failed=retry_failed, use_cache=use_cache)
    return execute_run(prepared, on_progress, execution_for(prepared.matrix, workers, backend))


def rebuild_report(run_dir: str | Path) -> list[Path]:
    """Every output of a run directory — or of a ``judgegrid pairs`` directory, each aspect run
    and the pairs summary — from the databases alone: no model is called."""
    if is_pairs_dir(run_dir):
        return [rebuild_pairs_outputs(run_dir)]
    return rebuild_outputs(run_dir)


def load_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scores and calls tables of a finished or interrupted run."""
    return read_tables(run_dir)


def export_run(run_dir: str | Path, format: str = "ragas") -> pd.DataFrame:
    """A run's scores as a table for the tools the user has: one row per sample and judge
    configuration with a column per metric, as Ragas' result table (``format="ragas"``), or one
    row per sample with a column per metric and configuration (``format="wide"``). A metric's
    value is the mean of its scored repeats; NaN where none scored (``failed``/``skipped``
    count the cells behind each row)."""
    return export_table(run_dir, format)
