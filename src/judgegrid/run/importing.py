"""`judgegrid import`: verdicts recorded elsewhere (a long table, JudgeBench's files) written as a
run directory, through the same store as a run, so every command that reads a run reads it:
``report`` and its card, ``view``, ``label``, ``labels import/export``, ``export``.

What an imported run holds:

- ``matrix.resolved.yaml``: the judges named as the source names them, each with the id
  ``imported/<name>``, which no provider routes: they are never called, and ``run --resume``
  refuses an imported run by its ``imported`` meta unless judges are added to it
  (``run.added_judges``); the metrics the verdicts are
  of, and the criteria the reader made (a pairwise one with its ``combine`` rule); ``repeats``
  as many as the source numbers;
- ``run.sqlite``: one score row per cell, as a run writes it: a pairwise criterion's cell keeps
  each order's verdict in its details, as ``metrics.pairwise`` does; every cell says where it
  came from (``details.imported``: file and line) and that no call was made (``calls`` 0);
  cost, tokens and latency are the source's, NULL where it does not say (unknown, never 0);
  the samples, their info (a group per sample, for the accuracy by group), people's labels, and
  the ``imported`` meta (format, files).

Nothing is written before every file is read and checked, and the directory is made beside its
place and renamed into it at the end: a refusal or a crash leaves no half run behind.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.criterion import PAIR_WORDS, CriterionSpec
from judgegrid.core.errors import DatasetError, MatrixError, OptionError, Problem, RunDirError
from judgegrid.core.pairwise import ORDERS, Combine, combine
from judgegrid.core.records import ScoreRow
from judgegrid.core.sample import Dataset
from judgegrid.inputs.matrix import Matrix, matrix_from_data
from judgegrid.inputs.recorded.formats import AUTO, ReadOptions, read_recorded
from judgegrid.inputs.recorded.lines import MAX_LINE_BYTES
from judgegrid.inputs.recorded.verdicts import USAGE_COLUMNS, Recorded
from judgegrid.inputs.tasks import metric_axes
from judgegrid.metrics import METRICS
from judgegrid.store.lock import lock_run
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import (
    IMPORTED,
    RESOLVED_MATRIX,
    SAMPLE_INFO,
    resolved_matrix_yaml,
    sample_info,
)

NOT_CALLED = f"{IMPORTED}/"  # an imported judge's id: a provider no one routes
UNRECORDED = "unrecorded-embedding"  # the embedding of an imported metric that needs one
# json.dumps(..., ensure_ascii=False) builds an encoder every call: one kept, the same text
_JSON = json.JSONEncoder(ensure_ascii=False)
_ASCII = json.JSONEncoder()  # json.dumps' own defaults


@dataclass(frozen=True)
class ImportResult:
    """What ``import_verdicts`` wrote: the run directory, the format read (and whether it was
    detected), the judges, samples, cells and labels, and the reader's notes."""

    run_dir: Path
    format: str
    detected: bool
    judges: list[str]
    samples: int
    cells: int
    labels: int
    notes: list[str]


def import_verdicts(
    files: Sequence[str | Path],
    out: str | Path,
    format: str = AUTO,
    columns: Mapping[str, str] | None = None,
    combine_rule: Combine = "mt-bench",
    cap: int = MAX_LINE_BYTES,
    judges: Sequence[str] = (),
) -> ImportResult:
    """Read ``files`` (in ``format``, or the one detected) and write them as the run directory
    ``out``. Every refusal (``InputError``: a bad file, naming its line and field; an ``out``
    that is a file or holds anything) comes before anything is written. ``judges``: the judge
    of each Ragas results file, in order (else each is named after its file)."""
    target = Path(out)
    check_out(target)
    paths = [Path(f) for f in files]
    options = ReadOptions(dict(columns or {}), combine_rule, cap, tuple(judges))
    recorded, chosen = read_recorded(paths, format, options)
    matrix = imported_matrix(recorded, target.name)
    cells = write_run(target, recorded, matrix, chosen)
    return ImportResult(
        target,
        chosen,
        format == AUTO,
        recorded.judges,
        len(recorded.samples),
        cells,
        len(recorded.labels),
        list(recorded.notes),
    )


def check_out(target: Path) -> None:
    """``out`` may be made: missing, or an empty folder; never a file, a run, a folder with
    anything in it (a run is never overwritten nor mixed with another)."""
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                message = f"{parent} is a file, not a folder to make the run directory in"
                raise OptionError("--out", [Problem("", message)])
            break
    if target.is_file():
        raise OptionError("--out", [Problem(str(target), "a file; name a new run directory")])
    if target.is_dir() and any(target.iterdir()):
        message = "holds files already; a run is never overwritten: name a new run directory"
        raise RunDirError(str(target), [Problem("--out", message)])


def imported_matrix(recorded: Recorded, name: str) -> Matrix:
    """The matrix of an imported run: its judges under the source's names with ids no provider
    routes, its metrics and criteria, as many repeats as the source numbers."""
    judges = [{"id": NOT_CALLED + judge, "label": judge} for judge in recorded.judges]
    data = {
        "name": name,
        "dataset": recorded.files[0],
        "judges": judges,
        "metrics": recorded.metrics,
        "criteria": [c.model_dump(mode="json", exclude_defaults=True) for c in recorded.criteria],
        "repeats": int(recorded.verdicts["repeat"].max()) + 1 if len(recorded.verdicts) else 1,
    }
    if any(METRICS[m].uses_embeddings for m in recorded.metrics):  # Ragas' answer_relevancy
        data["embeddings"] = [{"id": NOT_CALLED + UNRECORDED, "label": UNRECORDED}]
    try:
        return matrix_from_data(data, f"<{recorded.format} import>")
    except MatrixError as exc:
        problems = [Problem("", f"cannot be a run: {p.render()}") for p in exc.problems]
        raise DatasetError(", ".join(recorded.files), problems) from None


def write_run(target: Path, recorded: Recorded, matrix: Matrix, chosen: str) -> int:
    """The run directory, made beside ``target`` and renamed into it once whole; the number of
    cells written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    making = target.parent / f".{target.name}.importing-{os.getpid()}"
    making.mkdir()
    try:
        lock = lock_run(making)
        dataset = Dataset(recorded.files[0], recorded.samples)
        (making / RESOLVED_MATRIX).write_text(
            resolved_matrix_yaml(matrix, recorded.files[0]), encoding="utf-8"
        )
        store = RunStore(making / DB_NAME, lock)
        try:
            store.set_meta("dataset", recorded.files[0])
            store.set_meta("limit", None)
            store.set_meta("use_cache", False)
            store.set_meta(IMPORTED, {"format": chosen, "files": list(recorded.files)})
            store.set_meta(SAMPLE_INFO, sample_info(dataset, recorded.groups))
            store.save_samples(recorded.samples)
            cells = store.write_scores(score_rows(recorded, matrix))
            store.write_labels(label for _, label in recorded.labels)
        finally:
            store.close()
        if target.is_dir():
            target.rmdir()  # empty: check_out saw to it
        making.rename(target)
    except BaseException:
        shutil.rmtree(making, ignore_errors=True)
        raise
    return cells


def score_rows(recorded: Recorded, matrix: Matrix) -> Iterator[ScoreRow]:
    """One row per cell: a verdict of a metric or a pointwise criterion is a cell; a pairwise
    criterion's two orders of one pair are one cell, combined by its ``combine`` rule. A cell
    sits at its metric's one embedding and strictness of the matrix (an embedding the source
    does not record, a metric's default strictness)."""
    criteria = {c.name: c for c in recorded.criteria}
    frame = recorded.verdicts
    ordered = frame["order"] != ""
    now = time.time()
    axes = {
        a.metric: (*a.embeddings[0], a.strictness[0])
        for a in metric_axes(matrix)
        if a.metric not in criteria
    }
    yield from _pointwise_rows(frame[~ordered], criteria, axes, now)
    yield from _pairwise_rows(frame[ordered], criteria, now)


def _usage(values: Sequence[float | None]) -> float | None:
    """A cell's figure from its rows' (``_figures``), or None: one unknown makes it unknown."""
    known = [v for v in values if v is not None]
    return sum(known, 0.0) if len(known) == len(values) else None


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)


def _origin(file: str, lines: Any) -> dict[str, Any]:
    return {"file": file, "line" if isinstance(lines, str) else "lines": lines, "calls": 0}


def _pointwise_rows(
    frame: pd.DataFrame,
    criteria: Mapping[str, CriterionSpec],
    axes: Mapping[str, tuple[str, int, int]],
    now: float,
) -> Iterator[ScoreRow]:
    """A cell a verdict. Built a column at a time (the usage figures, the details' text, each
    metric's axes): a cell's own Python work was most of a million-row import's writing."""
    metrics = frame["metric"].tolist()
    known = {m: (m in criteria, *axes.get(m, ("", 0, 0))) for m in set(metrics)}
    scores = [float(s) for s in frame["score"].tolist()]
    cost, latency = (_figures(frame[c]) for c in ("cost", "latency_s"))
    t_in, t_out = (_counts(frame[c]) for c in ("tokens_in", "tokens_out"))
    details = _point_details(frame["file"].tolist(), frame["line"].tolist(), frame["details"])
    for sample_id, metric, judge, repeat, score, details_of, tokens_in, tokens_out, c, t in zip(
        frame["sample_id"].tolist(), metrics, frame["judge"].tolist(),
        frame["repeat"].tolist(), scores, details, t_in, t_out, cost, latency, strict=True,
    ):  # fmt: skip
        criterion, embedding, dimension, strictness = known[metric]
        yield ScoreRow(
            sample_id, metric, judge, embedding, dimension, strictness, int(repeat), 0, "scored",
            score, score if criterion else None, "none" if criterion else None, None, None,
            details_of, 0, tokens_in, tokens_out, c, t, now,
        )  # fmt: skip


def _figures(values: pd.Series) -> list[float | None]:
    """A column's figures, None where unknown (NaN): never read as 0."""
    return [None if v != v else v for v in values.astype(float).tolist()]


def _counts(values: pd.Series) -> list[int | None]:
    """A column's counts (tokens) as whole numbers, None where unknown."""
    return [_whole(v) for v in _figures(values)]


def _pairwise_rows(
    frame: pd.DataFrame, criteria: Mapping[str, CriterionSpec], now: float
) -> Iterator[ScoreRow]:
    """A pair's orders as one cell, its details as ``metrics.pairwise.pairwise_result`` keeps
    them (per order: the position chosen and the winner in the pair's terms). Grouped on plain
    lists: a pandas group a pair costs 0.1 ms, a minute for half a million pairs."""
    kept = ("metric", "judge", "sample_id", "repeat", "order", "winner", "details", "file", "line")
    columns = {c: frame[c].tolist() for c in kept}
    columns.update({c: _figures(frame[c]) for c in USAGE_COLUMNS})  # NaN as None, once a column
    cells: dict[tuple[Any, ...], list[int]] = {}
    keys = zip(
        columns["metric"], columns["judge"], columns["sample_id"], columns["repeat"], strict=True
    )
    for i, key in enumerate(keys):
        cells.setdefault(key, []).append(i)
    for (metric, judge, sample_id, repeat), rows in cells.items():
        yield _pair_cell(
            criteria[str(metric)], (metric, judge, sample_id, repeat), rows, columns, now
        )


def _pair_cell(
    spec: CriterionSpec,
    key: tuple[Any, ...],
    rows: list[int],
    columns: Mapping[str, list[Any]],
    now: float,
) -> ScoreRow:
    metric, judge, sample_id, repeat = key
    orders: dict[str, dict[str, Any]] = {}
    for i in rows:
        order, found = columns["order"][i], columns["winner"][i]
        winner = found if isinstance(found, str) else None
        orders[order] = {
            "order": order,
            "position": _position(winner, order),
            "winner": winner,
            **_kept(columns["details"][i]),
        }
    winners = [orders[o]["winner"] for o in ORDERS if o in orders]
    judged = [w for w in winners if w is not None]
    rule = spec.combine
    complete = rule == "sum" or len(judged) == len(ORDERS)
    combined = combine(winners, rule) if judged and complete else None
    details = {
        "orders": orders,
        "combined": combined,
        "answer": combined,
        "systems": list(spec.compare or ()),
        "rule": rule,
        "imported": _origin(str(columns["file"][rows[0]]), [columns["line"][i] for i in rows]),
    }
    usage = [columns[c] for c in USAGE_COLUMNS]
    cost, tokens_in, tokens_out, latency = [_usage([col[i] for i in rows]) for col in usage]
    score = None if combined is None else PAIR_WORDS[combined]
    return ScoreRow(
        str(sample_id), str(metric), str(judge), "", 0, 0, int(repeat), 0,
        "scored" if score is not None else "failed", score, score,
        "none" if score is not None else None, None,
        None if score is not None else "the source gives no verdict in every order",
        _JSON.encode(details), 0, _whole(tokens_in), _whole(tokens_out),
        cost, latency, now,
    )  # fmt: skip


def _point_details(files: list[str], lines: list[Any], more: pd.Series) -> list[str]:
    """Each pointwise cell's details as JSON text: where it came from, that no call was made,
    and what else the source recorded. A row with nothing more (the common case) is written as
    text around its file's and line's JSON, not through ``json.dumps`` of a dict: a third of a
    million-row import's time went to it."""
    wheres = {file: json.dumps(file, ensure_ascii=False) for file in set(files)}
    texts = [
        f'{{"imported": {{"file": {wheres[file]}, "line": {_ASCII.encode(line)}, "calls": 0}}}}'
        for file, line in zip(files, lines, strict=True)
    ]
    for i, extra in enumerate(more.tolist()):
        if isinstance(extra, str):
            texts[i] = _JSON.encode({"imported": _origin(files[i], lines[i]), **_kept(extra)})
    return texts


def _kept(details: Any) -> dict[str, Any]:
    """What the source recorded beside a verdict (JSON text), or nothing."""
    return json.loads(details) if isinstance(details, str) else {}


def _position(winner: str | None, order: str) -> str | None:
    """The position a winner in the pair's terms was shown at in ``order``."""
    if winner is None or winner == "tie":
        return winner
    return "A" if order[0] == winner else "B"
