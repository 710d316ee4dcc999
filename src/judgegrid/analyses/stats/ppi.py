"""A mean by people's standard from a judge's scores on every sample and people's labels on a
few: prediction-powered inference (Angelopoulos et al., Science 2023) with PPI++'s power
tuning (Angelopoulos, Duchi & Zrnic 2023, arXiv 2311.01453).

Why: a judge's mean over all ``N`` samples is precise but carries the judge's bias; people's
mean over ``n`` labels is unbiased but wide. The corrected mean

    theta = lam * mean_N(f) + mean_n(y - lam * f)

takes the judge's mean and adds the gap people find on the labelled samples (``f`` the judge's
score, ``y`` people's). It is unbiased for every fixed ``lam``; its variance is
``lam^2 Var(f) / N + Var(y - lam f) / n``, so a judge that tracks people makes
the second term small, and one that does not gains nothing (``lam`` near 0 gives back people's
own mean and interval). ``lam = 1`` is plain PPI; ``lam = None`` picks the variance-minimising
value from the data (PPI++, clipped to [0, 1]). The interval is the normal one (``z``), with
spreads over ``n`` and ``N`` (no ``n - 1``), as ppi_py's ``ppi_mean_ci``, which the tests
check against to 1e-9.

Weights (``weights`` given): labels drawn with replacement with known probabilities ``q`` from
the ``N`` samples the judge scored (``decision.sampling``), a sample drawn ``k`` times passed
``k`` times, each draw weighing ``w = 1 / (N q)`` (``draw_weights``; a label with no
probability counts as uniform). The draws are then independent and identically distributed,
so the estimate is a design-based one, of people's mean over those ``N`` samples:

    theta = lam * mean_N(f) + sum(w * (y - lam * f)) / sum(w)

the rectifier a ratio (Hajek) mean over the draws (``stats.weighted.ratio_mean``). Its SE is
the spread of its linearised values over the draws, ``w (r - R) / mean(w)`` with
``r = y - lam f`` and ``R`` the ratio, over ``sqrt(n)`` with ``n - 1`` in the variance and a t
quantile (Lohr, *Sampling*, ch. 6, a with-replacement design; what survey packages quote).
``mean_N(f)`` is the judge's mean over the very samples the estimate is about, so it adds no
variance. ``lam`` is the value that minimises that SE (the linearised ``y`` regressed on the
linearised ``f``, clipped to [0, 1]); ``lam = 0`` is people's own ratio mean.

Why this and not what ppi_py does with weights (weights scaled to mean 1, then the unweighted
variance of ``w (y - lam f)`` and the judge's term over ``N``): that variance leaves out how
the ratio moves with the weights, and covered 86% of data sets at 60 draws and 92.5% at 150 in
a simulation of the queue (issue 43). Why the ratio and not the Hansen-Hurwitz mean
``mean(w (y - lam f))``: the two covered alike in simulation (93-96% at 60, 150 and 400 draws
of a queue-like design, t quantile, no term for the judge's mean; with that term, 99.5% at 400
draws: needlessly wide), and Hansen-Hurwitz was up to a quarter narrower where the queue draws
exactly where the judge errs; but it needs the weights' scale to be right (their
mean over the design exactly 1), and the weights here only approximate it: a draw that was
skipped, or of a sample the judge did not score, is dropped, and several annotators' weights
are averaged (``frames.label_weights``). The ratio needs only how the weights compare, so it
stays unbiased there. The n - 1 and the t quantile, not the normal, because the simulation
at 60 draws sat at 93-95% with them, and the normal quantile took half a point off.

The effective number of labels: how many labels alone (people's classical interval, the same
spread) would give an interval as narrow as the corrected one, ``n * se_people^2 / se^2``.

Which samples are "unlabelled": PPI's two sets are independent draws from one population, so
with labels on a uniform random subset the unlabelled set is the other samples the judge scored
(all of them labelled: nothing to add, people's mean is the answer). With labels drawn with
replacement and known probabilities from the ``N`` samples, the imputed term is the judge's
mean over all ``N``, so every sample goes in (``validity.true_score`` chooses; ppi_py takes
either).

Missing data: none here; the caller passes only samples the judge scored
(``judge_unlabelled``) and labels on samples it scored (paired with ``judge_on_labelled``); NaN
is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from judgegrid.analyses.stats.weighted import ratio_linear, ratio_mean


@dataclass(frozen=True)
class MeanInterval:
    """A mean, its standard error and its interval at the level asked."""

    mean: float
    se: float
    low: float
    high: float


@dataclass(frozen=True)
class Corrected:
    """What a judge and a few labels say of the people-standard mean.

    ``people``: the labels alone (classical); ``corrected``: the PPI(++) mean; ``lam``: the
    power-tuning parameter used; ``effective_labels``: labels alone that would be as narrow;
    ``labels`` and ``unlabelled``: the two sets' sizes."""

    people: MeanInterval
    corrected: MeanInterval
    lam: float
    effective_labels: float
    labels: int
    unlabelled: int


def draw_weights(probabilities: Sequence[float | None], population: int) -> np.ndarray:
    """Each label's weight ``1 / (N q)``; a label with no known probability counts as a
    uniform draw (``q = 1 / N``, weight 1)."""
    if population < 1:
        raise ValueError(f"population: expected at least 1 sample, got {population}")
    q = np.array([1.0 / population if p is None else float(p) for p in probabilities], float)
    if not ((q > 0) & (q <= 1)).all():
        raise ValueError("probabilities: expected each in (0, 1]")
    return 1.0 / (population * q)


def classical_mean(
    labels: np.ndarray, weights: np.ndarray | None = None, level: float = 0.95
) -> MeanInterval:
    """People's mean from the labels alone, normal interval: the yardstick the corrected mean
    is measured against. Weighted: the draws' ratio mean, t interval (module docstring)."""
    y = _values(labels, "labels")
    w = _weights(weights, len(y))
    if weights is not None:
        return _ratio_interval(y, w, 0.0, level)
    z = w * y
    se = float(z.std() / np.sqrt(len(y))) if len(y) > 1 else float("nan")  # one: no spread
    return _interval(float(z.mean()), se, level)


def power_tuning(
    labels: np.ndarray,
    judge_on_labelled: np.ndarray,
    judge_unlabelled: np.ndarray,
    weights: np.ndarray | None = None,
) -> float:
    """PPI++'s ``lam``: the covariance of people's and the judge's gradients on the labelled
    samples over ``(1 + n / N)`` times the judge's pooled variance (at plain PPI's estimate),
    clipped to [0, 1]. A judge that gives one score everywhere carries nothing: 0. Weighted:
    the draws' value (module docstring)."""
    y, f, f_all, w = _checked(labels, judge_on_labelled, judge_unlabelled, weights)
    if weights is not None:
        return _drawn_tuning(y, f, w)
    n, big_n = len(y), len(f_all)
    centre = _ppi_point(y, f, f_all, w, 1.0)
    grad = w * (y - centre)
    grad_judge = w * (f - centre)
    cov = float(np.mean((grad - grad.mean()) * (grad_judge - grad_judge.mean())))
    pooled = float(np.var(np.concatenate([grad_judge, f_all - centre]), ddof=1))
    if pooled <= 0:
        return 0.0
    return float(np.clip(cov / ((1 + n / big_n) * pooled), 0.0, 1.0))


def ppi_mean(
    labels: np.ndarray,
    judge_on_labelled: np.ndarray,
    judge_unlabelled: np.ndarray,
    lam: float | None = None,
    weights: np.ndarray | None = None,
    level: float = 0.95,
) -> Corrected:
    """The corrected mean of people's standard with its interval, beside the judge's mean and
    people's own; ``lam=None``: PPI++'s tuned value, ``lam=1``: plain PPI.

    ``labels[i]`` and ``judge_on_labelled[i]`` are one labelled sample; ``judge_unlabelled``:
    the judge's scores on PPI's unlabelled set (above). ``weights``: each label a draw with
    its weight ``1 / (N q)``, ``judge_unlabelled`` every sample the judge scored, and the
    design-based form (module docstring)."""
    y, f, f_all, w = _checked(labels, judge_on_labelled, judge_unlabelled, weights)
    if weights is not None:
        return _drawn_mean(y, f, f_all, w, lam, level)
    n, big_n = len(y), len(f_all)
    people = classical_mean(y, level=level)
    if n < 2:
        nan = _interval(float("nan"), float("nan"), level)
        return _found(people, nan, float("nan"), n, big_n)
    tuned = power_tuning(y, f, f_all) if lam is None else float(lam)
    point = _ppi_point(y, f, f_all, w, tuned)
    imputed = float(np.std(tuned * f_all)) / np.sqrt(big_n)
    rectifier = float(np.std(w * (y - tuned * f))) / np.sqrt(n)
    corrected = _interval(point, float(np.hypot(imputed, rectifier)), level)
    return _found(people, corrected, tuned, n, big_n)


def effective_labels(labels: int, people_se: float, corrected_se: float) -> float:
    """Labels alone that would give an interval as narrow as the corrected one: the standard
    error shrinks as ``1 / sqrt(n)``, so ``n * (se_people / se)^2``. Undefined (NaN) when the
    corrected interval has no width (people and judge all alike)."""
    if not corrected_se > 0:
        return float("nan")
    return float(labels * (people_se / corrected_se) ** 2)


def _found(
    people: MeanInterval, corrected: MeanInterval, lam: float, n: int, big_n: int
) -> Corrected:
    """People's mean and the corrected one, with the labels the corrected one is worth."""
    return Corrected(people, corrected, lam, effective_labels(n, people.se, corrected.se), n, big_n)


def _drawn_mean(
    y: np.ndarray, f: np.ndarray, f_all: np.ndarray, w: np.ndarray, lam: float | None, level: float
) -> Corrected:
    """The weighted form: the judge's mean over every sample it scored plus the draws' ratio
    mean of ``y - lam f``, SE from its linearised values (module docstring)."""
    n, big_n = len(y), len(f_all)
    people = _ratio_interval(y, w, 0.0, level)
    if n < 2:
        nan = _interval(float("nan"), float("nan"), level)
        return _found(people, nan, float("nan"), n, big_n)
    tuned = _drawn_tuning(y, f, w) if lam is None else float(lam)
    corrected = _ratio_interval(y - tuned * f, w, tuned * float(f_all.mean()), level)
    return _found(people, corrected, tuned, n, big_n)


def _drawn_tuning(y: np.ndarray, f: np.ndarray, w: np.ndarray) -> float:
    """The ``lam`` that makes the rectifier's linearised values least spread: their ``y``
    part regressed on their ``f`` part, clipped to [0, 1]; 0 when the judge's part has no
    spread."""
    if len(y) < 2:
        return 0.0
    people, judge = ratio_linear(y, w), ratio_linear(f, w)
    spread = float(np.var(judge, ddof=1))
    if not spread > 0:
        return 0.0
    return float(np.clip(np.cov(people, judge)[0, 1] / spread, 0.0, 1.0))


def _ratio_interval(values: np.ndarray, w: np.ndarray, shift: float, level: float) -> MeanInterval:
    """The draws' ratio mean of ``values`` (t interval on the draws), moved by ``shift``."""
    _check_level(level)
    found = ratio_mean(values, w, level)
    return MeanInterval(shift + found.mean, found.se, shift + found.low, shift + found.high)


def _ppi_point(y: np.ndarray, f: np.ndarray, f_all: np.ndarray, w: np.ndarray, lam: float) -> float:
    return float(lam * f_all.mean() + np.mean(w * (y - lam * f)))


def _interval(mean: float, se: float, level: float) -> MeanInterval:
    _check_level(level)
    half = float(stats.norm.ppf(1 - (1 - level) / 2)) * se
    return MeanInterval(mean, se, mean - half, mean + half)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level: expected a level in (0, 1), got {level}")


def _checked(
    labels: np.ndarray,
    judge_on_labelled: np.ndarray,
    judge_unlabelled: np.ndarray,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    y = _values(labels, "labels")
    f = _values(judge_on_labelled, "judge_on_labelled")
    f_all = _values(judge_unlabelled, "judge_unlabelled")
    if len(f) != len(y):
        raise ValueError(f"judge_on_labelled: expected one score a label ({len(y)}), got {len(f)}")
    return y, f, f_all, _weights(weights, len(y))


def _values(values: np.ndarray, name: str) -> np.ndarray:
    array = np.asarray(values, float)
    if array.ndim != 1 or len(array) == 0:
        raise ValueError(f"{name}: expected a non-empty 1-d array")
    if np.isnan(array).any():
        raise ValueError(f"{name}: NaN (pass only samples that have a value)")
    return array


def _weights(weights: np.ndarray | None, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, float)
    if w.shape != (n,):
        raise ValueError(f"weights: expected one weight a label ({n}), got shape {w.shape}")
    if not (np.isfinite(w) & (w > 0)).all():
        raise ValueError("weights: expected each finite and above 0")
    return w
