"""The run database: one SQLite file per run directory, written as the run goes.

Tables
- ``scores``: one row per cell (sample × metric × judge × embedding × dimension × strictness ×
  repeat × wording), written the moment the cell finishes, with its status (scored / failed /
  skipped); an imported run's cells (``run.importing``) hold NULL tokens and latency where the
  source did not record them (unknown, not 0; a run made before this had them NOT NULL).
- ``calls``: every request sent to a judge or embedding model, one row per attempt.
- ``steps``: the parsed answer of every judge step, so a resumed run reuses finished steps
  instead of calling again.
- ``step_names``: the step name (statements, nli, …) and judge of every step key asked, answered
  or not, so the calls table can be read by step.
- ``embeddings``: every embedding vector, keyed by model, requested dimension and text.
- ``samples``: the samples the run scores, as given, so that resuming and labelling need
  neither the data set file nor the same file contents.
- ``labels``: people's answers (``records.Label``) from ``judgegrid label`` or ``labels import``,
  one per sample × metric × annotator (a new answer replaces the old), each with its
  probability a draw where a queue of known design drew it.
- ``label_draws``: each annotator's queue as drawn (``records.LabelDraw``), in order, so that
  figures from the labels can be weighted and tested as the labels came.
- ``meta``: the resolved matrix and data set source, so ``--resume`` needs only the directory.
- ``batches``: every batch file sent to a provider's batch API (batch mode): its file id, batch
  id, the request lines (custom ids) it carries and its status, written before the run waits
  for it, so a resumed run looks at a pending batch again instead of paying for it twice.

Nothing secret is written: every value that may carry one passes through
``core.redaction.redact_stored`` (a call's request, the meta values) or ``redact_text`` (a
call's error, a batch's detail) on its way in, here and nowhere else, so an ``api_base`` with a
key in it (``https://user:KEY@host/v1?key=KEY``) is stored as ``https://***@host/v1?key=***``.

Every write is committed at once (WAL mode), or, while the runner batches them (``writes.batched``),
in transactions at most 50 ms old; either way a kill loses at most the cells in flight.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.core.cells import Cell
from judgegrid.core.digest import text_sha
from judgegrid.core.records import (
    DRAW_COLUMNS,
    LABEL_COLUMNS,
    SCORE_COLUMNS,
    BatchRecord,
    CallRecord,
    Label,
    LabelDraw,
    ScoreRow,
)
from judgegrid.core.redaction import redact_stored, redact_text
from judgegrid.core.sample import Sample
from judgegrid.core.usage import Usage
from judgegrid.store.database import (
    ColumnarReadError,
    Writes,
    close_writer,
    open_database,
    open_read_only,
    read_columnar,
    read_vectors,
    vector_blob,
)
from judgegrid.store.lock import RunLock

DB_NAME = "run.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scores (
    sample_id TEXT NOT NULL, metric TEXT NOT NULL, judge TEXT NOT NULL,
    embedding TEXT NOT NULL, dimension INTEGER NOT NULL, strictness INTEGER NOT NULL,
    repeat INTEGER NOT NULL, wording INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL, score REAL, answer REAL, weighting TEXT, reason TEXT, error TEXT,
    details TEXT,
    calls INTEGER NOT NULL, tokens_in INTEGER, tokens_out INTEGER,
    cost REAL, latency_s REAL, finished_at REAL NOT NULL,
    PRIMARY KEY (metric, judge, embedding, dimension, strictness, sample_id, repeat, wording)
);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, model TEXT NOT NULL,
    label TEXT NOT NULL, step_key TEXT NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL,
    http_status INTEGER, error TEXT, finish_reason TEXT, request TEXT NOT NULL, response TEXT,
    started_at REAL NOT NULL, latency_s REAL NOT NULL, tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL, cost REAL, batch_id TEXT, live_cost REAL
);
CREATE INDEX IF NOT EXISTS calls_step ON calls (step_key);
CREATE TABLE IF NOT EXISTS batches (
    file_id TEXT PRIMARY KEY, batch_id TEXT, label TEXT NOT NULL, endpoint TEXT NOT NULL,
    status TEXT NOT NULL, custom_ids TEXT NOT NULL, submitted_at REAL NOT NULL,
    finished_at REAL, detail TEXT
);
CREATE TABLE IF NOT EXISTS steps (
    key TEXT PRIMARY KEY, step TEXT NOT NULL, label TEXT NOT NULL, answer TEXT NOT NULL,
    usage TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS step_names (
    key TEXT PRIMARY KEY, step TEXT NOT NULL, label TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    position INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, sample TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS labels (
    sample_id TEXT NOT NULL, metric TEXT NOT NULL, annotator TEXT NOT NULL, value REAL,
    note TEXT NOT NULL, labelled_at REAL NOT NULL, source TEXT NOT NULL, detail TEXT, blind INTEGER,
    probability REAL, chosen INTEGER, PRIMARY KEY (sample_id, metric, annotator)
);
CREATE TABLE IF NOT EXISTS label_draws (
    metric TEXT NOT NULL, annotator TEXT NOT NULL, draw INTEGER NOT NULL, sample_id TEXT NOT NULL,
    probability REAL NOT NULL, population INTEGER NOT NULL, bounds TEXT, drawn_at REAL,
    PRIMARY KEY (metric, annotator, draw)
);
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, dimension INTEGER NOT NULL, text_sha TEXT NOT NULL,
    vector BLOB NOT NULL, PRIMARY KEY (model, dimension, text_sha)
);
"""

_TABLES = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", _SCHEMA)

_INSERT_LABEL = (
    f"INSERT OR REPLACE INTO labels ({', '.join(LABEL_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(LABEL_COLUMNS))})"
)
_INSERT_DRAW = (
    f"INSERT OR IGNORE INTO label_draws ({', '.join(DRAW_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(DRAW_COLUMNS))})"
)
_DELETE_DRAW = "DELETE FROM label_draws WHERE metric = ? AND annotator = ? AND draw = ?"
# A plain INSERT: the primary key makes a second row for one cell an error, never a silent
# replacement (a cell scored twice would be a bug of the runner or of a shard rerun).
_INSERT_SCORE = (
    f"INSERT INTO scores ({', '.join(SCORE_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(SCORE_COLUMNS))})"
)


_CALL_COLUMNS = (
    "kind, model, label, step_key, attempt, status, http_status, error, finish_reason, request,"
    " response, started_at, latency_s, tokens_in, tokens_out, cost, batch_id, live_cost"
)
CALL_COLUMNS_WITHOUT_TEXTS = ["id"] + [
    c.strip() for c in _CALL_COLUMNS.split(",") if c.strip() not in ("request", "response")
]
# Columns a run database made before them lacks: added when it is opened (a resumed run). An
# older scores table gets the criteria's columns with its key as it was: its cells are all
# built-in metrics', wording 0.
_ADDED_COLUMNS = {
    "scores": {"wording": "INTEGER NOT NULL DEFAULT 0", "answer": "REAL", "weighting": "TEXT"},
    "calls": {"batch_id": "TEXT", "live_cost": "REAL"},
    # blind 1: judges hidden on the page, 0: shown, NULL: unknown; probability NULL: uniform;
    # chosen 1: chosen on `judgegrid view`'s page, not drawn (NULL: older, read as not chosen)
    "labels": {"blind": "INTEGER", "probability": "REAL", "chosen": "INTEGER"},
    # an adaptive queue's draw's bounds (JSON), NULL: the fixed design's; when it was drawn or
    # taken over, NULL: drawn before draws carried a time
    "label_draws": {"bounds": "TEXT", "drawn_at": "REAL"},
}
# What a shard sends back: table -> (columns, how the driver inserts them). Steps, step names
# and vectors are content-addressed, so the same one from two shards is the same row.
_SHARD_TABLES = {
    "scores": (", ".join(SCORE_COLUMNS), "INSERT"),
    "calls": (_CALL_COLUMNS, "INSERT"),
    "steps": ("key, step, label, answer, usage", "INSERT OR IGNORE"),
    "step_names": ("key, step, label", "INSERT OR IGNORE"),
    "embeddings": ("model, dimension, text_sha, vector", "INSERT OR IGNORE"),
}


def _select_scores(columns: Sequence[str] = SCORE_COLUMNS) -> str:
    """The scores' ``columns`` in the table's own order (rowid: a scan needs no sort), so two
    reads of some columns each line up row for row."""
    return f"SELECT {', '.join(columns)} FROM scores ORDER BY rowid"


_SELECT_SCORES = _select_scores()
# The scores' columns in two halves, for two readers (``store.read_ahead``): reading a million
# rows is mostly making a Python value of each field, which two processes share out by column
# (each column's type is inferred from that column alone, so the halves side by side are the
# one read's frame). The key columns with the score and answer, about half the time each.
SCORE_HALVES = (SCORE_COLUMNS[:11], SCORE_COLUMNS[11:])


def query_frame(db: sqlite3.Connection, sql: str) -> pd.DataFrame:
    """A query's rows as a frame, typed as ``pd.read_sql_query`` types them, which takes half as
    long again (1.2 s instead of 0.8 s on 200,000 score rows)."""
    cursor = db.execute(sql)
    columns = [d[0] for d in cursor.description]
    return pd.DataFrame.from_records(cursor.fetchall(), columns=columns, coerce_float=True)


def read_scores(db_path: Path, columns: Sequence[str] = SCORE_COLUMNS) -> pd.DataFrame:
    """The scores table of a run database (or some of its ``columns``), as
    ``RunStore.scores_frame`` reads it, from a connection that only reads
    (``open_read_only``)."""
    db = open_read_only(db_path)
    try:
        (rows,) = db.execute("SELECT count(*) FROM scores").fetchone()
        text = {row[1] for row in db.execute("PRAGMA table_info(scores)") if row[2] == "TEXT"}
        try:
            return read_columnar(db_path, _select_scores(columns), rows, text)
        except ColumnarReadError:  # the driver cannot: row by row, the same frame
            return query_frame(db, _select_scores(columns))
    finally:
        db.close()


def _schema_is_current(path: Path) -> bool:
    """Whether the database at ``path`` has every table and column of today's schema, so a
    reader may open it read-only (one of an older schema is brought up to date first)."""
    with contextlib.closing(open_read_only(path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        return set(_TABLES) <= tables and not _missing_columns(db)


def _missing_columns(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(table, column, type) of each column of ``_ADDED_COLUMNS`` that ``db`` lacks."""
    missing = []
    for table, columns in _ADDED_COLUMNS.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing += [(table, name, kind) for name, kind in columns.items() if name not in have]
    return missing


def _stored_text(text: str | None) -> str | None:
    """A provider's error text as it is stored: keys and URLs' credentials masked."""
    return None if text is None else redact_text(text)


class RunStore:
    def __init__(self, path: str | Path, lock: RunLock | None = None, *, read_only: bool = False):
        """The run database at ``path``; ``lock``, the run directory's lock this store writes
        under, let go when the store is closed. ``read_only``: a reader's (``report``'s checks,
        ``export``, the view), which writes nothing, no -wal or -shm file included; a database
        of an older schema is still brought up to date first (its columns added)."""
        self.path = Path(path)
        self.lock = lock
        self.closed = False
        self.read_only = read_only and _schema_is_current(self.path)
        self._db = open_read_only(self.path) if self.read_only else open_database(path, _SCHEMA)
        if not self.read_only:
            self._add_missing_columns()
        self.writes = Writes(self._db)
        self.calls_recorded = 0  # calls this process has recorded, for the progress bar

    def close(self) -> None:
        """Flush, close and let go of the run's lock; once (a second call does nothing)."""
        if self.closed:
            return
        self.closed = True
        try:
            if self.read_only:
                self._db.close()
            else:
                self.writes.flush()
                close_writer(self._db)
        finally:
            if self.lock is not None:
                self.lock.release()

    def _add_missing_columns(self) -> None:
        """The columns an older run database lacks, added (``_ADDED_COLUMNS``)."""
        for table, name, kind in _missing_columns(self._db):
            self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    # -- meta ----------------------------------------------------------------------------------

    def set_meta(self, key: str, value: Any) -> None:
        stored = json.dumps(redact_stored(value))
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, stored))

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # -- scores --------------------------------------------------------------------------------

    def write_score(self, row: ScoreRow, replace: bool = False) -> None:
        """One cell's row (``--retry-failed`` deletes the failed rows before the rerun); a
        second row for the cell is an error unless ``replace`` says it is meant."""
        sql = _INSERT_SCORE.replace("INSERT", "INSERT OR REPLACE", 1) if replace else _INSERT_SCORE
        self.writes.execute(sql, row.values())

    def write_scores(self, rows: Iterable[ScoreRow]) -> int:
        """Many cells' rows in one transaction, all or none (an import); how many. A second row
        for a cell is an error, as in ``write_score``."""
        self.writes.flush()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            cursor = self._db.executemany(_INSERT_SCORE, (row.values() for row in rows))
        return cursor.rowcount

    def finished_cells(self) -> set[Cell]:
        rows = self._db.execute(f"SELECT {', '.join(Cell._fields)} FROM scores")
        return {Cell(*row) for row in rows}

    def delete_failed(self, judges: Sequence[str] | None = None) -> int:
        """The failed cells dropped, to be scored again; ``judges``: only theirs (an imported
        run's recorded judges cannot be called, so their cells are never dropped)."""
        if judges is None:
            return self._db.execute("DELETE FROM scores WHERE status = 'failed'").rowcount
        marks = ", ".join("?" * len(judges))
        query = f"DELETE FROM scores WHERE status = 'failed' AND judge IN ({marks})"
        return self._db.execute(query, list(judges)).rowcount

    def judged_pairs(self, judges: Sequence[str]) -> tuple[set[tuple[str, str]], int]:
        """The (metric, sample) pairs ``judges`` have a cell of, and how many cells they have:
        where a judge added to an imported run is scored, and what is done already."""
        marks = ", ".join("?" * len(judges))
        where = f"FROM scores WHERE judge IN ({marks})"
        pairs = self._db.execute(f"SELECT DISTINCT metric, sample_id {where}", list(judges))
        found = {(str(m), str(s)) for m, s in pairs}
        (count,) = self._db.execute(f"SELECT COUNT(*) {where}", list(judges)).fetchone()
        return found, int(count)

    def scores_frame(self) -> pd.DataFrame:
        """The scores table, one row per finished cell, columns as ``ScoreRow``."""
        return query_frame(self._db, _SELECT_SCORES)

    def calls_frame(self, texts: bool = True) -> pd.DataFrame:
        """The calls table; ``texts=False`` leaves out each call's request and response, which
        are most of its bytes and which no analysis reads."""
        columns = "*" if texts else ", ".join(CALL_COLUMNS_WITHOUT_TEXTS)
        return query_frame(self._db, f"SELECT {columns} FROM calls ORDER BY id")

    def step_names_frame(self) -> pd.DataFrame:
        """Every judge step asked in this run: key, step name, judge label."""
        return pd.read_sql_query("SELECT key, step, label FROM step_names", self._db)

    # -- samples -------------------------------------------------------------------------------

    def save_samples(self, samples: Iterable[Sample]) -> None:
        rows = [(i, s.id, s.model_dump_json(exclude_none=True)) for i, s in enumerate(samples)]
        self.writes.flush()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM samples")
            self._db.executemany("INSERT INTO samples VALUES (?, ?, ?)", rows)

    def load_samples(self) -> list[Sample]:
        """The run's samples in their order (empty for a run made before they were kept)."""
        rows = self._db.execute("SELECT sample FROM samples ORDER BY position")
        return [Sample.model_validate_json(text) for (text,) in rows]

    # -- labels --------------------------------------------------------------------------------

    def write_labels(self, labels: Iterable[Label]) -> int:
        """Labels committed together, or none of them (an import is never half done)."""
        rows = [label.values() for label in labels]
        self.writes.flush()
        with self._db:  # one transaction
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(_INSERT_LABEL, rows)
        return len(rows)

    def labels_frame(self) -> pd.DataFrame:
        """Every stored label, columns as ``records.Label`` (detail as JSON text)."""
        return pd.read_sql_query(
            f"SELECT {', '.join(LABEL_COLUMNS)} FROM labels ORDER BY labelled_at", self._db
        )

    def write_draws(
        self, draws: Iterable[LabelDraw], released: Iterable[tuple[str, str, int]] = ()
    ) -> int:
        """A queue's draws, committed together (a draw already stored stays as it was: a
        queue's sequence is fixed once drawn), with the ``released`` draws (metric, annotator,
        draw) deleted in the same transaction: draws a person left unanswered, which ``draws``
        take over (``labels.pool``), so that a sample is never held by two draws at once."""
        rows = [astuple(draw) for draw in draws]
        gone = list(released)
        self.writes.flush()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(_DELETE_DRAW, gone)
            self._db.executemany(_INSERT_DRAW, rows)
        return len(rows)

    def draws_frame(self) -> pd.DataFrame:
        """Every stored draw, columns as ``records.LabelDraw``, in draw order per queue."""
        return pd.read_sql_query(
            f"SELECT {', '.join(DRAW_COLUMNS)} FROM label_draws ORDER BY metric, annotator, draw",
            self._db,
        )

    # -- calls ---------------------------------------------------------------------------------

    def record_call(self, call: CallRecord) -> None:
        self.calls_recorded += 1
        u = call.usage
        self.writes.execute(
            f"INSERT INTO calls ({_CALL_COLUMNS}) VALUES ({', '.join('?' * 18)})",
            (
                call.kind,
                call.model,
                call.label,
                call.step_key,
                call.attempt,
                call.status,
                call.http_status,
                _stored_text(call.error),
                call.finish_reason,
                json.dumps(redact_stored(call.request), ensure_ascii=False),
                call.response,
                call.started_at,
                u.latency_s,
                u.tokens_in,
                u.tokens_out,
                u.cost,
                call.batch_id,
                call.live_cost,
            ),
        )

    # -- batches (batch mode) ------------------------------------------------------------------

    def save_batch(self, batch: BatchRecord) -> None:
        """A batch file's row, committed at once (not with the next 50 ms of rows): the run may
        be killed while it waits for the batch, and a resumed run must find it."""
        self.writes.flush()
        self._db.execute(
            "INSERT OR REPLACE INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                batch.file_id,
                batch.batch_id,
                batch.label,
                batch.endpoint,
                batch.status,
                json.dumps(list(batch.custom_ids)),
                batch.submitted_at,
                batch.finished_at,
                _stored_text(batch.detail),
            ),
        )

    def load_batches(self, label: str | None = None) -> list[BatchRecord]:
        """The batch files sent so far (one entry's, or all), oldest first."""
        where, params = ("WHERE label = ?", (label,)) if label is not None else ("", ())
        rows = self._db.execute(
            "SELECT file_id, batch_id, label, endpoint, status, custom_ids, submitted_at,"
            f" finished_at, detail FROM batches {where} ORDER BY submitted_at",
            params,
        )
        return [
            BatchRecord(f, b, lab, e, st, tuple(json.loads(ids)), sub, fin, d)
            for f, b, lab, e, st, ids, sub, fin, d in rows
        ]

    # -- steps ---------------------------------------------------------------------------------

    def name_step(self, key: str, step: str, label: str) -> None:
        self.writes.execute("INSERT OR IGNORE INTO step_names VALUES (?, ?, ?)", (key, step, label))

    def load_step(self, key: str) -> tuple[dict[str, Any], Usage] | None:
        row = self._db.execute("SELECT answer, usage FROM steps WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), Usage.from_dict(json.loads(row[1]))

    def save_step(
        self, key: str, step: str, label: str, answer: dict[str, Any], usage: Usage
    ) -> None:
        self.writes.execute(
            "INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?)",
            (key, step, label, json.dumps(answer, ensure_ascii=False), json.dumps(usage.as_dict())),
        )

    # -- a shard's rows, from a worker to the driver -----------------------------------------

    def shard_rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row a worker's shard wrote (its own in-memory database), table by table, for
        the driver to ``absorb``: a worker never writes the run directory (it may be on
        another machine)."""
        self.writes.flush()
        return {
            table: [tuple(r) for r in self._db.execute(f"SELECT {columns} FROM {table}")]
            for table, (columns, _) in _SHARD_TABLES.items()
        }

    def absorb(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """A finished shard's rows, all in one transaction: the run database holds a shard
        whole or not at all. Score rows are plain INSERTs: a cell written twice is an error."""
        self.writes.flush()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for table, (columns, verb) in _SHARD_TABLES.items():
                if rows.get(table):
                    marks = ", ".join("?" * len(columns.split(",")))
                    self._db.executemany(
                        f"{verb} INTO {table} ({columns}) VALUES ({marks})", rows[table]
                    )
        self.calls_recorded += len(rows.get("calls", []))

    # -- embeddings ----------------------------------------------------------------------------

    def load_vectors(
        self, model: str, dimension: int, texts: Iterable[str]
    ) -> dict[str, np.ndarray]:
        return read_vectors(self._db, "embeddings", model, dimension, texts)

    def save_vectors(self, model: str, dimension: int, vectors: dict[str, np.ndarray]) -> None:
        self.writes.executemany(
            "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
            [(model, dimension, text_sha(t), vector_blob(v)) for t, v in vectors.items()],
        )
