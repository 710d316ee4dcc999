"""Two raters' tau-b, mean absolute difference and kappa at a threshold, on the samples both
scored, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from judgegrid.analyses.consistency.agreement import pair_statistics


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
