"""The scores read ahead in a forked reader: the frame the store would read, handed out once and
only for its own database; a reader that cannot read leaves the read to the report."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import run_grid
from judgegrid.store import read_ahead
from judgegrid.store.read_ahead import ScoresReadAhead
from judgegrid.store.run_db import RunStore, read_scores
from support.demo_sets import demo_with_hostile_sample


@pytest.fixture
def database(tmp_path, write_matrix) -> Path:
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    return run.run_dir / "run.sqlite"


def test_the_frame_read_ahead_is_the_stores_read_in_another_process(database):
    store = RunStore(database)
    expected = store.scores_frame()
    store.close()
    with ScoresReadAhead(database) as ahead:
        assert all(reader.forked for reader in ahead._readers)
        scores = ahead.scores_of(database.parent / "." / database.name)  # the same file
        again = ahead.scores_of(database)
    assert scores is not None and len(scores) > 20
    pd.testing.assert_frame_equal(scores, expected)
    assert again is None  # handed out once


def test_another_database_gets_nothing_and_the_reader_is_stopped(database, tmp_path):
    with ScoresReadAhead(database) as ahead:
        processes = [reader._process for reader in ahead._readers]
        assert ahead.scores_of(tmp_path / "other" / "run.sqlite") is None
    assert all(p is not None and not p.is_alive() for p in processes)


def test_a_database_the_reader_cannot_read_gets_nothing(tmp_path):
    path = tmp_path / "run.sqlite"
    sqlite3.connect(path).close()  # no scores table: the report's own read says so
    with ScoresReadAhead(path) as ahead:
        assert ahead.scores_of(path) is None


def test_halves_of_different_rows_are_not_used(database, monkeypatch):
    """The two readers read at two moments: a row written between them would misalign the
    halves, so the report reads the table itself."""

    def one_row_less(path, columns):
        frame = read_scores(path, columns)
        return frame.iloc[:-1] if "details" in columns else frame

    monkeypatch.setattr(read_ahead, "read_scores", one_row_less)
    with ScoresReadAhead(database) as ahead:
        assert ahead.scores_of(database) is None
