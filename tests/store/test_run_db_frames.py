"""The run database read as frames: the same table, column for column and type for type, as
pandas' own SQL reader gives (the store reads its rows more quickly)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import run_grid
from judgegrid.core.records import SCORE_COLUMNS, ScoreRow
from judgegrid.store.database import ColumnarReadError, open_read_only, read_columnar
from judgegrid.store.run_db import CALL_COLUMNS_WITHOUT_TEXTS, RunStore, query_frame, read_scores
from support.demo_sets import demo_with_hostile_sample


def test_scores_and_calls_read_as_pandas_reads_them(tmp_path, write_matrix):
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    path = run.run_dir / "run.sqlite"
    store = RunStore(path)
    row = next(store.scores_frame().itertuples(index=False))._asdict()
    row.update(repeat=99, status="failed", score=None, error="JudgeOutputError: cut off")
    store.write_score(ScoreRow(**row))
    store.writes.flush()
    scores, calls, texts = store.scores_frame(), store.calls_frame(False), store.calls_frame()
    store.close()
    with sqlite3.connect(path) as db:
        expected_scores = pd.read_sql_query(f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores", db)
        without = ", ".join(CALL_COLUMNS_WITHOUT_TEXTS)
        expected_calls = pd.read_sql_query(f"SELECT {without} FROM calls ORDER BY id", db)
        expected_texts = pd.read_sql_query("SELECT * FROM calls ORDER BY id", db)
    # the run has failed cells (no score, an error) and scored ones (no error): NULLs both ways
    assert scores["score"].isna().any() and scores["error"].isna().any()
    pd.testing.assert_frame_equal(scores, expected_scores)
    pd.testing.assert_frame_equal(calls, expected_calls)
    pd.testing.assert_frame_equal(texts, expected_texts)


def test_an_empty_table_reads_as_pandas_reads_it(tmp_path):
    store = RunStore(tmp_path / "run.sqlite")
    scores = store.scores_frame()
    store.close()
    with sqlite3.connect(tmp_path / "run.sqlite") as db:
        expected = pd.read_sql_query(f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores", db)
    assert scores.empty and list(scores.columns) == SCORE_COLUMNS
    pd.testing.assert_frame_equal(scores, expected)


def test_the_read_only_reader_reads_what_the_store_reads_and_writes_nothing(tmp_path, write_matrix):
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    path = run.run_dir / "run.sqlite"
    store = RunStore(path)
    expected = store.scores_frame()
    store.close()
    before = path.read_bytes()
    pd.testing.assert_frame_equal(read_scores(path), expected)
    assert path.read_bytes() == before


def test_the_read_only_reader_adds_no_missing_table(tmp_path):
    path = tmp_path / "run.sqlite"
    sqlite3.connect(path).close()  # a database, but not a run's
    with pytest.raises(sqlite3.OperationalError, match="no such table: scores"):
        read_scores(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []


def _scores_table(path: Path, rows: list[tuple]) -> None:
    store = RunStore(path)
    store.close()
    with sqlite3.connect(path) as db:
        db.executemany(f"INSERT INTO scores VALUES ({', '.join('?' * len(SCORE_COLUMNS))})", rows)


TEXT_COLUMNS = {"sample_id", "metric", "judge", "embedding", "status", "weighting", "reason"}
TEXT_COLUMNS |= {"error", "details"}


def _row(sample: str, **values: object) -> tuple:
    """A score row with NULLs where a column may hold one, and ``values`` over it."""
    row: dict[str, object] = dict.fromkeys(SCORE_COLUMNS)
    row.update(sample_id=sample, metric="faithfulness", judge="a", embedding="", dimension=0)
    row.update(strictness=0, repeat=0, wording=0, status="scored", calls=1, finished_at=1.0)
    row.update(values)
    return tuple(row[c] for c in SCORE_COLUMNS)


def _row_by_row(path: Path) -> pd.DataFrame:
    with contextlib.closing(open_read_only(path)) as db:
        return query_frame(db, f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores ORDER BY rowid")


def test_the_columnar_read_types_its_columns_as_the_row_by_row_read(tmp_path):
    """ADBC's driver gives a column of NULLs as int64 and an integer column with NULLs as
    int64 with nulls: read as the rows read them (None objects; floats), text with NULLs as
    strings, and an empty table all objects."""
    path = tmp_path / "run.sqlite"
    _scores_table(path, [])
    pd.testing.assert_frame_equal(read_scores(path), _row_by_row(path))
    _scores_table(
        path,
        [
            _row("s1", score=0.5, tokens_in=10, details='{"a": 1}'),
            _row("s2", status="failed", error="cut off", tokens_in=None),
            _row("s3", score=1.0, tokens_in=7, details=None, cost=0.25),
        ],
    )
    frame = read_scores(path)
    columnar = read_columnar(path, "SELECT * FROM scores", 3, TEXT_COLUMNS)
    assert columnar["reason"].tolist() == [None] * 3
    pd.testing.assert_frame_equal(frame, _row_by_row(path))
    assert frame["tokens_in"].dtype == float and frame["reason"].dtype == object


def test_a_column_of_two_types_is_read_row_by_row(tmp_path):
    """SQLite lets a row hold text in an INTEGER column, or bytes in a TEXT one; the driver
    gives such a column as text or bytes (``ColumnarReadError``), and the rows are read one by
    one: the same frame as ever, each value of its own type."""
    path = tmp_path / "run.sqlite"
    _scores_table(path, [_row("s1", tokens_in=10), _row("s2", tokens_in="many")])
    with pytest.raises(ColumnarReadError, match="tokens_in"):
        read_columnar(path, "SELECT * FROM scores", 2, TEXT_COLUMNS)
    frame = read_scores(path)
    assert frame["tokens_in"].tolist() == [10, "many"]
    pd.testing.assert_frame_equal(frame, _row_by_row(path))
    path.unlink()
    _scores_table(path, [_row("s1", reason="short"), _row("s2", reason=b"\x00")])
    with pytest.raises(ColumnarReadError, match="reason"):
        read_columnar(path, "SELECT * FROM scores", 2, TEXT_COLUMNS)
    assert read_scores(path)["reason"].tolist() == ["short", b"\x00"]


OLD_SCORES = """CREATE TABLE scores (
    sample_id TEXT NOT NULL, metric TEXT NOT NULL, judge TEXT NOT NULL,
    embedding TEXT NOT NULL, dimension INTEGER NOT NULL, strictness INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    status TEXT NOT NULL, score REAL, reason TEXT, error TEXT, details TEXT,
    calls INTEGER NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
    cost REAL, latency_s REAL NOT NULL, finished_at REAL NOT NULL,
    PRIMARY KEY (metric, judge, embedding, dimension, strictness, sample_id, repeat)
)"""


def test_a_run_database_from_before_the_criteria_gets_their_columns(tmp_path):
    """An older run.sqlite opened (to resume or report it): wording 0, no answer nor
    weighting on its rows, its cells found finished as before, and new rows written."""
    path = tmp_path / "run.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(OLD_SCORES)
        db.execute(
            "INSERT INTO scores VALUES ('s1', 'faithfulness', 'a', '', 0, 0, 0, 'scored', 0.5,"
            " NULL, NULL, NULL, 2, 10, 5, NULL, 0.1, 1.0)"
        )
    store = RunStore(path)
    try:
        (cell,) = store.finished_cells()
        assert cell.wording == 0 and cell.sample_id == "s1"
        scores = store.scores_frame()
        assert list(scores.columns) == SCORE_COLUMNS
        assert (scores.loc[0, "wording"], scores.loc[0, "score"]) == (0, 0.5)
        assert scores.loc[0, "answer"] is None and scores.loc[0, "weighting"] is None
        row = scores.iloc[0].to_dict() | {"sample_id": "s2", "answer": 1.0, "weighting": "none"}
        store.write_score(ScoreRow(**row))
        store.writes.flush()
        assert len(store.scores_frame()) == 2
    finally:
        store.close()
