"""A run directory's layout: where a run keeps its database, the matrix as run, and its samples.

``reports/<stamp>-<name>/`` holds ``run.sqlite`` (every score, call and answer), the resolved
matrix (defaults merged in, no secret) and, in the database's ``meta`` table, the data set it
scored and what the report needs to know about each sample, so the report can be rebuilt and the
run resumed from the directory alone.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from judgegrid.core.errors import InputError, MatrixError, Problem, RunDirError
from judgegrid.core.redaction import redact_stored
from judgegrid.core.sample import Dataset
from judgegrid.inputs.dataset import DEMO, load_dataset
from judgegrid.inputs.matrix import Matrix, parse_matrix
from judgegrid.inputs.textfile import read_utf8
from judgegrid.store.database import open_read_only
from judgegrid.store.lock import lock_run
from judgegrid.store.run_db import DB_NAME, RunStore

RESOLVED_MATRIX = "matrix.resolved.yaml"
PAIRS_SOURCE = "pairs_source.txt"  # a `judgegrid pairs` directory's mark: the pairs file it read
SAMPLE_INFO = "samples"
IMPORTED = "imported"  # the meta of a run `judgegrid import` wrote: its format and files
SAMPLE_TEXT_CHARS = 300
SQLITE_HEADER = b"SQLite format 3\x00"
PAIRS_SOURCE = "pairs_source.txt"  # marks a judgegrid pairs directory: the pairs file it read


def new_run_dir(reports_dir: str | Path, matrix_name: str) -> Path:
    """A new, empty ``reports_dir/<YYYYmmdd-HHMMSS>-<name>`` (suffixed -2, -3 … if taken)."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", matrix_name).strip("-") or "run"
    base = Path(reports_dir) / f"{stamp}-{slug}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    path.mkdir(parents=True)
    return path


def resolved_matrix_yaml(matrix: Matrix, dataset_source: str) -> str:
    """The matrix as run: defaults merged in, the data set's path fixed. Holds no secret: the
    matrix only names the environment variables that hold keys, and the credentials an
    ``api_base`` URL carries are masked (``redact_stored``)."""
    data = matrix.model_dump(mode="json", exclude_none=True)
    data["dataset"] = dataset_source
    for i, judge in enumerate(matrix.judges):
        data["judges"][i]["options"] = matrix.judge_options(judge).model_dump(
            mode="json", exclude_none=True
        )
        data["judges"][i]["label"] = matrix.judge_label(i)
    for i, emb in enumerate(matrix.embeddings):
        data["embeddings"][i]["options"] = matrix.embedding_options(emb).model_dump(
            mode="json", exclude_none=True
        )
        data["embeddings"][i]["label"] = matrix.embedding_label(i)
        dimensions = [d for d in matrix.embedding_dimensions(emb) if d]  # 0: the model's own size
        if dimensions:
            data["embeddings"][i]["dimensions"] = dimensions
    data["metrics"] = [{"name": s.name, **s.params} for s in matrix.metrics]
    return yaml.safe_dump(redact_stored(data), sort_keys=False, allow_unicode=True)


def is_run_dir(path: Path) -> bool:
    """Whether ``path`` holds a run (its database), finished or not."""
    return (path / DB_NAME).exists()


def is_pairs_dir(path: str | Path) -> bool:
    """A directory made by ``judgegrid pairs``: a run directory per aspect inside, no database
    of its own."""
    path = Path(path)
    return (path / PAIRS_SOURCE).exists() and not (path / DB_NAME).exists()


def check_run_dir(target: Path) -> None:
    """``target`` is a run directory (its database and resolved matrix), or a RunDirError that
    says what was named instead and which folder to name: a file of a run (or any file), a
    ``judgegrid pairs`` directory, a missing or foreign folder. Every command that opens a run
    comes here (``open_run``), so all of them say it alike."""
    if target.is_file():
        message = f"a file, not a run directory: name the run's folder (the one holding {DB_NAME})"
        raise RunDirError(str(target), [Problem("", message + _inside_a_run(target))])
    if not target.is_dir():
        raise RunDirError(str(target), [Problem("", "no such directory")])
    if is_pairs_dir(target):
        raise RunDirError(str(target), [Problem("", _a_pairs_dir(target))])
    if not (target / DB_NAME).exists() or not (target / RESOLVED_MATRIX).exists():
        message = f"not a run directory (needs {DB_NAME} and {RESOLVED_MATRIX})"
        where = _inside_a_run(target) or _runs_inside(target)
        raise RunDirError(str(target), [Problem("", message + where)])


def _inside_a_run(path: Path) -> str:
    """The run (or pairs) directory a file or folder named in its place lies in, if any."""
    for folder in path.parents:
        if is_run_dir(folder):
            return f"; it is inside the run directory {folder}: name that folder"
        if is_pairs_dir(folder):
            return f"; it is inside the judgegrid pairs directory {folder}: name that folder"
    return ""


def _runs_inside(path: Path) -> str:
    """The run directories a folder holds, or its ``reports`` folder (where ``run`` makes them)
    holds: which folder to name instead, the newest first (a run's name starts with its time)."""
    runs = [*_run_dirs_in(path), *_run_dirs_in(path / "reports")]
    if not runs:
        return ""
    newest = max(runs, key=lambda p: p.name)
    if len(runs) == 1:
        return f"; it holds one run directory: name that, {newest}"
    return f"; it holds {len(runs)} run directories: name one, such as the newest, {newest}"


def _run_dirs_in(folder: Path) -> list[Path]:
    """The run directories directly in ``folder``; none where it cannot be read (a hint,
    never a second error)."""
    try:
        return [p for p in folder.iterdir() if p.is_dir() and is_run_dir(p)]
    except OSError:
        return []


def _a_pairs_dir(path: Path) -> str:
    """What a ``judgegrid pairs`` directory is, and what reads it: report reads it whole, the
    other commands one aspect's run inside it."""
    aspects = sorted(p.parent.name for p in path.glob(f"*/{DB_NAME}"))
    choices = " or ".join(str(path / a) for a in aspects) or "none is left"
    return (
        f"a judgegrid pairs directory (one run per aspect), not a run directory; "
        f"`judgegrid report {path}` reads it whole, and label, view, export, labels and "
        f"run --resume read one aspect's run: {choices}"
    )


def open_run(run_dir: str | Path, write: bool = False) -> tuple[Path, Matrix, RunStore]:
    """A run directory's matrix as run and its database, or a clear error if it is not one.
    ``write``: the run's lock is taken first (``store.lock``: one writer at a time) and held
    until the store is closed; readers take none and open it read-only, so a reader leaves
    the directory as it found it (no -wal, no -shm)."""
    target = Path(run_dir)
    db = target / DB_NAME
    matrix_file = target / RESOLVED_MATRIX
    check_run_dir(target)
    try:
        matrix = parse_matrix(
            read_utf8(matrix_file, str(matrix_file), RunDirError), str(matrix_file)
        )
    except MatrixError as exc:  # the run's own file, emptied or edited: the run directory's fault
        raise RunDirError(exc.source, exc.problems) from None
    check_run_database(db)
    lock = lock_run(target) if write else None
    try:
        store = RunStore(db, lock, read_only=not write)
    except sqlite3.DatabaseError as exc:
        if lock is not None:
            lock.release()
        raise _not_a_run_database(db, str(exc)) from None
    return target, matrix, store


def run_input_files(run_dir: str | Path) -> tuple[Path, ...]:
    """The files a run was made from that are still there (its data set): what a command over
    the run (``export --out``) never writes over. None for a directory that is no run: the
    command itself says what is wrong with it."""
    try:
        _, matrix, store = open_run(run_dir)
    except InputError:
        return ()
    store.close()
    source = Path(matrix.dataset) if matrix.dataset else None
    return (source,) if source is not None and source.is_file() else ()


def check_run_database(db: Path) -> None:
    """The run's database is one before it is opened for writing (which would make an empty or
    foreign SQLite file into an empty run): an SQLite file holding a scores table."""
    with db.open("rb") as file:
        head = file.read(len(SQLITE_HEADER))
    if not head:
        raise _not_a_run_database(db, "the file is empty (0 bytes)")
    if head != SQLITE_HEADER:
        raise _not_a_run_database(db, "not an SQLite file")
    try:
        with contextlib.closing(open_read_only(db)) as conn:  # leaves no file
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise _not_a_run_database(db, str(exc)) from None
    if "scores" not in tables:
        raise _not_a_run_database(db, "an SQLite file without judgegrid's scores table")


def _not_a_run_database(db: Path, why: str) -> RunDirError:
    return RunDirError(
        str(db), [Problem("", f"not a run database ({why}); was the file replaced or cut?")]
    )


def sample_info(
    data: Dataset, groups: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """What the report needs to know about each sample (question excerpt, labels, contrast,
    language, the probe tag that keeps a probe out of the data set's analyses, and for an
    imported run its ``group``: a benchmark's category), so it can be rebuilt from the run
    database without the data set file."""
    info = {
        s.id: {
            "user_input": (s.user_input or "")[:SAMPLE_TEXT_CHARS],
            "labels": s.labels,
            "contrast": s.contrast.model_dump() if s.contrast else None,
            "language": s.language,
            "probe": s.probe.model_dump() if s.probe else None,
        }
        for s in data
    }
    for sample_id, group in (groups or {}).items():
        if sample_id in info:
            info[sample_id]["group"] = group
    return info


def stored_sample_info(store: RunStore) -> dict[str, Any]:
    """The samples' info kept in the database; for a run made before it was kept, read again
    from the data set the run names (if that file is still there)."""
    info = store.get_meta(SAMPLE_INFO)
    if info is not None:
        return dict(info)
    try:
        return sample_info(stored_dataset(store))
    except InputError:
        return {}


def stored_groups(store: RunStore) -> dict[str, str]:
    """Each sample's group as the run keeps it (an import's benchmark category), so that
    writing the samples' info again (a resumed import) keeps them."""
    info = store.get_meta(SAMPLE_INFO) or {}
    return {k: v["group"] for k, v in info.items() if isinstance(v, dict) and "group" in v}


def write_resolved_matrix(target: Path, text: str) -> None:
    """The run's matrix file replaced whole (written beside it, then renamed over it): an
    interrupt leaves the old file or the new one, never half of one."""
    making = target / f".{RESOLVED_MATRIX}.writing"
    making.write_text(text, encoding="utf-8")
    making.replace(target / RESOLVED_MATRIX)


def stored_dataset(store: RunStore) -> Dataset:
    """The samples a run scores, as kept in its database; for a run made before they were kept,
    its data set file read again, as far as its limit reached."""
    source = store.get_meta("dataset", DEMO)
    kept = store.load_samples()
    if kept:
        return Dataset(source, tuple(kept))
    return load_dataset(source).head(store.get_meta("limit"))
