"""Spearman's rho with its interval, and Kendall's tau-b, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from judgegrid.analyses.stats.correlation import spearman_with_ci


def test_spearman_matches_scipy_and_edge_cases():
    rng = np.random.default_rng(2)
    x = rng.random(25)
    y = x + rng.normal(scale=0.3, size=25)
    rho, low, high, _ = spearman_with_ci(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic) and low < rho < high
    assert np.isnan(spearman_with_ci(x[:2], y[:2])[0])
    assert "constant" in spearman_with_ci(np.ones(5), y[:5])[3]
