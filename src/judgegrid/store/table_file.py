"""A table written to a file the user names (``judgegrid export --out``, ``labels export -o``).

The file's extension names its format (``.csv``, ``.jsonl``, ``.parquet``); any other is refused,
naming those. The path is checked before any work (``check_output``), by the one rule every
writer follows (``store.output_file``): an existing file only with ``overwrite``, never an input
of the command nor a file in a run directory, a missing folder made only when the table is
written, so a refusal on the way leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from judgegrid.core.errors import OptionError, Problem
from judgegrid.store.output_file import check_output_file, make_folder

TABLE_FORMATS = (".csv", ".jsonl", ".parquet")


def check_output(
    path: Path, option: str, *, overwrite: bool = False, inputs: Iterable[Path] = ()
) -> None:
    """OptionError (naming ``option`` and the path) for a path no table may be written to."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_FORMATS and not path.is_dir():
        named = f"extension '{suffix}'" if suffix else "no extension"
        message = f"{named}: the format is named by it; use {', '.join(TABLE_FORMATS)}"
        raise OptionError(option, [Problem(str(path), message)])
    check_output_file(path, option, overwrite=overwrite, inputs=inputs)


def write_table_file(
    table: pd.DataFrame,
    path: Path,
    option: str,
    *,
    overwrite: bool = False,
    inputs: Iterable[Path] = (),
) -> None:
    """``table`` in the format of ``path``'s extension (checked again), its folder made if
    missing. A CSV is written as it is: the caller flattens what CSV cannot hold."""
    path = Path(path)
    check_output(path, option, overwrite=overwrite, inputs=inputs)
    make_folder(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        # pandas keeps 10 decimals unless told; 15 is its most
        table.to_json(path, orient="records", lines=True, force_ascii=False, double_precision=15)
    elif suffix == ".parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
