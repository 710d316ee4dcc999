"""Shared vocabulary of the analyses: ratings per sample, thresholds, the missing-data notes.

A "rating" is one configuration's score of one sample: the mean of its scored repeats. Failed
and skipped cells never enter a rating. Each statistic says in its ``missing`` column how
samples that some rater did not score were handled.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from judgegrid.analyses.tables import CONFIG_AXES

DEFAULT_THRESHOLD = 0.5
RELIABILITY_TARGET = 0.8
ROUNDING_ZERO = 1e-9  # a reliability this close to 0 is 0 (float noise of cancelling sums)

LISTWISE = "listwise: only samples scored by every rater"
PAIRWISE = "pairwise-complete: each pair of raters on the samples both scored"
PAIRABLE = "pairable values: every sample with at least two ratings"
REPEATS_LISTWISE = "listwise: only samples with every repeat scored"
AVAILABLE = "available-case: samples this rater and at least one other scored"


def threshold_for(metric: str, thresholds: float | Mapping[str, float] | None) -> float:
    """The pass/fail threshold of a metric: a mapping entry, one number for all, or 0.5."""
    if thresholds is None:
        return DEFAULT_THRESHOLD
    if isinstance(thresholds, Mapping):
        return float(thresholds.get(metric, DEFAULT_THRESHOLD))
    return float(thresholds)


def scored(scores: pd.DataFrame) -> pd.DataFrame:
    return scores[scores["status"] == "scored"]


def pooled_by_judge(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores with embedding, dimension and strictness pooled: one configuration a judge."""
    return scores.assign(embedding="", dimension=0, strictness=0)


def pooled_by_choice(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores as a user chooses among them: for a judge-only metric, one configuration a
    judge; for a metric that uses embeddings, one a judge *and* embedding model, named
    'judge / embedding' (the embedding model can decide such a metric's validity on its own: an
    English-only one on other languages), with dimensions and strictness pooled."""
    judge = scores["judge"].astype(str)
    embedding = scores["embedding"].astype(str)
    chosen = judge.where(embedding == "", judge + " / " + embedding)
    return pooled_by_judge(scores).assign(judge=chosen)


def tau_ci(tau: float, n: int) -> tuple[float, float]:
    """95% CI of Kendall's tau-b by Fisher's z with the Fieller-Hartley-Pearson SE
    sqrt(0.437/(n-4)); NaN for n < 5 or |tau| = 1 (no finite z; a tau a rounding error short of
    1 would give the interval [1, 1])."""
    if not np.isfinite(tau) or n < 5 or abs(tau) >= 1 - 1e-9:
        return float("nan"), float("nan")
    se = np.sqrt(0.437 / (n - 4))
    q = stats.norm.ppf(0.975)
    z = np.arctanh(tau)
    return float(np.tanh(z - q * se)), float(np.tanh(z + q * se))


def ratings(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration and sample: the mean of the scored repeats (and their count)."""
    grouped = scored(scores).groupby([*CONFIG_AXES, "sample_id"], dropna=False)["score"]
    return grouped.agg(rating="mean", repeats="count").reset_index()


def spearman_brown_needed(reliability: float, target: float = RELIABILITY_TARGET) -> float:
    """How many parallel measurements (repeats or judges) averaged reach ``target``.

    Spearman-Brown: rho_k = k*rho / (1 + (k-1)*rho), solved for k and rounded up. NaN when the
    single-measurement reliability is undefined or not positive (no number of averages helps),
    zero within rounding error included: an ICC of 4.5e-17, mean squares that cancel, asked
    for 8.8e16 judges in the demo's report.
    """
    if not np.isfinite(reliability) or reliability <= ROUNDING_ZERO:
        return float("nan")
    if reliability >= target:
        return 1.0
    return float(np.ceil(target * (1 - reliability) / (reliability * (1 - target)) - 1e-9))
