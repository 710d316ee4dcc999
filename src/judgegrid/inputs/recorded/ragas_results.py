"""Ragas' result table (``EvaluationResult.to_pandas()``, saved as CSV, Parquet or JSON Lines),
read as Ragas writes it: one row per sample, the sample's columns (``user_input``,
``retrieved_contexts``, ``response``, ``reference``, ...; Ragas' older names too) and one column
per metric.

- **The judge** is not in the file: it is named with ``--judge`` (one name per file, in the
  files' order), else after the file (``gpt-4o.csv`` is judge ``gpt-4o``). Several files are
  several judges on the same samples, or one judge on more samples.
- **The sample** is the row: its id an ``id`` or ``sample_id`` column where the table has one,
  else the row's number (0, 1, ..., as pandas numbers it), so two judges' files of one data set,
  in one order, name the same samples (and one id given two texts is refused). The texts are
  kept, so a live judge can be added to the run later; ``retrieved_contexts`` in a CSV is the
  list as Python wrote it (``['a', 'b']``), read as a literal, never evaluated.
- **A metric column** of Ragas' that judgegrid has is that metric (``METRICS``; Ragas'
  ``answer_relevancy`` is judgegrid's ``response_relevancy``: judgegrid's ``answer_relevancy`` is
  DeepEval's). Another column whose scores are all 0 or 1 (an ``AspectCritic``'s) is a binary
  criterion, as the long table reads a metric not judgegrid's; a numeric column with other
  values is refused (judgegrid cannot know its range); text columns that are no sample field are
  left out, and said.
- **NaN** (Ragas' score of a metric that failed on the sample) is no verdict: no cell, and the
  count said; never a 0. Cost, tokens and latency are not in the table: unknown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.sample import Sample
from judgegrid.inputs.formats import PANDAS_INDEX, RAGAS, context_text, parse_list
from judgegrid.inputs.recorded.lines import MAX_LINE_BYTES
from judgegrid.inputs.recorded.long_table import read_table
from judgegrid.inputs.recorded.verdicts import (
    Recorded,
    names_of,
    pass_fail_criterion,
    place,
    samples_of,
    verdict_frame,
)
from judgegrid.metrics import builtin_metric_named

NAME = "ragas"
METRICS = {  # Ragas' metric column -> judgegrid's metric
    "faithfulness": "faithfulness",
    "answer_relevancy": "response_relevancy",  # Ragas' (questions generated back, embedded)
    "response_relevancy": "response_relevancy",
    "context_precision": "context_precision",
    "llm_context_precision_with_reference": "context_precision",
    "llm_context_precision_without_reference": "context_precision",
    "context_utilization": "context_precision",
    "context_recall": "context_recall",
    "context_entity_recall": "context_entity_recall",
    "noise_sensitivity": "noise_sensitivity",
    "noise_sensitivity_relevant": "noise_sensitivity",
}
ID_COLUMNS = ("id", "sample_id")
LISTS = ("retrieved_contexts", "reference_contexts")
EXPECTED = (
    "Ragas' result table (EvaluationResult.to_pandas(): a row per sample, its user_input, "
    "response, ... and a column per metric)"
)


def looks_like(record: Any) -> bool:
    """Whether a file's first record (a CSV's header, a Parquet file's columns) is Ragas' result
    table: a sample field of Ragas' and a metric column of Ragas', and no judge column."""
    if not isinstance(record, dict) or "judge" in record:
        return False
    return any(k in RAGAS.fields for k in record) and any(k in METRICS for k in record)


def judge_names(paths: Sequence[Path], judges: Sequence[str]) -> list[str]:
    """Each file's judge: ``judges`` (one a file, in order), else the file's name."""
    if judges and len(judges) != len(paths):
        message = (
            f"{len(judges)} judge names for {len(paths)} files: name one judge per file, in the "
            "files' order (or none: each file's judge is then its name)"
        )
        raise OptionError("--judge", [Problem("", message)])
    names = [j.strip() for j in judges] if judges else [p.stem for p in paths]
    empty = [str(i + 1) for i, name in enumerate(names) if not name]
    if empty:
        raise OptionError("--judge", [Problem("", f"name {', '.join(empty)} is empty")])
    return names


def read(paths: Sequence[Path], judges: Sequence[str] = (), cap: int = MAX_LINE_BYTES) -> Recorded:
    """Every file's scores as one ``Recorded``; DatasetError naming the file, row and column of
    each fault (OptionError for ``judges`` that do not fit the files)."""
    names = judge_names(paths, judges)
    found: list[tuple[str, Sample]] = []
    frames, notes = [], []
    criteria: dict[str, CriterionSpec] = {}
    failed: Counter[str] = Counter()
    for path, judge in zip(paths, names, strict=True):
        source = str(path)
        table = read_table(path, cap, EXPECTED, "Ragas' results")
        ids = _ids(table)
        samples, problems = _samples(table, ids)
        scores, left_out = _score_columns(table, source, problems)
        if problems:
            raise DatasetError(source, problems[:50])
        found += samples
        for column, metric in scores.items():
            if metric not in criteria and builtin_metric_named(metric) != metric:
                definition = (
                    f"{metric} (Ragas' verdicts imported; the file does not say the question)"
                )
                criteria[metric] = pass_fail_criterion(
                    metric, definition, source, f"column {metric}"
                )
            given = table[column].notna()
            failed[metric] += int((~given).sum())
            frames.append(
                pd.DataFrame(
                    {
                        "sample_id": ids[given],
                        "judge": judge,
                        "metric": metric,
                        "score": table.loc[given, column],
                        "file": source,
                        "line": table.loc[given, "line"],
                    }
                )
            )
        if left_out:
            notes.append(f"{source}: columns left out: {', '.join(left_out)}")
        if not judges:
            notes.append(f"{source}: judge named after the file: {judge} (name it with --judge)")
    merged = samples_of(found, paths)
    if failed.total():
        counted = ", ".join(f"{m} ({n})" for m, n in failed.items() if n)
        notes.append(f"scores Ragas left NaN (the metric failed), no verdict, left out: {counted}")
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["score"])
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(merged),
        verdict_frame({c: rows[c].tolist() for c in rows.columns}),
        criteria=tuple(criteria.values()),
        notes=tuple(notes),
    )


def _ids(table: pd.DataFrame) -> pd.Series:
    """Each row's sample id: its ``id`` (or ``sample_id``) column, else its number."""
    named = next((c for c in ID_COLUMNS if c in table.columns), None)
    values = table[named].tolist() if named else list(range(len(table)))
    return pd.Series(names_of(values), index=table.index)


def _samples(table: pd.DataFrame, ids: pd.Series) -> tuple[list[tuple[str, Sample]], list[Problem]]:
    """A sample per row, with the texts Ragas kept; a bad cell is a Problem at its row."""
    fields = {c: RAGAS.fields[c] for c in table.columns if c in RAGAS.fields}
    samples, problems = [], []
    for sample_id, row in zip(ids.tolist(), table.to_dict("records"), strict=True):
        where = place(str(row["file"]), str(row["line"]))
        texts: dict[str, Any] = {}
        for column, target in fields.items():
            value, why = _cell(row[column], target)
            if why:
                problems.append(Problem(f"{row['line']}: {column}", why))
            elif value is not None:
                texts[target] = value
        try:
            samples.append((where, Sample(id=sample_id, **texts)))
        except DatasetError as exc:
            problems += [Problem(f"{row['line']}: {p.where}", p.message) for p in exc.problems]
    return samples, problems


def _cell(value: Any, target: str) -> tuple[Any, str | None]:
    """A sample cell as its field's value: a list field's list (a Python or JSON literal in a
    CSV, a list in Parquet), a text as it is; None when empty."""
    if hasattr(value, "tolist"):  # an Arrow or numpy list in Parquet
        value = value.tolist()
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None, None
    if target in LISTS:
        if isinstance(value, str):
            return parse_list(value, None, False)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return [context_text(v) for v in value], None
        return None, f"expected a list of texts, got {type(value).__name__}"
    return (value if isinstance(value, str) else str(value)), None


def _score_columns(
    table: pd.DataFrame, source: str, problems: list[Problem]
) -> tuple[dict[str, str], list[str]]:
    """{column: metric or criterion} of the table's score columns, each coerced to numbers in
    place, and the columns left out; a score that is no number, or a column neither judgegrid's
    metric nor pass/fail, is a Problem."""
    scores: dict[str, str] = {}
    left_out = []
    own = {*RAGAS.fields, *ID_COLUMNS, "file", "line"}
    for column in map(str, table.columns):
        if column in own:
            continue
        values = table[column]
        numbers = pd.to_numeric(values, errors="coerce")
        bad = values.notna() & numbers.isna() & (values.astype(str).str.lower() != "nan")
        if column not in METRICS and (  # a column of texts (or of nothing) is no score
            column in RAGAS.ignored or PANDAS_INDEX.match(column) or numbers.isna().all()
        ):
            left_out.append(column)
            continue
        for line in table.loc[bad, "line"].head(5):
            problems.append(Problem(f"{line}: {column}", "not a number (a score, or empty)"))
        table[column] = numbers.astype(float)
        if column in METRICS:
            scores[column] = METRICS[column]
        elif numbers.dropna().isin([0, 1]).all():
            scores[column] = column
        else:
            first = table.loc[~numbers.isin([0, 1]) & numbers.notna(), "line"].iloc[0]
            message = (
                "neither a metric judgegrid has nor pass/fail (0 or 1), so its range is "
                "unknown; drop the column to import the rest (judgegrid reads "
                f"{', '.join(METRICS)})"
            )
            problems.append(Problem(f"{first}: {column}", message))
    if not scores and not problems:
        message = f"no score column; expected {EXPECTED}"
        raise DatasetError(source, [Problem("", message)])
    return scores, left_out
