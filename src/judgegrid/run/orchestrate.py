"""A run from start to finish: check it, lay it out, execute it, resume it, write its outputs.

``check_run`` makes every check and decision before anything is written — matrix, options,
execution settings, data set and its limit, columns, models and keys — and ``start_run`` then
lays out the run directory with the matrix as run; ``prepare_run`` is the two in one, so the CLI
and the Python API start a run the same way. A refusal leaves the file system as it found it: no
run directory, no cache entry. An interrupted run can be resumed from its directory.
``execute_run`` scores the cells and writes the outputs, also after an interrupt.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from judgegrid.calls.embedder import resolve_dimension_method
from judgegrid.calls.providers import register_local_models
from judgegrid.core.cells import Cell
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import (
    DatasetError,
    InputError,
    MatrixError,
    OptionError,
    Problem,
    RunDirError,
)
from judgegrid.core.options import Execution
from judgegrid.core.records import BatchRecord
from judgegrid.core.run_options import ResumeOptions, RunOptions, check_margin
from judgegrid.core.sample import Dataset, Sample
from judgegrid.core.validation import validate
from judgegrid.inputs.dataset import DEMO, dataset_from_object, load_dataset
from judgegrid.inputs.formats import COLUMNS
from judgegrid.inputs.matrix import (
    NOTHING_TO_SCORE,
    Matrix,
    ProbeOptions,
    execution_problems,
    handed_place,
    inspect_matrix,
    inspect_matrix_data,
    read_matrix_text,
    with_criteria,
)
from judgegrid.inputs.peers import fields_present, handed_criteria
from judgegrid.inputs.tasks import (
    expand_cells,
    expected_cell_count,
    grid_size_problems,
    probed_cell_count,
    user_samples,
    with_probes,
)
from judgegrid.labels.pairwise import criterion_pairs, is_pairwise
from judgegrid.run.added_judges import ADD_OPTION, LiveJudges, live_judges
from judgegrid.run.backends import run_sharded
from judgegrid.run.preflight import (
    check_environment,
    cluster_problems,
    criterion_field_problems,
    preflight,
    unresumable_warning,
    weighting_problems,
)
from judgegrid.run.runner import GridRunner, ProgressHook, Tally
from judgegrid.store.cache import ResultCache
from judgegrid.store.lock import lock_run
from judgegrid.store.read_ahead import ScoresReadAhead
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import (
    IMPORTED,
    RESOLVED_MATRIX,
    SAMPLE_INFO,
    is_run_dir,
    new_run_dir,
    open_run,
    resolved_matrix_yaml,
    sample_info,
    stored_dataset,
    stored_groups,
    stored_sample_info,
    write_resolved_matrix,
)

if TYPE_CHECKING:  # the analyses bring scipy: imported when outputs are written (below)
    from judgegrid.analyses import RunFacts, ValidityInputs

log = logging.getLogger("judgegrid")


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


@dataclass
class CheckedRun:
    """A run checked in full and not yet laid out: nothing of it is on disk."""

    matrix: Matrix
    matrix_path: Path | None
    data: Dataset
    limit: int | None
    use_cache: bool
    execution: Execution


@dataclass
class PreparedRun:
    """A run checked and laid out, not yet scored: what ``execute_run`` needs."""

    matrix: Matrix
    data: Dataset
    run_dir: Path
    store: RunStore
    cells: list[Cell]
    expected_cells: int
    use_cache: bool
    execution: Execution
    retry_failed: bool = False  # a resumed run: score its failed cells again
    # An imported run with judges to call (``added_judges``): ``matrix`` is those judges', what
    # is called; ``whole`` names the recorded ones too, for the outputs; ``new_matrix``: the
    # run's matrix file with judges added, written when the run executes; ``scored_judges``:
    # the judges whose failed cells may be dropped (never a recorded one's)
    whole: Matrix | None = None
    new_matrix: str | None = None
    scored_judges: list[str] | None = None

    def close(self) -> None:
        """Let go of the run's database (a run refused after it was prepared, e.g. on cost)."""
        self.store.close()


# A file path or 'demo', a Dataset, a list of samples or dicts, a pandas DataFrame, or a Ragas,
# DeepEval or Hugging Face data set object (``dataset.dataset_from_object`` says which).
DatasetArg = str | Path | Dataset | Sequence[Sample | dict[str, Any]] | pd.DataFrame | Any | None
MatrixArg = Matrix | dict[str, Any] | str | Path


def resolve_dataset(
    matrix: Matrix,
    matrix_path: str | Path | None,
    dataset: DatasetArg,
    columns: Mapping[str, str] | None = None,
    list_delimiter: str | None = None,
) -> Dataset:
    """The data set given (a file, 'demo', or an object of judgegrid, pandas, Ragas, DeepEval or
    Hugging Face), else the matrix's own (relative to its file)."""
    extra = matrix.extra_fields  # the columns its criteria read, kept beside the fields
    if dataset is not None:
        return dataset_from_object(
            dataset, columns=columns, list_delimiter=list_delimiter, extra=extra
        )
    if matrix.dataset in (None, DEMO):
        return load_dataset(DEMO)
    path = Path(str(matrix.dataset))
    if not path.is_absolute() and matrix_path is not None:
        path = Path(matrix_path).parent / path
    if not path.exists():
        raise _matrix_dataset_missing(str(matrix.dataset), path, matrix_path)
    if columns or not matrix.columns:
        return load_dataset(path, columns=columns, list_delimiter=list_delimiter, extra=extra)
    try:  # the matrix's columns: name its own data set's fields
        return load_dataset(
            path, columns=matrix.columns, list_delimiter=list_delimiter, extra=extra
        )
    except OptionError as exc:
        if exc.source != COLUMNS:
            raise
        raise _as_matrix_columns(exc, matrix_path) from None


def _matrix_dataset_missing(
    written: str, path: Path, matrix_path: str | Path | None
) -> DatasetError:
    """The matrix's ``dataset:`` names no file: said of the matrix and its field, with the path
    looked at, since a relative path is read from the matrix's folder, not the working one."""
    source = str(matrix_path) if matrix_path is not None else "<matrix>"
    relative = "" if Path(written).is_absolute() else ", relative to the matrix's folder"
    message = (
        f"file not found: {written} (looked for {path.resolve()}{relative}); "
        "fix the path, or give the data set with --dataset"
    )
    return DatasetError(source, [Problem("dataset", message)])


def _as_matrix_columns(exc: OptionError, matrix_path: str | Path | None) -> MatrixError:
    """A refused column map that the matrix's ``columns:`` gave, not ``--columns``: named
    where the user wrote it (``m.yaml: columns.user_input: …``)."""
    source = str(matrix_path) if matrix_path is not None else "<matrix>"
    problems = [Problem(f"columns.{p.where.partition('=')[0]}", p.message) for p in exc.problems]
    return MatrixError(source, problems)


def read_matrix(matrix: MatrixArg, criteria_handed: bool = False) -> tuple[Matrix, Path | None]:
    """The matrix, and the file it came from (None for a Matrix object or a dict).
    ``criteria_handed``: criteria come beside it (``run_grid(criteria=[...])``), so a matrix
    that names nothing to score is not refused for that."""
    if isinstance(matrix, Matrix):
        return matrix, None
    if isinstance(matrix, dict):
        found, problems = inspect_matrix_data(matrix)
        return _read(found, problems, "<matrix>", criteria_handed), None
    if not isinstance(matrix, str | os.PathLike):
        raise OptionError(
            "matrix",
            [
                Problem(
                    "",
                    f"expected a matrix file path, a Matrix or a dict, got {type(matrix).__name__}",
                )
            ],
        )
    source = str(matrix)
    found, problems = inspect_matrix(read_matrix_text(matrix), source)
    return _read(found, problems, source, criteria_handed), Path(matrix)


def _read(
    found: Matrix | None, problems: list[Problem], source: str, criteria_handed: bool
) -> Matrix:
    if criteria_handed:
        problems = [p for p in problems if p != NOTHING_TO_SCORE]
    if problems or found is None:
        raise MatrixError(source, problems)
    return found


def with_margin(matrix: Matrix, margin: float) -> Matrix:
    """The matrix with its decision card's non-inferiority margin set (``--margin``)."""
    check_margin(margin)
    decision = matrix.decision.model_copy(update={"margin": float(margin)})
    return matrix.model_copy(update={"decision": decision})


def check_run(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    options: RunOptions | None = None,
    *,
    keys: bool = True,
) -> CheckedRun:
    """Every check a run needs, in one place and before anything is written: the matrix, the
    options (limit, execution settings and batch mode, ``margin`` over the matrix's
    ``decision: {margin}``, ``probes`` True: the default probes when the matrix asks for none),
    the data set read with its columns, the grid's size, the models, keys and samples. Calls no
    model and writes nothing. ``keys`` False (the plan, which needs none): every check but that
    the environment holds the keys."""
    options = options or RunOptions()
    loaded, matrix_path = read_matrix(matrix, criteria_handed=bool(options.criteria))
    if options.margin is not None:
        loaded = with_margin(loaded, options.margin)
    loaded = probes_on(loaded) if options.probes else loaded
    execution = execution_for(loaded, options.workers, options.backend, options.address)
    limit = options.limit if options.limit is not None else loaded.limit
    # the handed criteria name the extra columns to read; a Ragas metric's optional columns
    # are then those the data set has
    reading = with_criteria(loaded, handed_criteria(options.criteria))
    data = resolve_dataset(reading, matrix_path, dataset, options.columns, options.list_delimiter)
    data = data.head(limit)
    if options.criteria:
        handed = handed_criteria(options.criteria, available=fields_present(data))
        check_handed(loaded, handed, data)
        loaded = with_criteria(loaded, handed)
    check_grid_size(loaded, data)
    preflight(loaded, str(matrix_path or "<matrix>"), data, keys=keys)
    check_environment(loaded, options.use_cache)
    return CheckedRun(loaded, matrix_path, data, limit, options.use_cache, execution)


def check_handed(
    matrix: Matrix, handed: Sequence[tuple[str, CriterionSpec]], data: Dataset
) -> None:
    """What the preflight would find of the criteria handed beside the matrix (a field no sample
    has, ``weighting: logprobs`` under a judge that gives none), said at their places in the
    ``criteria`` argument rather than at their index in the merged matrix."""
    alone = matrix.model_copy(update={"criteria": [spec for _, spec in handed]})
    found = criterion_field_problems(alone, data) + weighting_problems(alone)
    if found:
        places = [where for where, _ in handed]
        raise OptionError("criteria", [handed_place(p, 0, places) for p in found])


def check_grid_size(matrix: Matrix, data: Dataset) -> None:
    """A grid of more than MAX_CELLS cells is refused before one is made."""
    problems = grid_size_problems(matrix, data)
    if problems:
        raise MatrixError("", problems)


def start_run(
    checked: CheckedRun, *, reports_dir: str | Path = "reports", run_dir: str | Path | None = None
) -> PreparedRun:
    """Lay out the run directory of a checked run: the matrix as run and the database."""
    loaded, data = checked.matrix, checked.data
    target = Path(run_dir) if run_dir else None
    check_run_place(reports_dir, target)
    in_python = data.source == DEMO or data.source.startswith("<")  # not a file: "<DataFrame>"
    source = data.source if in_python else str(Path(data.source).resolve())
    path = checked.matrix_path
    name = loaded.name or (path.stem if path else "matrix")
    if target is not None and is_run_dir(target):
        return _resume_same_run(checked, target, resolved_matrix_yaml(loaded, source), source)
    if warning := unresumable_warning(loaded, checked.use_cache):
        log.warning(warning)
    target = target or new_run_dir(reports_dir, name)
    target.mkdir(parents=True, exist_ok=True)
    lock = lock_run(target)
    (target / RESOLVED_MATRIX).write_text(resolved_matrix_yaml(loaded, source), encoding="utf-8")
    store = RunStore(target / DB_NAME, lock)
    store.set_meta("dataset", source)
    store.set_meta("limit", checked.limit)
    store.set_meta("use_cache", checked.use_cache)
    return _prepared(loaded, data, target, store, checked.use_cache, checked.execution)


def _resume_same_run(checked: CheckedRun, target: Path, resolved: str, source: str) -> PreparedRun:
    """A run directory given to a new run: an interrupted run of the same matrix and data set is
    resumed; anything else (a finished run, another matrix or data set) is refused, and the
    directory is left as it was: a run is never overwritten nor mixed with another."""
    _, _, reader = open_run(target)  # read-only: a refusal leaves the directory as it was
    try:
        kept = reader.load_samples()  # none yet: stopped before its first cell
        same = (target / RESOLVED_MATRIX).read_text(encoding="utf-8") == resolved and (
            reader.get_meta("dataset") == source
            and (not kept or kept == list(user_samples(checked.data)))
        )
        done = len(reader.scores_frame())
    finally:
        reader.close()
    data = with_probes(checked.matrix, checked.data)
    why = (
        "it holds a run of another matrix or data set"
        if not same
        else "it holds a finished run"
        if done >= probed_cell_count(checked.matrix, data)
        else ""
    )
    if why:
        message = f"{why}; a run is never overwritten: name a new run directory"
        raise RunDirError(str(target), [Problem("run_dir", message)])
    _, _, store = open_run(target, write=True)
    return _prepared(
        checked.matrix, checked.data, target, store, checked.use_cache, checked.execution
    )


def check_run_place(reports_dir: str | Path, run_dir: Path | None) -> None:
    """Where the run directory goes can hold one: neither it nor ``reports_dir`` (nor the
    nearest of their parents that is there) is a file."""
    where, option = (run_dir, "run_dir") if run_dir else (Path(reports_dir), "--reports-dir")
    for parent in (where, *where.parents):
        if parent.exists():
            if not parent.is_dir():
                message = f"{parent} is a file, not a directory to make a run directory in"
                raise OptionError(option, [Problem("", message)])
            return


def prepare_run(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    options: RunOptions | None = None,
    *,
    reports_dir: str | Path = "reports",
    run_dir: str | Path | None = None,
) -> PreparedRun:
    """Check everything (``check_run``), then lay out the run directory; calls no model."""
    checked = check_run(matrix, dataset, options)
    return start_run(checked, reports_dir=reports_dir, run_dir=run_dir)


def probes_on(matrix: Matrix) -> Matrix:
    """The matrix with ``probes: all`` and the defaults, unless it has a ``probes:`` already."""
    return matrix if matrix.probes else matrix.model_copy(update={"probes": ProbeOptions()})


def check_resume_options(
    resume: Path | None, retry_failed: bool, given: Sequence[str], add_judges: bool = False
) -> None:
    """--retry-failed and --add-judges only with --resume; --resume takes everything but
    ``ResumeOptions`` from the run, so the options ``given`` beside it (a matrix, a data set, a
    limit) are refused by name."""
    if retry_failed and resume is None:
        raise OptionError(
            "--retry-failed", [Problem("", "only with --resume RUN_DIR (failed cells of a run)")]
        )
    if add_judges and resume is None:
        message = "only with --resume RUN_DIR (the imported run to add the judges to)"
        raise OptionError(ADD_OPTION, [Problem("", message)])
    if resume is not None and given:
        message = f"the run directory holds its matrix, data set and limit; drop {', '.join(given)}"
        raise OptionError("--resume", [Problem("", message)])


def prepare_resume(run_dir: str | Path, options: ResumeOptions | None = None) -> PreparedRun:
    """An interrupted run, ready to finish: cells already in its database are not scored again.

    ``options.use_cache`` None: as the run was started (``--no-cache`` is remembered). Nothing
    is changed here: the failed cells (``retry_failed``) are dropped, and the judges added to an
    imported run (``add_judges``, ``added_judges``) written into its matrix, when the run
    executes, so a resume refused after this (on its cost) leaves the run as it was.
    """
    options = options or ResumeOptions()
    target, matrix, reader = open_run(run_dir)  # read-only: every check before the lock
    live: LiveJudges | None = None
    try:
        imported = reader.get_meta(IMPORTED)
        if options.add_judges is not None and not imported:
            message = (
                "adds judges to an imported run (judgegrid import); to add a judge to a run of "
                "your own, run its matrix with the judge added"
            )
            raise RunDirError(str(target), [Problem(ADD_OPTION, message)])
        use_cache = options.use_cache
        if use_cache is None:
            use_cache = bool(reader.get_meta("use_cache", True))
        data = stored_dataset(reader)
        if imported:
            live = live_judges(target, matrix, reader, data, options.add_judges)
        scoring = live.live if live is not None else matrix
        preflight(scoring, str(target / RESOLVED_MATRIX), use_cache=use_cache)
        execution = execution_for(scoring, options.workers, options.backend, options.address)
        check_environment(scoring, use_cache)
    finally:
        reader.close()
    _, _, store = open_run(target, write=True)
    prepared = _prepared(scoring, data, target, store, use_cache, execution)
    prepared.retry_failed = options.retry_failed
    if live is not None:
        prepared.cells = live.cells
        prepared.expected_cells = live.recorded + len(live.cells)
        prepared.whole = live.whole
        prepared.scored_judges = live.labels
        if live.added:
            prepared.new_matrix = resolved_matrix_yaml(live.whole, str(live.whole.dataset))
    return prepared


def _prepared(
    matrix: Matrix,
    data: Dataset,
    target: Path,
    store: RunStore,
    use_cache: bool,
    execution: Execution,
) -> PreparedRun:
    """``data`` gets the matrix's probes (made again on a resume: they are deterministic)."""
    data = with_probes(matrix, data)
    cells = expand_cells(matrix, data)
    expected = probed_cell_count(matrix, data)
    return PreparedRun(matrix, data, target, store, cells, expected, use_cache, execution)


def execution_for(
    matrix: Matrix,
    workers: int | None = None,
    backend: str | None = None,
    address: str | None = None,
) -> Execution:
    """The matrix's ``execution:`` block with what the caller overrides (``--workers``,
    ``--backend``, ``--address``), checked like the matrix itself."""
    given = {"workers": workers, "backend": backend, "address": address}
    for name, value in given.items():
        if isinstance(value, str) and not value.strip():
            raise OptionError(f"--{name}", [Problem("", "empty; leave it out or name one")])
    data = {**matrix.execution.model_dump(exclude_none=True)}
    data.update({k: v for k, v in given.items() if v is not None})
    execution = validate(Execution, data, "execution", OptionError)
    problems = execution_problems(execution, matrix.batched) or cluster_problems(execution)
    if problems:
        raise OptionError("", problems)
    return execution


def execute_run(
    run: PreparedRun,
    on_progress: ProgressHook | None = None,
    execution: Execution | None = None,
) -> GridResult:
    """Score the run's cells not yet in its database, then write every output (also when
    interrupted: the outputs then show what was finished).

    ``execution`` (default: the one checked with the run) says whether the cells are scored in
    this process or in shards on workers (``backends``)."""
    if run.new_matrix is not None:
        write_resolved_matrix(run.run_dir, run.new_matrix)
    if run.retry_failed:
        run.store.delete_failed(run.scored_judges)
    run.store.set_meta(SAMPLE_INFO, sample_info(run.data, stored_groups(run.store)))
    run.store.save_samples(user_samples(run.data))  # probes are made again, not kept
    execution = execution or run.execution
    try:
        if execution.distributed:
            tally = run_sharded(
                run.matrix, run.data, run.store, run.cells, execution, run.use_cache, on_progress
            )
        else:
            tally = _run_here(run, on_progress)
    finally:
        try:
            scores, calls = run.store.scores_frame(), run.store.calls_frame()
            whole = run.whole or run.matrix
            write_outputs(run.run_dir, run.store, whole, run.expected_cells, scores, calls)
        finally:
            run.store.close()  # and the run's lock let go, interrupted or not
    return GridResult(run.run_dir, scores, calls, tally, run.expected_cells)


def _run_here(run: PreparedRun, on_progress: ProgressHook | None) -> Tally:
    """The cells scored by the asyncio runner in this process."""
    register_local_models([j.id for j in run.matrix.judges] + [e.id for e in run.matrix.embeddings])
    cache = ResultCache() if run.use_cache else None
    runner = GridRunner(run.matrix, run.data, run.store, cache=cache)
    try:
        return asyncio.run(runner.run(run.cells, on_progress))
    finally:
        if cache is not None:
            cache.close()


def write_outputs(
    target: Path,
    store: RunStore,
    matrix: Matrix,
    expected: int | None,
    scores: pd.DataFrame | None = None,
    calls: pd.DataFrame | None = None,
    info: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Path]:
    """scores.csv, summary.md, tables/*.csv and report.html from the database (also after an
    interrupt: partial is shown); the paths of the last three. ``scores``, ``calls`` and the
    samples' ``info``: the tables if already read; else they are read here, the calls without
    their prompts and replies, which no analysis reads, and while the report's second process
    is at work on the scores."""
    # The products bring scipy and matplotlib (1 to 3 s): imported when outputs are written,
    # so that checking a run (`judgegrid plan`, `validate`) starts without them.
    from judgegrid.outputs import report

    scores = store.scores_frame() if scores is None else scores
    info = stored_sample_info(store) if info is None else info

    methods = {
        matrix.embedding_label(i): resolve_dimension_method(e.id, e.dimension_method)
        for i, e in enumerate(matrix.embeddings)
    }
    report.write_all(
        target,
        scores,
        lambda: validity_inputs(store, matrix, info, calls),
        title=f"judgegrid run {target.name}",
        expected_cells=expected,
        dimension_methods=methods,
        facts=run_facts(matrix, info, dataset_pairs(store, matrix)),
    )
    return [target / name for name in ("summary.md", report.HTML_NAME, report.TABLES_DIR)]


def validity_inputs(
    store: RunStore,
    matrix: Matrix,
    info: Mapping[str, Mapping[str, Any]],
    calls: pd.DataFrame | None = None,
) -> ValidityInputs:
    """What the validity half reads from the run database besides the scores: calls, steps,
    people's labels (only those given blind, with ``decision: {blind_only}``) and preferences."""
    from judgegrid.labels.files import human_labels, people_pairs, without_sighted
    from judgegrid.outputs import report

    labels = store.labels_frame()
    if matrix.decision.blind_only:
        labels = without_sighted(labels)
    return report.ValidityInputs(
        calls=store.calls_frame(texts=False) if calls is None else calls,
        step_names=store.step_names_frame(),
        human_labels=human_labels(labels, info, matrix.criteria),
        people_pairs=people_pairs(labels),
        label_draws=store.draws_frame(),
        answers=human_labels(labels, info, matrix.criteria, skips=True),
    )


def run_facts(
    matrix: Matrix,
    info: Mapping[str, Mapping[str, Any]],
    pairs: Mapping[str, Sequence[str]] | None,
) -> RunFacts:
    """What the analyses know of a run besides its scores, from its matrix and samples;
    ``pairs``: each pairwise criterion's pairs in the data set (``dataset_pairs``; None: not
    known, the samples cannot be read)."""
    from judgegrid.outputs import report

    return report.RunFacts(
        sample_info=info,
        jury_panels=matrix.jury_panels,
        criteria=matrix.criteria_by_name,
        margin=matrix.decision.margin,
        criterion_pairs=None if pairs is None else dict(pairs),
    )


def dataset_pairs(store: RunStore, matrix: Matrix) -> dict[str, tuple[str, ...]] | None:
    """Each pairwise criterion's pairs in the run's data set (``labels.pairwise.criterion_pairs``,
    as the labelling page offers them), so the card can name those no judge compared. The
    samples are read only where the matrix has a pairwise criterion; None for a run whose
    samples cannot be read again (an old run, its data set file gone): its line says the
    pairs no judge compared are not known, not that none is left."""
    if not any(is_pairwise(spec) for spec in matrix.criteria):
        return {}
    try:
        samples = stored_dataset(store)
    except InputError:
        return None
    return criterion_pairs(samples, matrix.criteria)


def true_score_export(run_dir: str | Path) -> pd.DataFrame:
    """``judgegrid export --format true-score``: each labelled metric's and judge's mean by
    people's standard (``analyses`` ``true_score``), the card's judge marked; nothing written."""
    from judgegrid.outputs import report

    _, matrix, store = open_run(run_dir)
    try:
        info = stored_sample_info(store)
        inputs = validity_inputs(store, matrix, info)
        return report.true_score_table(store.scores_frame(), run_facts(matrix, info, {}), inputs)
    finally:
        store.close()


def rebuild_outputs(
    run_dir: str | Path,
    margin: float | None = None,
    blind_only: bool = False,
    read_ahead: ScoresReadAhead | None = None,
) -> list[Path]:
    """Every output of a run directory, from its database alone: no model is called. A
    ``margin`` overrides the run's ``decision: {margin}`` for this report; ``blind_only`` leaves
    out the labels given with the judges shown; ``read_ahead`` may hold its scores already."""
    check_margin(margin)  # before the run is opened: a refusal leaves it as it was
    # the frame read ahead is taken before the run is opened for writing: opening it turns on
    # WAL, which waits for the reader's lock, and a reader of half a million rows on a loaded
    # machine outlasted SQLite's 5 s ("not a run database (database is locked)")
    ahead = read_ahead.scores_of(Path(run_dir) / DB_NAME) if read_ahead is not None else None
    target, matrix, store = open_run(run_dir, write=True)
    if margin is not None:
        matrix = with_margin(matrix, margin)
    if blind_only:
        decision = matrix.decision.model_copy(update={"blind_only": True})
        matrix = matrix.model_copy(update={"decision": decision})
    try:
        info = stored_sample_info(store)
        probe_metrics = [i["probe"]["metric"] for i in info.values() if i.get("probe")]
        n_user = len(info) - len(probe_metrics)
        expected = expected_cell_count(matrix, n_user, probe_metrics) if info else None
        return write_outputs(target, store, matrix, expected, ahead, info=info)
    finally:
        store.close()


def read_tables(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scores and calls tables of a finished or interrupted run."""
    _, _, store = open_run(run_dir)
    try:
        return store.scores_frame(), store.calls_frame()
    finally:
        store.close()


def pending_batches(run_dir: str | Path) -> list[BatchRecord]:
    """The batches of a run (batch mode) submitted to a provider and not yet answered."""
    _, _, store = open_run(run_dir)
    try:
        return [b for b in store.load_batches() if b.pending]
    finally:
        store.close()
