"""The uniform share that reads which of the leader's tests binds (``decision.binding``):
uniform when the test against chance binds, the phase's share when a rival binds, and its
model of a test's spread and of the best share checked against draws from the design and
against scipy's continuous search."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from judgegrid.analyses.decision.binding import (
    LeaderTests,
    binding_share,
    growth,
    slowest_growth,
)

N = 1000


def _apart(*sets: tuple[int, int]) -> np.ndarray:
    """Samples x rivals: rival r differs from the leader on samples ``sets[r]`` (start, stop)."""
    apart = np.zeros((N, len(sets)), bool)
    for r, (start, stop) in enumerate(sets):
        apart[start:stop, r] = True
    return apart


def test_with_the_chance_test_binding_the_draws_go_uniform():
    # the rival far behind where it differs; the leader barely above chance
    assert binding_share(LeaderTests(_apart((0, 300)), (0.25,), chance_gap=0.04), 0.4) == 1.0
    # under a margin the paired test is easy even for a rival level with the leader: near
    # uniform, as far as the paired test, learning only where the two differ, allows
    level = LeaderTests(_apart((0, 300)), (0.1,), chance_gap=0.1, margin=0.1)
    assert binding_share(level, 0.4) >= 0.8


def test_with_a_rival_binding_the_share_stays_the_phases():
    close = LeaderTests(_apart((0, 100), (100, 300)), (0.03, 0.3), chance_gap=0.35)
    assert binding_share(close, 0.4) == 0.4
    assert binding_share(LeaderTests(_apart((0, 100)), (0.05,), None), 0.05) == 0.05


def test_the_share_is_never_below_the_floor_and_always_one_tried():
    rng = np.random.default_rng(3)
    for _ in range(40):
        rivals = int(rng.integers(1, 4))
        apart = rng.random((N, rivals)) < rng.uniform(0.02, 0.5, rivals)
        gaps = tuple(rng.uniform(0.01, 0.4, rivals))
        chance_gap = None if rng.random() < 0.5 else float(rng.uniform(0.01, 0.4))
        floor = float(rng.choice([0.05, 0.4]))
        share = binding_share(LeaderTests(apart, gaps, chance_gap, margin=0.05), floor)
        assert floor <= share <= 1.0


def test_an_empty_focus_or_a_gap_short_is_refused():
    with pytest.raises(ValueError, match="apart"):
        binding_share(LeaderTests(np.zeros((N, 1), bool), (0.1,), None), 0.05)
    with pytest.raises(ValueError, match="apart"):
        binding_share(LeaderTests(_apart((0, 10), (5, 20)), (0.1,), None), 0.05)


def test_the_paired_tests_spread_is_that_of_draws_from_the_design():
    """The model's growth ``gap^2 / (2 S)`` (a bet below its cap) against ``S`` measured on
    200,000 draws from the design (30% uniform, the rest over the 400 samples where the two
    differ), each weighted ``1 / (N q)``, the leader right or wrong there."""
    tests = LeaderTests(_apart((0, 400)), (0.1,), None)
    differ = np.arange(N) < 400
    q = 0.3 / N + 0.7 * differ / 400
    rng = np.random.default_rng(0)
    drawn = rng.choice(N, size=200_000, p=q)
    sign = np.where(rng.random(len(drawn)) < 0.5 + 0.1 * N / 800, 1.0, -1.0)  # mean gap 0.1
    values = differ[drawn] * sign / (N * q[drawn])
    assert values.mean() == pytest.approx(0.1, abs=0.01)
    modelled = slowest_growth(tests, np.array([0.3]))[0]
    assert modelled == pytest.approx(0.1**2 / (2 * (values**2).mean()), rel=0.02)


def test_the_chance_tests_spread_is_that_of_draws_from_the_design():
    """Against chance (no rival binding: a rival far ahead), the model's ``S`` against the
    mean of ``(w (right - 1/2))^2`` on 200,000 draws, the leader right 70% of the time."""
    tests = LeaderTests(_apart((0, 200)), (5.0,), chance_gap=0.2)
    differ = np.arange(N) < 200
    q = 0.6 / N + 0.4 * differ / 200
    rng = np.random.default_rng(1)
    drawn = rng.choice(N, size=200_000, p=q)
    values = (rng.random(len(drawn)) < 0.7) - 0.5
    second = ((values / (N * q[drawn])) ** 2).mean()
    below = 0.5 / 0.6  # chance times the largest weight, 1 / share outside the focus
    assert slowest_growth(tests, np.array([0.6]))[0] == pytest.approx(
        growth(0.2, np.array([second]), np.array([below]))[0], rel=0.02
    )


def test_the_grid_finds_the_best_share_as_a_continuous_search_does():
    """One rival and chance: the slowest growth over the share maximised by scipy's bounded
    scalar search, against the grid's choice."""
    tests = LeaderTests(_apart((0, 250)), (0.2,), chance_gap=0.12)

    def slowest(share: float) -> float:
        return -float(slowest_growth(tests, np.array([share]))[0])

    found = optimize.minimize_scalar(slowest, bounds=(0.05, 1.0), method="bounded")
    chosen = binding_share(tests, 0.05)
    assert -slowest(chosen) >= -found.fun * 0.9
    assert abs(chosen - found.x) <= 0.1


def test_a_bet_capped_by_wide_bounds_grows_slower():
    free = growth(0.1, np.array([0.5]), np.array([0.5]))  # Kelly 0.2, cap 1
    capped = growth(0.1, np.array([0.5]), np.array([10.0]))  # cap 0.05
    assert free[0] == pytest.approx(0.1**2 / (2 * 0.5))
    assert capped[0] == pytest.approx(0.05 * 0.1 - 0.05**2 * 0.5 / 2)
