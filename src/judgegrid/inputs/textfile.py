"""Reading a user's text file: bytes that are not UTF-8 are named by line, never a traceback."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.errors import InputError, Problem


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


def as_path(value: Any, what: str, error: type[InputError] = InputError) -> Path:
    """``value`` as a Path, or ``error`` saying a path was expected (not a bare TypeError)."""
    if not isinstance(value, str | os.PathLike):
        got = type(value).__name__
        raise error(what, [Problem("", f"expected a file path, got {got}")])
    return Path(value)


def read_jsonl(
    path: Path, source: str, error: type[InputError] = InputError
) -> list[tuple[str, Any]]:
    """A JSON Lines file as (``line N``, value) pairs, blank lines skipped; every line that is
    not JSON is named at once in one ``error``."""
    rows, problems = jsonl_lines(path, source, error)
    if problems:
        raise error(source, problems)
    return rows


def jsonl_lines(
    path: Path, source: str, error: type[InputError] = InputError
) -> tuple[list[tuple[str, Any]], list[Problem]]:
    """The lines that are JSON, and a Problem for each that is not, for a reader that checks
    the values too and names every fault in one error."""
    rows: list[tuple[str, Any]] = []
    problems = []
    for number, line in enumerate(read_utf8(path, source, error).splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"line {number}", f"not valid JSON ({exc.msg})"))
    return rows, problems


def read_csv(
    path: Path, source: str, error: type[InputError] = InputError, empty_is_missing: bool = False
) -> pd.DataFrame:
    """A CSV file as text columns; a bad byte is named by line, a malformed file by ``error``.
    ``empty_is_missing``: an empty cell reads as missing (NaN), else as ``""``."""
    text = io.StringIO(read_utf8(path, source, error))
    missing = [""] if empty_is_missing else None
    try:
        return pd.read_csv(text, dtype=str, keep_default_na=False, na_values=missing)
    except pd.errors.ParserError as exc:
        raise error(source, [Problem("", f"not a readable CSV file ({exc})")]) from None
