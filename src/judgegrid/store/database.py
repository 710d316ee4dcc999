"""One way to open the project's SQLite files, and one way to keep a vector in them.

The run database (``store.py``) and the cross-run cache (``cache.py``) are both SQLite files
written while a run goes: autocommit per statement, write-ahead log, ``synchronous=NORMAL``, so a
kill loses at most what was in flight and several processes may read and write one file.
Vectors are float32 rows keyed by (model, dimension, SHA-256 of the text) in both.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

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


def read_columnar(path: Path, sql: str, rows: int, text: Collection[str]) -> pd.DataFrame:
    """``sql``'s rows read read-only by ADBC's SQLite driver as Arrow columns, typed as
    ``run_db.query_frame`` types them: a million score rows in a third of the CPU, as no Python
    value is made of each field. ``rows``: how many the query gives, all in one batch, since
    the driver types each column by its first batch. ``text``: the columns declared TEXT.

    SQLite lets a row hold a value of another type than its column's; the driver then gives
    that column as text (10 and 'many' as '10' and 'many', 2.5 as '2.500000e+00') or bytes,
    where the rows read one by one keep each value's own type. So a column of text that is not
    declared TEXT, or of bytes, raises ``ColumnarReadError`` (read it row by row); integers
    mixed with reals come as reals either way."""
    # imported here, by the read-ahead's readers alone: 0.1 s that no other command needs
    import adbc_driver_sqlite.dbapi as adbc
    from adbc_driver_manager import Error

    try:
        with adbc.connect(f"{path.resolve().as_uri()}?mode=ro") as db, db.cursor() as cursor:
            batch = {"adbc.sqlite.query.batch_rows": str(max(rows, 1))}
            cursor.adbc_statement.set_options(**batch)
            cursor.execute(sql)
            table = cursor.fetch_arrow_table()
    except Error as exc:
        raise ColumnarReadError(str(exc)) from exc
    for field in table.schema:
        if not _typed_as_declared(field, text):
            raise ColumnarReadError(f"column {field.name}: values of more than one type")
    return _as_query_frame(table)


class ColumnarReadError(RuntimeError):
    """ADBC's SQLite driver could not read the query as the rows read one by one would (a
    column holding values of two types): read it row by row."""


def _typed_as_declared(field: pa.Field, text: Collection[str]) -> bool:
    if pa.types.is_string(field.type):
        return field.name in text
    return pa.types.is_int64(field.type) or pa.types.is_float64(field.type)


def _as_query_frame(table: pa.Table) -> pd.DataFrame:
    """An Arrow table as ``pd.DataFrame.from_records`` makes the same rows: a column of NULLs
    only (every column of an empty table) holds None as objects, where the driver gives int64;
    the rest as ``to_pandas`` makes them (integers with NULLs as floats, text as strings)."""
    frame = table.to_pandas()
    for name, column in zip(table.column_names, table.columns, strict=True):
        if column.null_count == len(column):
            frame[name] = pd.Series([None] * len(column), index=frame.index, dtype=object)
    return frame


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
