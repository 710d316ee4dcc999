"""The public Python API: run a grid, resume it, score preference pairs, read and report runs.

>>> result = run_grid("model_matrices/local.yaml", limit=2)   # doctest: +SKIP
>>> result.scores.groupby(["metric", "judge"])["score"].mean() # doctest: +SKIP

Each entry point is a few lines over ``orchestrate`` (prepare, execute, resume, outputs) and
``pairs`` (the preference-pairs workflow); the CLI calls the same functions.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judgegrid.orchestrate import (
    DatasetArg,
    GridResult,
    MatrixArg,
    PreparedRun,
    execute_run,
    execution_for,
    prepare_resume,
    prepare_run,
    read_tables,
    rebuild_outputs,
)
from judgegrid.pairs import PairsResult, is_pairs_dir, rebuild_pairs_outputs, run_pairs
from judgegrid.runner import ProgressHook

__all__ = [
    "GridResult",
    "PairsResult",
    "PreparedRun",
    "execute_run",
    "execution_for",
    "load_run",
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
    workers: int | None = None,
    backend: str | None = None,
) -> GridResult:
    """Score every cell of ``matrix`` over ``dataset`` into a new run directory.

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
    )
    return execute_run(prepared, on_progress, execution_for(prepared.matrix, workers, backend))


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
