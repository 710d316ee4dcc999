"""A run's scores in the shape of the tools people already have: one row per sample and a column
per metric, as Ragas' result table has it, for each judge configuration.

``ragas``: a row per sample × judge configuration (judge, embedding @ dimension, strictness);
the columns user_input, retrieved_contexts, response, reference, then one per metric. A metric
that does not vary with an axis (faithfulness has no embedding) repeats its judge's value on
each of that judge's rows. ``wide``: a row per sample, a column per metric × configuration.

Repeats are combined by their mean over the scored ones. A metric with no scored repeat is NaN
(failed, skipped, or not in the grid for that configuration); ``failed`` and ``skipped`` count
the cells (metric × repeat, and a criterion's wording) behind each row, so a NaN is never
mistaken for a score.

A criterion of the user's own has a column per wording and, beside each, the judge's modal
answer: ``polite`` is the score under its definition (wording 0), ``polite.answer`` the answer
given most often over the scored repeats (pass or fail, the label, the level; empty where two
answers tie, the analyses' rule); a criterion with other wordings has ``polite.w1``,
``polite.w1.answer`` and so on. Wordings are never averaged together: a score averaged over
reworded rubrics is no rubric's. A criterion's name holds no ``.``, so these names cannot clash
with another criterion's; the wide table puts them where a metric's name goes
(``polite.w1.answer | a | s=3``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses import (
    CONFIG_AXES,
    Criteria,
    category_names,
    criterion_rows,
    embedding_column,
    embedding_config,
    modal_codes,
    wordings,
)
from judgegrid.core.cells import NO_EMBEDDING
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.sample import Dataset
from judgegrid.inputs.tasks import Axis, metric_axes
from judgegrid.store.run_dir import open_run, stored_dataset
from judgegrid.store.table_file import write_table_file

TRUE_SCORE_FORMAT = "true-score"  # a row per metric and judge: the analyses' true_score table
EXPORT_FORMATS = ("ragas", "wide", TRUE_SCORE_FORMAT)
TEXT_COLUMNS = ("user_input", "retrieved_contexts", "response", "reference")
LIST_COLUMNS = ("retrieved_contexts", "reference_contexts")
KEYS = [*CONFIG_AXES, "sample_id"]
WORDED_KEYS = [*KEYS, "wording"]


def export_table(run_dir: str | Path, format: str = "ragas") -> pd.DataFrame:
    """The run's scores as a ``ragas`` or ``wide`` table (see the module's docstring)."""
    if format not in EXPORT_FORMATS or format == TRUE_SCORE_FORMAT:  # the run layer's
        first, last = ", ".join(EXPORT_FORMATS[:-1]), EXPORT_FORMATS[-1]
        message = f"unknown format {format!r}; use {first} or {last}"
        raise OptionError("--format", [Problem("", message)])
    _, matrix, store = open_run(run_dir)
    try:
        scores, samples = store.scores_frame(), stored_dataset(store)
    finally:
        store.close()
    own = {s.id for s in samples}  # the run's probes are not the user's samples: left out
    scores = scores[scores["sample_id"].isin(own)]
    judges = [matrix.judge_label(i) for i in range(len(matrix.judges))]
    build = ragas_table if format == "ragas" else wide_table
    table = build(scores, samples, metric_axes(matrix), judges, matrix.criteria_by_name)
    # The run's own counts: a row's counts repeat a judge-only metric's failures on each of
    # that judge's rows, so their sum is not the number of failed cells.
    table.attrs.update(scores["status"].value_counts().to_dict())
    return table


def worded_cells(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per configuration, sample and wording: the failed and skipped cells, the mean of the
    scored repeats and, for a criterion, the modal answer (``answer``: the answer's name, a
    scale's level as a number; NaN where none was scored or two answers tie)."""
    scores = scores.assign(wording=wordings(scores).to_numpy())
    if scores.empty:
        empty = pd.MultiIndex.from_arrays([[]] * len(WORDED_KEYS), names=WORDED_KEYS)
        columns: dict[str, list[Any]] = {"failed": [], "skipped": [], "mean": [], "answer": []}
        return pd.DataFrame(columns, index=empty)
    counts = (
        scores.groupby(WORDED_KEYS)["status"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=["failed", "skipped"], fill_value=0)
    )
    scored = scores[scores["status"] == "scored"]
    means = scored.groupby(WORDED_KEYS)["score"].mean().rename("mean")
    table = counts.join(means, how="outer").fillna({"failed": 0, "skipped": 0})
    return table.join(modal_answers(scores, criteria), how="left")


def modal_answers(scores: pd.DataFrame, criteria: Criteria) -> pd.Series:
    """A criterion's answer per configuration, sample and wording: the one its scored repeats
    gave most often (``analyses.criteria.modal_codes``: a tie is no answer), as the judge gave
    it (a scale's level as a number)."""
    rows = criterion_rows(scores, criteria)
    modes = modal_codes(rows, WORDED_KEYS).dropna(subset=["code"])
    values: list[Any] = []
    for metric, code in zip(modes["metric"], modes["code"], strict=True):
        spec = criteria[metric]
        name = category_names(spec)[int(code)]
        values.append(float(name) if spec.type == "scale" else name)
    index = pd.MultiIndex.from_frame(modes[WORDED_KEYS])
    return pd.Series(values, index=index, name="answer", dtype=object)


def criterion_column(name: str, wording: int, answer: bool = False) -> str:
    """A criterion's column: 'polite', 'polite.answer', 'polite.w1', 'polite.w1.answer'."""
    stem = name if wording == 0 else f"{name}.w{wording}"
    return f"{stem}.answer" if answer else stem


def metric_columns(axis: Axis, criteria: Criteria) -> list[tuple[str, int, bool]]:
    """The columns of ``axis``'s metric as (name, wording, answer?): a built-in metric's one;
    a criterion's score and modal answer per wording."""
    if axis.metric not in criteria:
        return [(axis.metric, 0, False)]
    return [
        (criterion_column(axis.metric, w, answer), w, answer)
        for w in range(axis.wordings)
        for answer in (False, True)
    ]


def _values(found: pd.DataFrame, answer: bool, spec_type: str | None) -> np.ndarray:
    """A looked-up column: the mean, or the modal answer (a scale's as numbers)."""
    if not answer:
        return found["mean"].to_numpy()
    if spec_type == "scale":
        return pd.to_numeric(found["answer"]).to_numpy(dtype=float)
    return found["answer"].astype(object).where(found["answer"].notna(), None).to_numpy()


def ragas_table(
    scores: pd.DataFrame,
    samples: Dataset,
    axes: list[Axis],
    judges: list[str],
    criteria: Criteria | None = None,
) -> pd.DataFrame:
    """A row per sample × judge configuration, a column per metric (module docstring)."""
    criteria = criteria or {}
    embeddings = _unique(e for a in axes for e in a.embeddings if e[0] != NO_EMBEDDING)
    strictness = _unique(s for a in axes for s in a.strictness if s)
    rows = pd.DataFrame(
        [
            (judge, emb, dim, s, sample.id)
            for judge in judges
            for emb, dim in embeddings or [(NO_EMBEDDING, 0)]
            for s in strictness or [0]
            for sample in samples
        ],
        columns=["judge", "embedding", "dimension", "strictness", "sample_id"],
    )
    cells = worded_cells(scores, criteria)
    columns, failed, skipped = {}, np.zeros(len(rows)), np.zeros(len(rows))
    for axis in axes:
        kind = criteria[axis.metric].type if axis.metric in criteria else None
        for name, wording, answer in metric_columns(axis, criteria):
            found = cells.reindex(_lookup(axis, rows, wording))
            columns[name] = _values(found, answer, kind)
            if not answer:
                failed += found["failed"].fillna(0).to_numpy()
                skipped += found["skipped"].fillna(0).to_numpy()
    table = _texts(samples, rows["sample_id"])
    table = pd.concat([table, pd.DataFrame(columns, index=table.index)], axis=1)
    table["sample_id"] = rows["sample_id"]
    table["judge"] = rows["judge"]
    table["embedding"] = embedding_config(rows["embedding"], rows["dimension"])
    table["strictness"] = rows["strictness"]
    return table.assign(failed=failed.astype(int), skipped=skipped.astype(int))


def _lookup(axis: Axis, rows: pd.DataFrame, wording: int = 0) -> pd.MultiIndex:
    """The cells of ``axis``'s metric (at ``wording``) behind each row: an axis the metric does
    not vary with is looked up at its empty value (no embedding, strictness 0)."""
    uses_embedding = axis.embeddings != [(NO_EMBEDDING, 0)]
    uses_strictness = axis.strictness != [0]
    n = len(rows)
    return pd.MultiIndex.from_arrays(
        [
            [axis.metric] * n,
            rows["judge"],
            rows["embedding"] if uses_embedding else [NO_EMBEDDING] * n,
            rows["dimension"] if uses_embedding else [0] * n,
            rows["strictness"] if uses_strictness else [0] * n,
            rows["sample_id"],
            [wording] * n,
        ],
        names=WORDED_KEYS,
    )


def wide_table(
    scores: pd.DataFrame,
    samples: Dataset,
    axes: list[Axis],
    judges: list[str],
    criteria: Criteria | None = None,
) -> pd.DataFrame:
    """A row per sample; a column per metric × judge (× embedding @ dimension × strictness);
    a criterion's per wording, each with its modal answer (module docstring)."""
    criteria = criteria or {}
    ids = pd.Series([s.id for s in samples])
    n = len(ids)
    cells = worded_cells(scores, criteria)
    table = _texts(samples, ids)
    table.insert(0, "sample_id", ids)
    columns = {}
    for axis in axes:
        kind = criteria[axis.metric].type if axis.metric in criteria else None
        for judge in judges:
            for emb, dim in axis.embeddings:
                for s in axis.strictness:
                    for stem, wording, answer in metric_columns(axis, criteria):
                        keys: list[Any] = [
                            [axis.metric] * n,
                            [judge] * n,
                            [emb] * n,
                            [dim] * n,
                            [s] * n,
                            ids,
                            [wording] * n,
                        ]
                        index = pd.MultiIndex.from_arrays(keys, names=WORDED_KEYS)
                        name = wide_column(stem, judge, emb, dim, s)
                        columns[name] = _values(cells.reindex(index), answer, kind)
    table = pd.concat([table, pd.DataFrame(columns, index=table.index)], axis=1)
    per_sample = cells.groupby(level="sample_id")[["failed", "skipped"]].sum()
    counts = per_sample.reindex(ids).fillna(0).astype(int)
    return table.assign(failed=counts["failed"].to_numpy(), skipped=counts["skipped"].to_numpy())


def wide_column(metric: str, judge: str, embedding: str, dimension: int, strictness: int) -> str:
    """'faithfulness | a', 'response_relevancy | a | bow @ 64 | s=3': only the axes it has."""
    parts = [metric, judge]
    if embedding != NO_EMBEDDING:
        parts.append(embedding_column(embedding, dimension))
    if strictness:
        parts.append(f"s={strictness}")
    return " | ".join(parts)


def _texts(samples: Dataset, ids: pd.Series) -> pd.DataFrame:
    """The samples' own fields, in Ragas' column order, for the rows' sample ids."""
    by_id = samples.by_id()
    names = list(TEXT_COLUMNS)
    if any(s.reference_contexts is not None for s in samples):
        names.append("reference_contexts")
    return pd.DataFrame(
        {name: [getattr(by_id[i], name) for i in ids] for name in names}, index=ids.index
    )


def _unique(items: Any) -> list[Any]:
    return list(dict.fromkeys(items))


def write_table(
    table: pd.DataFrame, path: Path, *, overwrite: bool = False, inputs: Iterable[Path] = ()
) -> None:
    """CSV (lists as JSON text, which ``judgegrid`` and Ragas' reader both take), JSON Lines or
    Parquet, by the file's extension (``store.table_file``: any other is refused). An existing
    file is replaced only with ``overwrite``; ``inputs`` (the run's data set) and a run
    directory's files never."""
    flat = _lists_as_json(table) if path.suffix.lower() == ".csv" else table
    write_table_file(flat, path, "--out", overwrite=overwrite, inputs=inputs)


def csv_text(table: pd.DataFrame) -> str:
    """The table as CSV, each list a JSON list (what ``judgegrid export`` prints)."""
    return _lists_as_json(table).to_csv(index=False)


def _lists_as_json(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each list column's lists as JSON text, for a CSV cell."""
    flat = table.copy()
    for name in LIST_COLUMNS:
        if name in flat:
            flat[name] = [
                None if v is None else json.dumps(v, ensure_ascii=False) for v in flat[name]
            ]
    return flat
