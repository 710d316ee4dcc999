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

# (values: items x judges, target: items or None, draws: draws x items, the indices of the items
# each draw takes) -> per-judge statistic: draws x judges. The statistic indexes the items itself,
# so one that needs only how often each item was drawn (tau-b) never builds draws x items² arrays.
Statistic = Callable[[np.ndarray, np.ndarray | None, np.ndarray], np.ndarray]


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
    point, drawn = bootstrap_statistic(values, target, statistic, seed, draws)
    return difference(point, drawn, first, second, len(values))


def on_all_items(statistic: Statistic, values: np.ndarray, target: np.ndarray | None) -> np.ndarray:
    """The statistic's point estimate per judge: every item once."""
    return statistic(values, target, np.arange(len(values))[None])[0]


def bootstrap_statistic(
    values: np.ndarray,
    target: np.ndarray | None,
    statistic: Statistic,
    seed: int = 0,
    draws: int = BOOTSTRAP_DRAWS,
) -> tuple[np.ndarray, np.ndarray]:
    """Every judge's statistic on all items (judges) and on each bootstrap draw (draws x
    judges): computed once, every pair of judges can be compared on the same draws."""
    n = len(values)
    point = on_all_items(statistic, values, target)
    if n < 3:
        return point, np.empty((0, len(point)))
    return point, statistic(values, target, bootstrap_draws(n, seed, draws))


def difference(
    point: np.ndarray, drawn: np.ndarray, first: int, second: int, n: int
) -> PairedDifference:
    """``first`` minus ``second`` from ``bootstrap_statistic``'s figures."""
    diff = float(point[first] - point[second])
    if n < 3 or not np.isfinite(diff):
        return _undefined(diff, n)
    draws = len(drawn)
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


def mean_statistic(values: np.ndarray, target: np.ndarray | None, draws: np.ndarray) -> np.ndarray:
    """Per judge: the mean over items (an accuracy when values are right/wrong)."""
    return np.asarray(values[draws].mean(axis=1))


def spearman_statistic(
    values: np.ndarray, target: np.ndarray | None, draws: np.ndarray
) -> np.ndarray:
    """Per judge: Spearman's rho of its ratings with the target (people's mean label); NaN
    where a draw makes either constant."""
    assert target is not None
    ranked = stats.rankdata(values[draws], axis=1)
    truth = stats.rankdata(target[draws], axis=1)[..., None]
    return _pearson(ranked, truth)


def consensus_tau_statistic(
    values: np.ndarray, target: np.ndarray | None, draws: np.ndarray
) -> np.ndarray:
    """Per judge: Kendall's tau-b of its ratings with the mean of the other judges' (the
    leave-one-out consensus)."""
    k = values.shape[1]
    others = (values.sum(axis=1, keepdims=True) - values) / max(k - 1, 1)
    counts = _draw_counts(draws, len(values))
    return np.column_stack([weighted_tau_b(values[:, j], others[:, j], counts) for j in range(k)])


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return np.asarray(r)


def _draw_counts(draws: np.ndarray, n: int) -> np.ndarray:
    """How often each draw takes each item: draws x items."""
    rows = np.repeat(np.arange(len(draws)), draws.shape[1])
    return np.bincount(rows * n + draws.ravel(), minlength=len(draws) * n).reshape(-1, n)


def weighted_tau_b(
    x: np.ndarray, y: np.ndarray, counts: np.ndarray, chunk: int = 500
) -> np.ndarray:
    """Kendall's tau-b of x and y (items) on each draw, given as item counts (draws x items).

    A draw that takes items a and b w_a and w_b times holds w_a·w_b pairs of them, and two
    copies of one item are tied in both: so the concordant-minus-discordant sum is the quadratic
    form wᵀSw with S_ab = sign(x_a - x_b)·sign(y_a - y_b). One matrix product per draw chunk:
    items² memory, not draws × items² (527 items x 2,000 draws took 10 minutes and 5 GB the
    pairwise way). The pairs untied in x are all pairs but those within a group of equal x,
    (Σw)² − Σ_g (Σ_{a∈g} w_a)²: sums over the draw, no product.
    """
    # float32 is exact while every sum stays below 2**24: counts and signs are whole numbers
    # and the form is at most items², so up to 4,096 items; float64 beyond (half as fast)
    exact = np.float32 if len(x) ** 2 < 2**24 else np.float64
    concordance = (np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])).astype(
        exact
    )
    ties_x, ties_y = _tie_groups(x), _tie_groups(y)
    out = []
    for start in range(0, len(counts), chunk):
        w = counts[start : start + chunk]
        s = ((w.astype(exact) @ concordance) * w).sum(axis=1, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(s / np.sqrt(_untied_pairs(w, ties_x) * _untied_pairs(w, ties_y)))
    return np.concatenate(out) if out else np.empty(0)


def _tie_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items in order of value, and where each run of equal values starts in that order."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    return order, np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])


def _untied_pairs(w: np.ndarray, ties: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per draw (rows of item counts ``w``): the ordered pairs of drawn items whose values
    differ, (Σw)² minus the pairs within each group of equal values (``_tie_groups``)."""
    order, starts = ties
    # no two values equal (ratings averaged over repeats mostly are): each group is one item
    within = w if len(starts) == len(order) else np.add.reduceat(w[:, order], starts, axis=1)
    total = w.sum(axis=1, dtype=float)
    return total**2 - np.einsum("ij,ij->i", within, within).astype(float)
