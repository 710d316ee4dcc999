"""May a command write a file where the user names it? One answer for every writer.

`judgegrid init` (the matrix and its template), `export --out` and `labels export -o` all ask
``check_output_file`` before any work, and ``make_folder`` just before they write:

- an existing file is replaced only when the user says so (``--overwrite``; ``overwrite=True``
  in Python), never by surprise;
- never one of the command's own inputs, nor a file in a run directory (or a `judgegrid pairs`
  directory), even with ``--overwrite``: those are the run's, and a table written over its data
  set or its ``scores.csv`` is a run lost;
- a directory where the file goes, a file where a folder goes, or a folder this user may not
  write in is refused by name;
- a missing folder is made, but only when the file is written, so a refusal on the way leaves
  nothing behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from judgegrid.core.errors import OptionError, Problem
from judgegrid.store.lock import LOCK_NAME
from judgegrid.store.run_db import DB_NAME
from judgegrid.store.run_dir import PAIRS_SOURCE, RESOLVED_MATRIX

# A folder holding any of these is a run directory (or a pairs directory, which holds runs).
RUN_MARKERS = (DB_NAME, RESOLVED_MATRIX, PAIRS_SOURCE, LOCK_NAME)
OVERWRITE_HINT = "name another file, or replace it with --overwrite (overwrite=True in Python)"


def check_output_file(
    path: Path, option: str | None, *, overwrite: bool = False, inputs: Iterable[Path] = ()
) -> None:
    """OptionError, naming ``option`` (None: an argument, named by the path alone) and the
    path, if a command may not write ``path``; ``inputs``: the files the command reads, which
    it never writes over."""
    problem = output_problem(Path(path), overwrite, tuple(inputs))
    if problem is not None:
        raise OptionError(option, [Problem(str(path), problem)])


def output_problem(path: Path, overwrite: bool, inputs: tuple[Path, ...]) -> str | None:
    """Why ``path`` may not be written, or None."""
    if path.is_dir():
        return "is a directory; name a file in it"
    run_dir = enclosing_run_dir(path)
    if run_dir is not None:
        return (
            f"inside the run directory {run_dir}, whose files are the run's own and never "
            "written over; name a file outside it"
        )
    if path.exists() and any(_same_file(path, given) for given in inputs):
        return "is one of this command's own inputs and is never written over; name another file"
    if path.exists() and not overwrite:
        return f"already exists; {OVERWRITE_HINT}"
    return folder_problem(path.parent)


def folder_problem(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` (made first if missing), or None: it, or the
    nearest of its parents that is there, is a file, or may not be written in."""
    there = next((p for p in (folder.absolute(), *folder.absolute().parents) if p.exists()), None)
    if there is not None and not there.is_dir():
        return f"{there} is a file, not a folder"
    if there is not None and not os.access(there, os.W_OK | os.X_OK):
        return f"the folder {there} cannot be written in (permission denied)"
    return None


def enclosing_run_dir(path: Path) -> Path | None:
    """The run (or pairs) directory ``path`` lies in, recognised by its marker files."""
    for folder in Path(path).absolute().parents:
        if any((folder / marker).exists() for marker in RUN_MARKERS):
            return folder
    return None


def _same_file(path: Path, other: Path) -> bool:
    """Whether two paths name one file (through a link or another spelling too)."""
    try:
        return other.exists() and os.path.samefile(path, other)
    except OSError:
        return False


def make_folder(path: Path) -> None:
    """The folder ``path`` goes in, made with its parents if missing (every writer's one rule)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
