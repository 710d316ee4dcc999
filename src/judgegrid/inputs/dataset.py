"""Reading a data set: samples from files, from the objects of Ragas, DeepEval, pandas and Hugging
Face, or the bundled demo set.

Files: JSONL, JSON (a list), CSV, Parquet, Arrow, and a folder saved by Hugging Face's
``save_to_disk``. Whatever the container, the field names are read by ``formats`` (Ragas,
DeepEval, or the user's column map) into ``sample.Sample`` values. Every bad record is named by
line or row, and all of them are reported at once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.names import each_given_twice
from judgegrid.core.sample import Dataset, FieldMapping, Sample
from judgegrid.core.validation import error_text
from judgegrid.inputs import textfile
from judgegrid.inputs.formats import LIST_TARGETS, apply_mapping, is_blank, plan_fields
from judgegrid.inputs.pairwise import is_wikieval, wikieval_sample_record

DEMO = "demo"
# What a sample says; a record with none of them (only an id, labels or a language, or
# nothing) is an empty record, refused by its position whatever the metrics.
CONTENT_FIELDS = ("user_input", "response", "retrieved_contexts", "reference", "reference_contexts")

Record = tuple[str, Any]
Columns = Mapping[str, str] | None
Extra = Sequence[str]  # columns a criterion names that are no sample field: kept as they are


def load_dataset(
    path: str | os.PathLike[str],
    *,
    columns: Columns = None,
    list_delimiter: str | None = None,
    extra: Extra = (),
) -> Dataset:
    """Read a data set by file extension (.jsonl, .json, .csv, .parquet, .arrow), a folder saved
    with Hugging Face's ``save_to_disk``, or 'demo'.

    ``columns`` maps Sample fields to the file's own names ({"user_input": "question"});
    ``list_delimiter`` splits a text cell of a list field (retrieved_contexts); ``extra`` names
    the columns a criterion reads that are no sample field (``Sample.extra``). A file of
    WikiEval pairs (``judgegrid pairs``' format) becomes one sample a line: the question, the
    context and the good answer as its fields, and for the pairwise criteria of
    ``model_matrices/pairwise.yaml`` its two pairs in a seeded order (columns
    ``more_faithful_a``, …, kept when a criterion names them) with the people's preferences
    as labels (``inputs.pairwise.wikieval_sample_record``)."""
    if str(path) == DEMO:
        return load_demo()
    path = textfile.as_path(path, "dataset", DatasetError)
    source = str(path)
    if not path.exists():
        raise DatasetError(source, [Problem("", "file not found")])
    if path.is_dir():
        records = _saved_dataset_records(path, source)
        return _build(source, records, path.name, columns, list_delimiter, extra)
    suffix = path.suffix.lower()
    readers = {
        ".jsonl": _jsonl_records,
        ".json": _json_records,
        ".csv": _csv_records,
        ".parquet": parquet_records,
        ".arrow": _arrow_records,
    }
    if suffix not in readers:
        message = (
            f"unknown format '{suffix}'; use .jsonl, .json, .csv, .parquet, .arrow or a folder "
            "saved with save_to_disk"
        )
        raise DatasetError(source, [Problem("", message)])
    if path.stat().st_size == 0:
        raise DatasetError(source, [Problem("", "the file is empty (0 bytes); expected samples")])
    records = readers[suffix](path, source)
    if is_wikieval(r for _, r in records):
        records = [(where, wikieval_sample_record(r, extra, source)) for where, r in records]
    return _build(source, records, path.stem, columns, list_delimiter, extra)


def load_demo() -> Dataset:
    """The demo set shipped with the package: varied topics with deliberate contrasts."""
    text = resources.files("judgegrid.inputs").joinpath("demo.jsonl").read_text(encoding="utf-8")
    records = [
        (f"line {i}", json.loads(line))
        for i, line in enumerate(text.splitlines(), 1)
        if line.strip()
    ]
    return _build(DEMO, records, stem="demo")


def dataset_from_object(
    data: Any, *, columns: Columns = None, list_delimiter: str | None = None, extra: Extra = ()
) -> Dataset:
    """A data set given in Python: a Dataset, a file path, a pandas DataFrame, a list of samples
    (judgegrid Samples, dicts, Ragas SingleTurnSamples, DeepEval LLMTestCases or Goldens), a
    Ragas or DeepEval EvaluationDataset, or a Hugging Face Dataset.

    The libraries are recognised by their objects' modules, never imported: none of them is
    needed to read the others."""
    if isinstance(data, Dataset):
        return data
    if isinstance(data, str | os.PathLike):
        return load_dataset(data, columns=columns, list_delimiter=list_delimiter, extra=extra)
    if isinstance(data, pd.DataFrame):
        _check_names_once(list(data.columns), "<DataFrame>")
        records = [(f"row {i}", row) for i, row in enumerate(data.to_dict(orient="records"))]
        return _build("<DataFrame>", records, "row", columns, list_delimiter, extra)
    library = type(data).__module__.split(".")[0]
    if library in ("ragas", "deepeval", "datasets"):
        source = f"<{library} {type(data).__name__}>"
        items = _library_items(data, library)
        return dataset_from_records(items, source, "item", columns, list_delimiter, extra)
    if isinstance(data, list | tuple):
        return dataset_from_records(
            data, columns=columns, list_delimiter=list_delimiter, extra=extra
        )
    raise OptionError(
        "dataset",
        [
            Problem(
                "",
                "expected a file path, 'demo', a Dataset, a pandas DataFrame, a list of samples, "
                f"or a Ragas, DeepEval or Hugging Face data set, got {type(data).__name__}",
            )
        ],
    )


def _library_items(data: Any, library: str) -> list[Any]:
    """The samples inside another library's data set object."""
    if library == "datasets" and isinstance(data, dict):  # a DatasetDict
        splits = " or ".join(f"data[{k!r}]" for k in data)
        message = f"a {type(data).__name__} of splits; pass one: {splits}"
        raise OptionError("dataset", [Problem("", message)])
    if library == "datasets" and hasattr(data, "to_list"):
        return list(data.to_list())
    if library == "ragas" and hasattr(data, "samples"):
        return list(data.samples)
    if library == "deepeval" and hasattr(data, "goldens"):
        goldens, cases = list(data.goldens or []), list(getattr(data, "test_cases", None) or [])
        if goldens and cases:
            message = (
                f"a DeepEval EvaluationDataset with {len(goldens)} goldens and {len(cases)} test "
                "cases; pass one: dataset.test_cases or dataset.goldens"
            )
            raise OptionError("dataset", [Problem("", message)])
        return cases or goldens
    return [data]  # one sample object: read as a list of one


def dataset_from_records(
    items: Iterable[Any],
    source: str = "<list>",
    stem: str = "item",
    columns: Columns = None,
    list_delimiter: str | None = None,
    extra: Extra = (),
) -> Dataset:
    """A data set given in Python (samples, dicts, or Ragas' and DeepEval's sample objects);
    every bad item is named by its position, as a file's are by line."""
    records: list[Record] = [(f"item {i}", _as_record(item)) for i, item in enumerate(items)]
    return _build(source, records, stem, columns, list_delimiter, extra)


def sample_from_record(record: Any, source: str = "sample", extra: Extra = ()) -> Sample:
    """One sample given in Python as a dict (Ragas, legacy or DeepEval field names) or a Ragas
    or DeepEval sample object; DatasetError if bad."""
    record = _as_record(record)
    if isinstance(record, Refused):
        raise DatasetError(source, [Problem("", str(record))])
    if not isinstance(record, dict):
        got = type(record).__name__
        raise DatasetError(
            source, [Problem("", f"expected a Sample or a dict of fields, got {got}")]
        )
    return _build(source, [("", {"id": source, **record})], source, extra=extra).samples[0]


def _as_record(item: Any) -> Any:
    """A sample object as a dict in its own library's field names (a dict stays as it is)."""
    if isinstance(item, Sample):  # its extra columns read again as columns
        record = item.model_dump(exclude_none=True)
        return {**record.pop("extra", {}), **record}
    library = type(item).__module__.split(".")[0]
    if library == "ragas" and hasattr(item, "model_dump"):
        return _ragas_record(item)
    if library == "deepeval" and hasattr(item, "turns"):
        return _multi_turn(item)
    if library == "deepeval" and hasattr(item, "input"):
        return _deepeval_record(item)
    return item


class Refused(str):
    """An item that is a sample of a kind judgegrid cannot score; the text says why."""


def _ragas_record(sample: Any) -> Any:
    """A SingleTurnSample as Ragas writes it; a MultiTurnSample (messages) cannot be scored."""
    record = sample.model_dump(exclude_none=True)
    if not isinstance(record.get("user_input", ""), str):
        return _multi_turn(sample)
    return record


def _multi_turn(item: Any) -> Refused:
    name = type(item).__name__
    return Refused(f"a multi-turn {name}; judgegrid scores single-turn RAG samples")


def _deepeval_record(case: Any) -> Any:
    """An LLMTestCase or Golden by its attributes, in DeepEval's names; a retrieved context
    that carries its source (RetrievedContextData) gives its text."""
    if not isinstance(case.input, str):
        return _multi_turn(case)
    record: dict[str, Any] = {"input": case.input}
    for name in ("actual_output", "expected_output", "context", "retrieval_context"):
        value = getattr(case, name, None)
        if value is not None:
            record[name] = value
    if record.get("retrieval_context") is not None:
        record["retrieval_context"] = [
            getattr(item, "context", item) for item in record["retrieval_context"]
        ]
    return record


def _build(
    source: str,
    records: list[Record],
    stem: str,
    columns: Columns = None,
    list_delimiter: str | None = None,
    extra: Extra = (),
) -> Dataset:
    id_field = (columns or {}).get("id", "id")
    seen = _first_seen(records, stem, id_field)
    blank = _fields_without_value(records)
    mapping = plan_fields(seen, source, columns, list_delimiter, extra, blank)
    samples: list[Sample] = []
    problems: list[Problem] = []
    ids: dict[str, str] = {}
    for index, (where, record) in enumerate(records):
        if isinstance(record, Refused):
            problems.append(Problem(where, str(record)))
            continue
        if not isinstance(record, dict):
            got = type(record).__name__
            problems.append(Problem(where, f"expected an object of sample fields, got {got}"))
            continue
        sample = _sample(mapping, where, record, f"{stem}-{index:03d}", id_field, problems)
        if sample is None:
            continue
        if all(sample.is_missing(field) for field in CONTENT_FIELDS):
            problems.append(_empty_record(where, record, id_field))
            continue
        if sample.id in ids:
            problems.append(Problem(where, f"id '{sample.id}' is also used at {ids[sample.id]}"))
        ids.setdefault(sample.id, where)
        samples.append(sample)
    if problems:
        raise DatasetError(source, problems)
    if not samples:
        raise DatasetError(source, [Problem("", "the data set has no samples")])
    return Dataset(source, tuple(samples), _as_read(mapping, records))


def _empty_record(where: str, record: dict[str, Any], id_field: str) -> Problem:
    """A record with no value in any field a metric reads, named by its position (and its id
    if it has one): it could only ever be skipped."""
    given = record.get(id_field)
    named = f"{where} (sample {str(given)!r})" if where and not is_blank(given) else where
    message = (
        "an empty record: no value in any sample field ("
        + ", ".join(CONTENT_FIELDS)
        + "); fill it in or drop it"
    )
    return Problem(named, message)


def _as_read(mapping: FieldMapping, records: list[Record]) -> FieldMapping:
    """The mapping as it was used: a delimiter no text cell needed is not shown (a JSON file of
    DeepEval's names holds real lists)."""
    sources = [field for field, target in mapping.fields if target in LIST_TARGETS]
    split = any(
        isinstance(record.get(field), str)
        for _, record in records
        for field in sources
        if isinstance(record, dict)
    )
    return mapping if split else replace(mapping, delimiter=None)


def _first_seen(records: list[Record], stem: str, id_field: str) -> dict[str, str]:
    """Each field of the data set, in order, with the record it first appears in."""
    seen: dict[str, str] = {}
    for index, (where, record) in enumerate(records):
        if isinstance(record, dict):
            label = _label(where, record.get(id_field, f"{stem}-{index:03d}"))
            for field, value in record.items():
                if not is_blank(value):
                    seen.setdefault(str(field), label)
    return seen


def _fields_without_value(records: list[Record]) -> list[str]:
    """The fields no record gives a value: missing, null or an empty string in every one (a
    table's empty column reads as missing, a JSON file's as ""; either way, nothing)."""
    fields = dict.fromkeys(str(f) for _, r in records if isinstance(r, dict) for f in r)
    return [
        field
        for field in fields
        if all(_no_value(r.get(field)) for _, r in records if isinstance(r, dict))
    ]


def _no_value(value: Any) -> bool:
    return is_blank(value) or (isinstance(value, str) and not value.strip())


def _label(where: str, sample_id: Any) -> str:
    return f"{where} (sample {str(sample_id)!r})" if where else ""


def _sample(
    mapping: FieldMapping,
    where: str,
    record: dict[str, Any],
    default_id: str,
    id_field: str,
    problems: list[Problem],
) -> Sample | None:
    mapped = apply_mapping(mapping, record, _label(where, record.get(id_field, default_id)))
    problems += mapped.problems
    if mapped.problems:
        return None
    fields = {"id": default_id, **mapped.fields}
    try:
        return Sample.model_validate(fields)
    except ValidationError as exc:
        label = _label(where, fields["id"])
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"])
            head, _, tail = field.partition(".")
            named = mapped.origin.get(head, head) + (f".{tail}" if tail else "")
            message = error_text(err)  # a validator's own words
            problems.append(
                Problem(f"{label}, field {named}" if label else f"field {named}", message)
            )
        return None


JSON_LINES_HINT = "this looks like JSON Lines (one record per line): name the file .jsonl"


def _jsonl_records(path: Path, source: str) -> list[Record]:
    return textfile.read_jsonl(
        path, source, DatasetError, "one sample a line (JSON Lines)", "name the file .json"
    )


def _json_records(path: Path, source: str) -> list[Record]:
    text = textfile.read_text(path, source, DatasetError, "a JSON list of samples")
    try:
        data = textfile.loads(text)
    except json.JSONDecodeError as exc:
        if _json_lines_in(text):
            raise DatasetError(source, [Problem("", JSON_LINES_HINT)]) from None
        problem = Problem(f"line {exc.lineno}", f"not valid JSON ({exc.msg})")
        raise DatasetError(source, [problem]) from None
    except textfile.RepeatedKey as exc:
        raise DatasetError(source, [Problem("", str(exc))]) from None
    if isinstance(data, dict):
        message = (
            "expected a JSON list of samples, got one object: put the samples in a list "
            "[{…}, {…}], or, for one sample a line, name the file .jsonl"
        )
        raise DatasetError(source, [Problem("", message)])
    if not isinstance(data, list):
        raise DatasetError(source, [Problem("", "expected a JSON list of samples")])
    return [(f"item {i}", record) for i, record in enumerate(data)]


def _json_lines_in(text: str) -> bool:
    """Whether a .json file's text that is not one JSON value is a JSON object a line."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        return len(lines) > 1 and all(isinstance(json.loads(line), dict) for line in lines)
    except json.JSONDecodeError:
        return False


def _csv_records(path: Path, source: str) -> list[Record]:
    expected = "a header row of field names and a row per sample"
    frame = textfile.read_csv(path, source, DatasetError, empty_is_missing=True, expected=expected)
    return [(f"row {i + 2}", row) for i, row in enumerate(frame.to_dict(orient="records"))]


def parquet_records(path: Path, source: str) -> list[Record]:
    """A Parquet file's rows as (``row N``, record) pairs; a file pyarrow cannot read is named."""
    try:
        schema = pq.read_schema(path)
        _check_names_once(schema.names, source)  # pyarrow would refuse a repeat in its words
        table = pq.read_table(path)
    except DatasetError:
        raise
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise DatasetError(source, [Problem("", f"not a readable Parquet file ({exc})")]) from None
    return _table_records(table, source)


def _arrow_records(path: Path, source: str) -> list[Record]:
    return _table_records(_read_arrow(path, source), source)


def _table_records(table: pa.Table, source: str) -> list[Record]:
    """A table's rows as records; a column name given twice is refused (a row, as a dict,
    would keep one of the two)."""
    _check_names_once(table.schema.names, source)
    return [(f"row {i}", row) for i, row in enumerate(table.to_pylist())]


def _check_names_once(columns: Sequence[Any], source: str) -> None:
    """A table's columns (a Parquet or Arrow file's, a DataFrame's), each named once."""
    twice = each_given_twice("column", [str(c) for c in columns])
    if twice:
        raise DatasetError(source, [Problem("", reason) for reason in twice])


def _read_arrow(path: Path, source: str) -> pa.Table:
    """An Arrow file: the IPC stream Hugging Face writes, or the random-access file format."""
    errors = []
    for open_ in (pa.ipc.open_stream, pa.ipc.open_file):
        try:
            with pa.memory_map(str(path)) as stream:
                return open_(stream).read_all()
        except (pa.ArrowInvalid, OSError) as exc:
            errors.append(str(exc))
    problem = Problem("", f"not a readable Arrow file ({errors[-1]})")
    raise DatasetError(source, [problem])


def _saved_dataset_records(folder: Path, source: str) -> list[Record]:
    """A Hugging Face ``save_to_disk`` folder, read with pyarrow: its state.json lists the Arrow
    files in order (``datasets`` itself is not needed)."""
    splits = folder / "dataset_dict.json"
    if splits.exists():
        try:
            names = json.loads(textfile.read_utf8(splits, source, DatasetError))["splits"]
        except (json.JSONDecodeError, KeyError, TypeError):
            problem = Problem(splits.name, "not a DatasetDict's list of splits")
            raise DatasetError(source, [problem]) from None
        choices = " or ".join(str(folder / name) for name in names)
        raise DatasetError(source, [Problem("", f"a DatasetDict of splits; name one: {choices}")])
    state = folder / "state.json"
    if not state.exists():
        message = "a folder, but not a data set saved with save_to_disk (no state.json)"
        raise DatasetError(source, [Problem("", message)])
    try:
        files = [
            f["filename"]
            for f in json.loads(textfile.read_utf8(state, source, DatasetError))["_data_files"]
        ]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise DatasetError(source, [Problem("state.json", "not a save_to_disk state")]) from None
    rows = [
        row
        for name in files
        for _, row in _table_records(_read_arrow(folder / name, source), source)
    ]
    return [(f"row {i}", row) for i, row in enumerate(rows)]
