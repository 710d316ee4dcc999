"""Weighted figures that stand for all the run's samples (``stats.weighted``), against
statsmodels' WLS sandwich, scipy's t interval, and by simulation of the queue's design."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from judgegrid.analyses import hajek, hansen_hurwitz, uniform_probability


def _skewed_design(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A finite population of right/wrong values, hard samples drawn 5 times as often."""
    hard = rng.random(n) < 0.3
    values = np.where(hard, rng.random(n) < 0.4, rng.random(n) < 0.9).astype(float)
    q = np.where(hard, 5.0, 1.0)
    return values, q / q.sum()


def _replicate(estimate, draws: int, queues: int, seed: int):
    """``estimate`` (values, probabilities) on ``queues`` independent queues of ``draws`` from
    the skewed design: each queue's error against the population's mean, and whether its
    interval held it."""
    rng = np.random.default_rng(seed)
    values, q = _skewed_design(1000, rng)
    truth = values.mean()
    found = [
        estimate(values[p], q[p]) for p in (rng.choice(1000, draws, p=q) for _ in range(queues))
    ]
    errors = np.array([f.mean - truth for f in found])
    return errors, np.array([f.low <= truth <= f.high for f in found]), found


def test_hajek_matches_the_wls_sandwich_of_statsmodels():
    rng = np.random.default_rng(3)
    y = rng.random(80)
    q = rng.uniform(0.002, 0.05, 80)
    found = hajek(y, q)
    fit = sm.WLS(y, np.ones((80, 1)), weights=1 / q).fit(cov_type="HC1")
    assert found.mean == pytest.approx(fit.params[0], rel=1e-12)
    assert found.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert found.low < found.mean < found.high


def test_uniform_draws_give_the_plain_mean_and_scipys_t_interval():
    rng = np.random.default_rng(4)
    y = (rng.random(50) < 0.7).astype(float)
    found = hansen_hurwitz(y, np.full(50, uniform_probability(400)), 400)
    low, high = stats.t.interval(0.95, 49, loc=y.mean(), scale=stats.sem(y))
    assert found.mean == pytest.approx(y.mean())
    assert (found.low, found.high) == pytest.approx((low, high))


def test_hansen_hurwitz_is_unbiased_and_covers_under_the_skewed_design():
    """2,000 queues of 150 draws from one population: the mean error is within 3 Monte-Carlo
    SEs of 0 and the 95% interval holds the population's mean 93-97% of the time; the
    unweighted mean of the same kind of draws is visibly biased."""
    errors, covered, _ = _replicate(lambda y, q: hansen_hurwitz(y, q, 1000), 150, 2000, 5)
    assert abs(errors.mean()) < 3 * errors.std() / np.sqrt(len(errors))
    assert 0.93 <= covered.mean() <= 0.97
    naive, _, _ = _replicate(
        lambda y, q: hansen_hurwitz(y, np.full(len(y), 1e-3), 1000), 150, 200, 5
    )
    assert naive.mean() < -0.05  # the hard samples over-represented


def test_a_centre_keeps_it_unbiased_and_narrows_the_interval():
    errors, covered, _ = _replicate(
        lambda y, q: hansen_hurwitz(y, q, 1000, centre=0.5), 60, 2000, 7
    )
    _, _, plain = _replicate(lambda y, q: hansen_hurwitz(y, q, 1000), 60, 2000, 7)
    assert abs(errors.mean()) < 3 * errors.std() / np.sqrt(len(errors))
    assert 0.93 <= covered.mean() <= 0.97
    assert errors.std() < 0.8 * np.mean([f.se for f in plain])


def test_hajek_covers_under_the_skewed_design():
    errors, covered, _ = _replicate(hajek, 150, 1500, 6)
    assert abs(errors.mean()) < 0.01
    assert 0.93 <= covered.mean() <= 0.97


def test_bad_draws_are_refused_with_the_field_named():
    with pytest.raises(ValueError, match="probabilities"):
        hansen_hurwitz(np.ones(3), np.array([0.1, 0.0, 0.2]), 10)
    with pytest.raises(ValueError, match="values: NaN"):
        hajek(np.array([1.0, np.nan]), np.array([0.1, 0.1]))
    with pytest.raises(ValueError, match="population"):
        uniform_probability(0)
