"""The public Python API: run a grid, resume it, and read its results.

>>> result = run_grid("model_matrices/local.yaml", limit=2)   # doctest: +SKIP
>>> result.scores.groupby(["metric", "judge"])["score"].mean() # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from judgegrid import report
from judgegrid.cache import ResultCache
from judgegrid.dataset import DEMO, load_dataset
from judgegrid.embedder import resolve_dimension_method
from judgegrid.errors import InputError, MatrixError, Problem
from judgegrid.matrix import Matrix, load_matrix, parse_matrix
from judgegrid.preflight import preflight
from judgegrid.providers import register_local_models
from judgegrid.runner import GridRunner, ProgressHook, Tally
from judgegrid.sample import Dataset
from judgegrid.store import DB_NAME, SCORE_COLUMNS, RunStore
from judgegrid.tasks import expand_cells, expected_cell_count

RESOLVED_MATRIX = "matrix.resolved.yaml"


@dataclass
class GridResult:
    run_dir: Path
    scores: pd.DataFrame
    calls: pd.DataFrame
    tally: Tally
    expected_cells: int

    @property
    def complete(self) -> bool:
        return len(self.scores) == self.expected_cells


def resolve_dataset(
    matrix: Matrix, matrix_path: str | Path | None, dataset: str | Path | Dataset | None
) -> Dataset:
    """The data set named on the command line, else the matrix's (relative to its file)."""
    if isinstance(dataset, Dataset):
        return dataset
    if dataset is not None:
        return load_dataset(dataset)
    if matrix.dataset in (None, DEMO):
        return load_dataset(DEMO)
    path = Path(matrix.dataset)
    if not path.is_absolute() and matrix_path is not None:
        path = Path(matrix_path).parent / path
    return load_dataset(path)


def new_run_dir(reports_dir: str | Path, matrix_name: str) -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", matrix_name).strip("-") or "run"
    base = Path(reports_dir) / f"{stamp}-{slug}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    path.mkdir(parents=True)
    return path


def resolved_matrix_yaml(matrix: Matrix, dataset_source: str) -> str:
    """The matrix as run: defaults merged in, the data set's path fixed. Holds no secret: the
    matrix only ever names the environment variables that hold keys."""
    data = matrix.model_dump(mode="json", exclude_none=True)
    data["dataset"] = dataset_source
    for i, spec in enumerate(matrix.judges):
        data["judges"][i]["options"] = matrix.judge_options(spec).model_dump(
            mode="json", exclude_none=True
        )
        data["judges"][i]["label"] = matrix.judge_label(i)
    for i, spec in enumerate(matrix.embeddings):
        data["embeddings"][i]["options"] = matrix.embedding_options(spec).model_dump(
            mode="json", exclude_none=True
        )
        data["embeddings"][i]["label"] = matrix.embedding_label(i)
        data["embeddings"][i]["dimensions"] = matrix.embedding_dimensions(spec)
    data["metrics"] = [{"name": s.name, **s.params} for s in matrix.metrics]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def run_grid(
    matrix: Matrix | str | Path,
    dataset: str | Path | Dataset | None = None,
    *,
    reports_dir: str | Path = "reports",
    run_dir: str | Path | None = None,
    limit: int | None = None,
    on_progress: ProgressHook | None = None,
    use_cache: bool = True,
) -> GridResult:
    """Score every cell of ``matrix`` over ``dataset`` into a new run directory.

    With ``use_cache`` (the default) judge answers and vectors are looked up in, and saved to,
    the cross-run cache (``$JUDGEGRID_CACHE_DIR`` or ~/.cache/judgegrid).
    """
    matrix_path = None if isinstance(matrix, Matrix) else Path(matrix)
    if matrix_path is not None:
        matrix = load_matrix(matrix_path)
    assert isinstance(matrix, Matrix)
    limit = limit if limit is not None else matrix.limit
    data = resolve_dataset(matrix, matrix_path, dataset).head(limit)
    preflight(matrix, str(matrix_path or "<matrix>"))
    source = data.source if data.source == DEMO else str(Path(data.source).resolve())
    name = matrix.name or (matrix_path.stem if matrix_path else "matrix")
    target = Path(run_dir) if run_dir else new_run_dir(reports_dir, name)
    target.mkdir(parents=True, exist_ok=True)
    (target / RESOLVED_MATRIX).write_text(resolved_matrix_yaml(matrix, source), encoding="utf-8")
    store = RunStore(target / DB_NAME)
    store.set_meta("dataset", source)
    store.set_meta("limit", limit)
    store.set_meta("use_cache", use_cache)
    return _execute(matrix, data, store, target, on_progress, use_cache)


def open_run(run_dir: str | Path) -> tuple[Path, Matrix, RunStore]:
    """A run directory's matrix as run and its database, or a clear error if it is not one."""
    target = Path(run_dir)
    db = target / DB_NAME
    matrix_file = target / RESOLVED_MATRIX
    if not db.exists() or not matrix_file.exists():
        raise InputError(
            str(target),
            [Problem("", f"not a run directory (needs {DB_NAME} and {RESOLVED_MATRIX})")],
        )
    matrix = parse_matrix(matrix_file.read_text(encoding="utf-8"), str(matrix_file))
    return target, matrix, RunStore(db)


def resume_run(
    run_dir: str | Path,
    *,
    retry_failed: bool = False,
    on_progress: ProgressHook | None = None,
    use_cache: bool | None = None,
) -> GridResult:
    """Finish an interrupted run: cells already in the database are not scored again.

    ``use_cache`` None: as the run was started (``--no-cache`` is remembered).
    """
    target, matrix, store = open_run(run_dir)
    data = _stored_dataset(store)
    preflight(matrix, str(target / RESOLVED_MATRIX))
    if retry_failed:
        store.delete_failed()
    if use_cache is None:
        use_cache = bool(store.get_meta("use_cache", True))
    return _execute(matrix, data, store, target, on_progress, use_cache)


SAMPLE_INFO = "samples"
SAMPLE_TEXT_CHARS = 300


def sample_info(data: Dataset) -> dict[str, dict[str, Any]]:
    """What the report needs to know about each sample (question excerpt, labels, contrast), so
    it can be rebuilt from the run database without the data set file."""
    return {
        s.id: {
            "user_input": (s.user_input or "")[:SAMPLE_TEXT_CHARS],
            "labels": s.labels,
            "contrast": s.contrast.model_dump() if s.contrast else None,
        }
        for s in data
    }


def _execute(
    matrix: Matrix,
    data: Dataset,
    store: RunStore,
    target: Path,
    on_progress: ProgressHook | None,
    use_cache: bool,
) -> GridResult:
    store.set_meta(SAMPLE_INFO, sample_info(data))
    register_local_models([j.id for j in matrix.judges] + [e.id for e in matrix.embeddings])
    cells = expand_cells(matrix, data)
    expected = expected_cell_count(matrix, len(data))
    cache = ResultCache() if use_cache else None
    runner = GridRunner(matrix, data, store, cache=cache)
    try:
        tally = asyncio.run(runner.run(cells, on_progress))
    finally:
        if cache is not None:
            cache.close()
        scores, calls = write_outputs(target, store, matrix, expected)
    store.close()
    return GridResult(target, scores, calls, tally, expected)


def write_outputs(
    target: Path, store: RunStore, matrix: Matrix, expected: int | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """scores.csv, summary.md, tables/*.csv and report.html from the database (also after an
    interrupt: partial is shown); returns the scores and calls tables it read."""
    scores, calls = store.scores_frame(), store.calls_frame()
    methods = {
        matrix.embedding_label(i): resolve_dimension_method(e.id, e.dimension_method)
        for i, e in enumerate(matrix.embeddings)
    }
    report.write_all(
        target,
        scores,
        calls,
        title=f"judgegrid run {target.name}",
        expected_cells=expected,
        dimension_methods=methods,
        sample_info=_stored_sample_info(store),
        step_names=store.step_names_frame(),
    )
    return scores, calls


def _stored_sample_info(store: RunStore) -> dict[str, Any]:
    """The samples' info kept in the database; for a run made before it was kept, read again
    from the data set the run names (if that file is still there)."""
    info = store.get_meta(SAMPLE_INFO)
    if info is not None:
        return info
    try:
        return sample_info(_stored_dataset(store))
    except InputError:
        return {}


def _stored_dataset(store: RunStore) -> Dataset:
    """The samples a run scored: its data set, as far as its limit reached."""
    return load_dataset(store.get_meta("dataset", DEMO)).head(store.get_meta("limit"))


def rebuild_report(run_dir: str | Path) -> list[Path]:
    """Every output of a run directory, from its database alone: no model is called."""
    target, matrix, store = open_run(run_dir)
    try:
        info = _stored_sample_info(store)
        expected = expected_cell_count(matrix, len(info)) if info else None
        write_outputs(target, store, matrix, expected)
    finally:
        store.close()
    return [target / name for name in ("summary.md", report.HTML_NAME, report.TABLES_DIR)]


def load_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scores and calls tables of a finished or interrupted run."""
    store = RunStore(Path(run_dir) / DB_NAME)
    try:
        return store.scores_frame(), store.calls_frame()
    finally:
        store.close()


@dataclass
class PairsResult:
    run_dir: Path
    aspect_runs: dict[str, GridResult]
    outcome: Any  # judgegrid.pairs.PairsOutcome


def run_pairs(
    matrix: str | Path,
    pairs_path: str | Path,
    *,
    reports_dir: str | Path = "reports",
    limit: int | None = None,
    repeats: int | None = None,
    judges: list[str] | None = None,
    on_progress: ProgressHook | None = None,
) -> PairsResult:
    """Score a human-preference pairs file: one run per aspect (faithfulness, answer relevance)
    with the metrics that measure it, then the per-judge x aspect accuracy table."""
    from judgegrid import pairs as pairs_module

    matrix_path = Path(matrix)
    loaded = load_matrix(matrix_path)
    records = pairs_module.load_pairs(pairs_path)[:limit]
    loaded = _narrowed(loaded, str(matrix_path), repeats, judges)
    parent = new_run_dir(reports_dir, f"{loaded.name or matrix_path.stem}-pairs")
    runs: dict[str, GridResult] = {}
    for aspect in pairs_module.ANSWER_ASPECTS:
        specs, _ = pairs_module.aspect_metrics(loaded, aspect)
        if not specs:
            continue
        # the matrix's sample limit is for its own data set; pairs are limited by --limit
        update = {"metrics": specs, "name": f"{loaded.name}-{aspect}", "limit": None}
        sub = loaded.model_copy(update=update)
        data = pairs_module.aspect_dataset(records, aspect, str(pairs_path))
        runs[aspect] = run_grid(sub, data, run_dir=parent / aspect, on_progress=on_progress)
    (parent / PAIRS_SOURCE).write_text(str(pairs_path), encoding="utf-8")
    return PairsResult(parent, runs, write_pairs_outcome(parent))


PAIRS_SOURCE = "pairs_source.txt"


def is_pairs_dir(path: str | Path) -> bool:
    """A directory made by ``run_pairs``: aspect run directories inside, no database of its own."""
    path = Path(path)
    return (path / PAIRS_SOURCE).exists() and not (path / DB_NAME).exists()


def write_pairs_outcome(parent: Path) -> Any:
    """pairs_accuracy.csv and pairs_summary.md from the aspect runs' databases (no model call)."""
    from judgegrid import pairs as pairs_module

    scores, info = [], {}
    for db in sorted(parent.glob(f"*/{DB_NAME}")):
        store = RunStore(db)
        try:
            scores.append(store.scores_frame())
            info |= _stored_sample_info(store)
        finally:
            store.close()
    frame = pd.concat(scores, ignore_index=True) if scores else pd.DataFrame(columns=SCORE_COLUMNS)
    outcome = pairs_module.pairs_outcome(frame, info, pairs_module.unavailable_metrics())
    outcome.accuracy.to_csv(parent / "pairs_accuracy.csv", index=False)
    source = (parent / PAIRS_SOURCE).read_text(encoding="utf-8").strip()
    title = f"judgegrid pairs {parent.name}: {source}"
    (parent / "pairs_summary.md").write_text(
        pairs_module.outcome_markdown(outcome, title), encoding="utf-8"
    )
    return outcome


def _narrowed(matrix: Matrix, source: str, repeats: int | None, judges: list[str] | None) -> Matrix:
    """The matrix with fewer repeats or only the named judges (labels), for a quicker check."""
    update: dict[str, Any] = {}
    if repeats is not None:
        update["repeats"] = repeats
    if judges:
        labels = [matrix.judge_label(i) for i in range(len(matrix.judges))]
        unknown = [j for j in judges if j not in labels]
        if unknown:
            raise MatrixError(
                source,
                [
                    Problem(
                        "judges",
                        f"no judge labelled {', '.join(unknown)}; known: {', '.join(labels)}",
                    )
                ],
            )
        kept = [spec for spec, label in zip(matrix.judges, labels, strict=True) if label in judges]
        update["judges"] = [
            spec if spec.label else spec.model_copy(update={"label": spec.id}) for spec in kept
        ]
    return matrix.model_copy(update=update) if update else matrix
