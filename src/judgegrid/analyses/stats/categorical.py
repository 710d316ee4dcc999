"""Agreement on categories: verdicts (pass/fail), named labels, and rubric levels.

A criterion the user writes (``binary``, ``labels`` or ``scale``) gives each sample a category,
not a number to correlate; its agreement statistics are those of categorical ratings. All take a
units x raters table of category codes (0 .. K-1; NaN where a rater gave none), so one table
serves judges, repeats and people alike, and each is computed from per-unit category counts with
a weight per unit, which makes a bootstrap draw (units drawn with replacement) one matrix product
instead of a Python loop:

- ``cohen_kappa``: two raters on the units both rated; plain, or weighted (linear or quadratic:
  the usual choice for a scale, where 4 against 5 is a smaller miss than 1 against 5);
- ``fleiss_kappa``: every rater on the units that all of them rated (Fleiss assumes a constant
  number of ratings per unit);
- ``krippendorff_alpha``: any number of raters with missing ratings (nominal, ordinal or interval
  distances), from the coincidence matrix, or at the interval level from each unit's mean and
  spread (so scores, not only codes, take the same function); units with fewer than two
  ratings take no part;
- ``gwet_ac1``: Gwet's first-order agreement coefficient, which stays meaningful when one
  category dominates (a criterion that almost always passes drives kappa towards 0 or below
  however often the raters agree: the kappa paradox); units with fewer than two ratings count
  towards the categories' shares but not towards observed agreement.

Missing data: each statistic states which units it used (``units``). ``interval`` gives a
percentile bootstrap interval over units.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from scipy import stats

from judgegrid.analyses.stats.paired import DRAW_CHUNK, NORMAL_ABOVE, bootstrap_counts

Level = Literal["nominal", "ordinal", "interval"]
Weights = Literal["linear", "quadratic"] | None
# (per-unit counts: units x K, unit weights: draws x units) -> statistic per draw
CountStatistic = Callable[[np.ndarray, np.ndarray], np.ndarray]


def category_counts(table: np.ndarray, categories: int) -> np.ndarray:
    """How many raters put each unit in each category: units x K (missing ratings count nowhere)."""
    x = np.asarray(table, dtype=float)
    counts = np.zeros((x.shape[0], categories))
    for k in range(categories):
        counts[:, k] = (x == k).sum(axis=1)
    return counts


def krippendorff_alpha(
    table: np.ndarray, categories: int | None = None, level: Level = "nominal"
) -> float:
    """Krippendorff's alpha of a units x raters table (NaN: missing): of codes 0..K-1 at any
    ``level``, or, with ``categories`` None, of the values themselves (scores: interval level)."""
    if categories is None:
        moments = unit_moments(np.asarray(table, dtype=float))
        return float(interval_alpha(*moments, np.ones((1, len(moments[0]))))[0])
    counts = category_counts(table, categories)
    return float(alpha_from_counts(counts, np.ones((1, len(counts))), level)[0])


def alpha_report(table: np.ndarray) -> dict[str, Any]:
    """Krippendorff's alpha of scores (interval level) with what it used: {'alpha',
    'pairable' (values used), 'units' (units used), 'note' (why alpha is NaN, or "")}."""
    x = np.asarray(table, dtype=float)
    if x.ndim != 2:
        raise ValueError("alpha needs a 2-D units x raters table")
    per_unit = (~np.isnan(x)).sum(axis=1)
    usable = per_unit >= 2
    out: dict[str, Any] = {
        "alpha": float("nan"),
        "pairable": int(per_unit[usable].sum()),
        "units": int(usable.sum()),
    }
    if x.shape[1] < 2:
        return out | {"note": "fewer than two raters"}
    if out["pairable"] < 2 or out["units"] == 0:
        return out | {"note": "no sample has two ratings"}
    if np.ptp(x[usable][~np.isnan(x[usable])]) == 0:
        return out | {"note": "every rating is the same value"}
    return out | {"alpha": krippendorff_alpha(x), "note": ""}


def unit_moments(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per unit: how many values, their sum, and their squared deviations from the unit's mean
    (centred, so scores close together lose no precision)."""
    present = ~np.isnan(table)
    m = present.sum(axis=1).astype(float)
    values = np.where(present, table, 0.0)
    sums = values.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        centred = np.where(present, table - (sums / m)[:, None], 0.0)
    return m, sums, (centred**2).sum(axis=1)


def interval_alpha(
    m: np.ndarray, sums: np.ndarray, within: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Interval-level alpha = 1 - D_o/D_e from each unit's count ``m``, sum and within-unit sum
    of squares ``ss``, per row of unit ``weights`` (draws x units). Units with fewer than two
    values take no part (Krippendorff's pairable values). Over ordered pairs in a unit,
    sum (v_i - v_j)^2 = 2 m ss, so with n values in all, D_o = (2/n) sum_u m_u/(m_u-1) ss_u and
    D_e = (2/n) n/(n-1) SS, SS about the pooled mean (within units, then between them): no loop
    over units, no units x K x K tensor, and the same operations on both sides, so one unit's
    alpha is exactly 0 rather than 1e-16."""
    pairable = m >= 2
    m, sums, within, w = m[pairable], sums[pairable], within[pairable], weights[:, pairable]
    n = w @ m
    pooled_mean = (w @ sums) / np.maximum(n, 1e-12)  # per draw
    between = m * (sums / m - pooled_mean[:, None]) ** 2  # draws x units
    pooled_ss = w @ within + (w * between).sum(axis=1)
    observed = w @ (m / (m - 1) * within)
    expected = n / np.maximum(n - 1, 1e-12) * pooled_ss
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - observed / expected
    return np.where((n >= 2) & (expected > 0), alpha, np.nan)


def alpha_from_counts(
    counts: np.ndarray, weights: np.ndarray, level: Level = "nominal"
) -> np.ndarray:
    """alpha = 1 - D_o/D_e over the coincidence matrix o_ck = sum_u w_u n_uc (n_uk - [c=k]) /
    (m_u - 1), for each row of unit ``weights`` (draws x units)."""
    if level == "interval":
        codes = np.arange(counts.shape[1], dtype=float)
        m, sums = counts.sum(axis=1), counts @ codes
        with np.errstate(divide="ignore", invalid="ignore"):
            within = counts @ codes**2 - np.where(m > 0, sums**2 / m, 0.0)
        return interval_alpha(m, sums, within, weights)
    m = counts.sum(axis=1)
    pairable = m >= 2
    n, w = counts[pairable], weights[:, pairable]
    per_unit = (n[:, :, None] * n[:, None, :] - n[:, :, None] * np.eye(n.shape[1])) / (
        m[pairable] - 1
    )[:, None, None]
    coincidence = np.einsum("du,uck->dck", w, per_unit)
    delta = distance_matrix(counts.shape[1], level, coincidence)
    marginal = coincidence.sum(axis=2)  # draws x K
    total = marginal.sum(axis=1)
    observed = (coincidence * delta).sum(axis=(1, 2))
    expected = np.einsum("dc,dk,dck->d", marginal, marginal, delta) / np.maximum(total - 1, 1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - observed / expected
    return np.where(expected > 0, alpha, np.nan)


def distance_matrix(k: int, level: Level, coincidence: np.ndarray) -> np.ndarray:
    """Krippendorff's squared distances between categories, nominal or ordinal, per draw:
    draws x K x K (the ordinal distance depends on the draw's marginals; the interval level
    needs none, ``interval_alpha``)."""
    codes = np.arange(k, dtype=float)
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(k), coincidence.shape)
    # ordinal: (sum of the marginals from c to k, less half of each end's)^2
    marginal = coincidence.sum(axis=2)  # draws x K
    cumulative = np.cumsum(marginal, axis=1)
    between = cumulative[:, None, :] - cumulative[:, :, None] + marginal[:, :, None]
    upper = between - (marginal[:, :, None] + marginal[:, None, :]) / 2
    lower = upper.transpose(0, 2, 1)
    return np.where(codes[:, None] <= codes[None, :], upper, lower) ** 2


def fleiss_kappa(table: np.ndarray, categories: int) -> float:
    """Fleiss' kappa over the units every rater rated."""
    counts = category_counts(table, categories)
    return float(fleiss_from_counts(counts, np.ones((1, len(counts))))[0])


def fleiss_from_counts(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    m = counts.sum(axis=1)
    raters = m.max() if len(m) else 0
    complete = (m == raters) & (raters >= 2)
    n, w = counts[complete], weights[:, complete]
    total = w.sum(axis=1)
    agreement = ((n**2).sum(axis=1) - raters) / (raters * (raters - 1)) if raters >= 2 else n[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (w @ agreement) / total
        shares = (w @ n) / (total * raters)[:, None]
        chance = (shares**2).sum(axis=1)
        return np.where(chance < 1, (observed - chance) / (1 - chance), np.nan)


def gwet_ac1(table: np.ndarray, categories: int) -> float:
    """Gwet's AC1 of a units x raters table (any number of raters, missing allowed)."""
    counts = category_counts(table, categories)
    return float(ac1_from_counts(counts, np.ones((1, len(counts))))[0])


def ac1_from_counts(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    m = counts.sum(axis=1)
    rated = m >= 1
    k = counts.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        pairable = m >= 2
        per_unit = np.where(pairable, (counts * (counts - 1)).sum(axis=1) / (m * (m - 1)), 0.0)
        observed = (weights @ per_unit) / (weights @ pairable.astype(float))
        shares = (weights[:, rated] @ (counts[rated] / m[rated, None])) / weights[:, rated].sum(
            axis=1
        )[:, None]
        chance = (shares * (1 - shares)).sum(axis=1) / (k - 1)
        return (observed - chance) / (1 - chance)


def normal_interval(
    statistic: CountStatistic, counts: np.ndarray, linearized: np.ndarray
) -> tuple[float, float, float]:
    """The statistic on every unit once, with the 95% normal interval of the standard error of
    its per-unit linearized terms (their mean is the statistic, or Gwet's alpha', so the
    variance is theirs about it over n(n-1)): Gwet (2008), as his irrCAC computes it. Over
    ``NORMAL_ABOVE`` units, where 2,000 draws of units are too slow."""
    point = float(statistic(counts, np.ones((1, len(counts))))[0])
    n = len(linearized)
    if n < 3 or not np.isfinite(point) or not np.isfinite(linearized).all():
        return point, float("nan"), float("nan")
    half = stats.norm.ppf(0.975) * float(np.std(linearized, ddof=1)) / np.sqrt(n)
    return point, point - half, point + half


def fleiss_linearized(counts: np.ndarray) -> np.ndarray:
    """Per complete unit, Fleiss' kappa's linearized term (Gwet 2008): the unit's agreement
    beyond chance less twice (1 - kappa) its share of chance agreement's excess."""
    m = counts.sum(axis=1)
    raters = m.max() if len(m) else 0
    n = counts[(m == raters) & (raters >= 2)]
    shares = (n / raters).mean(axis=0)
    chance = float((shares**2).sum())
    agreement = ((n**2).sum(axis=1) - raters) / (raters * (raters - 1))
    kappa = (agreement.mean() - chance) / (1 - chance)
    unit_chance = (n / raters) @ shares
    return (agreement - chance) / (1 - chance) - 2 * (1 - kappa) * (unit_chance - chance) / (
        1 - chance
    )


def ac1_linearized(counts: np.ndarray) -> np.ndarray:
    """Per unit rated at least once, Gwet's AC1's linearized term (Gwet 2008, his variance):
    units rated once count towards the shares alone."""
    m = counts.sum(axis=1)
    n, m = counts[m >= 1], m[m >= 1]
    k = counts.shape[1]
    pairable = m >= 2
    share = n / m[:, None]
    shares = share.mean(axis=0)
    chance = float((shares * (1 - shares)).sum() / (k - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(pairable, (n * (n - 1)).sum(axis=1) / (m * (m - 1)), 0.0)
    scale = len(m) / pairable.sum()
    ac1 = (agreement[pairable].mean() - chance) / (1 - chance)
    unit = scale * (agreement - chance * pairable) / (1 - chance)
    unit_chance = share @ (1 - shares) / (k - 1)
    return unit - 2 * (1 - ac1) * (unit_chance - chance) / (1 - chance)


def alpha_linearized(counts: np.ndarray) -> np.ndarray:
    """Per pairable unit, nominal Krippendorff's alpha's linearized term as Gwet (2014, the
    Handbook's chapter on alpha; irrCAC's krippen.alpha.raw) gives it: about alpha', alpha
    before its small-sample term 1/(values), which vanishes over many units."""
    m = counts.sum(axis=1)
    n, m = counts[m >= 2], m[m >= 2]
    mean_m = m.mean()
    agreement = (n * (n - 1)).sum(axis=1) / (mean_m * (m - 1))
    observed = agreement.mean()
    shares = (n / mean_m).mean(axis=0)
    chance = float((shares**2).sum())
    alpha_prime = (observed - chance) / (1 - chance)
    unit = (agreement - observed * (m - mean_m) / mean_m - chance) / (1 - chance)
    unit_chance = n @ shares / mean_m - chance * (m - mean_m) / mean_m
    return unit - 2 * (1 - alpha_prime) * (unit_chance - chance) / (1 - chance)


def cohen_kappa(
    a: np.ndarray,
    b: np.ndarray,
    categories: int,
    weights: Weights = None,
    unit_weights: np.ndarray | None = None,
) -> float:
    """Cohen's kappa of two raters' codes on the units both rated (plain or weighted), each
    unit counted by its ``unit_weights`` (None: once; a labelled sample's weight makes the
    kappa stand for all the run's samples)."""
    table = np.column_stack([a, b]).astype(float)
    units = np.ones(len(table)) if unit_weights is None else np.asarray(unit_weights, float)
    return float(cohen_from_table(table, categories, units[None, :], weights)[0])


def kappa_interval(
    table: np.ndarray,
    categories: int,
    kind: Weights = None,
    unit_weights: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Cohen's kappa of a units x 2 table of codes (NaN: not rated) with its 95% interval: the
    bootstrap's over units; unweighted over more than ``NORMAL_ABOVE`` units rated by both,
    the normal interval of its large-sample standard error (``cohen_kappa_normal``).
    ``unit_weights``: each unit's weight (a labelled pair's 1 / (N q)): the weighted kappa and
    the weighted bootstrap's interval (``interval``) at any number of units."""
    plain = kind is None and unit_weights is None
    if plain and len(table) > NORMAL_ABOVE and not np.isnan(table).any():
        return cohen_kappa_normal(table[:, 0], table[:, 1], categories)
    return interval(
        lambda t, w: cohen_from_table(t, categories, w, kind), table, unit_weights=unit_weights
    )


def cohen_kappa_normal(a: np.ndarray, b: np.ndarray, categories: int) -> tuple[float, float, float]:
    """Cohen's kappa of two raters' codes (no NaN) with the 95% normal interval of its
    large-sample standard error (Fleiss, Cohen and Everitt 1969): the interval over many
    units (``paired.NORMAL_ABOVE``), where 2,000 bootstrap draws are too slow."""
    k = categories
    p = np.bincount(a.astype(int) * k + b.astype(int), minlength=k * k).reshape(k, k) / len(a)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    chance = float(rows @ cols)
    if chance >= 1:
        return float("nan"), float("nan"), float("nan")
    kappa = (float(np.trace(p)) - chance) / (1 - chance)
    diagonal = np.diag(p) * (1 - (rows + cols) * (1 - kappa)) ** 2
    crossed = p * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(crossed, 0.0)
    spread = diagonal.sum() + (1 - kappa) ** 2 * crossed.sum() - (kappa - chance * (1 - kappa)) ** 2
    half = stats.norm.ppf(0.975) * np.sqrt(spread / len(a)) / (1 - chance)
    return kappa, float(kappa - half), float(kappa + half)


def pass_fail_kappa(
    a: np.ndarray, b: np.ndarray, unit_weights: np.ndarray | None = None
) -> tuple[float, str]:
    """Cohen's kappa of two pass/fail vectors (each unit counted by its weight, if given),
    with why it is NaN (or "")."""
    if len(a) == 0:
        return np.nan, "kappa: no samples"
    sides = np.asarray(a, bool).astype(float), np.asarray(b, bool).astype(float)
    kappa = cohen_kappa(*sides, categories=2, unit_weights=unit_weights)
    if np.isnan(kappa):
        return np.nan, "kappa: both raters put every sample on the same side of the threshold"
    return kappa, ""


def cohen_from_table(
    table: np.ndarray, categories: int, weights: np.ndarray, kind: Weights = None
) -> np.ndarray:
    """kappa = 1 - sum(v * observed) / sum(v * expected) with disagreement weights v (1 off the
    diagonal; |i-j| linear; (i-j)^2 quadratic), per row of unit ``weights``."""
    both = ~np.isnan(table).any(axis=1)
    a, b = table[both, 0].astype(int), table[both, 1].astype(int)
    w = weights[:, both]
    k = categories
    cell = np.zeros((len(a), k * k))
    cell[np.arange(len(a)), a * k + b] = 1.0
    observed = (w @ cell).reshape(-1, k, k)
    total = observed.sum(axis=(1, 2))
    rows, cols = observed.sum(axis=2), observed.sum(axis=1)
    expected = rows[:, :, None] * cols[:, None, :] / np.maximum(total, 1e-12)[:, None, None]
    codes = np.arange(k, dtype=float)
    gap = np.abs(codes[:, None] - codes[None, :])
    v = {None: (gap > 0).astype(float), "linear": gap, "quadratic": gap**2}[kind]
    with np.errstate(divide="ignore", invalid="ignore"):
        disagreement = (v * expected).sum(axis=(1, 2))
        kappa = 1 - (v * observed).sum(axis=(1, 2)) / disagreement
    return np.where(disagreement > 0, kappa, np.nan)


def interval(
    statistic: CountStatistic,
    counts: np.ndarray,
    seed: int = 0,
    draws: int = 2000,
    unit_weights: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """The statistic on every unit once, and its 95% percentile bootstrap interval over units.
    ``unit_weights``: each unit's weight (a labelled sample's 1 / (N q)), by which the statistic
    counts it on every draw (the weighted bootstrap: units resampled, the weighted statistic
    computed); None: each unit once."""
    units = len(counts)
    scale = np.ones(units) if unit_weights is None else np.asarray(unit_weights, float)
    point = float(statistic(counts, scale[None, :])[0])
    if units < 3:
        return point, float("nan"), float("nan")
    weights = bootstrap_counts(units, seed, draws)  # how often each draw took each unit
    values = np.concatenate(
        [
            statistic(counts, weights[start : start + DRAW_CHUNK].astype(float) * scale)
            for start in range(0, draws, DRAW_CHUNK)
        ]
    )
    values = values[np.isfinite(values)]
    if len(values) < draws / 2:
        return point, float("nan"), float("nan")
    low, high = np.percentile(values, [2.5, 97.5])
    return point, float(low), float(high)
