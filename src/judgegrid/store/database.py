"""One way to open the project's SQLite files, and one way to keep a vector in them.

The run database (``store.py``) and the cross-run cache (``cache.py``) are both SQLite files
written while a run goes: autocommit per statement, write-ahead log, ``synchronous=NORMAL``, so a
kill loses at most what was in flight and several processes may read and write one file.
Vectors are float32 rows keyed by (model, dimension, SHA-256 of the text) in both.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from judgegrid.core.digest import text_sha


def open_database(path: str | Path, schema: str, timeout: float = 5.0) -> sqlite3.Connection:
    """A connection in autocommit and WAL mode with ``schema`` (CREATE … IF NOT EXISTS) applied.

    ``timeout`` is how long a write waits for another process's lock before failing.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(schema)
    return db


def close_writer(db: sqlite3.Connection) -> None:
    """Close a writer's connection, the file left in rollback-journal mode when no one else
    has it open: its -wal folded in and removed, and a reader that opens it read-only later
    (``report``, ``export``, the view) makes no -wal or -shm file beside it, which a read-only
    connection to a WAL file does and cannot remove. The next writer turns WAL on again."""
    try:
        db.execute("PRAGMA busy_timeout = 0")  # another connection open: it stays WAL, at once
        db.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.OperationalError:
        pass
    finally:
        db.close()


def open_read_only(path: Path, **options: Any) -> sqlite3.Connection:
    """A connection that can only read: no schema applied, no column added, no lock taken for
    writing (the view's server, the report's read-ahead). ``options`` go to ``sqlite3.connect``."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, **options)


class Writes:
    """The writes of one connection: committed one by one, or, inside ``batched``, together in
    short transactions (at most ``interval`` seconds old), so a grid run pays one commit for
    many rows instead of one per row. A kill loses at most the rows of the open transaction,
    all of them from cells that were in flight; ``flush`` commits at once, ``flush_due`` when
    the transaction is old enough (the runner calls it on a timer, so a quiet spell commits too).
    """

    def __init__(self, db: sqlite3.Connection, interval: float = 0.05):
        self._db, self.interval = db, interval
        self._batching = False
        self._opened = 0.0

    def execute(self, sql: str, params: Iterable[Any] = ()) -> sqlite3.Cursor:
        self._begin()
        cursor = self._db.execute(sql, tuple(params))
        self.flush_due()
        return cursor

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        self._begin()
        cursor = self._db.executemany(sql, rows)
        self.flush_due()
        return cursor

    def _begin(self) -> None:
        if self._batching and not self._db.in_transaction:
            self._db.execute("BEGIN IMMEDIATE")
            self._opened = time.monotonic()

    def flush_due(self) -> None:
        if self._db.in_transaction and time.monotonic() - self._opened >= self.interval:
            self._db.commit()

    def flush(self) -> None:
        if self._db.in_transaction:
            self._db.commit()

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Writes inside are committed together every ``interval`` seconds, and at the end."""
        self._batching = True
        try:
            yield
        finally:
            self._batching = False
            self.flush()


def vector_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def read_vectors(
    db: sqlite3.Connection, table: str, model: str, dimension: int, texts: Iterable[str]
) -> dict[str, np.ndarray]:
    """The stored vectors of those texts that ``table`` holds for (model, dimension)."""
    query = f"SELECT vector FROM {table} WHERE model = ? AND dimension = ? AND text_sha = ?"
    found = {}
    for text in texts:
        row = db.execute(query, (model, dimension, text_sha(text))).fetchone()
        if row is not None:
            found[text] = np.frombuffer(row[0], dtype=np.float32)
    return found
