"""A recorded file's lines, read one at a time under a cap on a line's length: a file of
verdicts may be large (a million rows), and one line of a gigabyte (a file cut or glued wrong)
is refused at that line, never read into memory whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from judgegrid.core.errors import DatasetError, Problem

MAX_LINE_BYTES = 64 * 1024 * 1024  # a line of one pair's texts and a judge's reasoning fits


def numbered_lines(path: Path, source: str, cap: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line; DatasetError for a missing or unreadable
    file, a line longer than ``cap`` bytes, or a byte that is not UTF-8, each named by line."""
    try:
        file = path.open("rb")
    except FileNotFoundError:
        raise DatasetError(source, [Problem("", "file not found")]) from None
    except OSError as exc:
        message = f"cannot read the file ({exc.strerror})"
        raise DatasetError(source, [Problem("", message)]) from None
    with file:
        number = 0
        while True:
            raw = file.readline(cap + 1)
            if not raw:
                return
            number += 1
            if len(raw) > cap and not raw.endswith(b"\n"):
                message = f"longer than {cap:,} bytes; is the file cut or glued wrong?"
                raise DatasetError(source, [Problem(f"line {number}", message)])
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                problem = Problem(
                    f"line {number}",
                    f"byte 0x{raw[exc.start]:02x} is not UTF-8; save the file as UTF-8",
                )
                raise DatasetError(source, [problem]) from None
            if text.strip():
                yield number, text


def head_bytes(path: Path, size: int = 256) -> bytes | None:
    """A file's first bytes, for telling a whole-file format (a zip, one JSON document) by its
    opening without reading it; None when the file cannot be read (its reader then says why)."""
    try:
        with path.open("rb") as file:
            return file.read(size)
    except OSError:
        return None
