"""Figures from labels that stand for all the run's samples, not for the samples a queue chose.

A queue that asks first where the judges disagree over-represents the hard samples; a judge's
accuracy on those is not its accuracy on the run. Each label is therefore drawn with a known
probability (``decision.sampling``: with replacement, ``q_i`` a draw) and weighted by its
inverse, as in survey sampling and active testing (Kossen et al. 2021):

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

from dataclasses import dataclass

import numpy as np
from scipy import stats


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
    w = 1.0 / q
    mean = float(np.sum(w * y) / np.sum(w))
    linear = w * (y - mean) / w.mean()  # the estimator's influence values, draw by draw
    return _t_estimate(mean, linear, level)


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
