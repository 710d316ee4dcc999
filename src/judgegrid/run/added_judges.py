"""Judges added to an imported run: judges called from here beside the judges whose verdicts
were recorded elsewhere, on the same samples and metrics, so that one run compares "the judge
we used last quarter" with a new candidate, paired (``judgegrid run --resume RUN --add-judges
judges.yaml``, ``resume_run(RUN, add_judges=...)``).

The judges come as a file of the matrix's own judge syntax (``judges: [...]``) rather than by
editing the run's ``matrix.resolved.yaml``: they are checked before anything is written (their
syntax, a label the run has already, the texts their metrics read), and the run's matrix is
rewritten only when the run executes, so that a refusal, also ``--max-cost``'s, leaves the run
directory as it was. The matrix's defaults and retry settings apply to them, as to any judge.

A recorded judge (id ``imported/<name>``) is never called: the judges to call are the matrix
without them (``live_matrix``), and their cells are the recorded judges' (metric, sample)
pairs, under every live judge and repeat (``live_cells``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgegrid.core.cells import Cell
from judgegrid.core.errors import DatasetError, MatrixError, OptionError, Problem, RunDirError
from judgegrid.core.names import unknown_name
from judgegrid.core.sample import Dataset
from judgegrid.inputs.matrix import Matrix, inspect_matrix_data, read_matrix_text, yaml_data
from judgegrid.inputs.tasks import expand_cells
from judgegrid.run.importing import NOT_CALLED
from judgegrid.run.preflight import missing_text_problems
from judgegrid.store.run_db import RunStore
from judgegrid.store.run_dir import IMPORTED

ADD_OPTION = "--add-judges"
JUDGES_SHAPE = (
    "a mapping with judges: a list of judges, as a matrix names them (and criteria: the "
    "definitions of the run's criteria)"
)
# a file's path; the judges; or the file's mapping itself ({"judges": [...], "criteria": [...]})
AddedJudges = str | Sequence[dict[str, Any]] | dict[str, Any]


@dataclass(frozen=True)
class LiveJudges:
    """An imported run's judges to call: ``whole`` names every judge (what the report reads and
    the run's matrix file holds), ``live`` only those called from here; ``cells`` theirs on the
    recorded pairs; ``recorded`` the cells of the recorded judges; ``added``: ``whole`` is not
    the run's matrix yet (written when the run executes)."""

    whole: Matrix
    live: Matrix
    cells: list[Cell]
    recorded: int
    added: bool

    @property
    def labels(self) -> list[str]:
        """The live judges' labels: whose failed cells may be scored again."""
        return [self.live.judge_label(i) for i in range(len(self.live.judges))]


def recorded_labels(matrix: Matrix) -> list[str]:
    """The labels of the judges whose verdicts were imported (ids ``imported/<name>``)."""
    return [
        matrix.judge_label(i) for i, j in enumerate(matrix.judges) if j.id.startswith(NOT_CALLED)
    ]


def live_matrix(matrix: Matrix) -> Matrix:
    """The matrix without its recorded judges: what is checked, planned and called."""
    judges = [j for j in matrix.judges if not j.id.startswith(NOT_CALLED)]
    return matrix.model_copy(update={"judges": judges})


def live_judges(
    target: Path, matrix: Matrix, store: RunStore, data: Dataset, given: AddedJudges | None
) -> LiveJudges:
    """The judges of an imported run to call, with ``given`` added: every refusal (a bad file,
    a label the run has, texts the metrics read missing from the import, nothing to call)
    before anything is written."""
    whole = matrix if given is None else with_added(matrix, given)
    live = live_matrix(whole)
    if not live.judges:
        raise RunDirError(str(target), [Problem("--resume", _nothing_to_call(store))])
    recorded = recorded_labels(whole)
    pairs, done = store.judged_pairs(recorded)
    cells = [c for c in expand_cells(live, data) if (c.metric, c.sample_id) in pairs]
    _refuse_unrecorded_embeddings(live, cells, data)
    problems = missing_text_problems(live, data, {(c.metric, c.sample_id) for c in cells})
    if problems:
        why = (
            "the judges added read texts the import does not hold; import them (a long "
            "table's text columns, docs/import.md) and add the judges to that run"
        )
        raise DatasetError(f"{data.source} (imported)", [Problem("", why), *problems])
    return LiveJudges(whole, live, cells, done, given is not None)


def _refuse_unrecorded_embeddings(live: Matrix, cells: Sequence[Cell], data: Dataset) -> None:
    """A metric read with an embedding model (response_relevancy) sits in an import at an
    embedding the source did not record, which cannot be called: refused, naming it."""
    unrecorded = {
        live.embedding_label(i)
        for i, e in enumerate(live.embeddings)
        if e.id.startswith(NOT_CALLED)
    }
    needing = sorted({c.metric for c in cells if c.embedding in unrecorded})
    if needing:
        message = (
            "needs an embedding model, and the import recorded none: an added judge cannot "
            "score it (import the other metrics' verdicts on their own to add a judge to them)"
        )
        problems = [Problem(f"metric {m}", f"{m} {message}") for m in needing]
        raise DatasetError(f"{data.source} (imported)", problems)


def _nothing_to_call(store: RunStore) -> str:
    imported = store.get_meta(IMPORTED) or {}
    return (
        f"imported ({imported.get('format')} verdicts, judgegrid import): its judges were "
        "called elsewhere and cannot be called from here; report, view, label, labels and "
        f"export read it; add a judge to call beside them with {ADD_OPTION} judges.yaml"
    )


def with_added(matrix: Matrix, given: AddedJudges) -> Matrix:
    """The matrix with the judges ``given`` after its own, and the definitions given of its
    criteria (an imported criterion may not say the question its judges were asked: a long
    table names it only); MatrixError at the place in ``given``."""
    entries, definitions, source = read_added(given)
    labels = {matrix.judge_label(i): j.id for i, j in enumerate(matrix.judges)}
    problems = []
    for i, entry in enumerate(entries):
        problems += _clash(i, entry, labels)
    data = matrix.model_dump(mode="json", exclude_none=True)
    problems += _define(data["criteria"], definitions)
    if problems:
        raise MatrixError(source, problems)
    own = len(data["judges"])
    data["judges"] = [*data["judges"], *entries]
    merged, found = inspect_matrix_data(data)
    if found or merged is None:
        raise MatrixError(source, [_at_added(p, own) for p in found])
    return merged


def read_added(given: AddedJudges) -> tuple[list[Any], list[Any], str]:
    """The judges to add, the criteria's definitions and where they came from: a file of
    ``judges: [...]`` (the matrix's own syntax) and optionally ``criteria: [{name,
    definition}]``, that mapping itself, or the list of judges."""
    if isinstance(given, str):
        raw, problems = yaml_data(read_matrix_text(given), JUDGES_SHAPE)
        if problems:
            raise MatrixError(given, problems)
        return (*_parts(raw, given), given)
    if isinstance(given, dict):
        return (*_parts(given, "add_judges"), "add_judges")
    entries = list(given)
    if not entries or not all(isinstance(e, dict) for e in entries):
        message = "expected one judge or more, each a dict as a matrix's judges: entry"
        raise OptionError("add_judges", [Problem("", message)])
    return entries, [], "add_judges"


def _parts(raw: Any, source: str) -> tuple[list[Any], list[Any]]:
    """A judges file's judges and criteria' definitions; anything else refused by name."""
    if not isinstance(raw, dict):
        raise MatrixError(source, [Problem("", f"expected {JUDGES_SHAPE}")])
    other = [str(k) for k in raw if k not in ("judges", "criteria")]
    if other:
        message = (
            "only judges: (and criteria:' definitions) are added to an imported run; its "
            "metrics, samples and settings are the import's"
        )
        raise MatrixError(source, [Problem(key, message) for key in other])
    judges, criteria = raw.get("judges"), raw.get("criteria", [])
    if not isinstance(judges, list) or not judges:
        raise MatrixError(source, [Problem("judges", "expected a list of one judge or more")])
    if not isinstance(criteria, list):
        raise MatrixError(source, [Problem("criteria", "expected a list of {name, definition}")])
    return judges, criteria


def _define(criteria: list[dict[str, Any]], definitions: list[Any]) -> list[Problem]:
    """Each definition given laid over the run's criterion of its name (in ``criteria``, the
    matrix's as data); a name the run lacks, or a key other than name and definition, is a
    Problem at its place."""
    by_name = {c["name"]: c for c in criteria}
    problems = []
    for i, entry in enumerate(definitions):
        where = f"criteria[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"name", "definition"}:
            message = "expected {name: a criterion of the run, definition: its question}"
            problems.append(Problem(where, message))
        elif entry["name"] not in by_name:
            message = unknown_name("criterion", str(entry["name"]), list(by_name), "in the run")
            problems.append(Problem(f"{where}.name", message))
        else:
            by_name[entry["name"]]["definition"] = entry["definition"]
    return problems


def _clash(i: int, entry: Any, labels: dict[str, str]) -> list[Problem]:
    """A judge that would take a recorded judge's place, or one the run has already."""
    if not isinstance(entry, dict):
        return []  # the matrix's own check says what a judge is
    model, label = entry.get("id"), entry.get("label") or entry.get("id")
    if isinstance(model, str) and model.startswith(NOT_CALLED):
        message = f"'{NOT_CALLED}…' names a judge whose verdicts were imported; name a model"
        return [Problem(f"judges[{i}].id", message)]
    if not isinstance(label, str) or label not in labels:
        return []
    where = f"judges[{i}].{'label' if entry.get('label') else 'id'}"
    if labels[label].startswith(NOT_CALLED):
        message = (
            f"'{label}' is an imported judge's name in this run; give the new judge "
            "another label, so that every table tells the two apart"
        )
    else:
        message = (
            f"'{label}' was added to this run already; to finish its cells, "
            "`judgegrid run --resume RUN` (without --add-judges)"
        )
    return [Problem(where, message)]


def _at_added(problem: Problem, own: int) -> Problem:
    """A problem of the merged matrix's ``judges[k]`` said at the added judge's place."""
    head, _, rest = problem.where.partition("]")
    if head.startswith("judges[") and head[7:].isdigit() and int(head[7:]) >= own:
        return Problem(f"judges[{int(head[7:]) - own}]{rest}", problem.message)
    return problem
