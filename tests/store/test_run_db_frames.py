"""The run database read as frames: the same table, column for column and type for type, as
pandas' own SQL reader gives (the store reads its rows more quickly)."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from demo_sets import demo_with_hostile_sample
from judgegrid import run_grid
from judgegrid.core.records import SCORE_COLUMNS, ScoreRow
from judgegrid.store.run_db import CALL_COLUMNS_WITHOUT_TEXTS, RunStore, read_scores


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
