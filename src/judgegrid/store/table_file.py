"""A table written to a file the user names (``judgegrid export --out``, ``labels export -o``).

The file's extension names its format (``.csv``, ``.jsonl``, ``.parquet``); any other is refused,
naming those. The path is checked before any work (``check_output``): an existing directory, or a
folder that is a file, is refused; a missing folder is made only when the table is written, so a
refusal on the way leaves nothing behind.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judgegrid.core.errors import OptionError, Problem

TABLE_FORMATS = (".csv", ".jsonl", ".parquet")


def check_output(path: Path, option: str) -> None:
    """OptionError (naming ``option`` and the path) for a path no table can be written to."""
    suffix = path.suffix.lower()
    if path.is_dir():
        raise OptionError(option, [Problem(str(path), "is a directory; name a file in it")])
    if suffix not in TABLE_FORMATS:
        named = f"extension '{suffix}'" if suffix else "no extension"
        message = f"{named}: the format is named by it; use {', '.join(TABLE_FORMATS)}"
        raise OptionError(option, [Problem(str(path), message)])
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise OptionError(option, [Problem(str(path), f"{folder} is a file, not a folder")])


def write_table_file(table: pd.DataFrame, path: Path, option: str) -> None:
    """``table`` in the format of ``path``'s extension (checked again), its folder made if
    missing. A CSV is written as it is: the caller flattens what CSV cannot hold."""
    check_output(path, option)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        # pandas keeps 10 decimals unless told; 15 is its most
        table.to_json(path, orient="records", lines=True, force_ascii=False, double_precision=15)
    elif suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
