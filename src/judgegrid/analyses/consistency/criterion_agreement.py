"""Agreement between judges on a criterion, by statistics that fit its type.

A criterion's answers are categories, so the judges' agreement is that of categorical ratings
(``categorical``), each with its 95% percentile bootstrap interval over samples (over more than
``paired.NORMAL_ABOVE`` samples: Cohen's, Fleiss' kappa, nominal alpha and AC1 with the normal
interval of their large-sample standard error, Gwet 2008 and 2014):

- binary and labels: Cohen's kappa for every pair of judges, Fleiss' kappa over all of them,
  Krippendorff's alpha (nominal) and Gwet's AC1, which stays meaningful when one category
  dominates (a criterion that almost always passes drives kappa towards 0 however often the
  judges agree);
- scale: weighted kappa (quadratic) for every pair, Krippendorff's alpha (ordinal) over all, and
  Kendall's tau-b for every pair.

Missing data: a judge's answer on a sample is its modal answer over the scored repeats of
wording 0 (``criteria.judge_answers``; a tie or a failed cell is no answer). Pairwise statistics
use the samples both judges answered; Fleiss' kappa the samples every judge answered; alpha the
samples with at least two answers; AC1 every answered sample for the categories' shares and
those with two answers or more for the observed agreement. ``units`` says how many were used.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.criteria import Criteria, categories, judge_answers
from judgegrid.analyses.stats.categorical import (
    CountStatistic,
    Level,
    Weights,
    ac1_from_counts,
    ac1_linearized,
    alpha_from_counts,
    alpha_linearized,
    category_counts,
    fleiss_from_counts,
    fleiss_linearized,
    interval,
    kappa_interval,
    normal_interval,
)
from judgegrid.analyses.stats.paired import NORMAL_ABOVE, weighted_tau_b
from judgegrid.core.criterion import CriterionSpec

AGREEMENT_COLUMNS = [
    "metric",
    "type",
    "statistic",
    "raters",
    "value",
    "low",
    "high",
    "units",
    "judges",
    "note",
    "missing",
]
PAIRWISE = "samples both judges answered (modal answer of wording 0's scored repeats; a tie: none)"
EVERY = "samples every judge answered (modal answer of wording 0's scored repeats; a tie: none)"
PAIRABLE = "samples with at least two judges' answers (modal answer of wording 0; a tie: none)"
ANSWERED = (
    "every answered sample for the shares, those with two answers or more for the observed "
    "agreement (modal answer of wording 0; a tie: none)"
)


def answer_table(scores: pd.DataFrame, criteria: Criteria, metric: str) -> pd.DataFrame:
    """Samples x judges of one criterion's answer codes (NaN: no answer); juries left out."""
    answered = judge_answers(scores, criteria)
    mine = answered[answered["metric"] == metric]
    if mine.empty:
        return pd.DataFrame()
    return mine.pivot_table(index="sample_id", columns="judge", values="code", dropna=False)


def criterion_agreement(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per criterion: its type's agreement statistics between judges (module docstring)."""
    rows: list[dict[str, Any]] = []
    for metric in sorted(criteria):
        table = answer_table(scores, criteria, metric)
        if table.shape[1] < 2:
            continue
        rows += _rows_of(metric, criteria[metric], table)
    return pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)


def _rows_of(metric: str, spec: CriterionSpec, table: pd.DataFrame) -> list[dict[str, Any]]:
    k = len(categories(spec))
    judges = [str(j) for j in table.columns]
    codes = table.to_numpy(float)
    base = {"metric": metric, "type": spec.type, "judges": len(judges)}
    scale = spec.type == "scale"
    rows = []
    for a, b in itertools.combinations(range(len(judges)), 2):
        pair = codes[:, [a, b]]
        pair = pair[~np.isnan(pair).any(axis=1)]
        raters = f"{judges[a]} vs {judges[b]}"
        kind: Weights = "quadratic" if scale else None
        name = "weighted kappa (quadratic)" if scale else "Cohen's kappa"
        kappa = kappa_interval(pair, k, kind) if len(pair) else None
        rows.append(base | _row(name, raters, None, pair, PAIRWISE, kappa))
        if scale:
            rows.append(base | _row("Kendall's tau-b", raters, _tau_b, pair, PAIRWISE))
    counts = category_counts(codes, k)
    everyone = "all judges"
    if scale:
        rows.append(
            base | _row("Krippendorff's alpha (ordinal)", everyone, _alpha("ordinal"), counts)
        )
        return rows
    complete = counts[counts.sum(axis=1) == len(judges)]
    pairable = counts[counts.sum(axis=1) >= 2]
    answered = counts[counts.sum(axis=1) >= 1]
    nominal = _alpha("nominal")
    rows += [
        base | _row("Fleiss' kappa", everyone, fleiss_from_counts, complete, EVERY,
                    _normal(fleiss_from_counts, complete, fleiss_linearized)),
        base | _row("Krippendorff's alpha (nominal)", everyone, nominal, counts, PAIRABLE,
                    _normal(nominal, pairable, alpha_linearized)),
        base | _row("Gwet's AC1", everyone, ac1_from_counts, answered, ANSWERED,
                    _normal(ac1_from_counts, answered, ac1_linearized)),
    ]  # fmt: skip
    return rows


def _normal(
    statistic: CountStatistic, counts: np.ndarray, linearized: Callable[[np.ndarray], np.ndarray]
) -> tuple[float, float, float] | None:
    """Over more than ``NORMAL_ABOVE`` units, the statistic with the normal interval of Gwet's
    linearized variance (``categorical.normal_interval``): 2,000 draws of 100,000 samples took
    most of the report; else None (the bootstrap's)."""
    if len(counts) <= NORMAL_ABOVE:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):  # one category: undefined, NaN
        return normal_interval(statistic, counts, linearized(counts))


def _row(
    statistic: str,
    raters: str,
    function: Callable[[np.ndarray, np.ndarray], np.ndarray] | None,
    data: np.ndarray,
    missing: str = PAIRABLE,
    figures: tuple[float, float, float] | None = None,
) -> dict[str, Any]:
    """One statistic's row: ``figures`` (value, low, high) where the caller has them, else the
    statistic with its bootstrap interval over ``data``."""
    if figures is None:
        none = (np.nan, np.nan, np.nan)
        figures = interval(function, data) if function is not None and len(data) else none
    value, low, high = figures
    units = int((data.sum(axis=1) >= 2).sum()) if missing == PAIRABLE else len(data)
    return {
        "statistic": statistic,
        "raters": raters,
        "value": value,
        "low": low,
        "high": high,
        "units": units,
        "note": _note(value, low, units),
        "missing": missing,
    }


def _note(value: float, low: float, units: int) -> str:
    """Why a statistic or its interval is missing."""
    if units == 0:
        return "no sample to compare"
    if not np.isfinite(value):
        return "undefined: every answer in one category (no agreement beyond chance to measure)"
    if not np.isfinite(low):
        return "no interval: fewer than three samples, or most draws undefined"
    return ""


def _alpha(level: Level) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    return lambda counts, weights: alpha_from_counts(counts, weights, level)


def _tau_b(pair: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of the two columns, per row of unit weights (how often a draw took each
    sample)."""
    return weighted_tau_b(pair[:, 0], pair[:, 1], weights.astype(int))
