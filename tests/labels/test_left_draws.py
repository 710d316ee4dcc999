"""A person's draws left unanswered pass to whoever asks next once that person has neither drawn
nor labelled for an hour (``labels.pool``): before, a session opened and left held its samples
for good, out of everyone's queue and out of the rule's reading. The taken-over draw keeps what
the design gave it (probability, population, bounds) and the holder's row goes in the same
transaction, so the rule still reads each sample once. The labelling tests' scripted run (12
samples), answered through the page's API; an hour passes by moving the stored times back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import test_labelling as labelling
import test_shared_pool as shared

from judgegrid.analyses.decision.label_state import read_sequence
from judgegrid.core.errors import RunDirError
from judgegrid.labels.pool import HELD_S, left_draws
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore

base_run, run_dir = labelling.base_run, labelling.run_dir
METRIC, SAMPLES = shared.METRIC, shared.SAMPLES
DRAW_KEYS = ["metric", "annotator", "draw", "sample_id", "probability", "population", "bounds"]


def _an_hour_passes(run_dir: Path, seconds: float = HELD_S + 60) -> None:
    """Every stored draw and label made an hour and a minute (``seconds``) earlier than it was."""
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        db.execute("UPDATE label_draws SET drawn_at = drawn_at - ?", (seconds,))
        db.execute("UPDATE labels SET labelled_at = labelled_at - ?", (seconds,))


def _draws_of(run_dir: Path, person: str) -> pd.DataFrame:
    draws = labelling.stored_draws(run_dir)
    return draws[draws["annotator"] == person].reset_index(drop=True)


def _sequence(run_dir: Path) -> pd.DataFrame:
    store = RunStore(run_dir / "run.sqlite")
    try:
        return read_sequence(store.draws_frame(), store.labels_frame(), METRIC, SAMPLES).rows
    finally:
        store.close()


def test_draws_left_for_an_hour_pass_to_the_next_person_as_they_were_drawn(run_dir):
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=6))
    shared._answer(ann, 3)  # three answered, three drawn and left
    held = _draws_of(run_dir, "ann").iloc[3:][DRAW_KEYS]
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=SAMPLES))
    assert len(bob.queue) == SAMPLES - 6  # ann is still labelling: hers are held for her
    shared._answer(bob)
    cy = open_session(run_dir, "cy", [METRIC], SessionAsk(n=4))
    assert cy.queue == [] and cy.held == 3
    assert "the 3 drawn and not yet answered pass to whoever asks once their person has not " in (
        cy.nothing_to_ask("R")
    )
    _an_hour_passes(run_dir)
    cy = open_session(run_dir, "cy", [METRIC], SessionAsk(n=4))
    assert [i.sample_id for i in cy.queue] == list(held["sample_id"])
    assert [i.probability for i in cy.queue] == pytest.approx(list(held["probability"]))
    shared._answer(cy)
    assert len(_draws_of(run_dir, "ann")) == 3  # her rows of them went with the take-over
    taken = _draws_of(run_dir, "cy")
    assert list(taken["draw"]) == [1, 2, 3]  # numbered on in cy's own sequence
    kept = ["sample_id", "probability", "population", "bounds"]
    assert taken[kept].equals(held[kept].reset_index(drop=True))
    rows = _sequence(run_dir)
    assert rows["sample_id"].is_unique and len(rows) == SAMPLES  # each sample read once


def test_the_person_who_left_finds_taken_draws_gone_and_nothing_new(run_dir):
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=SAMPLES - 2))
    shared._answer(ann, 4)
    _an_hour_passes(run_dir)
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=3))
    shared._answer(bob, 0)  # his page stores the take-over; nothing answered yet
    back = open_session(run_dir, "ann", [METRIC], SessionAsk(n=SAMPLES))
    asked = {i.sample_id for i in back.queue}
    assert not asked & {i.sample_id for i in bob.queue}
    assert len(asked) == 3 + 2  # her 3 left that bob did not take, then the 2 never drawn


def test_a_person_back_before_the_take_over_is_stored_keeps_their_draws(run_dir):
    """cy's session takes over ann's left draws, but ann labels one before cy's page stores its
    draws: ann is labelling again, so cy's page stores nothing and says to start again."""
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=4))
    shared._answer(ann, 1)
    _an_hour_passes(run_dir)
    cy = open_session(run_dir, "cy", [METRIC], SessionAsk(n=3))
    assert {i.sample_id for i in cy.queue} == set(_draws_of(run_dir, "ann")["sample_id"][1:])
    back = open_session(run_dir, "ann", [METRIC], SessionAsk(n=3))  # her 3, nothing new
    shared._answer(back, 1)
    with pytest.raises(RunDirError, match="start judgegrid label again"):
        shared._answer(cy, 0)
    assert _draws_of(run_dir, "cy").empty and len(_draws_of(run_dir, "ann")) == 4


def _frames(drawn_at: list[float | None], labelled_at: list[float]) -> tuple[pd.DataFrame, ...]:
    draws = pd.DataFrame(
        [(METRIC, "ann", i + 1, f"s{i}", 0.1, 10, None, t) for i, t in enumerate(drawn_at)],
        columns=[*DRAW_KEYS, "drawn_at"],
    )
    labels = pd.DataFrame(
        [("s0", METRIC, "ann", 1.0, t, 0) for t in labelled_at],
        columns=["sample_id", "metric", "annotator", "value", "labelled_at", "chosen"],
    )
    return draws, labels


@pytest.mark.parametrize(
    ("drawn_at", "labelled_at", "now", "left"),
    [
        ([100.0, 100.0], [], 100.0 + HELD_S - 1, []),  # drawn within the hour: held
        ([100.0, 100.0], [], 100.0 + HELD_S, ["s0", "s1"]),  # an hour since: both left
        ([100.0, 100.0], [200.0], 100.0 + HELD_S, []),  # a label since: held
        ([100.0, 100.0], [200.0], 200.0 + HELD_S, ["s1"]),  # s0 answered, s1 left
        ([None, None], [], 0.0, ["s0", "s1"]),  # drawn before draws had a time: never seen
    ],
)
def test_a_draw_is_left_an_hour_after_its_person_last_drew_or_labelled(
    drawn_at, labelled_at, now, left
):
    draws, labels = _frames(drawn_at, labelled_at)
    assert list(left_draws(draws, labels, now)["sample_id"]) == left


def test_judgegrid_label_says_which_questions_it_took_over(run_dir, monkeypatch):
    """The person given someone else's draws is told so when the page opens."""
    from typer.testing import CliRunner

    from judgegrid.cli import app, labels

    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=4))
    shared._answer(ann, 1)
    _an_hour_passes(run_dir)
    opened: list[str] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(opening))
    for person, n in (("cy", 2), ("dee", 1)):
        result = CliRunner().invoke(
            app, ["label", str(run_dir), "--metric", METRIC, "--annotator", person, "--n", str(n)]
        )
        assert result.exit_code == 0, result.output  # not served: nothing of theirs stored
    assert opened[0].endswith(
        "(every answer is saved at once; 2 of them were drawn for people who left them "
        "unanswered for an hour)"
    )
    assert opened[1].endswith(
        "; 1 of them was drawn for a person who left it unanswered for an hour)"
    )


def test_a_queue_short_of_n_says_why_when_the_page_opens(run_dir, monkeypatch):
    """Asked for 8 with 3 samples left undrawn, the page opens on 3 questions and says where the
    others went (told "3 questions" after asking for 8, a person thinks the rest were lost)."""
    from typer.testing import CliRunner

    from judgegrid.cli import app, labels

    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=SAMPLES - 3))
    shared._answer(ann, 2)  # the rest of hers drawn, not yet answered: held for her
    opened: list[str] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(opening))
    for options in (["--n", "8"], ["--n", "3"], ["--n", "8", "--again"]):
        result = CliRunner().invoke(
            app, ["label", str(run_dir), "--metric", METRIC, "--annotator", "bob", *options]
        )
        assert result.exit_code == 0, result.output
    held = SAMPLES - 3 - 2
    assert opened[0].startswith(
        f"labelling: 3 questions (all that is left of --n 8: the other {SAMPLES - 3} samples of "
        f"{METRIC} the judges scored are answered, skipped or drawn, {SAMPLES - 3} of them by "
        f"other people; the {held} drawn and not yet answered pass to whoever asks once their "
        f"person has not labelled for an hour) about {run_dir}"
    )
    assert opened[1].startswith(f"labelling: 3 questions about {run_dir}")  # bob's 3 again
    assert opened[2].startswith(
        "labelling: 2 questions (all that is left of --n 8: what other people labelled and you "
        "did not) about"
    )
    # bob's pages were never served, so his draws were never stored: ann's 7 left, 3 new
    _an_hour_passes(run_dir)
    result = CliRunner().invoke(
        app, ["label", str(run_dir), "--metric", METRIC, "--annotator", "cy", "--n", "20"]
    )
    assert result.exit_code == 0, result.output
    assert opened[3] == (
        f"labelling: 10 questions (all that is left of --n 20: the other 2 samples of {METRIC} "
        f"the judges scored are answered, skipped or drawn, 2 of them by other people) about "
        f"{run_dir}, as 'cy' (every answer is saved at once; 7 of them were drawn for people "
        f"who left them unanswered for an hour)"
    )


def test_a_run_with_fewer_scored_samples_than_n_says_so(run_dir, monkeypatch):
    """Asked for more than the judges scored, on a run nobody labelled: the page opens on every
    scored sample and says the judges scored no other (not that others took them)."""
    from typer.testing import CliRunner

    from judgegrid.cli import app, labels

    opened: list[str] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(opening))
    result = CliRunner().invoke(
        app, ["label", str(run_dir), "--metric", METRIC, "--annotator", "ann", "--n", "50"]
    )
    assert result.exit_code == 0, result.output
    assert opened == [
        f"labelling: {SAMPLES} questions (all that is left of --n 50: the judges scored no other "
        f"sample of {METRIC}) about {run_dir}, as 'ann' (every answer is saved at once)"
    ]


def test_left_after_passes_draws_on_sooner_and_the_page_stores_the_take_over(run_dir):
    """``--left-after 10m``: ann's draws, 11 minutes unanswered, pass to cy, whose page stores
    the take-over (the store's check reads the same hold: under the hour's, ann would still
    hold them and the page would refuse); bob, asking with the hour, leaves them to her."""
    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=4))
    shared._answer(ann, 1)
    held = list(_draws_of(run_dir, "ann")["sample_id"][1:])
    _an_hour_passes(run_dir, 11 * 60)
    bob = open_session(run_dir, "bob", [METRIC], SessionAsk(n=3))
    assert not {i.sample_id for i in bob.queue} & set(held) and bob.held == 3
    cy = open_session(run_dir, "cy", [METRIC], SessionAsk(n=3, left_after=600))
    assert [i.sample_id for i in cy.queue] == held and cy.taken_over == 3
    shared._answer(cy, 0)  # the page stores the draws it took over
    assert list(_draws_of(run_dir, "cy")["sample_id"]) == held
    assert len(_draws_of(run_dir, "ann")) == 1


def test_judgegrid_label_says_the_hold_it_was_given(run_dir, monkeypatch):
    from typer.testing import CliRunner

    from judgegrid.cli import app, labels

    ann = open_session(run_dir, "ann", [METRIC], SessionAsk(n=4))
    shared._answer(ann, 1)
    _an_hour_passes(run_dir, 25 * 60)
    opened: list[str] = []
    monkeypatch.setattr(labels, "serve_app", lambda session, port, opening: opened.append(opening))
    command = ["label", str(run_dir), "--metric", METRIC, "--annotator", "cy", "--n", "2"]
    result = CliRunner().invoke(app, [*command, "--left-after", "20m"])
    assert result.exit_code == 0, result.output
    assert opened[0].endswith(
        "; 2 of them were drawn for people who left them unanswered for 20 minutes)"
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("soon", "expected a duration such as 20m or 2h, got 'soon'"),
        ("10s", "expected at least 1 minute, got 10 seconds"),
        ("0", "expected at least 1 minute, got 0 seconds"),
    ],
)
def test_a_left_after_that_is_no_hold_is_refused_by_name(run_dir, given, said):
    from typer.testing import CliRunner

    from judgegrid.cli import app

    result = CliRunner().invoke(
        app, ["label", str(run_dir), "--annotator", "cy", "--left-after", given]
    )
    assert result.exit_code == 2
    assert "--left-after" in result.output and said in result.output
