"""Names checked alike on every data source (issue 39): the same bad column map, and the same
field given twice, are refused in the same words whether the samples come from JSON Lines,
JSON, CSV, Parquet, Arrow, a Hugging Face folder, a DataFrame, a list of dicts or a Hugging
Face Dataset; only the source's own name differs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from judgegrid.core.errors import DatasetError, OptionError
from judgegrid.inputs.dataset import dataset_from_object

RECORDS = [
    {"id": "a", "question": "Q1?", "answer": "A1.", "gt": ""},  # empty in one, null in the other
    {"id": "b", "question": "Q2?", "answer": "A2.", "gt": None},
]
COLUMNS = ["id", "question", "answer", "gt"]


def _arrow_stream(table: pa.Table, path: Path) -> None:
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


def _table(names: list[str], rows: list[list[Any]]) -> pa.Table:
    """A table whose columns may repeat a name (pyarrow allows it; a dict could not)."""
    arrays = [pa.array([row[i] for row in rows], type=pa.string()) for i in range(len(names))]
    return pa.table(arrays, names=names)


def _folder(path: Path, table: pa.Table) -> Path:
    """A Hugging Face save_to_disk folder as pyarrow would find it: state.json and one file."""
    path.mkdir()
    _arrow_stream(table, path / "data-00000-of-00001.arrow")
    state = {"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}
    (path / "state.json").write_text(json.dumps(state))
    return path


Source = Callable[[Path, list[str], list[list[Any]]], Any]


def _csv(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    lines = [",".join(names)] + [",".join("" if v is None else str(v) for v in r) for r in rows]
    (tmp / "d.csv").write_text("\n".join(lines) + "\n")
    return tmp / "d.csv"


def _jsonl(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    (tmp / "d.jsonl").write_text("".join(_object_text(names, r) + "\n" for r in rows))
    return tmp / "d.jsonl"


def _json(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    (tmp / "d.json").write_text("[" + ", ".join(_object_text(names, r) for r in rows) + "]")
    return tmp / "d.json"


def _object_text(names: list[str], row: list[Any]) -> str:
    """A JSON object written by hand, so that a key may be given twice."""
    pairs = zip(names, row, strict=True)
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"


def _parquet(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    pq.write_table(_table(names, rows), tmp / "d.parquet")
    return tmp / "d.parquet"


def _arrow(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    _arrow_stream(_table(names, rows), tmp / "d.arrow")
    return tmp / "d.arrow"


def _hf_folder(tmp: Path, names: list[str], rows: list[list[Any]]) -> Path:
    return _folder(tmp / "hf", _table(names, rows))


def _frame(tmp: Path, names: list[str], rows: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=names)


def _dicts(tmp: Path, names: list[str], rows: list[list[Any]]) -> list[dict[str, Any]]:
    return [dict(zip(names, row, strict=True)) for row in rows]


def _hf_dataset(tmp: Path, names: list[str], rows: list[list[Any]]) -> datasets.Dataset:
    return datasets.Dataset.from_list(_dicts(tmp, names, rows))


FILES: dict[str, Source] = {
    "jsonl": _jsonl,
    "json": _json,
    "csv": _csv,
    "parquet": _parquet,
    "arrow": _arrow,
    "hf folder": _hf_folder,
}
OBJECTS: dict[str, Source] = {"DataFrame": _frame, "list": _dicts, "hf Dataset": _hf_dataset}
OBJECT_NAMES = {"DataFrame": "<DataFrame>", "list": "<list>", "hf Dataset": "<datasets Dataset>"}
EVERY_SOURCE = {**FILES, **OBJECTS}

BAD_MAPS: dict[str, tuple[dict[str, str], str]] = {
    "an unknown column": (
        {"user_input": "questoin", "response": "answer"},
        "--columns: user_input=questoin: unknown column 'questoin' in SOURCE; did you mean "
        "'question'? known: id, question, answer, gt",
    ),
    "an unknown sample field": (
        {"user_inptu": "question", "response": "answer"},
        "--columns: user_inptu=question: unknown sample field 'user_inptu'; did you mean "
        "'user_input'? known: id, user_input, response, retrieved_contexts, reference, "
        "reference_contexts, labels, contrast, language",
    ),
    "one column to two fields": (
        {"user_input": "question", "response": "question"},
        "--columns: response=question: column 'question' is mapped to two fields, user_input "
        "and response; map it once",
    ),
    "one column to two fields, the other order": (
        {"response": "question", "user_input": "question"},
        "--columns: user_input=question: column 'question' is mapped to two fields, response "
        "and user_input; map it once",
    ),
    "a column with no value": (
        {"user_input": "question", "response": "answer", "reference": "gt"},
        "--columns: reference=gt: column 'gt' has no value in any sample of SOURCE; fill it in "
        "or leave out reference=gt",
    ),
}


def _read(source: Any, columns: dict[str, str] | None = None) -> Any:
    return dataset_from_object(str(source) if isinstance(source, Path) else source, columns=columns)


@pytest.mark.parametrize("source", list(EVERY_SOURCE))
@pytest.mark.parametrize("bad", list(BAD_MAPS))
def test_a_bad_column_map_is_refused_alike_on_every_source(tmp_path, source, bad):
    rows = [[r[c] for c in COLUMNS] for r in RECORDS]
    data = EVERY_SOURCE[source](tmp_path, COLUMNS, rows)
    columns, said = BAD_MAPS[bad]
    with pytest.raises(OptionError) as refused:
        _read(data, columns)
    assert refused.value.source == "--columns"
    named = str(data) if isinstance(data, Path) else OBJECT_NAMES[source]
    assert str(refused.value) == said.replace("SOURCE", named)


TWICE = ["id", "user_input", "response", "user_input"]


@pytest.mark.parametrize("source", [*FILES, "DataFrame"])
def test_a_field_given_twice_is_refused_alike_on_every_source(tmp_path, source):
    """JSON kept the last value, Arrow too, CSV renamed the second 'user_input.1' and Parquet
    answered in pyarrow's words; each now names the field and both places."""
    data = EVERY_SOURCE[source](tmp_path, TWICE, [["a", "Q?", "A.", "Q again?"]])
    with pytest.raises(DatasetError) as refused:
        _read(data)
    kind = "field" if source in ("jsonl", "json") else "column"
    assert f"{kind} 'user_input' is given twice (2nd and 4th); give it once" in str(refused.value)


def test_the_same_good_map_reads_the_same_samples_on_every_source(tmp_path):
    """The check refuses only what is wrong: a good map in either order reads every source."""
    rows = [[r[c] for c in COLUMNS] for r in RECORDS]
    read = []
    for name, make in EVERY_SOURCE.items():
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        source = make(folder, COLUMNS, rows)
        for columns in ({"user_input": "question", "response": "answer"},
                        {"response": "answer", "user_input": "question"}):  # fmt: skip
            data = _read(source, columns)
            read.append([(s.id, s.user_input, s.response) for s in data.samples])
    assert len(read) == 2 * len(EVERY_SOURCE)
    assert all(samples == read[0] for samples in read), read
