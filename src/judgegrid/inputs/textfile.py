"""Reading a user's text file: bytes that are not UTF-8 are named by line, and a file with
nothing to read in it (empty, blank lines, a CSV header alone) is named as such, never a
traceback."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.errors import InputError, Problem

JSON_LINES = "one JSON object a line (JSON Lines)"


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
    path: Path, source: str, error: type[InputError] = InputError, expected: str = JSON_LINES
) -> list[tuple[str, Any]]:
    """A JSON Lines file as (``line N``, value) pairs, blank lines skipped; every line that is
    not JSON is named at once in one ``error``, an empty or blank file as such."""
    rows, problems = jsonl_lines(path, source, error, expected)
    if problems:
        raise error(source, problems)
    return rows


def jsonl_lines(
    path: Path, source: str, error: type[InputError] = InputError, expected: str = JSON_LINES
) -> tuple[list[tuple[str, Any]], list[Problem]]:
    """The lines that are JSON, and a Problem for each that is not, for a reader that checks
    the values too and names every fault in one error; an empty or blank file is ``error``."""
    rows: list[tuple[str, Any]] = []
    problems = []
    for number, line in enumerate(read_text(path, source, error, expected).splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"line {number}", f"not valid JSON ({exc.msg})"))
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
    text = io.StringIO(read_text(path, source, error, expected))
    missing = [""] if empty_is_missing else None
    try:
        frame = pd.read_csv(text, dtype=str, keep_default_na=False, na_values=missing)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise error(source, [Problem("", f"not a readable CSV file ({exc})")]) from None
    if frame.empty:
        header = ", ".join(map(str, frame.columns))
        message = f"only a header row ({header}) and no row under it; expected {expected}"
        raise error(source, [Problem("", message)])
    return frame
