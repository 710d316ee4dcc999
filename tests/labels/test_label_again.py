"""``judgegrid label --again``: the queue draws each sample once, for everyone, so a second
person's label of the same samples (the people's agreement, the Alternative Annotator Test) is
asked for on purpose: what other people labelled, the earliest first, undrawn; the verdict
reads each sample's draw once, the line counts both labels. The labelling tests' scripted run."""

from __future__ import annotations

import pytest
import test_labelling as labelling
from typer.testing import CliRunner

from judgegrid.analyses import label_state_of
from judgegrid.analyses.bundle import RunFacts
from judgegrid.cli import app
from judgegrid.core.errors import OptionError
from judgegrid.labels.files import human_labels
from judgegrid.labels.queue import AGAIN_REASON, open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore

base_run, run_dir = labelling.base_run, labelling.run_dir
METRIC = "faithfulness"


def _ann_labels(run_dir, count: int) -> list[str]:
    """ann answers ``count`` samples of the queue through the page, in its order."""
    session = open_session(run_dir, "ann", [METRIC], SessionAsk(n=count))
    for server in labelling._running(session):
        for item in session.queue:
            status, reply = server.label(item.sample_id, METRIC, value=1.0)
            assert status == 200, reply
    return [item.sample_id for item in session.queue]


def test_asked_again_a_person_labels_what_others_labelled_and_the_rule_reads_each_draw_once(
    run_dir,
):
    ann = _ann_labels(run_dir, 5)
    drawn = len(labelling.stored_draws(run_dir))
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=3, again=True))
    assert [item.sample_id for item in bob.queue] == ann[:3]  # the earliest labelled first
    assert all(item.probability is None for item in bob.queue) and bob.unrecorded == []
    assert {item.blind_reason for item in bob.queue} == {AGAIN_REASON}
    for server in labelling._running(bob):
        for item in bob.queue:
            status, reply = server.label(item.sample_id, METRIC, value=0.0)
            assert status == 200, reply
        assert reply["state"].startswith("5 samples, 8 labels · "), reply["state"]
    assert len(labelling.stored_draws(run_dir)) == drawn  # no draw made
    store = RunStore(run_dir / "run.sqlite")
    try:
        answers = human_labels(store.labels_frame(), bob.sample_info, (), skips=True)
        draws = store.draws_frame()
    finally:
        store.close()
    found = label_state_of(
        METRIC, bob.scores, answers, draws, RunFacts(sample_info=bob.sample_info)
    )
    assert found is not None and found.verdict.draws == 5  # ann's five draws, each once
    # asked again once more: bob has answered those three; the two left of ann's come next
    later = open_session(run_dir, "bob", [METRIC], SessionAsk(n=10, again=True))
    assert [item.sample_id for item in later.queue] == ann[3:]


def test_with_nothing_labelled_by_others_again_says_so_and_serves_no_page(run_dir):
    result = CliRunner().invoke(app, ["label", str(run_dir), "--again", "--annotator", "bob"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "nothing to label again: no sample of faithfulness, context_precision another person "
        "labelled is left that 'bob' has not answered or skipped"
    )


def test_again_with_batch_is_refused_before_the_run_is_read(tmp_path):
    with pytest.raises(OptionError) as caught:
        open_session(tmp_path / "no-run", "bob", ask=SessionAsk(n=3, batch=2, again=True))
    assert caught.value.source == "--again"
    result = CliRunner().invoke(
        app, ["label", str(tmp_path), "--again", "--batch", "2", "--annotator", "bob"]
    )
    assert result.exit_code == 2 and "--again" in result.output, result.output


def test_again_on_a_pairs_run_is_refused_naming_why(tmp_path, write_matrix):
    """A pairs run's preferences are each person's own pair on the pairs rung: asked again,
    they would count as new evidence."""
    from test_adaptive_page import _pairs_run

    run = _pairs_run(tmp_path, write_matrix)
    with pytest.raises(OptionError) as caught:
        open_session(run, "bob", ask=SessionAsk(n=3, again=True))
    assert caught.value.source == "--again" and "each person's own" in str(caught.value)
