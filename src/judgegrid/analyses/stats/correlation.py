"""Rank correlations of two raters on the same items, each with the reason it is undefined:
Kendall's tau-b (judge against judge) and Spearman's rho with its interval (judge against
people's mean label)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from judgegrid.analyses.stats.intervals import rho_interval


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> tuple[float, str]:
    """(tau-b, why it is NaN or "")."""
    if len(x) < 2:
        return np.nan, "tau-b: fewer than two samples"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan, "tau-b: a rater gave every sample the same score"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y, variant="b").statistic), ""


def spearman_with_ci(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, str]:
    """(rho, low, high, why the interval or rho is NaN or "") at 95%."""
    if len(x) < 3:
        return np.nan, np.nan, np.nan, "fewer than three samples"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan, np.nan, np.nan, "constant ratings or labels"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = float(stats.spearmanr(x, y).statistic)
    if len(x) < 4 or abs(rho) == 1:
        return rho, np.nan, np.nan, "too few samples for an interval"
    return (rho, *rho_interval(rho, len(x)), "")
