"""The floors under the labels goals (``testing.label_floors``): the oracle's allocation against a
brute-force grid, its design's weighted difference unbiased (an exact expectation over the
design), two judges giving uniform draws over their disagreements, the person's noise, the
oracle with the chance test required (its mixture's weighted accuracies and differences
unbiased, its bounds, the chance test holding back a judge at chance, the scan's minimum), and
the bench's ``--floors`` smoke run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from judgegrid.testing import label_floors
from judgegrid.testing.label_floors import (
    best_share,
    chance_design,
    chance_designs,
    named_at,
    oracle_chance_run,
    oracle_design,
    oracle_designs,
    oracle_run,
    paired_alone_run,
)
from judgegrid.testing.labelling_person import (
    BUDGET,
    NOISE,
    SYNTHETIC,
    World,
    censored_median,
    person_of,
    synthetic_world,
)
from support.judgebench_files import run_bench_labels

ROOT = Path(__file__).resolve().parents[2]


def _toy() -> World:
    """Three judges on 200 pairs (truth always a), judge 0 the best: 30 pairs where only rival 1
    differs from it (it right on 24), 50 where only rival 2 does (35), 20 where both do (15),
    100 where all agree (70 right)."""
    right = np.zeros((200, 3), bool)
    blocks = [  # (pairs, best right, which rivals differ)
        (30, 24, (1,)),
        (50, 35, (2,)),
        (20, 15, (1, 2)),
        (100, 70, ()),
    ]
    at = 0
    for count, best_right, apart in blocks:
        rows = slice(at, at + count)
        right[rows, 0] = np.arange(count) < best_right
        for j in (1, 2):
            right[rows, j] = ~right[rows, 0] if j in apart else right[rows, 0]
        at += count
    picks = np.where(right, 1, -1)
    return World("toy", ("best", "r1", "r2"), picks, np.ones(200, int), frozenset({"best"}), 0.0)


def _exact_worst(world: World, probability: np.ndarray) -> float:
    """The largest over rivals of a draw's variance over squared mean of the weighted difference
    ``(right_b - right_r) / (N q)``, summed sample by sample over the design (no kinds)."""
    right = (world.picks == world.truth[:, None]).astype(float)
    n = len(right)
    drawn = probability > 0
    worst = 0.0
    for r in range(1, right.shape[1]):
        d = right[drawn, 0] - right[drawn, r]
        q = probability[drawn]
        x = d / (n * q)
        mean = float(np.sum(q * x))
        worst = max(worst, (float(np.sum(q * x**2)) - mean**2) / mean**2)
    return worst


def test_the_allocation_is_the_best_on_a_brute_force_grid_over_three_kinds():
    world = _toy()
    design = oracle_design(world, "best")
    kinds = label_floors.kinds_of(world.picks, 0)
    assert sorted(kinds.sizes) == [20, 30, 50]
    step = 0.005
    best_seen, best_at = np.inf, None
    for first in np.arange(step, 1, step):
        for second in np.arange(step, 1 - first, step):
            allocation = np.array([first, second, 1 - first - second])
            probability = np.zeros(200)
            drawn = kinds.of_sample >= 0
            probability[drawn] = (allocation / kinds.sizes)[kinds.of_sample[drawn]]
            found = _exact_worst(world, probability)
            if found < best_seen:
                best_seen, best_at = found, allocation
    assert _exact_worst(world, design.probability) <= best_seen + 1e-9
    assert _exact_worst(world, design.probability) >= best_seen - 0.01 * best_seen
    np.testing.assert_allclose(design.allocation, best_at, atol=2 * step)
    assert design.worst == pytest.approx(_exact_worst(world, design.probability), rel=1e-9)
    # and better than drawing uniformly over the union (the allocation by the kinds' sizes)
    assert design.worst < label_floors.worst_ratio(
        kinds.sizes / kinds.sizes.sum(),
        kinds,
        label_floors.rival_differences(world, 0, kinds.rivals),
        200,
    )


def test_two_judges_draw_uniformly_where_they_differ_and_nowhere_else():
    world = synthetic_world(
        next(s for s in SYNTHETIC if s.name == "pairs: one better by 0.15"),
        np.random.default_rng(2),
    )
    design = oracle_design(world, "a")
    apart = world.picks[:, 0] != world.picks[:, 1]
    assert design.allocation.tolist() == [1.0]
    np.testing.assert_allclose(design.probability[apart], 1 / apart.sum())
    assert not design.probability[~apart].any()
    assert design.pair_bounds[("a", "b")] == pytest.approx(apart.sum() / len(apart))


def test_the_oracles_weighted_difference_is_unbiased_and_its_single_accuracies_are_not():
    """Over the four judges' oracle design, on a noisy person's answers: the exact expectation of
    a draw's ``(right_b - right_r) / (N q)`` is the run's difference for every rival (0 where
    the design never draws: the two pick alike there); the best's weighted accuracy is not its
    accuracy (why the oracle is given the chance test)."""
    world = synthetic_world(
        next(s for s in SYNTHETIC if "four" in s.name), np.random.default_rng(0)
    )
    design = oracle_design(world, "a")
    _, right, _ = person_of(world, seed=7)
    n = len(right)
    q = design.probability
    drawn = q > 0
    assert 0 < drawn.sum() < n and q.sum() == pytest.approx(1.0)
    for r in range(1, 4):
        d = right[:, 0] - right[:, r]
        expected = float(np.sum(q[drawn] * d[drawn] / (n * q[drawn])))
        assert expected == pytest.approx(d.mean(), abs=1e-12)
        assert d.mean() > 0.05  # a difference to find, not a trivial 0
    accuracy = float(np.sum(q[drawn] * right[drawn, 0] / (n * q[drawn])))
    assert abs(accuracy - right[:, 0].mean()) > 0.05


def test_the_persons_noise_at_its_default_is_todays_person():
    world = synthetic_world(SYNTHETIC[0], np.random.default_rng(0))
    assert world.noise == NOISE == 0.1
    explicit = replace(world, noise=0.1)
    _, today, uniform = person_of(world, seed=4)
    _, same, same_uniform = person_of(explicit, seed=4)
    np.testing.assert_array_equal(today, same)
    np.testing.assert_array_equal(uniform, same_uniform)
    _, truthful, _ = person_of(replace(world, noise=0.0), seed=4)
    np.testing.assert_array_equal(truthful, world.picks == world.truth[:, None])
    _, half, _ = person_of(replace(world, noise=0.05), seed=4)
    flipped = {
        name: float(np.mean(answers != truthful))
        for name, answers in (("0.1", today), ("0.05", half))
    }
    assert 0 < flipped["0.05"] < flipped["0.1"]


def test_a_judge_is_named_when_its_paired_tests_all_reject_chance_not_asked():
    firsts = {
        ("a", "b"): 30,
        ("a", "c"): 50,
        ("a", None): 0,  # chance never rejected: given free here
        ("b", "a"): 0,
        ("b", "c"): 10,
        ("c", "a"): 0,
        ("c", "b"): 0,
    }
    assert named_at(firsts, ("a", "b", "c")) == ("a", 50)
    assert named_at(firsts, ("b",)) == (None, 0)


def test_the_oracles_name_the_best_sooner_than_uniform_order():
    """Over 8 people (a person's oracle may be slower than uniform order by luck: the median
    over them, censored at the budget as the bench reads it)."""
    world = synthetic_world(
        next(s for s in SYNTHETIC if "four" in s.name), np.random.default_rng(0)
    )
    designs = oracle_designs(world, "a")
    assert len(designs) == 7  # every non-empty set of the three rivals
    seeds = range(8)
    uniform = [paired_alone_run(world, seed) for seed in seeds]
    fixed = [oracle_run(world, seed, designs) for seed in seeds]
    dropping = [oracle_run(world, seed, designs, drop=True) for seed in seeds]
    assert all(r.named == "a" and r.labels > 0 and not r.wrong for r in fixed + dropping)
    assert censored_median(fixed, BUDGET) < censored_median(uniform, BUDGET)
    assert censored_median(dropping, BUDGET) < censored_median(uniform, BUDGET)


def _four_judges() -> World:
    return synthetic_world(next(s for s in SYNTHETIC if "four" in s.name), np.random.default_rng(0))


@pytest.mark.parametrize("rivals", [None, ("b",), ("b", "c")])
def test_the_mixture_with_the_rest_weighs_every_accuracy_and_difference_without_bias(rivals):
    """By exact expectation over the mixture ``(1 - s) q_oracle + s uniform over the rest``: a
    draw's ``right_j / (N q)`` has mean judge j's accuracy on the run and ``(right_b - right_r) /
    (N q)`` the difference, for every judge and rival (the oracle's own design fails the first:
    ``test_the_oracles_weighted_difference_is_unbiased_and_its_single_accuracies_are_not``)."""
    world = _four_judges()
    share = 0.1
    base = oracle_design(world, "a", rivals)
    mixed = chance_design(world, base, "a", share)
    _, right, _ = person_of(world, seed=7)
    n = len(right)
    q = mixed.probability
    assert (q > 0).all() and q.sum() == pytest.approx(1.0)
    rest = base.probability == 0
    assert q[rest].sum() == pytest.approx(share)
    np.testing.assert_allclose(q[~rest], (1 - share) * base.probability[~rest])
    for j in range(4):
        assert float(np.sum(q * right[:, j] / (n * q))) == pytest.approx(right[:, j].mean())
        d = right[:, 0] - right[:, j]
        assert float(np.sum(q * d / (n * q))) == pytest.approx(d.mean(), abs=1e-12)
    # the bounds: the largest weight (the rest's, s spread thin) and where a and b differ
    weight = 1 / (n * q)
    assert mixed.largest == pytest.approx(rest.sum() / (n * share)) == pytest.approx(weight.max())
    apart = world.picks[:, 0] != world.picks[:, 1]
    assert mixed.pair_bounds[("a", "b")] == pytest.approx(weight[apart].max())
    assert mixed.pair_bounds[("a", "b")] < mixed.largest


def test_no_rival_left_draws_uniformly_over_every_sample():
    world = _four_judges()
    mixed = chance_design(world, None, "a", 0.3)
    np.testing.assert_allclose(mixed.probability, 1 / len(world.truth))
    assert mixed.largest == pytest.approx(1.0)


def _at_chance() -> World:
    """Two judges on 400 pairs (truth always a): the best right on 200 (chance), the rival on
    120: on the 160 where they differ the best is right on 120 of them."""
    right = np.zeros((400, 2), bool)
    right[:120, 0] = True  # differ: best right
    right[120:160, 1] = True  # differ: rival right
    right[160:240, :] = True  # agree, both right; 240-400 agree, both wrong
    picks = np.where(right, 1, -1)
    return World("at chance", ("best", "rival"), picks, np.ones(400, int), frozenset({"best"}), 0.0)


def test_the_chance_test_required_holds_back_a_best_judge_at_chance():
    """Chance given free, the oracle names the best for every person; with the chance test
    required it names it no more often than the chance test's alpha (0.05 / 4) allows over
    12 people in 3 variants (scipy's binomial tail: a rare person may be named by luck)."""
    world = _at_chance()
    designs = oracle_designs(world, "best")
    mixed = chance_designs(world, designs, (0.2, 0.05))
    seeds = range(12)
    assert all(oracle_run(world, seed, designs).named == "best" for seed in seeds)
    found = [
        oracle_chance_run(world, seed, mixed, shares, drop)
        for seed in seeds
        for shares, drop in (((0.2, 0.2), False), ((0.2, 0.2), True), ((0.2, 0.05), True))
    ]
    named = sum(r.named is not None for r in found)
    assert all((r.named, r.labels) in ((None, 0), ("best", r.labels)) for r in found)
    assert stats.binom.sf(named - 1, len(found), 0.05 / 4) > 0.001


def test_the_chance_test_required_names_the_best_of_four_judges():
    world = _four_judges()
    designs = oracle_designs(world, "a")
    mixed = chance_designs(world, designs, (0.2, 0.05))
    for seed in range(3):
        for shares, drop in (((0.2, 0.2), False), ((0.2, 0.2), True), ((0.2, 0.05), True)):
            found = oracle_chance_run(world, seed, mixed, shares, drop)
            assert found.named == "a" and found.labels > 0 and not found.wrong
            assert found.rule == "anytime"


def test_the_scan_picks_the_fewest_labels_the_first_on_a_tie():
    scan = {(0.01, 0.01): float("inf"), (0.1, 0.1): 180.0, (0.2, 0.2): 150.0, (0.3, 0.3): 150.0}
    assert best_share(scan) == ((0.2, 0.2), 150.0)
    assert best_share({(0.5, 0.01): float("inf")}) == ((0.5, 0.01), float("inf"))


def test_the_quick_bench_prints_the_floors(tmp_path):
    done = run_bench_labels(tmp_path, "--floors")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert not any(line.startswith("RESULT ") for line in lines)
    floors = [line for line in lines if line.startswith("FLOOR ")]
    assert any("(b) oracle" in line and "bad vs good" in line for line in floors)
    assert sum("wrong picks" in line for line in floors) == 6  # 3 noises x 2 orders
    required = [line for line in floors if "chance test required" in line]
    assert required and all("two-phase dropping, best s1" in line for line in required)
    assert "| s1 0.4, s2 0.05" in done.stdout
    assert "| (a) uniform order, paired tests alone (chance free)" in done.stdout
    assert "load average at start" in done.stdout
    json.dumps(floors)  # plain text lines
