"""Reading a data set: samples from JSONL, JSON, CSV or Parquet, or the bundled demo set.

The samples are ``sample.Sample`` values (Ragas field names, legacy names accepted). Every bad
record is named by line or row, and all of them are reported at once.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from judgegrid import textfile
from judgegrid.errors import DatasetError, Problem
from judgegrid.sample import SAMPLE_FIELDS, Dataset, Sample

DEMO = "demo"
KNOWN_FIELDS = ("id", *SAMPLE_FIELDS, "labels", "contrast", "language")
LEGACY_ALIASES = ("question", "answer", "contexts", "ground_truth")


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """Read a data set by file extension (.jsonl, .json, .csv, .parquet) or 'demo'."""
    if str(path) == DEMO:
        return load_demo()
    path = textfile.as_path(path, "dataset", DatasetError)
    source = str(path)
    if not path.exists():
        raise DatasetError(source, [Problem("", "file not found")])
    suffix = path.suffix.lower()
    readers = {
        ".jsonl": _jsonl_records,
        ".json": _json_records,
        ".csv": _csv_records,
        ".parquet": _parquet_records,
    }
    if suffix not in readers:
        raise DatasetError(
            source, [Problem("", f"unknown format '{suffix}'; use .jsonl, .json, .csv or .parquet")]
        )
    return _build(source, readers[suffix](path, source), stem=path.stem)


def load_demo() -> Dataset:
    """The demo set shipped with the package: varied topics with deliberate contrasts."""
    text = resources.files("judgegrid.data").joinpath("demo.jsonl").read_text(encoding="utf-8")
    records = [
        (f"line {i}", json.loads(line))
        for i, line in enumerate(text.splitlines(), 1)
        if line.strip()
    ]
    return _build(DEMO, records, stem="demo")


Record = tuple[str, dict[str, Any]]


def dataset_from_records(
    items: Iterable[Sample | dict[str, Any]], source: str = "<list>", stem: str = "item"
) -> Dataset:
    """A data set given in Python (samples or dicts with Ragas or legacy field names); every
    bad item is named by its position, as a file's are by line."""
    records: list[Record] = [
        (f"item {i}", item.model_dump(exclude_none=True) if isinstance(item, Sample) else item)
        for i, item in enumerate(items)
    ]
    return _build(source, records, stem)


def _build(source: str, records: list[Record], stem: str) -> Dataset:
    samples: list[Sample] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for index, (where, record) in enumerate(records):
        if not isinstance(record, dict):
            problems.append(
                Problem(where, f"expected an object of sample fields, got {type(record).__name__}")
            )
            continue
        record = {"id": f"{stem}-{index:03d}", **record}
        try:
            sample = Sample.model_validate(record)
        except ValidationError as exc:
            problems += [_problem(where, record, err) for err in exc.errors()]
            continue
        if sample.id in seen:
            problems.append(Problem(where, f"id '{sample.id}' is also used at {seen[sample.id]}"))
        seen.setdefault(sample.id, where)
        samples.append(sample)
    if problems:
        raise DatasetError(source, problems)
    if not samples:
        raise DatasetError(source, [Problem("", "the data set has no samples")])
    return Dataset(source, tuple(samples))


def _problem(where: str, record: dict[str, Any], err: Any) -> Problem:
    field = ".".join(str(p) for p in err["loc"])
    label = f"{where} (sample {record.get('id')!r}), field {field}" if where else f"field {field}"
    if err["type"] == "extra_forbidden":
        guess = difflib.get_close_matches(field, [*KNOWN_FIELDS, *LEGACY_ALIASES], n=1)
        hint = f"did you mean '{guess[0]}'? " if guess else ""
        known = ", ".join(KNOWN_FIELDS)
        return Problem(label, f"unknown field; {hint}expected one of {known} (or a legacy alias)")
    return Problem(label, err["msg"].removeprefix("Value error, "))


def sample_from_record(record: Any, source: str = "sample") -> Sample:
    """One sample given in Python as a dict (Ragas or legacy field names); DatasetError if bad."""
    if not isinstance(record, dict):
        got = type(record).__name__
        raise DatasetError(
            source, [Problem("", f"expected a Sample or a dict of fields, got {got}")]
        )
    return _build(source, [("", {"id": source, **record})], source).samples[0]


def _jsonl_records(path: Path, source: str) -> list[Record]:
    return textfile.read_jsonl(path, source, DatasetError)


def _json_records(path: Path, source: str) -> list[Record]:
    try:
        data = json.loads(textfile.read_utf8(path, source, DatasetError))
    except json.JSONDecodeError as exc:
        problem = Problem(f"line {exc.lineno}", f"not valid JSON ({exc.msg})")
        raise DatasetError(source, [problem]) from None
    if not isinstance(data, list):
        raise DatasetError(source, [Problem("", "expected a JSON list of samples")])
    return [(f"item {i}", record) for i, record in enumerate(data)]


def _table_records(frame: Any, source: str, first_row: int) -> list[Record]:
    records, problems = [], []
    for i, row in enumerate(frame.to_dict(orient="records")):
        where = f"row {i + first_row}"
        record = {k: v for k, v in row.items() if not _is_blank(v, pd)}
        for key in ("retrieved_contexts", "contexts", "labels", "contrast"):
            value = record.get(key)
            if isinstance(value, str):
                try:
                    record[key] = json.loads(value)
                except json.JSONDecodeError:
                    problems.append(Problem(f"{where}, field {key}", "expected a JSON list/object"))
            elif value is not None and hasattr(value, "tolist"):
                record[key] = value.tolist()
        records.append((where, record))
    if problems:
        raise DatasetError(source, problems)
    return records


def _is_blank(value: Any, pd: Any) -> bool:
    if isinstance(value, list | tuple | dict) or hasattr(value, "tolist"):
        return False
    return bool(pd.isna(value))


def _csv_records(path: Path, source: str) -> list[Record]:
    frame = textfile.read_csv(path, source, DatasetError, empty_is_missing=True)
    return _table_records(frame, source, first_row=2)


def _parquet_records(path: Path, source: str) -> list[Record]:
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise DatasetError(source, [Problem("", f"not a readable Parquet file ({exc})")]) from None
    return _table_records(frame, source, first_row=0)
