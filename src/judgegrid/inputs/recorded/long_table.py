"""The long table: one verdict a row, in CSV, JSON Lines or Parquet, the shape most tools can
export (a spreadsheet of judge results, a DataFrame written out).

Columns (``--columns FIELD=COLUMN,…`` maps an export's own names onto these):

- ``sample_id``, ``judge``, ``metric`` (required): whose verdict on which sample for what: a
  judgegrid metric (``faithfulness``) or a criterion of the file's own;
- ``score``: a metric's score (0 to 1), or a binary criterion's 1 or 0; ``answer``: a
  criterion's answer in words (``pass``/``fail``; for a pairwise one the position the judge
  chose as shown: ``A``, ``B`` or ``tie``, or ``A>B``, ``B>A``, ``A=B``);
- ``order`` (pairwise): ``ab`` when answer a was shown first, ``ba`` when b was; a metric named
  with an order is a pairwise criterion comparing ``response_a`` (a) with ``response_b`` (b);
- ``repeat`` (default 0), ``group`` (a category to break accuracy down by), ``cost`` (dollars),
  ``tokens_in``, ``tokens_out``, ``latency_s``: empty where unknown (never read as 0);
- ``user_input``, ``response``, ``reference``, ``response_a``, ``response_b``: the sample's texts
  (optional; one sample id, one text); ``retrieved_contexts``, ``reference_contexts``: its
  lists of texts (a JSON list in a CSV cell, a list in JSON Lines and Parquet): what a live
  judge added to the run later (``run --resume --add-judges``) reads, e.g. faithfulness;
- ``source``: ``people`` (or ``person``, ``human``, ``label``, ``annotation``: Langfuse's
  ``ANNOTATION``) on a row that is a person's label (``judge`` then names the person, the
  answer in ``answer`` or ``score``; a pairwise label in the pair's own terms: a, b or tie);
  any other value (Langfuse's ``EVAL``, ``API``) is a judge's;
- ``config.NAME``: a configuration column (a temperature, a prompt's version): each distinct
  set of values is a configuration of its own, named ``judge [NAME=value, …]``.

A column map may name several of the file's columns for one of ours, ``judge=A|B``: a row takes
the first of them with a value. Exports keep a judge and a person in different columns
(Langfuse: ``evaluator_id`` on a judge's score, ``author_user_id`` on a person's).

Other columns are left out, and said so. A metric that is not judgegrid's and is not pairwise is
read as a binary criterion (pass/fail); other kinds of criteria are not inferred.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from judgegrid.core.criterion import PASS_WORDS, CriterionSpec, criterion_label
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.names import did_you_mean
from judgegrid.core.pairwise import ORDERS, Combine
from judgegrid.core.records import Label
from judgegrid.core.sample import Sample
from judgegrid.inputs.formats import parse_list
from judgegrid.inputs.recorded.lines import MAX_LINE_BYTES, numbered_lines
from judgegrid.inputs.recorded.verdicts import (
    USAGE_COLUMNS,
    Recorded,
    json_details,
    names_of,
    place,
    verdict_frame,
)
from judgegrid.inputs.textfile import RepeatedKey, loads, read_csv
from judgegrid.metrics import builtin_metric_named
from judgegrid.metrics.pairwise import winner_of

NAME = "long"
REQUIRED = ("sample_id", "judge", "metric")
LISTS = ("retrieved_contexts", "reference_contexts")  # a sample's lists of texts
TEXTS = ("user_input", "response", "reference", "response_a", "response_b", *LISTS)
OPTIONAL = ("score", "answer", "order", "repeat", "group", "source", *USAGE_COLUMNS, *TEXTS)
KNOWN = (*REQUIRED, *OPTIONAL)
CONFIG = "config."
PAIRED = ("response_a", "response_b")
POSITIONS = {"a": "A", "b": "B", "tie": "tie", "a>b": "A", "b>a": "B", "a=b": "tie"}
# a people row's source, in any case: ours, and the words of exports (Langfuse: ANNOTATION)
PEOPLE = {"people", "person", "human", "label", "annotation"}
EITHER = "|"  # --columns judge=evaluator_id|author_user_id: the first of these with a value
SUFFIXES = (".csv", ".jsonl", ".parquet")


def looks_like(record: Any) -> bool:
    """Whether a file's first record (or a CSV's header as a record) is a long table's."""
    return isinstance(record, dict) and all(name in record for name in REQUIRED)


def read(
    paths: Sequence[Path],
    columns: Mapping[str, str] | None = None,
    combine: Combine = "mt-bench",
    cap: int = MAX_LINE_BYTES,
) -> Recorded:
    """Every file's rows as one ``Recorded``; DatasetError naming each bad row (its file, line
    or row, and column). ``columns``: {our column: the file's}; ``combine``: the rule of the
    pairwise criteria the rows make."""
    frames, notes = [], []
    for path in paths:
        frame, left_out = _renamed(read_table(path, cap), columns or {}, str(path))
        frames.append(frame)
        if left_out:
            notes.append(f"{path}: columns left out: {', '.join(left_out)}")
    rows = pd.concat(frames, ignore_index=True)
    people = rows["source"].fillna("").astype(str).str.strip().str.lower().isin(PEOPLE)
    judged, labelled = rows[~people], rows[people]
    problems = _bad_cells(rows)
    _raise(problems, paths)
    criteria = _criteria(judged, combine)
    verdicts = _verdicts(judged, criteria)
    samples, twice = _samples(judged)
    _raise(twice, paths)
    labels, bad = _labels(labelled, criteria)
    _raise(bad, paths)
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(samples),
        verdicts,
        criteria=tuple(criteria.values()),
        labels=tuple(labels),
        groups=_groups(judged),
        notes=tuple(notes),
    )


def _raise(problems: list[Problem], paths: Sequence[Path]) -> None:
    if problems:
        raise DatasetError(", ".join(map(str, paths)), problems[:50])


# -- a file as a table of text cells, each row with its place ----------------------------------


def read_table(
    path: Path, cap: int, expected: str = "", kind: str = "a long table"
) -> pd.DataFrame:
    """The file (CSV, JSON Lines or Parquet) as a frame, with ``file`` and ``line`` (``line N``
    or ``row N``) columns; ``expected`` and ``kind`` say what a refusal expected (a long
    table, or another table-shaped format: Ragas' results)."""
    source = str(path)
    suffix = path.suffix.lower()
    expected = expected or _EXPECTED
    if suffix == ".jsonl":
        frame = _jsonl(path, source, cap, expected)
    elif suffix == ".csv":
        for _ in numbered_lines(path, source, cap):  # a line over the cap, before pandas reads it
            pass
        frame = read_csv(path, source, DatasetError, empty_is_missing=True, expected=expected)
        frame["line"] = [f"row {i + 2}" for i in range(len(frame))]
    elif suffix == ".parquet":
        frame = _parquet(path, source, expected)
    else:
        message = f"unknown format '{suffix}' for {kind}; use {', '.join(SUFFIXES)}"
        raise DatasetError(source, [Problem("", message)])
    frame["file"] = source
    return _plain_strings(frame)


def _plain_strings(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as Python strings: pandas may keep them in Arrow, which iterates a cell at
    a time at 2 µs each (3 s of a 100,000-row import)."""
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]) and frame[column].dtype != object:
            frame[column] = frame[column].astype(object)
    return frame


_EXPECTED = f"a verdict a row ({', '.join(REQUIRED)}, score or answer, …)"


def _jsonl(path: Path, source: str, cap: int, expected: str) -> pd.DataFrame:
    records, lines, problems = [], [], []
    for number, text in numbered_lines(path, source, cap):
        try:
            record = loads(text)
        except ValueError as exc:
            why = exc.msg if hasattr(exc, "msg") and not isinstance(exc, RepeatedKey) else exc
            problems.append(Problem(f"line {number}", f"not valid JSON ({why})"))
            continue
        if not isinstance(record, dict):
            problems.append(Problem(f"line {number}", f"expected {expected}"))
            continue
        records.append(record)
        lines.append(f"line {number}")
    if problems:
        raise DatasetError(source, problems[:50])
    if not records:
        raise DatasetError(source, [Problem("", f"the file is empty; expected {expected}")])
    frame = pd.DataFrame.from_records(records)
    frame["line"] = lines
    return frame


def _parquet(path: Path, source: str, expected: str) -> pd.DataFrame:
    try:
        frame = pq.read_table(path).to_pandas()
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise DatasetError(source, [Problem("", f"not a readable Parquet file ({exc})")]) from None
    if frame.empty:
        raise DatasetError(source, [Problem("", f"the file has no rows; expected {expected}")])
    frame["line"] = [f"row {i}" for i in range(len(frame))]
    return frame


def _renamed(
    frame: pd.DataFrame, columns: Mapping[str, str], source: str
) -> tuple[pd.DataFrame, list[str]]:
    """The file's columns under our names (``columns`` applied), every known one present
    (missing: empty), and the names left out; a required column missing, or a map naming a
    column the file lacks or a field we do not read, is a DatasetError."""
    problems = []
    for ours, theirs in columns.items():
        where = f"--columns {ours}={theirs}"
        if ours not in KNOWN:
            problems.append(
                Problem(
                    where,
                    f"{ours!r} is no column of a long table; "
                    f"{did_you_mean(ours, KNOWN)}expected {', '.join(KNOWN)}",
                )
            )
        for column in _alternatives(theirs):
            if column not in frame.columns:
                problems.append(
                    Problem(
                        where,
                        f"the file has no column {column!r}; "
                        f"{did_you_mean(column, list(map(str, frame.columns)))}",
                    )
                )
    if problems:
        raise DatasetError(source, problems)
    frame = _first_with_a_value(frame, columns)
    frame = frame.rename(columns={theirs: ours for ours, theirs in columns.items()})
    missing = [name for name in REQUIRED if name not in frame.columns]
    if missing:
        have = list(map(str, frame.columns))
        raise DatasetError(
            source,
            [
                Problem(
                    "",
                    f"no {name} column; {did_you_mean(name, have)}a long table needs "
                    f"{', '.join(REQUIRED)} (map other names with --columns {name}=COLUMN)",
                )
                for name in missing
            ],
        )
    own = {*KNOWN, "file", "line"}
    left_out = [str(c) for c in frame.columns if c not in own and not str(c).startswith(CONFIG)]
    frame = frame.drop(columns=left_out)
    for name in OPTIONAL:
        if name not in frame.columns:
            frame[name] = None
    return frame, left_out


def _alternatives(theirs: str) -> list[str]:
    """``A|B`` as the file's columns it names, in order; a plain name as itself."""
    return [part.strip() for part in theirs.split(EITHER)] if EITHER in theirs else [theirs]


def _first_with_a_value(frame: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    """Each ``A|B`` of the map as one column of that name, a row's first value that is not
    empty (NaN or blank), empty when none is; ``A`` and ``B`` themselves are used up."""
    used: set[str] = set()
    for theirs in columns.values():
        parts = _alternatives(theirs)
        if len(parts) > 1:
            values = frame[parts].astype(object)
            blank = values.apply(_missing)  # NaN or blank, as every cell is read
            frame[theirs] = values.mask(blank).bfill(axis=1).iloc[:, 0]
            used.update(parts)
    return frame.drop(columns=sorted(used - set(columns.values())))


# -- the cells checked, all at once -------------------------------------------------------------


def _missing(values: pd.Series) -> pd.Series:
    return values.isna() | (values.astype(str).str.strip() == "")


def _bad_cells(rows: pd.DataFrame) -> list[Problem]:
    """Every required cell empty, every number that is not one (a repeat not whole, a score,
    cost, tokens or latency not a finite number; tokens and costs not negative), an order
    other than ab or ba: the first of each, by place."""
    problems = []

    def name(mask: pd.Series, column: str, message: str) -> None:
        for row in rows[mask].head(10).to_dict("records"):
            problems.append(Problem(f"{place(row['file'], row['line'])}: {column}", message))

    for column in REQUIRED:
        name(_missing(rows[column]), column, "empty; every row needs one")
    for column in ("score", "repeat", *USAGE_COLUMNS):
        given = ~_missing(rows[column])
        numbers = pd.to_numeric(rows[column].where(given), errors="coerce").astype(float)
        finite = pd.Series(np.isfinite(numbers.to_numpy()), index=rows.index)
        name(given & ~finite, column, "not a finite number")
        if column == "repeat":
            name(
                given & finite & ((numbers % 1 != 0) | (numbers < 0)),
                column,
                "not a whole number from 0",
            )
        elif column != "score":
            name(given & finite & (numbers < 0), column, "negative")
    order = rows["order"].fillna("").astype(str).str.strip().str.lower()
    name(~order.isin(["", *ORDERS]), "order", "expected ab (a shown first) or ba")
    return problems


# -- verdicts, criteria, samples, labels --------------------------------------------------------


def _judge_names(rows: pd.DataFrame) -> pd.Series:
    """Each row's judge, with its configuration columns' values where it has any."""
    judges = pd.Series(names_of(rows["judge"].tolist()), index=rows.index)
    config = [c for c in rows.columns if str(c).startswith(CONFIG)]
    if not config:
        return judges
    parts = []
    for column in config:
        given = ~_missing(rows[column])
        text = pd.Series(names_of(rows[column].fillna("").tolist()), index=rows.index)
        parts.append((f"{str(column)[len(CONFIG) :]}=" + text).where(given, ""))
    joined = pd.concat(parts, axis=1).apply(lambda r: ", ".join(p for p in r if p), axis=1)
    return judges.where(joined == "", judges + " [" + joined + "]")


def _criteria(rows: pd.DataFrame, combine: Combine) -> dict[str, CriterionSpec]:
    """A criterion for each metric that is no judgegrid metric: pairwise where its rows give an
    order, else binary."""
    criteria = {}
    given = rows.loc[~_missing(rows["order"]), "metric"].astype(str).str.strip()
    ordered = set(given.unique().tolist())  # not a set of the column: a cell at a time
    for metric in rows["metric"].astype(str).str.strip().unique().tolist():
        if builtin_metric_named(metric) == metric:
            continue
        definition = f"{metric} (verdicts imported; the file does not say the question)"
        try:
            if metric in ordered:
                spec = CriterionSpec(
                    name=metric,
                    definition=definition,
                    type="pairwise",
                    compare=PAIRED,
                    combine=combine,
                )
            else:
                spec = CriterionSpec(name=metric, definition=definition, type="binary")
        except ValueError as exc:
            row = rows[rows["metric"].astype(str).str.strip() == metric].iloc[0]
            message = str(exc).splitlines()[-1] if str(exc) else "not a criterion's name"
            raise DatasetError(row["file"], [Problem(f"{row['line']}: metric", message)]) from None
        criteria[metric] = spec
    return criteria


def _verdicts(rows: pd.DataFrame, criteria: Mapping[str, CriterionSpec]) -> pd.DataFrame:
    metric = rows["metric"].astype(str).str.strip()
    order = rows["order"].fillna("").astype(str).str.strip().str.lower()
    answer = rows["answer"].fillna("").astype(str).str.strip()
    score = pd.to_numeric(rows["score"], errors="coerce")
    binary = metric.isin([name for name, spec in criteria.items() if spec.type == "binary"])
    words = answer.str.lower().map(PASS_WORDS)
    score = score.where(~(binary & score.isna() & words.notna()), words)
    paired = order != ""
    problems = []
    winners: list[str | None] = [None] * len(rows)
    places = zip(rows["line"].tolist(), rows["file"].tolist(), strict=True)
    for i, (is_pair, o, a, (where, file)) in enumerate(
        zip(paired.tolist(), order.tolist(), answer.tolist(), places, strict=True)
    ):
        if not is_pair:
            continue
        position = POSITIONS.get(a.lower())
        if position is None:
            message = f"expected A, B or tie (or A>B, B>A, A=B) as shown, got {a!r}"
            problems.append(Problem(f"{place(file, where)}: answer", message))
            continue
        winners[i] = winner_of(position, o)  # type: ignore[arg-type]
    unscored = ~paired & score.isna()
    for row in rows[unscored].head(10).to_dict("records"):
        problems.append(
            Problem(
                f"{place(row['file'], row['line'])}: score",
                "empty; a verdict needs a score (or a pass/fail answer)",
            )
        )
    if problems:
        raise DatasetError(", ".join(rows["file"].unique().tolist()), problems[:50])
    # the configuration's values kept beside each verdict (the answer as written is its
    # score, or for a pair its position and winner: not kept twice)
    config = [c for c in rows.columns if str(c).startswith(CONFIG)]
    details: list[str | None] = [None] * len(rows)
    if config:
        values = rows[config].rename(columns=lambda c: str(c)[len(CONFIG) :])
        details = [
            json_details({str(k): v for k, v in r.items()}) for r in values.to_dict("records")
        ]
    repeat = pd.to_numeric(rows["repeat"], errors="coerce").fillna(0).astype(int)
    return verdict_frame(
        {
            "sample_id": names_of(rows["sample_id"].tolist()),
            "judge": _judge_names(rows).tolist(),
            "metric": metric.tolist(),
            "repeat": repeat.tolist(),
            "order": order.tolist(),
            "winner": winners,
            "score": score.where(~paired).tolist(),
            **{c: rows[c].tolist() for c in USAGE_COLUMNS},
            "details": details,
            "file": rows["file"].tolist(),
            "line": rows["line"].tolist(),
        }
    )


def _samples(rows: pd.DataFrame) -> tuple[list[Sample], list[Problem]]:
    """One sample per id, with the texts its rows give; an id whose rows give a field two
    different texts is a Problem naming the row that differs (one id, one text)."""
    ids = pd.Series(names_of(rows["sample_id"].tolist()), index=rows.index)
    texts = pd.DataFrame(index=rows.index)
    problems = []
    for column in TEXTS:
        values = rows[column]
        if column in LISTS:
            values, bad = _as_lists(rows, column)
            problems += bad
        given = values.notna() & (values.astype(str).str.strip() != "")
        if not given.any():
            continue
        texts[column] = values.where(given).astype(object)
        found = pd.DataFrame({"id": ids[given], "text": values[given].astype(str)})
        distinct = found.drop_duplicates()
        for index in distinct.index[distinct["id"].duplicated()][:10]:
            first = found.index[found["id"] == distinct.at[index, "id"]][0]
            problems.append(
                Problem(
                    f"{_place_of(rows, index)}: {column}",
                    f"sample {ids[index]!r} has another {column} than at "
                    f"{_place_of(rows, first)}; one sample id, one text",
                )
            )
    where = rows.groupby(ids, sort=False)[["file", "line"]].first()
    texts_of: list[dict[Any, Any]] = [{}] * len(where)
    if len(texts.columns):
        texts_of = texts.groupby(ids, sort=False).first().reindex(where.index).to_dict("records")
    samples = []
    for sample_id, file, line, found_texts in zip(
        where.index, where["file"], where["line"], texts_of, strict=True
    ):
        fields: dict[str, Any] = {
            k: json.loads(v) if k in LISTS else v
            for k, v in found_texts.items()
            if isinstance(v, str)
        }
        extra = {k: fields.pop(k) for k in PAIRED if k in fields}
        try:
            samples.append(Sample(id=sample_id, **fields, extra=extra or None))
        except DatasetError as exc:
            at = place(str(file), str(line))
            problems += [Problem(f"{at}: sample_id", p.message) for p in exc.problems]
    return samples, problems


def _as_lists(rows: pd.DataFrame, column: str) -> tuple[pd.Series, list[Problem]]:
    """A list column's cells as JSON text (None where empty), so that one sample's lists
    compare as its texts do: a list (JSON Lines, Parquet) or a CSV cell holding a JSON list;
    a cell that is neither is a Problem naming its row."""
    cells: list[str | None] = []
    problems = []
    for value, file, line in zip(rows[column], rows["file"], rows["line"], strict=True):
        if value is None or (type(value) is float and value != value):  # the common empty cell
            cells.append(None)
            continue
        items: Any = list(value) if isinstance(value, list | tuple | np.ndarray) else value
        if isinstance(items, str):
            text, (items, _) = items, parse_list(items, None, False)
            if items is None:
                message = f'not a list ({text[:40]!r}): write it as a JSON list ["…", "…"]'
                problems.append(Problem(f"{place(file, line)}: {column}", message))
        if items is None or (not isinstance(items, list) and pd.isna(items)) or items == []:
            cells.append(None)
        elif isinstance(items, list) and all(isinstance(i, str) for i in items):
            cells.append(json.dumps(items, ensure_ascii=False))
        else:
            message = f"expected a list of texts, got {str(items)[:40]!r}"
            problems.append(Problem(f"{place(file, line)}: {column}", message))
            cells.append(None)
    return pd.Series(cells, index=rows.index, dtype=object), problems[:10]


def _place_of(rows: pd.DataFrame, index: Any) -> str:
    return place(str(rows.at[index, "file"]), str(rows.at[index, "line"]))


def _labels(
    rows: pd.DataFrame, criteria: Mapping[str, CriterionSpec]
) -> tuple[list[tuple[str, Label]], list[Problem]]:
    """People's rows as labels: ``judge`` the person, the answer in ``answer`` or ``score``."""
    labels, problems = [], []
    for row in rows.to_dict("records"):
        where = place(row["file"], row["line"])
        metric, who = str(row["metric"]).strip(), str(row["judge"]).strip()
        answer = row["answer"]
        raw = answer if isinstance(answer, str) and answer.strip() else row["score"]
        try:
            value = _label_value(metric, raw, criteria)
        except ValueError as exc:
            problems.append(Problem(f"{where}: answer", str(exc)))
            continue
        sample_id = names_of([row["sample_id"]])[0]
        labels.append((where, Label(sample_id, metric, who, value, source="import")))
    return labels, problems


def _label_value(metric: str, raw: Any, criteria: Mapping[str, CriterionSpec]) -> float:
    if metric in criteria:
        return criterion_label(criteria[metric], raw)
    if builtin_metric_named(metric) != metric:
        raise ValueError(f"a label of {metric!r}, which no judge's row of the files scores")
    value = pd.to_numeric(pd.Series([raw]), errors="coerce").iloc[0]
    if pd.isna(value) or not 0 <= value <= 1:
        raise ValueError(f"expected a score from 0 to 1, got {raw!r}")
    return float(value)


def _groups(rows: pd.DataFrame) -> dict[str, str]:
    given = rows[~_missing(rows["group"])]
    ids, groups = names_of(given["sample_id"].tolist()), names_of(given["group"].tolist())
    return dict(zip(ids, groups, strict=True))
