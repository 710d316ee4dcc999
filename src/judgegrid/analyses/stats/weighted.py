"""Figures from labels that stand for all the run's samples, not for the samples a queue chose.

A queue that asks first where the judges disagree over-represents the hard samples; a judge's
accuracy on those is not its accuracy on the run. Each label is therefore drawn with a known
probability (``decision.sampling``, ``q_i`` a draw; the labelling page's draws without
replacement store the probability whose inverse is their kind's weight, ``decision.kinds``)
and weighted by its inverse, as in survey sampling and active testing (Kossen et al. 2021):

- ``hansen_hurwitz``: the mean over the run's ``N`` samples, ``mean(y_i / (N q_i))`` over the
  draws, unbiased for every design with ``q_i > 0``; its SE is the draws' own spread, since the
  draws are independent (Hansen & Hurwitz 1943). Weighting the distance from a fixed
  ``centre`` (chance) instead of the value keeps it unbiased and halves the spread of an
  accuracy near 0.8 under the queue's weights;
- ``hajek``: the ratio ``sum(w y) / sum(w)`` with ``w = 1 / q``, which needs no ``N`` and moves
  less when weights vary; SE by linearisation (the survey-package formula, with the
  n / (n - 1) factor). The tests check it against statsmodels' WLS sandwich (HC1).

Labels from elsewhere (a data set's labels, ``labels import``) count as a uniform draw:
``uniform_probability`` gives their ``q = 1 / N``. A paired difference between two judges is the
same estimator on the difference of their right/wrong (or agreement) values.

Missing data: none here; the caller passes the draws it has (NaN values are an error).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from judgegrid.analyses.stats.intervals import accuracy_interval, rho_interval, tau_interval
from judgegrid.analyses.stats.paired import (
    DRAW_CHUNK,
    Statistic,
    bootstrap_counts,
    bootstrap_statistic,
    weighted_tau_b,
)


@dataclass(frozen=True)
class Estimate:
    """A weighted mean over the run's samples, its SE and interval, and the draws it rests on."""

    mean: float
    se: float
    low: float
    high: float
    draws: int


def uniform_probability(population: int) -> float:
    """A draw's probability for a label drawn uniformly from ``population`` samples (labels
    from elsewhere count so)."""
    if population < 1:
        raise ValueError(f"population: expected at least 1 sample, got {population}")
    return 1.0 / population


def hansen_hurwitz(
    values: np.ndarray,
    probabilities: np.ndarray,
    population: int,
    level: float = 0.95,
    centre: float = 0.0,
) -> Estimate:
    """The mean of ``values`` over all ``population`` samples from draws made with replacement,
    draw ``i`` having had probability ``probabilities[i]`` (t interval on the draws).

    ``centre``: a value fixed before the draws (chance, say) that the weights are applied to
    the distance from: ``centre + mean(w (y - centre))``, unbiased whatever the centre since
    the weights' mean is 1, and less spread the nearer the centre is to the values (the
    difference estimator of survey sampling)."""
    y, q = _checked(values, probabilities)
    z = centre + (y - centre) / (population * q)
    return _t_estimate(float(z.mean()), z, level)


def hajek(values: np.ndarray, probabilities: np.ndarray, level: float = 0.95) -> Estimate:
    """The weighted ratio mean of ``values`` (weights ``1 / probabilities``) with its
    linearised SE: what a survey package quotes for a with-replacement design."""
    y, q = _checked(values, probabilities)
    return ratio_mean(y, 1.0 / q, level)


def ratio_mean(values: np.ndarray, weights: np.ndarray, level: float = 0.95) -> Estimate:
    """``hajek`` on the draws' weights themselves (any scale: the ratio needs only how they
    compare), for callers that hold ``1 / (N q)`` rather than ``q``."""
    y, w = np.asarray(values, float), np.asarray(weights, float)
    mean = float(np.sum(w * y) / np.sum(w))
    return _t_estimate(mean, ratio_linear(y, w), level)


def ratio_linear(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The ratio mean's influence values, draw by draw (``w (y - mean) / mean(w)``): their
    spread over the draws is its SE, and they are what a second variable is regressed on to
    lower it (``stats.ppi``'s weighted power tuning)."""
    y, w = np.asarray(values, float), np.asarray(weights, float)
    mean = float(np.sum(w * y) / np.sum(w))
    return np.asarray(w * (y - mean) / w.mean())


def _t_estimate(mean: float, spread: np.ndarray, level: float) -> Estimate:
    n = len(spread)
    if n < 2:
        return Estimate(mean, float("nan"), float("nan"), float("nan"), n)
    se = float(spread.std(ddof=1) / np.sqrt(n))
    half = float(stats.t.ppf(1 - (1 - level) / 2, n - 1)) * se
    return Estimate(mean, se, mean - half, mean + half, n)


def _checked(values: np.ndarray, probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(values, float)
    q = np.asarray(probabilities, float)
    if y.shape != q.shape or y.ndim != 1 or len(y) == 0:
        raise ValueError("values and probabilities: expected two 1-d arrays of one length")
    if np.isnan(y).any():
        raise ValueError("values: NaN (pass only the draws that have a value)")
    if not ((q > 0) & (q <= 1)).all():
        raise ValueError("probabilities: expected each in (0, 1]")
    return y, q


# ---------------------------------------------------------------- weighted figures of judges
#
# The figures of a judge against people, each computed on the labelled samples with a weight
# per sample (``frames.label_weights``: 1 / (N q) times the draws of it), so that a sample the
# queue drew seldom counts for the many like it that were not drawn. Each equals its unweighted
# statistic on the sample replicated by its weight where the weights are whole numbers (the
# tests check this against scipy, sklearn and statsmodels). Intervals keep the form of the
# unweighted ones, at an effective number of samples: a share's from its linearised variance
# (``share_size``), a rank correlation's from the weighted bootstrap of its Fisher z
# (``fisher_size``): resampling the labelled samples and computing the weighted statistic.


def hajek_by_weight(values: np.ndarray, weights: np.ndarray) -> Estimate:
    """``hajek`` from each value's weight rather than its probability: the ratio mean does not
    depend on the weights' scale, so ``min(w) / w`` serves as the probabilities (each in
    (0, 1], as ``hajek`` asks, whatever the weights' own scale)."""
    w = np.asarray(weights, float)
    return hajek(values, w.min() / w)


def kish_size(weights: np.ndarray) -> float:
    """Kish's effective sample size ``(sum w)^2 / sum w^2``: n for equal weights."""
    w = np.asarray(weights, float)
    return float(w.sum() ** 2 / (w**2).sum()) if len(w) and (w**2).sum() > 0 else 0.0


def weighted_share(values: np.ndarray, weights: np.ndarray) -> float:
    """The Hajek (ratio) mean ``sum(w y) / sum(w)``: a judge's accuracy over all the run's
    samples from right (1) / wrong (0) values."""
    y, w = np.asarray(values, float), np.asarray(weights, float)
    return float((w * y).sum() / w.sum()) if len(y) and w.sum() > 0 else float("nan")


def share_size(values: np.ndarray, weights: np.ndarray) -> float:
    """The effective number of samples of a weighted share: ``p (1 - p) / v``, ``v`` the Hajek
    mean's linearised variance (``hajek``), at most n, so that the Wilson interval at this n
    has the design's variance (Korn & Graubard 1998; Kott & Carr 1997). Where every value is
    0 or every value 1 (``v = 0``), Kish's size instead."""
    y, w = np.asarray(values, float), np.asarray(weights, float)
    n = len(y)
    if n < 2:
        return float(n)
    p = weighted_share(y, w)
    spread = hajek_by_weight(y, w).se ** 2 if p * (1 - p) > 0 else 0.0
    if spread <= 0:
        return min(float(n), kish_size(w))
    return float(min(n, p * (1 - p) / spread))


def weighted_accuracy(values: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
    """A right (1) / wrong (0) share weighted (``weighted_share``) with its Wilson 95% interval
    at its effective number of items (``share_size``): the card's weighted accuracy
    (``share_weighting`` read by ``ruling.standings``) for tables that show the same figure."""
    share = weighted_share(values, weights)
    if not np.isfinite(share):
        return share, float("nan"), float("nan")
    low, high = accuracy_interval(share, share_size(values, weights))
    return share, low, high


def fisher_size(point: float, drawn: np.ndarray, base: float, shift: float) -> float:
    """The effective number of samples that gives a Fisher-z interval the spread of the
    bootstrap's: ``shift + base / var(atanh(drawn))`` (rho: shift 3, base ``1 + rho^2 / 2``,
    Bonett-Wright; tau-b: shift 4, base 0.437, Fieller-Hartley-Pearson), so that the usual
    interval at it is ``tanh(z +- q se_boot)``. NaN where the bootstrap has too few finite
    draws."""
    z = np.arctanh(np.clip(drawn[np.isfinite(drawn)], -1 + 1e-12, 1 - 1e-12))
    if len(z) < max(len(drawn) // 2, 2) or not np.isfinite(point):
        return float("nan")
    spread = float(z.var(ddof=1))
    return float("inf") if spread <= 0 else shift + base / spread


def capped(size: float, n: int) -> float:
    """An effective size at most the items there are (NaN stays NaN: no interval)."""
    return float(min(size, n)) if np.isfinite(size) or size == np.inf else float("nan")


def weighted_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (rows x items): each item's weighted mid-rank, the weight of the
    items below it plus half the weight of those equal to it (itself included). With whole
    weights this is the mid-rank of the data replicated by weight, less one half."""
    x, w = np.atleast_2d(np.asarray(values, float)), np.atleast_2d(np.asarray(weights, float))
    rows, n = x.shape
    order = np.argsort(x, axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    ws = np.take_along_axis(w, order, axis=1)
    # runs of equal values within a row, numbered over the whole array
    new = np.ones_like(xs, dtype=bool)
    new[:, 1:] = xs[:, 1:] != xs[:, :-1]
    group = np.cumsum(new.ravel()) - 1
    total = np.bincount(group, weights=ws.ravel())
    before = np.cumsum(ws, axis=1) - ws  # weight earlier in the row
    start = before.ravel()[new.ravel()]  # weight before each run
    ranks_sorted = (start[group] + total[group] / 2).reshape(rows, n)
    out = np.empty_like(ranks_sorted)
    np.put_along_axis(out, order, ranks_sorted, axis=1)
    return out


def weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row: Pearson's r of x and y (rows x items) with item ``weights``; NaN where either
    is constant."""
    w = weights / weights.sum(axis=1, keepdims=True)
    xc = x - (w * x).sum(axis=1, keepdims=True)
    yc = y - (w * y).sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (w * xc * yc).sum(axis=1) / np.sqrt((w * xc**2).sum(axis=1) * (w * yc**2).sum(axis=1))
    return np.asarray(r)


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row (rows x items, or items alone): Spearman's rho of x and y weighted, the
    weighted Pearson r of their weighted mid-ranks: with whole weights, scipy's rho of the data
    replicated by weight."""
    xs, ys, w = np.broadcast_arrays(*(np.atleast_2d(np.asarray(a, float)) for a in (x, y, weights)))
    return weighted_pearson(weighted_ranks(xs, w), weighted_ranks(ys, w), w)


def weighted_mean_statistic(weights: np.ndarray) -> Statistic:
    """The paired rule's statistic (``stats.paired.Statistic``) of a weighted share: per judge,
    ``weighted_share`` of its values on each draw of items."""

    def statistic(values: np.ndarray, target: np.ndarray | None, draws: np.ndarray) -> np.ndarray:
        w = weights[draws][..., None]
        return np.asarray((values[draws] * w).sum(axis=1) / w.sum(axis=1))

    return statistic


def weighted_spearman_statistic(weights: np.ndarray) -> Statistic:
    """The paired rule's statistic of a weighted Spearman's rho with the target, per judge."""

    def statistic(values: np.ndarray, target: np.ndarray | None, draws: np.ndarray) -> np.ndarray:
        assert target is not None
        drawn, truth, w = values[draws], target[draws], weights[draws]
        return np.column_stack(
            [weighted_spearman(drawn[..., j], truth, w) for j in range(values.shape[1])]
        )

    return statistic


@dataclass(frozen=True)
class Weighting:
    """How a rung of the card is weighted: per item (row of the evidence) its weight; the
    statistic under given item weights; and each judge's effective number of items, from its
    column, the target, the weights and its figure (the interval is the unweighted one at it)."""

    weights: np.ndarray
    statistic: Callable[[np.ndarray], Statistic]
    effective: Callable[[np.ndarray, np.ndarray | None, np.ndarray, float], float]


def share_weighting(weights: np.ndarray) -> Weighting:
    """A right/wrong rung (a criterion's accuracy against people) weighted."""
    return Weighting(
        np.asarray(weights, float),
        weighted_mean_statistic,
        lambda column, target, w, quality: share_size(column[:, 0], w),
    )


def rho_weighting(weights: np.ndarray, seed: int = 0) -> Weighting:
    """A Spearman rung (ratings against people's mean label) weighted."""

    def effective(
        column: np.ndarray, target: np.ndarray | None, w: np.ndarray, rho: float
    ) -> float:
        _, drawn = bootstrap_statistic(column, target, weighted_spearman_statistic(w), seed)
        return capped(fisher_size(rho, drawn[:, 0], 1 + rho**2 / 2, 3), len(column))

    return Weighting(np.asarray(weights, float), weighted_spearman_statistic, effective)


def weighted_rank_correlation(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, kind: str, seed: int = 0
) -> tuple[float, float, float, str]:
    """A weighted rank correlation of x and y (``kind``: "spearman" or "tau-b"; each sample by
    its weight ``w``) with its 95% Fisher-z interval at the weighted bootstrap's spread
    (``fisher_size``), and why it is NaN (or "")."""
    nan = float("nan")
    if len(x) < 3:
        return nan, nan, nan, f"{kind}: fewer than three samples"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return nan, nan, nan, f"{kind}: constant ratings or labels"
    statistic = weighted_spearman if kind == "spearman" else weighted_tau_b
    point = float(statistic(x, y, w[None, :])[0])
    counts = bootstrap_counts(len(x), seed)  # each draw's items, shared with the card's draws
    drawn = np.concatenate(
        [
            statistic(x, y, counts[start : start + DRAW_CHUNK].astype(float) * w[None, :])
            for start in range(0, len(counts), DRAW_CHUNK)
        ]
    )
    if kind == "spearman":
        size = capped(fisher_size(point, drawn, 1 + point**2 / 2, 3), len(x))
        low, high = rho_interval(point, size) if np.isfinite(size) else (nan, nan)
    else:
        size = capped(fisher_size(point, drawn, 0.437, 4), len(x))
        low, high = tau_interval(point, size) if np.isfinite(size) else (nan, nan)
    return point, low, high, ""
