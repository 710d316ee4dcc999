"""Several people labelling one run as the bench simulates them
(``testing.labelling_people``): one person drawing one at a time is the bench's own new queue
(``labelling_person.adaptive_run``), draw for draw; the crowd's draws, stored as the page
stores them, read back by the product's own reader (``label_state.read_sequence``,
``label_state``) give the sequence and the verdict the simulation saw; and people with pools
of their own repeat pairs, a shared pool never does."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses import bounds_text
from judgegrid.analyses.decision.label_state import label_state, read_sequence
from judgegrid.analyses.validity.criteria import PeopleRight
from judgegrid.testing.labelling_people import Crowd, crowd_run, crowds_of
from judgegrid.testing.labelling_person import (
    CHANCE,
    adaptive_run,
    bank_worlds,
    person_of,
    person_world,
)
from support.judgebench_files import run_bench_labels

METRIC = "m"
EQUAL, BETTER = bank_worlds()[:2]  # the bank's two equally good judges, one better by 0.15


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_person_drawing_one_at_a_time_is_the_benchs_new_queue(seed):
    world = person_world(BETTER, seed)
    rng, right, _ = person_of(world, seed)
    alone, _ = adaptive_run(world, right, rng)
    found = crowd_run(world, seed, Crowd(1, True, session=1))
    assert (found.run.labels, found.run.named) == (alone.labels, alone.named)
    assert found.run.named is not None and found.repeats == 0


def _stored_frames(found, population: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The crowd's draws as ``label_draws`` stores them and their answers, each given in turn."""
    draws = pd.DataFrame(
        [
            (METRIC, f"person{p}", number, f"s{sample:04d}", q, population, bounds_text(b))
            for p, number, sample, q, b in found.stored
        ],
        columns=["metric", "annotator", "draw", "sample_id", "probability", "population", "bounds"],
    )
    labels = draws[["sample_id", "metric", "annotator"]].assign(
        value=1.0, labelled_at=np.arange(len(draws), dtype=float)
    )
    return draws, labels


@pytest.mark.parametrize("shared", [False, True])
def test_the_products_reader_reads_the_crowds_draws_as_the_simulation_did(shared):
    seed = 3
    world = person_world(BETTER, seed)
    _, right, _ = person_of(world, seed)
    found = crowd_run(world, seed, Crowd(2, shared))
    assert found.run.named is not None
    population = len(right)
    draws, labels = _stored_frames(found, population)
    read = read_sequence(draws, labels, METRIC, population)
    assert list(read.rows["sample_id"]) == list(draws["sample_id"])  # in the order answered
    table = pd.DataFrame(right, index=[f"s{i:04d}" for i in range(population)])
    table.columns = list(world.judges)
    state = label_state(METRIC, PeopleRight(table, CHANCE), read.rows, None)
    assert state is not None
    assert (state.verdict.named, state.verdict.at) == (found.run.named, found.run.labels)
    assert state.verdict.draws == found.read  # a repeat read twice: its right/wrong again
    assert (found.repeats == 0) == shared


def test_own_pools_repeat_pairs_and_a_shared_pool_never_does():
    """Two people on the equal judges, 400 draws read (no verdict in sight): with pools of
    their own each draws where the judges differ and meets the other's pairs there."""
    world = person_world(EQUAL, 0)
    own = crowd_run(world, 0, Crowd(2, False))
    shared = crowd_run(world, 0, Crowd(2, True))
    assert own.read == shared.read == 400
    assert own.repeats > 40 and shared.repeats == 0
    assert len({sample for _, _, sample, _, _ in shared.stored}) == 400


def test_the_crowds_are_one_person_alone_then_each_number_of_people_with_both_pools():
    names = [c.name for c in crowds_of([3, 2, 1], session=5)]
    assert names == [
        "1 person, shared pool",
        "2 people, own pools",
        "2 people, shared pool",
        "3 people, own pools",
        "3 people, shared pool",
    ]


def test_the_quick_bench_with_people_prints_a_table_and_people_lines(tmp_path):
    """``bench_labels.py --quick --people 2``: per world (the quick run's two) a table and a
    PEOPLE line a crowd: one person alone, two with their own pools, two with a shared one."""
    done = run_bench_labels(tmp_path, "--people", "2", "--session", "5")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("PEOPLE ")]
    assert len(lines) == 6, done.stdout
    line = re.compile(
        r"PEOPLE pairs: .+, (1 person, shared pool|2 people, (own|shared) pools?): wrong picks "
        r"\d\.\d{3} by the scenario \(goal <= 0\.05\)( MISSED)?, \d\.\d{3} on the answers; "
        r"verdicts \d\.\d\d, median labels (inf|\d+(\.\d)?); repeats \d\.\d{3} of the draws read"
    )
    assert all(line.fullmatch(text) for text in lines), lines
    assert "sessions of 5 draws" in done.stdout and "| crowd " in done.stdout
