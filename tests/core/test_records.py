"""The typed score row is the one definition of the scores table: database, DataFrame, CSV."""

from __future__ import annotations

import dataclasses
import sqlite3

import pandas as pd

from judgegrid import run_grid
from judgegrid.core.cells import Cell
from judgegrid.core.records import SCORE_COLUMNS, SCORE_KEY, ScoreRow
from judgegrid.core.usage import Usage
from judgegrid.store.run_db import RunStore


def test_the_database_table_has_the_row_s_columns_in_order(tmp_path):
    store = RunStore(tmp_path / "run.sqlite")
    store.close()
    db = sqlite3.connect(tmp_path / "run.sqlite")
    columns = [row[1] for row in db.execute("PRAGMA table_info(scores)")]
    key = [row[1] for row in sorted(db.execute("PRAGMA table_info(scores)"), key=lambda r: r[5])]
    assert columns == SCORE_COLUMNS == [f.name for f in dataclasses.fields(ScoreRow)]
    assert [k for k in key if k in SCORE_KEY] == SCORE_KEY  # the primary key, in its order


def test_a_row_written_reads_back_as_written(tmp_path):
    store = RunStore(tmp_path / "run.sqlite")
    cell = Cell("faithfulness", "a", "", 0, 0, "s1", 1)
    row = ScoreRow.of(
        cell, "scored", Usage(calls=2, tokens_in=5, tokens_out=7, cost=None), 1.5, 99.0,
        score=0.5, details={"statements": ["é"]},
    )  # fmt: skip
    store.write_score(row)
    frame = store.scores_frame()
    store.close()
    assert list(frame.columns) == SCORE_COLUMNS
    back = frame.iloc[0].to_dict()
    assert back["details"] == '{"statements": ["é"]}'
    assert pd.isna(back["cost"]) and back["calls"] == 2 and back["score"] == 0.5
    assert {k: back[k] for k in Cell._fields} == cell._asdict()


def test_scores_csv_has_the_row_s_columns(write_matrix, tmp_path):
    result = run_grid(write_matrix(repeats=1, strictness=[1]), limit=2, run_dir=tmp_path / "r")
    csv = pd.read_csv(result.run_dir / "scores.csv")
    assert list(csv.columns) == SCORE_COLUMNS
    assert list(result.scores.columns) == SCORE_COLUMNS
    assert len(csv) == result.expected_cells


def test_a_run_at_the_model_s_own_dimension_can_be_reported_and_resumed(write_matrix, tmp_path):
    from judgegrid import api

    matrix = write_matrix(
        embeddings=[{"id": "scripted/bow", "label": "bow"}], repeats=1, strictness=[1]
    )
    result = run_grid(matrix, limit=1, run_dir=tmp_path / "run")
    assert set(result.scores["dimension"]) == {0}
    assert api.rebuild_report(result.run_dir)  # parses matrix.resolved.yaml again
    again = api.resume_run(result.run_dir)
    assert len(again.scores) == len(result.scores)
