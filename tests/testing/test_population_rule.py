"""The superpopulation prototype of the new queue's rule (``testing.population_rule``): the kind
weights' expectation by enumeration, the fill and the freeze of a kind all labelled, the designs
uniform within a kind, and the rule's error rate under a null by simulation (scipy's binomial
tail)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from judgegrid.analyses import Standing, adaptive_probability, first_rejections, hypotheses_of
from judgegrid.testing.labelling_person import CHANCE, World, prepared
from judgegrid.testing.population_rule import (
    FILL,
    FREEZE,
    LOOSE,
    Labels,
    kind_chances,
    kind_weights,
    label_bounds,
    lowest_values,
    moving_kinds,
    pool_kinds,
    population_verdict,
    queue_run,
    resampled_world,
    states_of_tests,
)


def _pool(rng: np.random.Generator, n: int = 60) -> np.ndarray:
    """Two judges' picks (+1, -1 or 0 for neither) on ``n`` pairs, every pattern present."""
    patterns = np.array([(a, b) for a in (1, -1, 0) for b in (1, -1, 0)])
    return np.concatenate([patterns, patterns[rng.integers(0, len(patterns), n - 9)]])


def _expected(q: np.ndarray, labelled: np.ndarray, value: np.ndarray) -> float:
    """E[weight * value] over the next label, by enumerating every unlabelled sample."""
    kinds = pool_kinds(PICKS)
    weight = kind_weights(kinds, kind_chances(q, kinds, labelled))[kinds.of_sample]
    open_q = np.where(labelled, 0.0, q)
    chance = open_q / open_q.sum()
    drawable = ~labelled
    return float(np.sum(chance[drawable] * weight[drawable] * value[kinds.of_sample][drawable]))


PICKS = _pool(np.random.default_rng(0))


def test_kind_weights_give_the_population_mean_under_any_design():
    """Whatever the design (here not even uniform within a kind) and the labels so far, while
    every kind is drawable the weighted value's expectation is sum_x p_x m(x)."""
    rng = np.random.default_rng(1)
    kinds = pool_kinds(PICKS)
    means = rng.uniform(-1, 1, len(kinds.shares))  # each kind's mean in the population
    share = [np.all(pattern == PICKS, axis=1).mean() for pattern in kinds.picks]
    direct = float(np.dot(share, means))
    for _ in range(5):
        q = rng.uniform(0.1, 1, len(PICKS))
        labelled = np.zeros(len(PICKS), bool)
        labelled[9:][rng.random(len(PICKS) - 9) < 0.6] = True  # the first of each kind open
        assert _expected(q, labelled, means) == pytest.approx(direct, rel=1e-12)


def test_the_fill_keeps_the_mean_at_most_the_populations_once_a_kind_runs_out():
    """With a kind all labelled the weighted mean covers the drawable kinds alone; the shift
    ``states_of_tests`` adds (the kind's share times its lowest value) brings it to at most the
    population's, for every mean the kind could have between its lowest and highest values."""
    kinds = pool_kinds(PICKS)
    judges = ("a", "b")
    gone = int(np.flatnonzero((kinds.picks == (1, 0)).all(axis=1))[0])  # a picks a, b neither
    labelled = kinds.of_sample == gone
    q = np.random.default_rng(2).uniform(0.1, 1, len(PICKS))
    rho = kind_chances(q, kinds, labelled)
    assert rho[gone] == 0 and (rho[np.arange(len(rho)) != gone] > 0).all()
    lowest = lowest_values(kinds, judges)
    states = states_of_tests(FILL, kinds, rho, lowest, label_bounds(kinds, rho, judges))
    # "a beats b" on that kind gives 1 (answer a) or 0 (answer b): its lowest is 0, no shift
    assert lowest[("a", "b")][gone] == 0 and states[("a", "b")] == (0.0, False)
    assert lowest[("b", "a")][gone] == -1
    shift, frozen = states[("b", "a")]
    assert not frozen and shift == pytest.approx(-kinds.shares[gone])
    difference = np.where(kinds.picks[:, 0] != kinds.picks[:, 1], 0.3, 0.0)  # b minus a
    for m in (-1.0, -0.5, 0.0):  # the lost kind's mean of b minus a, within [-1, 0]
        means = difference.copy()
        means[gone] = m
        population = float(np.sum(kinds.shares * means))
        assert _expected(q, labelled, means) + shift <= population + 1e-12


def test_freezing_waits_on_the_kinds_a_test_moves_on():
    """A kind where both judges pick alike, all labelled, freezes the tests against chance
    (every kind moves them) and not the pair's; one where they differ freezes both."""
    kinds = pool_kinds(PICKS)
    judges = ("a", "b")
    moving = moving_kinds(kinds, judges)
    for pattern, pair_frozen in (((1, 1), False), ((1, -1), True)):
        gone = int(np.flatnonzero((kinds.picks == pattern).all(axis=1))[0])
        rho = kind_chances(np.ones(len(PICKS)), kinds, kinds.of_sample == gone)
        states = states_of_tests(FREEZE, kinds, rho, moving, label_bounds(kinds, rho, judges))
        assert states[("a", None)] == (0.0, True) and states[("b", None)] == (0.0, True)
        assert states[("a", "b")] == (0.0, pair_frozen)
    rho = kind_chances(np.ones(len(PICKS)), kinds, np.zeros(len(PICKS), bool))
    states = states_of_tests(LOOSE, kinds, rho, moving, label_bounds(kinds, rho, judges))
    assert not any(frozen for _, frozen in states.values())


def test_a_frozen_test_keeps_the_capital_it_had():
    """A test that would first cross at label c: frozen from label c on, it never rejects;
    frozen from c + 1 on, it rejects at c as the product's betting does on the raw values."""
    judges = ("a", "b")
    n = 40
    right = np.column_stack([np.ones(n), np.zeros(n)])  # a right, b wrong: "a beats b" crosses
    weight = np.ones(n)
    tests = hypotheses_of(judges, 1.0, CHANCE)
    crossing = first_rejections(tests, judges, right, weight, CHANCE)[("a", "b")]
    assert 0 < crossing < n
    for frozen_from, expected in ((crossing, 0), (crossing + 1, crossing)):
        frozen = np.arange(1, n + 1) >= frozen_from
        labels = _labels(n, {("a", "b"): frozen})
        firsts = population_verdict(judges, right, labels)
        assert (("a", "b") in firsts.beaten) == (expected > 0)


def _labels(n: int, frozen: dict[tuple[str, str | None], np.ndarray]) -> Labels:
    """Labels 0..n-1 of weight 1, bounds 1, nothing shifted, frozen as given (else open)."""
    keys = [("a", None), ("b", None), ("a", "b"), ("b", "a")]
    return Labels(
        np.arange(n),
        np.ones(n),
        np.ones(n),
        {("a", "b"): np.ones(n)},
        {k: np.zeros(n) for k in keys},
        {k: frozen.get(k, np.zeros(n, bool)) for k in keys},
    )


def test_the_designs_are_uniform_within_a_kind():
    """The base design (``prepared``) and the adaptive one read the picks alone, so every
    sample of a kind has the same probability: a kind's weight is then every member's."""
    world = _world(np.random.default_rng(3), (0.8, 0.7), 200)
    kinds = pool_kinds(world.picks)
    answers = world.picks.astype(float)
    designs = [world.probability]
    designs += [
        adaptive_probability(world.probability, answers, Standing(0, c, (1,))) for c in (0, 1)
    ]
    for q in designs:
        for x in range(len(kinds.shares)):
            assert np.ptp(q[kinds.of_sample == x]) == pytest.approx(0.0, abs=1e-15)


def _world(rng: np.random.Generator, quality: tuple[float, float], n: int) -> World:
    """A fresh pool of ``n`` pairs, two judges right with ``quality`` each, independently."""
    truth = np.where(rng.random(n) < 0.5, 1, -1)
    right = np.column_stack([rng.random(n) < q for q in quality])
    picks = np.where(right, truth[:, None], -truth[:, None])
    best = frozenset({"a"} if quality[0] > quality[1] else ())
    return prepared(World("test", ("a", "b"), picks, truth, best, noise=0.0))


def _wrong_picks(quality: tuple[float, float], people: int) -> tuple[int, int]:
    """Over ``people`` fresh pools of 60 pairs (all labelled by the end): verdicts, wrong."""
    verdicts = wrong = 0
    for seed in range(people):
        world = _world(np.random.default_rng((7, seed)), quality, 60)
        right = (world.picks == world.truth[:, None]).astype(float)
        run, _ = queue_run(world, right, np.random.default_rng((8, seed)))
        verdicts += run.named is not None
        wrong += run.wrong
    return verdicts, wrong


def test_the_rule_keeps_its_error_under_a_null_for_fresh_pools():
    """Two equally good judges, a fresh pool per person, the queue labelling every pair: naming
    either is an error the rule bounds by its two paired tests' alpha (0.05 / 4 each); the
    count must not be improbably high for that rate (binomial tail). The same people with one
    judge much better get verdicts, so the rule is not merely silent."""
    people = 120
    _, wrong = _wrong_picks((0.8, 0.8), people)
    assert stats.binom.sf(wrong - 1, people, 0.025) > 0.001
    verdicts, wrong_better = _wrong_picks((0.95, 0.55), 20)
    assert verdicts >= 10 and wrong_better == 0


def test_a_resampled_pool_keeps_each_pair_with_its_truth():
    """``resampled_world`` draws whole pairs (picks and truth together) from the replay's, so
    every kind's share of truths stays the replay's, up to the draw."""
    world = _world(np.random.default_rng(4), (0.9, 0.6), 50)
    pool = resampled_world(world, seed=0, size=1000)
    rows = {tuple(r) for r in np.column_stack([world.picks, world.truth])}
    drawn = np.column_stack([pool.picks, pool.truth])
    assert len(pool.truth) == 1000 and all(tuple(r) in rows for r in drawn)
    accuracy = (pool.picks == pool.truth[:, None]).mean(axis=0)
    original = (world.picks == world.truth[:, None]).mean(axis=0)
    assert accuracy == pytest.approx(original, abs=0.05)
    assert pool.probability.sum() == pytest.approx(1.0)
