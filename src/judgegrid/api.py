"""The public Python API: run a grid, resume it, score preference pairs, read and report runs.

>>> result = run_grid("model_matrices/local.yaml", limit=2)   # doctest: +SKIP
>>> result.scores.groupby(["metric", "judge"])["score"].mean() # doctest: +SKIP

Each entry point is a few lines over ``run.orchestrate`` (prepare, execute, resume, outputs) and
``run.pairs`` (the preference-pairs workflow). The CLI calls the same functions and reaches the
rest of the tool only through this module: what it needs of the layers below is named here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import InstanceOf

from judgegrid.analyses import cell_causes
from judgegrid.calls.providers.serve import ServeError, plan_servers, serve_forever
from judgegrid.core.arguments import checked
from judgegrid.core.criterion import Criterion
from judgegrid.core.lazy import lazy_exports
from judgegrid.core.pairwise import Combine
from judgegrid.core.run_options import (
    Margin,
    PositiveInt,
    ResumeOptions,
    RunOptions,
    resume_options,
    run_options,
)
from judgegrid.inputs.formats import parse_columns
from judgegrid.inputs.peers import PeerCriterion
from judgegrid.inputs.recorded.formats import FORMATS as IMPORT_FORMATS
from judgegrid.metrics import METRICS
from judgegrid.outputs.export import (
    EXPORT_FORMATS,
    TRUE_SCORE_FORMAT,
    csv_text,
    export_table,
    write_table,
)
from judgegrid.plan.estimate import GridPlan, make_plan
from judgegrid.plan.table import money, render_plan
from judgegrid.run.check_inputs import InputsCheck, check_inputs
from judgegrid.run.importing import ImportResult
from judgegrid.run.importing import import_verdicts as write_imported
from judgegrid.run.orchestrate import (
    CheckedRun,
    DatasetArg,
    GridResult,
    MatrixArg,
    PreparedRun,
    check_resume_options,
    check_run,
    execute_run,
    execution_for,
    pending_batches,
    prepare_resume,
    prepare_run,
    read_tables,
    rebuild_outputs,
    start_run,
    true_score_export,
)
from judgegrid.run.preflight import credential_problems, unchecked_dimensions
from judgegrid.run.runner import ProgressHook, Tally
from judgegrid.run.starter import DEFAULT_NAME as INIT_NAME
from judgegrid.run.starter import Starter, init_matrix
from judgegrid.store.cache import (
    CacheStats,
    ResultCache,
    check_cache_folder,
    default_cache_path,
)
from judgegrid.store.read_ahead import ScoresReadAhead
from judgegrid.store.run_dir import RESOLVED_MATRIX, is_pairs_dir, run_input_files
from judgegrid.store.table_file import check_output, write_table_file

if TYPE_CHECKING:
    from judgegrid.analyses import NO_VERDICT
    from judgegrid.labels.files import export_labels, import_labels
    from judgegrid.labels.queue import open_session as open_label_session
    from judgegrid.labels.server import page_url
    from judgegrid.labels.session import LabelSession, SessionAsk
    from judgegrid.outputs.report import probe_lines
    from judgegrid.outputs.tables_text import markdown_for_terminal
    from judgegrid.outputs.terminal_card import CARD_WIDTH, TerminalCard, terminal_card
    from judgegrid.run.pairs import PairsResult, run_pairs
    from judgegrid.view.app import ViewSession, open_label_view, open_view
    from judgegrid.view.app import serve as serve_view

# What only some commands need is imported when first asked for (``__getattr__``): the loopback
# pages (`judgegrid label`, `judgegrid view`), served by aiohttp, a fifth of a second to import;
# and the decision card, label files and preference pairs, which bring scipy and matplotlib
# (1 to 3 s). So `judgegrid plan` starts without any of them (benches/bench_plan_repeats.py),
# and `judgegrid report` imports them while its scores are read.
_LAZY = {
    "NO_VERDICT": "judgegrid.analyses",
    "export_labels": "judgegrid.labels.files",
    "import_labels": "judgegrid.labels.files",
    "probe_lines": "judgegrid.outputs.report",
    "markdown_for_terminal": "judgegrid.outputs.tables_text",
    "CARD_WIDTH": "judgegrid.outputs.terminal_card",
    "TerminalCard": "judgegrid.outputs.terminal_card",
    "terminal_card": "judgegrid.outputs.terminal_card",
    "PairsResult": "judgegrid.run.pairs",
    "run_pairs": "judgegrid.run.pairs",
    "LabelSession": "judgegrid.labels.session",
    "SessionAsk": "judgegrid.labels.session",
    "open_label_session": "judgegrid.labels.queue:open_session",
    "page_url": "judgegrid.labels.server",
    "ViewSession": "judgegrid.view.app",
    "open_label_view": "judgegrid.view.app",
    "open_view": "judgegrid.view.app",
    "serve_view": "judgegrid.view.app:serve",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "CARD_WIDTH",
    "EXPORT_FORMATS",
    "IMPORT_FORMATS",
    "INIT_NAME",
    "METRICS",
    "NO_VERDICT",
    "RESOLVED_MATRIX",
    "TRUE_SCORE_FORMAT",
    "CacheStats",
    "CheckedRun",
    "GridPlan",
    "GridResult",
    "ImportResult",
    "InputsCheck",
    "LabelSession",
    "PairsResult",
    "PreparedRun",
    "ResumeOptions",
    "RunOptions",
    "ServeError",
    "SessionAsk",
    "Starter",
    "Tally",
    "TerminalCard",
    "ViewSession",
    "cache_stats",
    "cell_causes",
    "check_inputs",
    "check_output",
    "check_resume_options",
    "check_run",
    "clear_cache",
    "crash_log_folder",
    "csv_text",
    "execute_run",
    "execution_for",
    "export_labels",
    "export_run",
    "import_labels",
    "import_verdicts",
    "init_matrix",
    "is_pairs_dir",
    "load_run",
    "markdown_for_terminal",
    "money",
    "open_label_session",
    "open_label_view",
    "open_view",
    "page_url",
    "parse_columns",
    "pending_batches",
    "plan_checked",
    "plan_grid",
    "plan_prepared",
    "plan_servers",
    "prepare_resume",
    "prepare_run",
    "probe_lines",
    "rebuild_report",
    "render_plan",
    "resume_options",
    "resume_run",
    "run_grid",
    "run_input_files",
    "run_options",
    "run_pairs",
    "serve_forever",
    "serve_view",
    "start_run",
    "terminal_card",
    "write_table",
    "write_table_file",
]


@checked
def run_grid(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    *,
    reports_dir: str | Path = "reports",
    run_dir: str | Path | None = None,
    limit: PositiveInt | None = None,
    on_progress: ProgressHook | None = None,
    use_cache: bool = True,
    columns: Mapping[str, str] | None = None,
    list_delimiter: str | None = None,
    workers: PositiveInt | None = None,
    backend: str | None = None,
    margin: Margin | None = None,
    probes: bool = False,
    criteria: Sequence[Criterion | PeerCriterion] | None = None,
) -> GridResult:
    """Score every cell of ``matrix`` over ``dataset`` into a new run directory.

    ``dataset``: a file ('demo', .jsonl/.json/.csv/.parquet/.arrow, a ``save_to_disk`` folder),
    a list of samples or dicts, a pandas DataFrame, a Ragas ``EvaluationDataset``, a DeepEval
    ``EvaluationDataset`` or list of ``LLMTestCase``/``Golden``, or a Hugging Face ``Dataset``;
    Ragas or DeepEval field names are detected. ``columns`` maps sample fields to other names
    ({"user_input": "question"}); ``list_delimiter`` splits a list field's text cell.

    With ``use_cache`` (the default) judge answers and vectors are looked up in, and saved to,
    the cross-run cache (``$JUDGEGRID_CACHE_DIR`` or ~/.cache/judgegrid). ``workers`` and
    ``backend`` override the matrix's ``execution:`` block; ``margin``, its ``decision:
    {margin}`` (the card's non-inferiority margin). ``probes`` True: the default probes when the
    matrix has no ``probes:`` (README: Probes). ``criteria``: criteria scored beside the
    matrix's own (which it may then lack): ``Criterion`` objects, DeepEval ``GEval`` or Ragas
    ``AspectCritic``, ``RubricsScore`` or ``DiscreteMetric`` objects (docs: Your own
    criterion). Every argument is checked before anything is written: a refusal
    (``InputError``; ``OptionError`` for an argument of the wrong type, a criterion that cannot
    be read or whose name is taken) leaves no run directory behind.
    """
    reading = _reading(limit, use_cache, columns, list_delimiter, probes, criteria)
    options = run_options(**reading, workers=workers, backend=backend, margin=margin)
    prepared = prepare_run(matrix, dataset, options, reports_dir=reports_dir, run_dir=run_dir)
    return execute_run(prepared, on_progress)


@checked
def plan_grid(
    matrix: MatrixArg,
    dataset: DatasetArg = None,
    *,
    limit: PositiveInt | None = None,
    use_cache: bool = True,
    columns: Mapping[str, str] | None = None,
    list_delimiter: str | None = None,
    probes: bool = False,
    criteria: Sequence[Criterion | PeerCriterion] | None = None,
    options: InstanceOf[RunOptions] | None = None,
) -> GridPlan:
    """The calls, tokens, cost and time a run of ``matrix`` would take, and the calls the
    cross-run cache would answer; asks no model and needs no key (``judgegrid plan``).

    The grid is checked as a run checks it (``check_run``: whatever a run would refuse, the
    plan refuses), all but the keys. ``criteria``: as ``run_grid``'s. ``options``: the run's
    options as one value, in place of the keyword arguments (``judgegrid run`` plans the run it
    is about to make)."""
    if options is None:
        reading = _reading(limit, use_cache, columns, list_delimiter, probes, criteria)
        options = run_options(**reading)
    return plan_checked(check_run(matrix, dataset, options, keys=False))


def _reading(
    limit: int | None,
    use_cache: bool,
    columns: Mapping[str, str] | None,
    list_delimiter: str | None,
    probes: bool,
    criteria: Sequence[Any] | None,
) -> dict[str, Any]:
    """The options a run and its plan share: how the grid is read (as ``RunOptions`` fields)."""
    return {
        "limit": limit,
        "use_cache": use_cache,
        "columns": None if columns is None else dict(columns),
        "list_delimiter": list_delimiter,
        "probes": probes,
        "criteria": tuple(criteria or ()),
    }


def plan_checked(checked: CheckedRun) -> GridPlan:
    """The plan of a run checked and not yet started; a key the environment lacks (the plan
    needs none, the run does) is said in a note, so the plan hides no refusal of the run."""
    plan = make_plan(checked.matrix, checked.data, checked.use_cache)
    plan.notes += [
        f"run would refuse until it is set: {problem.message}"
        for problem in credential_problems(checked.matrix)
    ]
    plan.notes += [f"not checked: {note}" for note in unchecked_dimensions(checked.matrix)]
    return plan


def plan_prepared(prepared: PreparedRun) -> GridPlan:
    """The plan of a run already prepared (a resumed one: what is left to do)."""
    return make_plan(prepared.matrix, prepared.data, prepared.use_cache, prepared.store)


@checked
def resume_run(
    run_dir: str | Path,
    *,
    retry_failed: bool = False,
    on_progress: ProgressHook | None = None,
    use_cache: bool | None = None,
    workers: PositiveInt | None = None,
    backend: str | None = None,
    address: str | None = None,
    add_judges: str | Path | Sequence[dict[str, Any]] | dict[str, Any] | None = None,
) -> GridResult:
    """Finish an interrupted run: cells already in the database are not scored again.

    Its matrix, data set and limit are the run directory's. ``retry_failed``: score its failed
    cells again. ``use_cache`` None: as the run was started (``--no-cache`` is remembered).
    ``workers`` and ``backend``: as in ``run_grid`` (a run may be resumed on other workers than
    it began on); ``address``: with ``backend="ray"``, a running Ray cluster's
    (``ray://host:10001`` or ``auto``; without it Ray starts a local instance). These make one
    ``ResumeOptions``, the value ``judgegrid run --resume`` builds from its options too.
    ``add_judges`` (an imported run only): judges to call beside its recorded ones, scored on
    the same samples, metrics and criteria: a YAML file of ``judges: [...]`` in the matrix's
    judge syntax (and ``criteria: [{name, definition}]``, the question an imported criterion
    asked, which a long table does not say), that mapping as a dict, or the judges as dicts
    (``[{"id": "openai/gpt-4o-mini"}]``).
    """
    options = resume_options(
        retry_failed=retry_failed,
        use_cache=use_cache,
        workers=workers,
        backend=backend,
        address=address,
        add_judges=_added_judges_option(add_judges),
    )
    return execute_run(prepare_resume(run_dir, options), on_progress)


def _added_judges_option(
    given: str | Path | Sequence[dict[str, Any]] | dict[str, Any] | None,
) -> str | tuple[dict[str, Any], ...] | dict[str, Any] | None:
    """``add_judges`` as ``ResumeOptions`` holds it: a file's path as text, judges as a tuple."""
    if given is None or isinstance(given, str | dict):
        return given
    return str(given) if isinstance(given, Path) else tuple(given)


@checked
def rebuild_report(
    run_dir: str | Path,
    margin: Margin | None = None,
    blind_only: bool = False,
    read_ahead: ScoresReadAhead | None = None,
) -> list[Path]:
    """Every output of a run directory — or of a ``judgegrid pairs`` directory, each aspect run
    and the pairs summary — from the databases alone: no model is called. ``margin`` sets the
    decision card's non-inferiority margin for this report (a run's own stays as it was);
    ``blind_only`` leaves out labels given with the judges shown (``label --show-judges``);
    ``read_ahead``: the run's scores, if the console script is already reading them."""
    from judgegrid.run import pairs  # scipy, for this command only: see _LAZY

    if is_pairs_dir(run_dir):
        return [pairs.rebuild_pairs_outputs(run_dir)]
    return rebuild_outputs(run_dir, margin, blind_only, read_ahead)


@checked
def load_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The scores and calls tables of a finished or interrupted run."""
    return read_tables(run_dir)


@checked
def import_verdicts(
    files: str | Path | Sequence[str | Path],
    out: str | Path,
    *,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
    combine: Combine = "mt-bench",
    judges: Sequence[str] | None = None,
) -> ImportResult:
    """Verdicts recorded elsewhere, written as the run directory ``out``, which every command
    that reads a run reads (``rebuild_report``, ``export_run``, the view, labels): no model is
    called, and each cell records its file and line and that no call was made.

    ``format``: ``long`` (one verdict a row: CSV, JSONL or Parquet), ``judgebench``
    (JudgeBench's files verbatim), ``inspect`` (Inspect AI's ``.eval`` or ``.json`` logs: each
    scorer's score per sample and epoch; needs ``inspect-ai``), ``promptfoo`` (``promptfoo eval -o
    results.json``: each llm-rubric, g-eval and closedqa grading), ``ragas`` (Ragas'
    ``EvaluationResult.to_pandas()`` saved as CSV or Parquet: a row per sample, a column per
    metric), ``deepeval`` (DeepEval's saved test run: each test case's metric results), or
    ``auto``, detected from the first file (``result.format`` says which). ``columns``: a long
    table's columns under other names ({"judge": "model"}). ``judges``: the judge of each Ragas
    results file, one name per file in order (else each file's judge is its name).
    ``combine``: the rule of the pairwise criteria a long table makes (``mt-bench`` or
    ``sum``; JudgeBench's are ``sum``). A bad file (``DatasetError`` naming its line and
    field) or an ``out`` that holds anything is refused before anything is written."""
    paths = [files] if isinstance(files, str | Path) else list(files)
    return write_imported(paths, out, format, columns, combine, judges=tuple(judges or ()))


@checked
def export_run(run_dir: str | Path, format: str = "ragas") -> pd.DataFrame:
    """A run's scores as a table for the tools the user has: one row per sample and judge
    configuration with a column per metric, as Ragas' result table (``format="ragas"``), or one
    row per sample with a column per metric and configuration (``format="wide"``). A metric's
    value is the mean of its scored repeats; NaN where none scored (``failed``/``skipped``
    count the cells behind each row). A criterion has a column per wording, each with the
    judge's modal answer beside it (``polite``, ``polite.answer``, ``polite.w1``, …).
    ``format="true-score"``: a row per labelled metric and judge, its mean over the samples it
    scored beside the mean by people's standard (PPI++) with its interval, the card's judge
    marked (docs/true-score.md)."""
    if format == TRUE_SCORE_FORMAT:
        return true_score_export(run_dir)
    return export_table(run_dir, format)


def cache_stats() -> CacheStats:
    """Where the cross-run cache is, its size, and its entries per model; a cache not yet
    made is reported empty, not made (its folder checked all the same)."""
    check_cache_folder()
    path = default_cache_path()
    if not path.exists():
        return CacheStats(path, 0, {}, {})
    cache = ResultCache()
    try:
        return cache.stats()
    finally:
        cache.close()


def clear_cache(model: str | None = None) -> tuple[int, int, Path]:
    """Delete the cross-run cache's entries (all, or one model's): answers, vectors, its path."""
    cache = ResultCache()
    try:
        answers, vectors = cache.clear(model)
    finally:
        cache.close()
    return answers, vectors, cache.path


def crash_log_folder() -> Path:
    """Where the CLI writes the traceback of an unexpected error (beside the cache)."""
    return default_cache_path().parent / "crash-logs"
