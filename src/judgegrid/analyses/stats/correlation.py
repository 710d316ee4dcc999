"""Rank correlations of two raters on the same items, each with the reason it is undefined:
Kendall's tau-b (judge against judge) and Spearman's rho with its interval (judge against
people's mean label)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special, stats

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


def perfect_agreement_p(labels: np.ndarray) -> float:
    """The exact chance, with no association, of a rank correlation of exactly 1 against these
    ``labels``: that a random arrangement of the labels over the items is the very one seen,
    ``prod(m!) / n!`` over the labels' multiplicities (only that arrangement ranks the items as
    the rater does). Where Fisher's z gives no interval (at |r| = 1, z is infinite), this
    decides whether a perfect correlation excludes chance."""
    _, counts = np.unique(np.asarray(labels, float), return_counts=True)
    return float(np.exp(special.gammaln(counts + 1).sum() - special.gammaln(counts.sum() + 1)))
