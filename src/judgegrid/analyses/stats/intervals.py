"""Every interval the analyses quote, written once: a proportion's (Wilson), a correlation's
(Fisher's z: Spearman's rho with the Bonett-Wright SE, Kendall's tau-b with the
Fieller-Hartley-Pearson SE) and a mean's (percentile bootstrap over items).

Each takes the confidence ``level`` (the card asks for Bonferroni levels above 95%) and
returns ``(nan, nan)`` where the interval is undefined: no items, too few items for the
standard error, or a correlation of +-1 (no finite z).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgegrid.analyses.stats.paired import NORMAL_ABOVE, bootstrap_statistic, mean_statistic

NO_INTERVAL = (float("nan"), float("nan"))


def _quantile(level: float) -> float:
    return float(stats.norm.ppf(1 - (1 - level) / 2))


def wilson_interval(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion; (nan, nan) for n = 0. None of n and n of n end
    exactly at 0 and 1 (the formula leaves floating-point dust there: 5.6e-17 for 0 of 3)."""
    if n == 0:
        return NO_INTERVAL
    z = _quantile(level)
    p = successes / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return float(low), float(high)


def accuracy_interval(accuracy: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson's interval of an accuracy given as a share of ``n`` items (the card's evidence
    holds shares, not counts). A weighted accuracy's ``n`` is its effective number of items,
    seldom whole: its share is then kept as it is, not rounded to a count."""
    if float(n).is_integer():
        return wilson_interval(round(accuracy * n), int(n), level)
    return wilson_interval(accuracy * n, n, level)


def fisher_interval(r: float, n: float, se: float, min_n: int, level: float) -> tuple[float, float]:
    """tanh(z +- q se) around z = atanh(r); undefined below ``min_n`` items or at |r| = 1 (a
    correlation a rounding error short of 1 would give the interval [1, 1])."""
    if n < min_n or not np.isfinite(r) or abs(r) >= 1 - 1e-9:
        return NO_INTERVAL
    q = _quantile(level)
    z = np.arctanh(r)
    return float(np.tanh(z - q * se)), float(np.tanh(z + q * se))


def rho_interval(rho: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Spearman's rho by Fisher's z with the Bonett-Wright SE sqrt((1 + rho^2/2) / (n - 3));
    undefined for n < 4."""
    se = float(np.sqrt((1 + rho**2 / 2) / max(n - 3, 1)))
    return fisher_interval(rho, n, se, 4, level)


def tau_interval(tau: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Kendall's tau-b by Fisher's z with the Fieller-Hartley-Pearson SE sqrt(0.437 / (n - 4));
    undefined for n < 5."""
    return fisher_interval(tau, n, float(np.sqrt(0.437 / max(n - 4, 1))), 5, level)


def mean_interval(values: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of a mean over items (undefined below three items);
    over ``NORMAL_ABOVE`` items, the normal interval of the mean's standard error."""
    column = np.asarray(values, float)[:, None]
    if len(column) < 3:
        return NO_INTERVAL
    if len(column) > NORMAL_ABOVE:
        half = _quantile(0.95) * column.std(ddof=1) / np.sqrt(len(column))
        return float(column.mean() - half), float(column.mean() + half)
    _, drawn = bootstrap_statistic(column, None, mean_statistic, seed)
    low, high = np.percentile(drawn[:, 0], [2.5, 97.5])
    return float(low), float(high)
