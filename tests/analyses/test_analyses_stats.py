"""The reliability statistics against independent implementations (test-only oracles):
pingouin for ICC, the krippendorff package for alpha, scipy for tau-b, Spearman and Wilson
intervals, scikit-learn for Cohen's kappa; on random data and on edge cases."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from judgegrid.analyses.consistency.agreement import pair_statistics
from judgegrid.analyses.stats.categorical import alpha_report as krippendorff_alpha_interval
from judgegrid.analyses.stats.categorical import pass_fail_kappa as cohen_kappa
from judgegrid.analyses.stats.correlation import spearman_with_ci
from judgegrid.analyses.stats.icc import icc, spearman_brown_needed
from judgegrid.analyses.stats.intervals import tau_interval as tau_ci
from judgegrid.analyses.stats.intervals import wilson_interval


def pingouin_icc(table: np.ndarray) -> pd.DataFrame:
    n, k = table.shape
    long = pd.DataFrame(
        {
            "target": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": table.ravel(),
        }
    )
    return pg.intraclass_corr(long, "target", "rater", "score", nan_policy="omit").set_index("Type")


def assert_icc_matches(table: np.ndarray) -> None:
    ours = icc(table)
    oracle = pingouin_icc(table)
    for kind, key in (("ICC(1,1)", "icc1"), ("ICC(A,1)", "icc2"), ("ICC(C,1)", "icc3")):
        assert ours[key] == pytest.approx(oracle.loc[kind, "ICC"], abs=1e-9), kind
        low, high = oracle.loc[kind, "CI95"]  # pingouin rounds its intervals to 2 decimals
        assert ours[f"{key}_low"] == pytest.approx(low, abs=0.0051), kind
        assert ours[f"{key}_high"] == pytest.approx(high, abs=0.0051), kind


@pytest.mark.parametrize("seed", range(6))
def test_icc_matches_pingouin_on_random_tables(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(5, 40), rng.integers(2, 6)
    truth = rng.normal(size=(n, 1))
    table = truth + rng.normal(scale=rng.uniform(0.2, 2), size=(n, k)) + rng.normal(size=k)
    assert_icc_matches(table)


def test_icc_with_ties_matches_pingouin():
    rng = np.random.default_rng(7)
    table = rng.integers(0, 3, size=(25, 3)).astype(float) / 2  # scores 0, 0.5, 1: many ties
    assert_icc_matches(table)


def test_icc_drops_incomplete_rows_listwise_like_pingouin():
    rng = np.random.default_rng(3)
    table = rng.normal(size=(20, 3)) + rng.normal(size=(20, 1))
    table[[2, 5, 11], [0, 2, 1]] = np.nan
    assert_icc_matches(table)
    assert icc(table)["n"] == 17


def test_icc_with_a_constant_rater_matches_pingouin():
    rng = np.random.default_rng(4)
    table = rng.normal(size=(15, 3))
    table[:, 1] = 0.5
    assert_icc_matches(table)


def test_icc_two_raters_matches_pingouin():
    rng = np.random.default_rng(5)
    base = rng.normal(size=(12, 1))
    assert_icc_matches(np.hstack([base, base + rng.normal(scale=0.3, size=(12, 1))]))


def test_icc_edge_cases_are_nan_with_a_reason():
    one_sample = icc(np.array([[0.1, 0.4, 0.9]]))
    assert np.isnan(one_sample["icc2"]) and "fewer than two samples" in one_sample["note"]
    one_rater = icc(np.array([[0.1], [0.4]]))
    assert np.isnan(one_rater["icc1"]) and "fewer than two raters" in one_rater["note"]
    constant = icc(np.full((5, 3), 0.7))
    assert np.isnan(constant["icc3"]) and "no variance" in constant["note"]
    all_nan_rows = icc(np.array([[np.nan, 1.0], [0.5, np.nan]]))
    assert np.isnan(all_nan_rows["icc1"]) and all_nan_rows["n"] == 0


def kripp(table: np.ndarray) -> float:
    return krippendorff.alpha(reliability_data=table.T, level_of_measurement="interval")


@pytest.mark.parametrize("seed", range(6))
def test_alpha_matches_krippendorff_with_missing_values(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(4, 40), rng.integers(2, 6)
    table = rng.normal(size=(n, 1)) + rng.normal(scale=rng.uniform(0.2, 2), size=(n, k))
    table[rng.random((n, k)) < 0.25] = np.nan
    assert krippendorff_alpha_interval(table)["alpha"] == pytest.approx(kripp(table), abs=1e-9)


def test_alpha_edge_cases_match_or_explain():
    ties = np.array([[0, 0, 1], [1, 1, 1], [0.5, 0.5, 0], [1, 0, 1]], dtype=float)
    assert krippendorff_alpha_interval(ties)["alpha"] == pytest.approx(kripp(ties), abs=1e-9)
    two = np.array([[0.1, 0.2], [0.5, 0.4], [0.9, 1.0]])
    assert krippendorff_alpha_interval(two)["alpha"] == pytest.approx(kripp(two), abs=1e-9)
    constant_column = np.array([[0.2, 0.5], [0.8, 0.5], [0.6, 0.5]])
    assert krippendorff_alpha_interval(constant_column)["alpha"] == pytest.approx(
        kripp(constant_column), abs=1e-9
    )
    one_sample = np.array([[0.2, 0.6, 0.4]])
    assert krippendorff_alpha_interval(one_sample)["alpha"] == pytest.approx(
        kripp(one_sample), abs=1e-9
    )
    single_ratings = krippendorff_alpha_interval(np.array([[0.2, np.nan], [np.nan, 0.4]]))
    assert np.isnan(single_ratings["alpha"]) and "no sample has two" in single_ratings["note"]
    same = krippendorff_alpha_interval(np.full((3, 2), 0.4))
    assert np.isnan(same["alpha"]) and "same value" in same["note"]


@pytest.mark.parametrize("seed", range(5))
def test_kappa_matches_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(30) < 0.6
    b = np.where(rng.random(30) < 0.7, a, ~a)
    ours, note = cohen_kappa(a, b)
    assert ours == pytest.approx(cohen_kappa_score(a, b), abs=1e-12) and note == ""


def test_kappa_one_category_is_nan_with_reason():
    value, note = cohen_kappa(np.ones(5, bool), np.ones(5, bool))
    assert np.isnan(value) and "same side" in note


def test_pair_statistics_use_pairwise_complete_samples_like_scipy():
    rng = np.random.default_rng(11)
    x, y = rng.random(30).round(1), rng.random(30).round(1)  # rounded: ties
    x[[1, 4]] = np.nan
    y[[4, 9, 20]] = np.nan
    keep = ~np.isnan(x) & ~np.isnan(y)
    out = pair_statistics(x, y, 0.5)
    assert out["n"] == keep.sum() == 26
    assert out["tau_b"] == pytest.approx(stats.kendalltau(x[keep], y[keep]).statistic)
    assert out["mad"] == pytest.approx(np.abs(x[keep] - y[keep]).mean())
    assert out["kappa"] == pytest.approx(cohen_kappa_score(x[keep] >= 0.5, y[keep] >= 0.5))


def test_pair_statistics_constant_and_single_sample():
    constant = pair_statistics(np.array([0.5, 0.5, 0.5]), np.array([0.1, 0.6, 0.9]), 0.5)
    assert np.isnan(constant["tau_b"]) and "same score" in constant["note"]
    single = pair_statistics(np.array([0.5]), np.array([0.1]), 0.5)
    assert np.isnan(single["tau_b"]) and single["mad"] == pytest.approx(0.4)
    none = pair_statistics(np.array([np.nan]), np.array([0.1]), 0.5)
    assert none["n"] == 0 and "no sample" in none["note"]


def test_spearman_matches_scipy_and_edge_cases():
    rng = np.random.default_rng(2)
    x = rng.random(25)
    y = x + rng.normal(scale=0.3, size=25)
    rho, low, high, _ = spearman_with_ci(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic) and low < rho < high
    assert np.isnan(spearman_with_ci(x[:2], y[:2])[0])
    assert "constant" in spearman_with_ci(np.ones(5), y[:5])[3]


@pytest.mark.parametrize(("k", "n"), [(8, 10), (0, 7), (44, 44), (30, 44), (1, 1)])
def test_wilson_interval_matches_scipy(k, n):
    oracle = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(k, n)
    assert low == pytest.approx(oracle.low, abs=1e-12)
    assert high == pytest.approx(oracle.high, abs=1e-12)
    assert all(np.isnan(wilson_interval(0, 0)))


def test_spearman_brown_needed():
    assert spearman_brown_needed(0.5) == 4  # 4*0.5/(1+3*0.5) = 0.8
    assert spearman_brown_needed(0.9) == 1
    assert np.isnan(spearman_brown_needed(-0.1)) and np.isnan(spearman_brown_needed(np.nan))
    # an ICC of rounding noise is no reliability, not a call for 10^17 judges
    assert np.isnan(spearman_brown_needed(4.5e-17))
    k = spearman_brown_needed(0.001)  # small but real: the count, however large
    assert k == 3996 and 3996 * 0.001 / (1 + 3995 * 0.001) >= 0.8 - 1e-12
    assert 3995 * 0.001 / (1 + 3994 * 0.001) < 0.8


def test_tau_interval_is_undefined_at_one_even_a_rounding_error_short():
    """A perfect ranking computed as 0.9999999999999998 must not get the interval [1, 1]."""
    assert all(np.isnan(tau_ci(t, 10)).all() for t in (1.0, 1 - 1e-15, -1 + 1e-15))
    low, high = tau_ci(0.5, 10)
    assert -1 < low < 0.5 < high < 1
