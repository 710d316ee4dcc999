"""Several people labelling one run draw from one pool (``labels.pool.taken_by_anyone``): the
rule reads everyone's stored draws merged (``decision.label_state.read_sequence``), and a
sample two people drew would be read as two draws of it, a repeat, as a queue drawing with
replacement repeats; so no new draw asks a sample anyone drew or labelled. A person's own
draws left unanswered are still theirs to answer; a label chosen on the view page leaves its
sample in the pool. The labelling tests' scripted run (12 samples), answered through the
page's API."""

from __future__ import annotations

import pandas as pd
import pytest
import test_labelling as labelling

from judgegrid.analyses.decision.label_state import read_sequence
from judgegrid.core.errors import RunDirError
from judgegrid.core.records import Label
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore

base_run, run_dir = labelling.base_run, labelling.run_dir
METRIC = "faithfulness"
SAMPLES = 12


def _answer(session, count: int | None = None) -> list[str]:
    """Serve ``session`` (its draws stored) and answer its first ``count`` items (all: None)."""
    items = session.queue if count is None else session.queue[:count]
    for server in labelling._running(session):
        for item in items:
            assert server.label(item.sample_id, METRIC, value=1.0)[0] == 200
    return [item.sample_id for item in items]


def _drawn(run_dir, person: str) -> list[str]:
    draws = labelling.stored_draws(run_dir)
    return list(draws.loc[draws["annotator"] == person, "sample_id"])


def test_two_peoples_stored_draws_of_one_sample_are_read_as_two_draws():
    """What the pool prevents: the rule reads each person's stored draws, and two people's
    draws of s1 are two draws of it (its right/wrong read twice)."""
    draws = pd.DataFrame(
        [(METRIC, person, 1, "s1", 0.1, 10) for person in ("amy", "bob")],
        columns=["metric", "annotator", "draw", "sample_id", "probability", "population"],
    )
    labels = pd.DataFrame(
        [("s1", METRIC, "amy", 1.0, 1.0), ("s1", METRIC, "bob", 1.0, 2.0)],
        columns=["sample_id", "metric", "annotator", "value", "labelled_at"],
    )
    assert list(read_sequence(draws, labels, METRIC, 10).rows["sample_id"]) == ["s1", "s1"]


def test_a_second_person_is_never_asked_what_another_drew_so_each_sample_is_read_once(run_dir):
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=6))
    answered = _answer(ann, 3)  # three answered, three drawn and pending
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=SAMPLES))
    asked = [item.sample_id for item in bob.queue]
    assert len(asked) == SAMPLES - 6 and not set(asked) & set(_drawn(run_dir, "ann"))
    _answer(bob)
    # her pending draws, no new one
    again = open_session(run_dir, "ann", [METRIC], SessionAsk(n=SAMPLES))
    assert [i.sample_id for i in again.queue] == _drawn(run_dir, "ann")[3:]
    assert not set(answered) & {i.sample_id for i in again.queue}
    _answer(again)
    store = RunStore(run_dir / "run.sqlite")
    try:
        sequence = read_sequence(store.draws_frame(), store.labels_frame(), METRIC, SAMPLES)
    finally:
        store.close()
    assert sorted(sequence.rows["sample_id"]) == sorted(_drawn(run_dir, "ann") + asked)
    assert sequence.rows["sample_id"].is_unique and len(sequence.rows) == SAMPLES
    cy = open_session(run_dir, "cy", [METRIC], SessionAsk(n=4))
    assert cy.queue == [] and cy.nothing_to_ask("R").startswith(
        f"nothing to label: every sample of {METRIC} the judges scored is answered, skipped or "
        f"drawn, {SAMPLES} of them by other people (the queue asks each sample once, whoever "
        "labels)"
    )


def test_a_next_batch_leaves_out_what_another_person_drew_meanwhile(run_dir):
    """ann draws in batches of 2; while her page is open bob draws every sample left (stored,
    none answered): once ann answers her first batch, nothing is left for her next."""
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=6, batch=2))
    first = [item.sample_id for item in ann.queue]
    for server in labelling._running(ann):
        bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=SAMPLES))
        assert len(bob.queue) == SAMPLES - 2 and not {i.sample_id for i in bob.queue} & set(first)
        _answer(bob, 0)  # bob's draws stored, none answered yet
        for item in ann.queue[:2]:
            status, reply = server.label(item.sample_id, METRIC, value=1.0)
            assert status == 200 and "items" not in reply  # no next batch drawn
    assert [item.sample_id for item in ann.queue] == first == _drawn(run_dir, "ann")


def test_a_label_chosen_on_the_view_page_leaves_its_sample_in_the_pool(run_dir):
    """The rule does not read a chosen label (no draw), so the sample can still be drawn,
    once; a label imported or given on the page takes its sample out."""
    store = RunStore(run_dir / "run.sqlite")
    scored = sorted(store.scores_frame().query("metric == @METRIC")["sample_id"].unique())
    store.write_labels(
        [
            Label(scored[0], METRIC, "vic", 1.0, chosen=True),
            Label(scored[1], METRIC, "imp", 0.0, source="import"),
        ]
    )
    store.close()
    queue = {
        i.sample_id for i in open_session(run_dir, "ann", [METRIC], SessionAsk(n=SAMPLES)).queue
    }
    assert scored[0] in queue and scored[1] not in queue
    assert len(queue) == SAMPLES - 1


def test_two_sessions_opened_at_once_store_no_draw_of_the_same_sample_twice(run_dir):
    """ann and bob open their sessions at the same moment, each drawing before the other's
    draws are stored: bob's page, served second, stores none and says to start again; his
    session then drawn anew leaves ann's samples out."""
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=4))
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=4))
    both = {i.sample_id for i in ann.queue} & {i.sample_id for i in bob.queue}
    assert both  # the samples where the judges disagree are likely for everyone
    _answer(ann, 0)
    with pytest.raises(RunDirError, match=f"drew {len(both)} sample.* start judgegrid label"):
        _answer(bob, 0)
    assert _drawn(run_dir, "bob") == []
    again = open_session(run_dir, "bob", [METRIC], SessionAsk(n=4))
    _answer(again, 0)
    assert len(_drawn(run_dir, "bob")) == 4
    assert not set(_drawn(run_dir, "bob")) & set(_drawn(run_dir, "ann"))
