"""Reading a user's text file: bytes that are not UTF-8 are named by line, and a file with
nothing to read in it (empty, blank lines, a CSV header alone) is named as such, never a
traceback. A file in another shape than its name says (JSON Lines named .json, one JSON array
named .jsonl, a CSV separated by ';' or tabs) is named as what it looks like, and a field given
twice (a JSON object's key, a CSV header's column) is refused naming both, where a parser would
keep one of the two without a word."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.errors import InputError, Problem
from judgegrid.core.names import each_given_twice

JSON_LINES = "one JSON object a line (JSON Lines)"
# What a CSV's header may be separated by instead of commas (a spreadsheet's locale, a TSV).
OTHER_SEPARATORS = {";": "';'", "\t": "tabs", "|": "'|'"}
ONE_ARRAY = "this looks like one JSON array, not JSON Lines (one record per line)"


class RepeatedKey(ValueError):
    """A JSON object that gives one key twice: ``json`` would keep the last without a word."""


def _one_value_a_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):  # no key twice: the common case, without naming anything
        return found
    reasons = each_given_twice("field", [key for key, _ in pairs])
    if reasons:
        raise RepeatedKey("; ".join(reasons))
    return dict(pairs)


# one decoder kept: ``json.loads`` with a hook builds one a call (a fifth of a million-line read)
_DECODER = json.JSONDecoder(object_pairs_hook=_one_value_a_key)


def loads(text: str) -> Any:
    """``json.loads``, refusing an object that gives a key twice (RepeatedKey); a JSON file's
    records and a JSON Lines file's lines are read through it alike."""
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODER.decode(text)


def json_array_in(text: str) -> bool:
    """Whether a file's whole text is one JSON array of records (a .json file named .jsonl)."""
    if not text.lstrip().startswith("["):
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def read_utf8(path: Path, source: str, error: type[InputError] = InputError) -> str:
    """The file's text; a missing or unreadable file, or a byte that is not UTF-8, is ``error``."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error(source, [Problem("", "file not found")]) from None
    except OSError as exc:
        raise error(source, [Problem("", f"cannot read the file ({exc.strerror})")]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problem = Problem(
            f"line {line}",
            f"byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8",
        )
        raise error(source, [problem]) from None


def nothing_in(text: str) -> str | None:
    """Why a file's text holds nothing to read (empty, or blank lines only), else None."""
    if not text:
        return "the file is empty (0 bytes)"
    if not text.strip():
        return "the file holds only blank lines"
    return None


def read_text(path: Path, source: str, error: type[InputError], expected: str) -> str:
    """The file's text (``read_utf8``); an empty or blank file is ``error``, saying what was
    ``expected`` in it."""
    text = read_utf8(path, source, error)
    empty = nothing_in(text)
    if empty:
        raise error(source, [Problem("", f"{empty}; expected {expected}")])
    return text


def yaml_problem(exc: Exception) -> Problem:
    """A YAML parser's error as a Problem placed at its line and column."""
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    return Problem(where, f"not valid YAML: {getattr(exc, 'problem', None) or exc}")


def as_path(value: Any, what: str, error: type[InputError] = InputError) -> Path:
    """``value`` as a Path, or ``error`` saying a path was expected (not a bare TypeError)."""
    if not isinstance(value, str | os.PathLike):
        got = type(value).__name__
        raise error(what, [Problem("", f"expected a file path, got {got}")])
    return Path(value)


def read_jsonl(
    path: Path,
    source: str,
    error: type[InputError] = InputError,
    expected: str = JSON_LINES,
    array_hint: str = "write one record a line",
) -> list[tuple[str, Any]]:
    """A JSON Lines file as (``line N``, value) pairs, blank lines skipped; every line that is
    not JSON is named at once in one ``error``, an empty or blank file as such."""
    rows, problems = jsonl_lines(path, source, error, expected, array_hint)
    if problems:
        raise error(source, problems)
    return rows


def jsonl_lines(
    path: Path,
    source: str,
    error: type[InputError] = InputError,
    expected: str = JSON_LINES,
    array_hint: str = "write one record a line",
) -> tuple[list[tuple[str, Any]], list[Problem]]:
    """The lines that are JSON, and a Problem for each that is not (or gives a key twice), for
    a reader that checks the values too and names every fault in one error; an empty or blank
    file is ``error``, and so is one JSON array, with ``array_hint`` (what to do instead)."""
    text = read_text(path, source, error, expected)
    if json_array_in(text):
        raise error(source, [Problem("", f"{ONE_ARRAY}: {array_hint}")])
    rows: list[tuple[str, Any]] = []
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((f"line {number}", loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"line {number}", f"not valid JSON ({exc.msg})"))
        except RepeatedKey as exc:
            problems.append(Problem(f"line {number}", str(exc)))
    return rows, problems


def read_csv(
    path: Path,
    source: str,
    error: type[InputError] = InputError,
    empty_is_missing: bool = False,
    expected: str = "a header row and a row per record",
) -> pd.DataFrame:
    """A CSV file as text columns; a bad byte is named by line, a malformed file by ``error``,
    and so is a file with no row under its header (or no header: empty or blank).
    ``empty_is_missing``: an empty cell reads as missing (NaN), else as ``""``."""
    content = read_text(path, source, error, expected)
    names = csv_header(content)
    _check_separator(names, source, error)
    twice = each_given_twice("column", names)
    if twice:
        raise error(source, [Problem("line 1", reason) for reason in twice])
    missing = [""] if empty_is_missing else None
    try:
        frame = pd.read_csv(
            io.StringIO(content), dtype=str, keep_default_na=False, na_values=missing
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise error(source, [Problem("", f"not a readable CSV file ({exc})")]) from None
    if frame.empty:
        header = ", ".join(map(str, frame.columns))
        message = f"only a header row ({header}) and no row under it; expected {expected}"
        raise error(source, [Problem("", message)])
    return frame


def csv_header(text: str) -> list[str]:
    """A CSV's header row, its names as written (pandas would rename a repeat ``name.1``)."""
    return next(csv.reader(io.StringIO(text)), [])


def _check_separator(header: list[str], source: str, error: type[InputError]) -> None:
    """A header that is one column holding ';' (or tabs, or '|') is another separator's CSV:
    refused, not read, as a spreadsheet that separates by ';' writes decimal commas (0,5),
    which the values would be misread by; Ragas, DeepEval and ``labels export`` write commas."""
    if len(header) != 1:
        return
    counts = {sep: header[0].count(sep) for sep in OTHER_SEPARATORS}
    separator = max(counts, key=lambda sep: counts[sep])
    if counts[separator]:
        message = (
            f"the header is separated by {OTHER_SEPARATORS[separator]}, not ','; save the file "
            "as comma-separated CSV (a spreadsheet's 'CSV (comma delimited)')"
        )
        raise error(source, [Problem("line 1", message)])
