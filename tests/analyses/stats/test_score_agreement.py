"""Krippendorff's alpha of scores (interval level, missing ratings) against the krippendorff
package, and the pass/fail kappa against scikit-learn; on random data and on edge cases."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judgegrid.analyses.stats.categorical import alpha_report as krippendorff_alpha_interval
from judgegrid.analyses.stats.categorical import pass_fail_kappa as cohen_kappa


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
