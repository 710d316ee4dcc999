"""The decision bank's labelling person (``testing.labelling_person``): the JudgeBench replay
read by judgegrid's own reader and combined by JudgeBench's sum rule, the three orders, and
benches/bench_labels.py's quick mode (a smoke run that prints its figures and a RESULT line)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from judgegrid.testing import labelling_person
from judgegrid.testing.labelling_person import (
    BIAS_LABELS,
    ORDERS,
    RULES,
    SYNTHETIC,
    bias_draws,
    bias_figures,
    label_person,
    margin_figures,
    person_of,
    person_world,
    prepared,
    queue_errors,
    recorded_world,
    replay_world,
    replay_worlds,
    synthetic_world,
    with_margin,
    world_figures,
)
from support.judgebench_files import judgebench_files, run_bench_labels

ROOT = Path(__file__).resolve().parents[2]


def test_the_replay_gives_each_judge_its_sum_rule_accuracy(tmp_path):
    right = judgebench_files(tmp_path)
    files = sorted(tmp_path.glob("*judge_model=*.jsonl"))
    world = replay_world(files)
    accuracy = dict(
        zip(world.judges, (world.picks == world.truth[:, None]).mean(axis=0), strict=True)
    )
    assert accuracy == pytest.approx({j: r.mean() for j, r in right.items()})
    assert world.acceptable == {"good"} and world.noise == 0.0
    assert [w.judges for w in replay_worlds(tmp_path)] == [("bad", "good"), ("bad", "good")]


def test_a_replays_acceptable_judges_are_the_best_on_its_pairs_ties_and_all():
    """The whole replay and each of its pairs of judges name their acceptable judges by one
    rule (``recorded_world``): the best accuracy on the pairs, every judge of it where two tie,
    a pick of neither answer (0) wrong; checked against sklearn's accuracy."""
    from sklearn.metrics import accuracy_score

    truth = np.array([1, -1, 1, 1, -1, 1])
    picks = np.array([[1, 1, 1], [-1, -1, 1], [1, -1, 1], [0, 1, 1], [-1, -1, -1], [-1, 1, 1]])
    judges = ("x", "y", "z")
    world = recorded_world(judges, picks, truth, 0.0)
    accuracy = {j: accuracy_score(truth, picks[:, k]) for k, j in enumerate(judges)}
    assert accuracy == {"x": 4 / 6, "y": 5 / 6, "z": 5 / 6}
    assert world.acceptable == {"y", "z"} and world.name == "JudgeBench: x vs y vs z"
    two = labelling_person._sub_world(world, ("x", "y"))
    assert two.acceptable == {"y"} and two.picks.tolist() == picks[:, :2].tolist()
    assert labelling_person._sub_world(world, ("z", "y")).acceptable == {"y", "z"}


def test_a_person_labels_in_each_order_and_the_figures_add_up(tmp_path):
    judgebench_files(tmp_path, n=120)
    world = prepared(replay_world(sorted(tmp_path.glob("*judge_model=*.jsonl"))))
    assert sorted(world.today) == list(range(120))  # today's queue: each pair once
    assert world.probability.sum() == pytest.approx(1.0) and world.probability.min() > 0
    _, _, uniform = person_of(world, seed=1)
    assert sorted(uniform) == list(range(120))  # uniform order: each pair once
    person = label_person(world, seed=1, fixed=30)
    assert {(r.order, r.rule) for r in person.runs} == set(RULES)
    for run in person.runs:
        assert run.named in (None, "good") and not run.wrong
    figures = world_figures(world, range(3), fixed_seeds=1, fixed_budget=30)
    for order in ORDERS:
        assert 0 <= figures[f"{order} anytime: verdicts"] <= 1
    assert -1 <= figures["today bias"] <= 1 and 0 <= figures["new coverage"] <= 1


def test_the_quick_bench_prints_a_table_and_result_lines(tmp_path):
    done = run_bench_labels(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| order   | rule    |" in done.stdout and "### JudgeBench: bad vs good" in done.stdout
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    rows = json.loads(result[-1][len("RESULT ") :])
    figures = {row["figure"] for row in rows}
    assert "wrong picks under peeking, anytime rule (worst world and order)" in figures
    bias = next(r for r in rows if r["figure"].startswith("bias of the accuracy figure, new"))
    assert "20 queues" in bias["unit"] and "2 SE of 0" in bias["unit"]  # --quick's 20
    assert bias["verdict"] == ("met" if bias["value"] <= 0.01 else "MISSED")
    assert all(row["verdict"] in ("met", "MISSED", "") for row in rows)


def test_naming_either_of_two_equal_judges_is_a_wrong_pick():
    worlds = {s.name: synthetic_world(s, np.random.default_rng(0)) for s in SYNTHETIC}
    assert worlds["pairs: two equally good judges"].acceptable == frozenset()
    assert worlds["pairs: all judges bad"].acceptable == frozenset()
    assert worlds["pairs: one better by 0.15"].acceptable == {"a"}


def test_a_pick_is_also_judged_on_the_persons_own_answers():
    """Two judges equal in the scenario differ a little on a noisy person's answers over the run:
    naming the one better there is wrong by the scenario, not on the answers; naming the worse
    one is wrong on both; naming none is wrong on neither."""
    world = prepared(
        synthetic_world(
            next(s for s in SYNTHETIC if s.name == "pairs: two equally good judges"),
            np.random.default_rng(0),
        )
    )
    seed = 3
    rng = np.random.default_rng(seed)  # label_person's first draw: the person's answers
    answers = np.where(rng.random(len(world.truth)) < world.noise, -world.truth, world.truth)
    accuracy = (world.picks == answers[:, None]).mean(axis=0)
    better, worse = (world.judges[i] for i in np.argsort(-accuracy))
    assert accuracy.max() > accuracy.min()  # the run separates them, a little
    person = label_person(world, seed, fixed=0)
    for run in person.runs:
        assert run.wrong_on_answers == (run.named == worse)
    flags = [labelling_person.wrong_on(world, j, accuracy) for j in (better, worse, None)]
    assert flags == [False, True, False]


def _world(name: str) -> labelling_person.World:
    scenario = next(s for s in SYNTHETIC if s.name == name)
    return prepared(synthetic_world(scenario, np.random.default_rng(0)))


def test_the_bias_queue_draws_the_persons_first_draws(monkeypatch):
    """The bias figure's queue (``bias_draws``, run to ``BIAS_LABELS`` labels only) is the first
    labels of the queue ``label_person`` draws for the same seed: the person's queue is caught
    as ``label_person`` makes it."""
    world = _world("pairs: two equally good judges")  # no verdict soon: the queue runs long
    made = []

    def caught(*args, **kwargs):
        found = adaptive_run(*args, **kwargs)
        made.append(found[1])
        return found

    adaptive_run = labelling_person.adaptive_run
    monkeypatch.setattr(labelling_person, "adaptive_run", caught)
    label_person(world, seed=5, fixed=0)
    monkeypatch.undo()
    (full,) = made
    right, alone = bias_draws(world, seed=5)
    assert len(alone.picked) == BIAS_LABELS < len(full.picked)  # stopped early
    first = slice(0, BIAS_LABELS)
    np.testing.assert_array_equal(alone.picked[first], full.picked[first])
    np.testing.assert_array_equal(alone.probability[first], full.probability[first])
    np.testing.assert_array_equal(alone.bound[first], full.bound[first])
    assert alone.pair_bounds.keys() == full.pair_bounds.keys()
    for pair, bounds in alone.pair_bounds.items():
        np.testing.assert_array_equal(bounds[first], full.pair_bounds[pair][first])
    assert alone.shifts.keys() == full.shifts.keys()
    assert len(np.unique(full.probability[first])) > 1  # the design moved: a real queue
    assert len(set(full.picked.tolist())) == len(full.picked)  # without replacement
    assert right.shape == world.picks.shape
    other = bias_draws(world, seed=6)[1]
    assert not np.array_equal(other.picked[first], alone.picked[first])


def test_the_bias_is_the_queues_mean_error_with_its_standard_error():
    """The bias figure and its standard error over the queues, against scipy's ``sem`` of the
    same per-queue errors."""
    world = _world("pairs: one better by 0.15")
    seeds = range(10, 22)
    errors, covered = np.array([queue_errors(world, seed) for seed in seeds]).T
    figures = bias_figures(world, seeds)
    assert figures["new bias queues"] == 12
    assert figures["new bias"] == pytest.approx(np.mean(errors))
    assert figures["new bias SE"] == pytest.approx(stats.sem(errors))
    assert figures["new bias SE"] > 0 and len(set(errors)) > 1
    assert figures["new coverage"] == pytest.approx(np.mean(covered))
    assert 0 <= figures["new coverage"] <= 1


def test_the_disputed_share_is_where_two_judges_pick_differently(tmp_path):
    """|D| / N, counted from the two judges' right answers: where exactly one of them is right
    (each pair has one true answer, so right and wrong picks differ there and nowhere else);
    NaN with three judges, where no single D exists."""
    right = judgebench_files(tmp_path)
    world = replay_world(sorted(tmp_path.glob("*judge_model=*.jsonl")))
    expected = np.mean(right["good"] != right["bad"])
    assert labelling_person.disputed_share(world) == pytest.approx(expected)
    three = synthetic_world(
        next(s for s in SYNTHETIC if "four" in s.name), np.random.default_rng(0)
    )
    assert np.isnan(labelling_person.disputed_share(three))


def test_each_person_labels_a_run_of_their_own_drawn_from_the_scenario(tmp_path):
    """A synthetic world's person labels a run drawn anew from its scenario (one run drawn once
    for every person let that run's luck stand for the scenario's), the same run for the same
    seed, with the world's person (noise) and design; a replay is its one run."""
    world = replace(_world("pairs: two equally good judges"), noise=0.05)
    first, again, other = (person_world(world, s) for s in (3, 3, 4))
    assert np.array_equal(first.picks, again.picks) and np.array_equal(first.truth, again.truth)
    assert not np.array_equal(first.picks, other.picks)
    assert not np.array_equal(first.picks, world.picks)
    assert first.noise == 0.05 and first.scenario == world.scenario
    assert first.probability.sum() == pytest.approx(1.0) and sorted(first.today) == list(
        range(len(first.truth))
    )
    # the scenario's accuracies hold over runs (each judge right on about its quality of every
    # run), each run with its own luck
    accuracy = np.array(
        [
            (w.picks == w.truth[:, None]).mean(axis=0)
            for w in map(person_world, [world] * 8, range(8))
        ]
    )
    quality = np.array(list(world.scenario.quality.values()))
    assert np.abs(accuracy - quality).max() < 0.06 and accuracy.std(axis=0).min() > 0
    judgebench_files(tmp_path, n=40)
    replay = replay_world(sorted(tmp_path.glob("*judge_model=*.jsonl")))
    assert person_world(replay, 3) is replay


def test_under_a_margin_the_judges_within_it_may_be_shown_and_a_person_keeps_it():
    """``with_margin``: two equally good judges may both be shown within 0.05 (neither
    could be named better), one better by 0.15 only itself; a replay's by its accuracy on the
    pairs, above chance; each person's own run keeps the margin and the acceptable judges."""
    equal = with_margin(_world("pairs: two equally good judges"), 0.05)
    assert equal.acceptable == {"a", "b"} and equal.margin == 0.05
    assert with_margin(_world("pairs: one better by 0.15"), 0.05).acceptable == {"a"}
    assert with_margin(_world("pairs: all judges bad"), 0.05).acceptable == frozenset()
    own = person_world(equal, seed=4)
    assert own.margin == 0.05 and own.acceptable == {"a", "b"}
    truth = np.array([1, -1, 1, 1, -1, 1, 1, -1, 1, 1])
    picks = np.column_stack([truth, np.where(np.arange(10) < 1, -truth, truth), -truth])
    replay = with_margin(recorded_world(("x", "y", "z"), picks, truth, 0.0), 0.1)
    assert replay.acceptable == {"x", "y"}  # y 0.1 below x; z at 0, below chance


def test_a_judge_shown_within_the_margin_that_is_not_is_a_wrong_pick():
    """The margin's runs: a judge shown (any of ``within``) outside the acceptable ones is a
    wrong pick, on the people's seeds in every order; the figures add up."""
    world = with_margin(_world("pairs: one better by 0.15"), 0.05)
    wrong = replace(world, acceptable=frozenset({"b"}))  # as if only b were within it
    person = label_person(person_world(wrong, 1), 1, fixed=0)
    assert all(r.wrong == (r.named is not None) for r in person.runs)
    figures = margin_figures(_world("pairs: one better by 0.15"), 0.05, range(3))
    assert figures["acceptable"] == "a"
    for order in ORDERS:
        assert figures[f"{order} anytime: wrong pick"] == 0.0
        assert figures[f"{order} anytime: verdicts"] == 1.0


def test_the_quick_bench_under_a_margin_prints_a_table_and_margin_lines(tmp_path):
    done = run_bench_labels(tmp_path, "--margin", "0.1")
    assert done.returncode == 0, done.stderr
    assert "### JudgeBench: bad vs good, margin 0.1" in done.stdout
    lines = [line for line in done.stdout.splitlines() if line.startswith("MARGIN 0.1 (")]
    assert len(lines) == 3  # --quick: two synthetic worlds, one replay
    assert all("wrong picks (worst order)" in line for line in lines)
    assert not any(line.startswith("RESULT ") for line in done.stdout.splitlines())
