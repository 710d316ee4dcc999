"""The formats of recorded verdicts, each a reader module, and which one a file is in.

``READERS`` names each format's reader; a new format is one module and one line here, and
``looks_like``, its test of a file's first record, makes ``--format auto`` know it too.
``read_recorded`` reads with the format named (or detected), says which it detected, checks
what every format must hold (``verdicts.check_recorded``), and names the format a file looks
like when it was passed as another.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.names import unknown_name
from judgegrid.core.pairwise import Combine
from judgegrid.inputs.recorded import (
    deepeval_results,
    inspect_log,
    judgebench,
    long_table,
    promptfoo_results,
    ragas_results,
)
from judgegrid.inputs.recorded.lines import MAX_LINE_BYTES, numbered_lines
from judgegrid.inputs.recorded.verdicts import Recorded, check_recorded
from judgegrid.inputs.textfile import csv_header

AUTO = "auto"


@dataclass(frozen=True)
class ReadOptions:
    """How recorded files are read: ``columns`` maps a long table's column names (ours: the
    file's), ``combine`` is the rule of the pairwise criteria a long table makes, ``cap`` the
    longest line read (bytes), ``judges`` the judge of each Ragas results file (in order)."""

    columns: Mapping[str, str] = field(default_factory=dict)
    combine: Combine = "mt-bench"
    cap: int = MAX_LINE_BYTES
    judges: Sequence[str] = ()


Reader = Callable[[Sequence[Path], ReadOptions], Recorded]
READERS: dict[str, Reader] = {
    long_table.NAME: lambda paths, o: long_table.read(paths, o.columns, o.combine, o.cap),
    judgebench.NAME: lambda paths, o: judgebench.read(paths, o.cap),
    inspect_log.NAME: lambda paths, o: inspect_log.read(paths),
    promptfoo_results.NAME: lambda paths, o: promptfoo_results.read(paths),
    ragas_results.NAME: lambda paths, o: ragas_results.read(paths, o.judges, o.cap),
    deepeval_results.NAME: lambda paths, o: deepeval_results.read(paths),
}
LOOKS_LIKE: dict[str, Callable[[Any], bool]] = {
    inspect_log.NAME: inspect_log.looks_like,
    promptfoo_results.NAME: promptfoo_results.looks_like,
    deepeval_results.NAME: deepeval_results.looks_like,
    ragas_results.NAME: ragas_results.looks_like,  # a sample field and a metric column, no judge
    judgebench.NAME: judgebench.looks_like,  # first: a JudgeBench line has no judge column
    long_table.NAME: long_table.looks_like,
}
FORMATS = (AUTO, *READERS)


def read_recorded(
    paths: Sequence[Path], format: str = AUTO, options: ReadOptions | None = None
) -> tuple[Recorded, str]:
    """The files' verdicts, checked, and the format they were read as (detected from the
    first file with ``auto``). OptionError for an unknown format or an option the format does
    not take; DatasetError naming the file, line and field of each fault."""
    options = options or ReadOptions()
    if format not in FORMATS:
        raise OptionError("--format", [Problem("", unknown_name("format", format, FORMATS))])
    if not paths:
        raise OptionError("FILE", [Problem("", "name one file at least")])
    chosen = format
    if format == AUTO:  # a column map is a long table's
        chosen = long_table.NAME if options.columns else detect(paths[0], options)
    if options.columns and chosen != long_table.NAME:
        message = f"maps a long table's columns; {chosen} files are read as they are"
        raise OptionError("--columns", [Problem("", message)])
    if options.judges and chosen != ragas_results.NAME:
        message = f"names the judge of a Ragas results file; {chosen} files name their own judges"
        raise OptionError("--judge", [Problem("", message)])
    try:
        recorded = READERS[chosen](paths, options)
    except DatasetError as exc:
        raise _with_the_format_it_looks_like(exc, paths, chosen, options) from None
    check_recorded(recorded)
    return recorded, chosen


def detect(path: Path, options: ReadOptions | None = None) -> str:
    """The format a file's first record looks like; DatasetError saying what it holds."""
    first = first_record(path)
    renamed = _renamed(first, (options or ReadOptions()).columns)
    for name, test in LOOKS_LIKE.items():
        if test(renamed):
            return name
    fields = ", ".join(map(str, list(first)[:8])) if isinstance(first, dict) else "no fields"
    message = (
        f"cannot tell its format: its first record has {fields}; name one with --format "
        f"({', '.join(READERS)})"
    )
    raise DatasetError(str(path), [Problem("", message)])


def first_record(path: Path) -> Any:
    """A file's first record: a JSON line's object, a CSV's header as names, a Parquet file's
    columns as names, an Inspect log's mark (None where it has none)."""
    source, suffix = str(path), path.suffix.lower()
    # a zip or one JSON document (Inspect's log, promptfoo's results): not read line by line
    log = inspect_log.sniff(path) or promptfoo_results.sniff(path) or deepeval_results.sniff(path)
    if log is not None:
        return log
    if suffix == ".parquet":
        try:
            return dict.fromkeys(pq.read_schema(path).names)
        except Exception as exc:  # pyarrow raises several unrelated types for a bad file
            message = f"not a readable Parquet file ({exc})"
            raise DatasetError(source, [Problem("", message)]) from None
    for _, text in numbered_lines(path, source):
        if suffix == ".csv":
            return dict.fromkeys(csv_header(text))
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None
    raise DatasetError(source, [Problem("", "the file is empty; expected verdicts")])


def _renamed(record: Any, columns: Mapping[str, str]) -> Any:
    if not isinstance(record, dict) or not columns:
        return record
    theirs = {v: k for k, v in columns.items()}
    return {theirs.get(k, k): v for k, v in record.items()}


def _with_the_format_it_looks_like(
    exc: DatasetError, paths: Sequence[Path], chosen: str, options: ReadOptions
) -> DatasetError:
    """A reader's refusal, led by the format the file looks like when it is another."""
    for path in paths:
        try:
            other = detect(path, options)
        except DatasetError:
            continue
        if other != chosen:
            message = (
                f"this looks like a {other} file, not {chosen}: read it with --format {other} "
                "(or auto)"
            )
            return DatasetError(str(path), [Problem("", message), *exc.problems[:3]])
    return exc
