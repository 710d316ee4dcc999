"""ICC(1), ICC(2,1), ICC(3,1) against pingouin on random tables and edge cases, and the
Spearman-Brown count of raters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin as pg
import pytest

from judgegrid.analyses.stats.icc import icc, spearman_brown_needed


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


def test_spearman_brown_needed():
    assert spearman_brown_needed(0.5) == 4  # 4*0.5/(1+3*0.5) = 0.8
    assert spearman_brown_needed(0.9) == 1
    assert np.isnan(spearman_brown_needed(-0.1)) and np.isnan(spearman_brown_needed(np.nan))
    # an ICC of rounding noise is no reliability, not a call for 10^17 judges
    assert np.isnan(spearman_brown_needed(4.5e-17))
    k = spearman_brown_needed(0.001)  # small but real: the count, however large
    assert k == 3996 and 3996 * 0.001 / (1 + 3995 * 0.001) >= 0.8 - 1e-12
    assert 3995 * 0.001 / (1 + 3994 * 0.001) < 0.8
