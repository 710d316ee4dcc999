"""One way to open the project's SQLite files, and one way to keep a vector in them.

The run database (``store.py``) and the cross-run cache (``cache.py``) are both SQLite files
written while a run goes: autocommit per statement, write-ahead log, ``synchronous=NORMAL``, so a
kill loses at most what was in flight and several processes may read and write one file.
Vectors are float32 rows keyed by (model, dimension, SHA-256 of the text) in both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from judgegrid.digest import text_sha


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
