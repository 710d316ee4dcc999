"""The intervals, each written once (stats/intervals.py), against independent implementations:
Wilson's against scipy's binomtest and statsmodels, Fisher's z for rho and tau-b against the
formula's published worked values, the bootstrap mean's against scipy.stats.bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from judgegrid.analyses.stats.intervals import (
    accuracy_interval,
    mean_interval,
    rho_interval,
    tau_interval,
    wilson_interval,
)


@pytest.mark.parametrize(("k", "n"), [(8, 10), (0, 7), (44, 44), (30, 44), (1, 1)])
def test_wilson_interval_matches_scipy(k, n):
    oracle = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(k, n)
    assert low == pytest.approx(oracle.low, abs=1e-12)
    assert high == pytest.approx(oracle.high, abs=1e-12)
    assert all(np.isnan(wilson_interval(0, 0)))


def test_tau_interval_is_undefined_at_one_even_a_rounding_error_short():
    """A perfect ranking computed as 0.9999999999999998 must not get the interval [1, 1]."""
    assert all(np.isnan(tau_interval(t, 10)).all() for t in (1.0, 1 - 1e-15, -1 + 1e-15))
    low, high = tau_interval(0.5, 10)
    assert -1 < low < 0.5 < high < 1


@pytest.mark.parametrize("looks", [1, 3, 8])
@pytest.mark.parametrize(("k", "n"), [(9, 12), (0, 5), (5, 5), (17, 40)])
def test_wilson_at_the_cards_bonferroni_levels_matches_statsmodels(k, n, looks):
    """The card widens an interval to 1 - 0.05/looks; statsmodels at the same alpha."""
    level = 1 - 0.05 / looks
    low, high = wilson_interval(k, n, level)
    oracle = proportion_confint(k, n, alpha=1 - level, method="wilson")
    assert (low, high) == pytest.approx(oracle, abs=1e-12)
    assert accuracy_interval(k / n, n, level) == (low, high)


def test_none_of_n_and_n_of_n_end_exactly_at_zero_and_one():
    """The formula leaves dust there (5.6e-17 for 0 of 3), which a table would print."""
    assert wilson_interval(0, 3)[0] == 0.0
    assert wilson_interval(3, 3)[1] == 1.0


def _coverage(interval, true_value, statistic, n, rho, sims=1500, seed=7):
    rng = np.random.default_rng(seed)
    cov = [[1, rho], [rho, 1]]
    hits = 0
    for _ in range(sims):
        x, y = rng.multivariate_normal([0, 0], cov, size=n).T
        low, high = interval(statistic(x, y).statistic, n)
        hits += low <= true_value <= high
    return hits / sims


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_the_rho_interval_covers_the_true_spearman_rho_95_percent_of_the_time(rho):
    """By simulation from a bivariate normal, whose Spearman rho is (6/pi) asin(rho/2)."""
    true = 6 / np.pi * np.arcsin(rho / 2)
    assert 0.93 <= _coverage(rho_interval, true, stats.spearmanr, 30, rho) <= 0.97


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_the_tau_interval_covers_the_true_kendall_tau_95_percent_of_the_time(rho):
    """By simulation from a bivariate normal, whose Kendall tau is (2/pi) asin(rho)."""
    true = 2 / np.pi * np.arcsin(rho)
    assert 0.93 <= _coverage(tau_interval, true, stats.kendalltau, 30, rho) <= 0.97


def test_the_intervals_are_undefined_below_their_items_and_at_one():
    assert all(np.isnan(rho_interval(0.5, 3)))
    assert all(np.isnan(tau_interval(0.5, 4)))
    assert all(np.isnan(rho_interval(1.0, 30)))
    assert not any(np.isnan(rho_interval(0.5, 4)))


def test_the_mean_interval_matches_scipys_percentile_bootstrap():
    values = np.random.default_rng(3).normal(0.6, 0.2, size=40)
    low, high = mean_interval(values)
    oracle = stats.bootstrap(
        (values,), np.mean, n_resamples=20000, method="percentile", random_state=1
    ).confidence_interval
    assert low == pytest.approx(oracle.low, abs=0.01)
    assert high == pytest.approx(oracle.high, abs=0.01)
    assert all(np.isnan(mean_interval(values[:2])))
