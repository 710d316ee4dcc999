"""People's labels and the queue's draws in the run database: each label keeps the probability
its queue drew it with, each draw its place, and a database made before either opens with them
blank (a label of unknown design counts as drawn uniformly)."""

from __future__ import annotations

import sqlite3

from judgegrid.core.records import Label, LabelDraw
from judgegrid.store.run_db import RunStore


def test_a_labels_probability_and_a_queues_draws_read_back_as_written(tmp_path):
    store = RunStore(tmp_path / "run.sqlite")
    store.write_labels(
        [
            Label("s1", "faithfulness", "ann", 1.0, probability=0.125),
            Label("s2", "faithfulness", "ann", 0.0, labelled_at=1.0),
        ]
    )
    draws = [
        LabelDraw("faithfulness", "ann", 2, "s1", 0.125, 10),
        LabelDraw("faithfulness", "ann", 1, "s2", 0.05, 10),
    ]
    assert store.write_draws(draws) == 2
    # a draw already stored is the queue's: writing its place again changes nothing
    store.write_draws([LabelDraw("faithfulness", "ann", 1, "s9", 0.5, 10)])
    labels, drawn = store.labels_frame(), store.draws_frame()
    store.close()
    probability = labels.set_index("sample_id")["probability"]
    assert probability["s1"] == 0.125 and probability.isna()["s2"]
    assert drawn["draw"].tolist() == [1, 2]
    assert drawn["sample_id"].tolist() == ["s2", "s1"]
    assert drawn["probability"].tolist() == [0.05, 0.125]
    assert drawn["population"].tolist() == [10, 10]


def test_a_database_made_before_draws_opens_with_its_labels_of_unknown_design(tmp_path):
    path = tmp_path / "run.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE labels (sample_id TEXT NOT NULL, metric TEXT NOT NULL, annotator TEXT"
            " NOT NULL, value REAL, note TEXT NOT NULL, labelled_at REAL NOT NULL, source TEXT"
            " NOT NULL, detail TEXT, PRIMARY KEY (sample_id, metric, annotator))"
        )
        db.execute("INSERT INTO labels VALUES ('s1', 'm', 'ann', 1.0, '', 0.0, 'page', NULL)")
    db.close()
    store = RunStore(path)
    labels, drawn = store.labels_frame(), store.draws_frame()
    store.close()
    assert labels["probability"].isna().all() and labels["blind"].isna().all()
    assert labels["value"].tolist() == [1.0]
    assert drawn.empty


def test_draws_stored_before_their_bounds_open_with_none_and_new_ones_keep_theirs(tmp_path):
    """A label_draws table of the fixed design's days (no bounds column) is brought up to date:
    its draws read back with no bounds (the fixed design's), an adaptive draw with its own."""
    path = tmp_path / "run.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE label_draws (metric TEXT NOT NULL, annotator TEXT NOT NULL, draw INTEGER"
            " NOT NULL, sample_id TEXT NOT NULL, probability REAL NOT NULL, population INTEGER"
            " NOT NULL, PRIMARY KEY (metric, annotator, draw))"
        )
        db.execute("INSERT INTO label_draws VALUES ('m', 'ann', 1, 's1', 0.1, 10)")
    db.close()
    store = RunStore(path)
    bounds = '{"largest": 20.0, "pairs": [["a", "b", 0.5]]}'
    store.write_draws([LabelDraw("m", "ann", 2, "s2", 0.3, 10, bounds, 1.5e9)])
    drawn = store.draws_frame()
    store.close()
    assert drawn["sample_id"].tolist() == ["s1", "s2"]
    assert drawn["bounds"].isna().tolist() == [True, False]
    assert drawn["bounds"].iloc[1] == bounds
    # nor a time: an old draw's is unknown (``labels.pool`` reads it as never seen)
    assert drawn["drawn_at"].isna().tolist() == [True, False]


def test_draws_taken_over_replace_the_left_ones_in_one_transaction(tmp_path):
    """``write_draws(released=...)``: the left draw's row goes as the new one comes, so no
    moment holds both (``labels.pool.record_draws``)."""
    store = RunStore(tmp_path / "run.sqlite")
    store.write_draws(
        [LabelDraw("m", "ann", 1, "s1", 0.1, 10), LabelDraw("m", "ann", 2, "s2", 0.2, 10)]
    )
    store.write_draws([LabelDraw("m", "bob", 1, "s2", 0.2, 10)], released=[("m", "ann", 2)])
    drawn = store.draws_frame()
    store.close()
    assert list(zip(drawn["annotator"], drawn["sample_id"], strict=True)) == [
        ("ann", "s1"),
        ("bob", "s2"),
    ]
