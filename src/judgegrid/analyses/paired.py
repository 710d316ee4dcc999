"""Paired comparisons of judges on the same items: the tests behind every "best" the tool names.

Two judges scored on the same samples (or pairs) are compared on those items, not each with
chance: their estimates share the items' luck, and a paired test removes it.

- ``mcnemar_exact``: paired binary outcomes (a pair right or wrong for each judge): the exact
  two-sided McNemar test, a binomial test of the discordant items at one half.
- ``paired_bootstrap``: any per-judge statistic (Spearman's rho with people, tau-b with the
  other judges, an accuracy): the percentile bootstrap of the difference, items resampled with
  replacement and the same draw used for both judges; its two-sided p-value is twice the
  smaller tail of the bootstrap distribution at 0, and its one-sided lower bound is what a
  non-inferiority margin is read against.
- ``holm``: Holm's step-down adjustment, for the best judge compared with each of the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

BOOTSTRAP_DRAWS = 2000
ALPHA = 0.05

# (values of the items drawn: draws x items x judges, target: draws x items or None) -> per-judge
# statistic: draws x judges
Statistic = Callable[[np.ndarray, np.ndarray | None], np.ndarray]


@dataclass(frozen=True)
class PairedDifference:
    """The first judge minus the second on their shared items."""

    diff: float
    low: float  # two-sided 95%
    high: float
    lower_one_sided: float  # one-sided 95% bounds (non-inferiority)
    upper_one_sided: float
    p_value: float  # two-sided, uncorrected
    n: int
    test: str


def mcnemar_exact(a_right: np.ndarray, b_right: np.ndarray) -> float:
    """Two-sided exact McNemar p-value of paired binary outcomes (1 when no item is discordant)."""
    a, b = np.asarray(a_right, bool), np.asarray(b_right, bool)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    if only_a + only_b == 0:
        return 1.0
    tail = stats.binom.cdf(min(only_a, only_b), only_a + only_b, 0.5)
    return float(min(1.0, 2 * tail))


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error at the same level)."""
    p = np.asarray(p_values, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def bootstrap_draws(n: int, seed: int, draws: int = BOOTSTRAP_DRAWS) -> np.ndarray:
    """Item indices of each bootstrap draw (draws x n), reproducible by seed."""
    return np.random.default_rng(seed).integers(0, n, size=(draws, n))


def paired_bootstrap(
    values: np.ndarray,
    target: np.ndarray | None,
    statistic: Statistic,
    first: int,
    second: int,
    seed: int = 0,
    draws: int = BOOTSTRAP_DRAWS,
) -> PairedDifference:
    """statistic[first] - statistic[second] over items (rows of ``values``), its percentile
    interval and p-value from one set of resampled items shared by both judges. Every row must
    be complete for the judges the statistic reads (the caller drops the others)."""
    n = len(values)
    point = statistic(values[None], None if target is None else target[None])[0]
    diff = float(point[first] - point[second])
    if n < 3 or not np.isfinite(diff):
        return _undefined(diff, n)
    index = bootstrap_draws(n, seed, draws)
    drawn = statistic(values[index], None if target is None else target[index])
    d = drawn[:, first] - drawn[:, second]
    d = d[np.isfinite(d)]
    if len(d) < draws // 2:
        return _undefined(diff, n)
    low, high, lower, upper = (float(q) for q in np.quantile(d, [0.025, 0.975, 0.05, 0.95]))
    p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))
    return PairedDifference(diff, low, high, lower, upper, p, n, "paired bootstrap")


def _undefined(diff: float, n: int) -> PairedDifference:
    nan = float("nan")
    return PairedDifference(diff, nan, nan, nan, nan, nan, n, "paired bootstrap")


def paired_binary(
    right: np.ndarray, first: int, second: int, seed: int = 0, draws: int = BOOTSTRAP_DRAWS
) -> PairedDifference:
    """Accuracy of ``first`` minus ``second`` on paired right/wrong outcomes (items x judges):
    the exact McNemar p-value, with the bootstrap's interval of the difference."""
    boot = paired_bootstrap(right.astype(float), None, mean_statistic, first, second, seed, draws)
    p = mcnemar_exact(right[:, first], right[:, second])
    return replace(boot, p_value=p, test="exact McNemar")


def mean_statistic(values: np.ndarray, target: np.ndarray | None) -> np.ndarray:
    """Per judge: the mean over items (an accuracy when values are right/wrong)."""
    return np.asarray(values.mean(axis=1))


def spearman_statistic(values: np.ndarray, target: np.ndarray | None) -> np.ndarray:
    """Per judge: Spearman's rho of its ratings with the target (people's mean label); NaN
    where a draw makes either constant."""
    assert target is not None
    ranked = stats.rankdata(values, axis=1)
    truth = stats.rankdata(target, axis=1)[..., None]
    return _pearson(ranked, truth)


def consensus_tau_statistic(values: np.ndarray, target: np.ndarray | None) -> np.ndarray:
    """Per judge: Kendall's tau-b of its ratings with the mean of the other judges' (the
    leave-one-out consensus)."""
    k = values.shape[2]
    others = (values.sum(axis=2, keepdims=True) - values) / max(k - 1, 1)
    return _tau_b(values, others)


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return np.asarray(r)


def _tau_b(x: np.ndarray, y: np.ndarray, chunk: int = 100) -> np.ndarray:
    """Kendall's tau-b along axis 1 of draws x items x judges arrays, in chunks of draws."""
    i, j = np.triu_indices(x.shape[1], k=1)
    out = []
    for start in range(0, x.shape[0], chunk):
        xs, ys = x[start : start + chunk], y[start : start + chunk]
        dx = np.sign(xs[:, i] - xs[:, j])
        dy = np.sign(ys[:, i] - ys[:, j])
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = (dx * dy).sum(axis=1) / np.sqrt((dx != 0).sum(axis=1) * (dy != 0).sum(axis=1))
        out.append(tau)
    return np.concatenate(out) if out else np.empty((0, x.shape[2]))
