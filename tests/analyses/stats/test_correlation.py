"""Spearman's rho with its interval, and Kendall's tau-b, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from judgegrid.analyses.stats.correlation import perfect_agreement_p, spearman_with_ci


def test_spearman_matches_scipy_and_edge_cases():
    rng = np.random.default_rng(2)
    x = rng.random(25)
    y = x + rng.normal(scale=0.3, size=25)
    rho, low, high, _ = spearman_with_ci(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic) and low < rho < high
    assert np.isnan(spearman_with_ci(x[:2], y[:2])[0])
    assert "constant" in spearman_with_ci(np.ones(5), y[:5])[3]


@pytest.mark.parametrize(
    "labels",
    [
        [0.0, 0.25, 0.5, 0.75, 1.0, 1.0],  # one tie
        [0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.5],  # three tie groups
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],  # none
    ],
)
def test_the_chance_of_a_perfect_rank_correlation_is_scipys_exact_permutation_p(labels):
    # a rater ranking the items exactly as the labels do (rho = 1): scipy enumerates every
    # arrangement of the labels and counts those whose rho is as large
    y = np.asarray(labels)
    x = y * 10 + 3  # the rater: any increasing function of the labels
    assert stats.spearmanr(x, y).statistic == pytest.approx(1.0)
    exact = stats.permutation_test(
        (y,),
        lambda v: stats.spearmanr(x, v).statistic,
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="greater",
    )
    assert perfect_agreement_p(y) == pytest.approx(exact.pvalue)
