"""Agreement between raters that scored the same samples: judges, or embedding configurations.

Per group (for judges: metric x embedding x dimension x strictness), each rater's rating of a
sample is the mean of its scored repeats. Reported per group: Krippendorff's alpha (interval;
pairable values), ICC(2,1) and ICC(3,1) with 95% CIs (listwise); per pair of raters: Kendall's
tau-b, mean absolute difference and Cohen's kappa at the threshold (pairwise-complete); per
rater: mean offset from the others (positive = more lenient) and agreement with the consensus
of the others (leave-one-out mean), the basis of the recommendation when there are no labels.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import (
    AVAILABLE,
    LISTWISE,
    PAIRABLE,
    PAIRWISE,
    ratings,
)
from judgegrid.analyses.frames.tables import embedding_config
from judgegrid.analyses.stats.categorical import alpha_report, pass_fail_kappa
from judgegrid.analyses.stats.correlation import kendall_tau_b
from judgegrid.analyses.stats.icc import icc, spearman_brown_needed
from judgegrid.core.scales import PLAIN, Scales

JUDGE_GROUP = ["metric", "embedding", "dimension", "strictness"]
EMBEDDING_GROUP = ["metric", "judge", "strictness"]
# The columns summary.md shows of the agreement between judges (the CSV has them all).
AGREEMENT_SUMMARY_COLUMNS = [
    "metric",
    "embedding",
    "dimension",
    "strictness",
    "raters",
    "samples",
    "alpha",
    "icc2",
    "icc2_low",
    "icc2_high",
    "icc3",
    "mean_tau_b",
    "mean_kappa",
    "note",
]


RatingTables = list[tuple[tuple[Any, ...], pd.DataFrame]]


def rating_tables(scores: pd.DataFrame, rater: str = "judge") -> RatingTables:
    """(group key, samples x raters table) per group, raters being judges or embeddings."""
    if rater != "judge":  # the embeddings' rows first: a run without any rates nothing here
        scores = scores[scores["embedding"] != ""]
    return tables_of_ratings(ratings(scores), rater)


def tables_of_ratings(r: pd.DataFrame, rater: str = "judge") -> RatingTables:
    """``rating_tables`` from the ratings (``frames.ratings.ratings``'s columns) already made."""
    if r.empty:
        return []
    if rater == "judge":
        group, column = JUDGE_GROUP, "judge"
    else:
        r = r.copy()
        r["embedding_config"] = embedding_config(r["embedding"], r["dimension"])
        group, column = EMBEDDING_GROUP, "embedding_config"
    wide = r.pivot_table(
        index=[*group, "sample_id"], columns=column, values="rating", aggfunc="first"
    )
    out = []
    for key, block in wide.groupby(level=list(range(len(group))), dropna=False):
        block = block.droplevel(list(range(len(group)))).dropna(axis=1, how="all")
        out.append((key, block))
    return out


def group_columns(rater: str) -> list[str]:
    return JUDGE_GROUP if rater == "judge" else EMBEDDING_GROUP


def agreement_summary(
    scores: pd.DataFrame,
    rater: str = "judge",
    scales: Scales = PLAIN,
    pairs: pd.DataFrame | None = None,
    tables: RatingTables | None = None,
) -> pd.DataFrame:
    """One row per group: alpha, ICC(2,1), ICC(3,1) with CIs, mean pairwise tau-b and kappa.
    ``pairs``, ``tables``: the results of ``agreement_pairs`` and ``rating_tables`` if
    already computed (each a pass over every score)."""
    group = group_columns(rater)
    tables = rating_tables(scores, rater) if tables is None else tables
    if pairs is None:
        pairs = agreement_pairs(scores, rater, scales, tables)
    rows = []
    for key, table in tables:
        values = table.to_numpy(dtype=float)
        a = alpha_report(values) if values.shape[1] >= 2 else {"alpha": np.nan}
        c = icc(values)
        notes = [str(n) for n in (a.get("note", "fewer than two raters"), c["note"]) if n]
        rows.append(
            {
                **dict(zip(group, key, strict=True)),
                "raters": table.shape[1],
                "samples": int((~np.isnan(values)).any(axis=1).sum()),
                "alpha": a["alpha"],
                "alpha_missing": PAIRABLE,
                "icc2": c["icc2"],
                "icc2_low": c["icc2_low"],
                "icc2_high": c["icc2_high"],
                "icc3": c["icc3"],
                "icc3_low": c["icc3_low"],
                "icc3_high": c["icc3_high"],
                "icc_samples": c["n"],
                "icc_missing": LISTWISE,
                "raters_for_0.8": spearman_brown_needed(c["icc2"]),
                "note": "; ".join(dict.fromkeys(notes)),
            }
        )
    summary = pd.DataFrame(rows)
    if summary.empty or pairs.empty:
        return summary
    means = pairs.groupby(group, dropna=False)[["tau_b", "kappa", "mad"]].mean()
    means.columns = ["mean_tau_b", "mean_kappa", "mean_abs_diff"]
    return summary.merge(means.reset_index(), on=group, how="left")


def agreement_pairs(
    scores: pd.DataFrame,
    rater: str = "judge",
    scales: Scales = PLAIN,
    tables: RatingTables | None = None,
) -> pd.DataFrame:
    """One row per group and pair of raters (both orders, for matrices): tau-b, MAD, kappa.
    ``tables``: ``rating_tables(scores, rater)`` if already computed."""
    group = group_columns(rater)
    rows = []
    for key, table in rating_tables(scores, rater) if tables is None else tables:
        limit = scales.threshold(str(key[0]))
        for a, b in itertools.combinations(table.columns, 2):  # each statistic is symmetric
            figures = pair_statistics(table[a].to_numpy(float), table[b].to_numpy(float), limit)
            for first, second in ((a, b), (b, a)):
                rows.append(
                    {
                        **dict(zip(group, key, strict=True)),
                        "rater_a": first,
                        "rater_b": second,
                        **figures,
                        "missing": PAIRWISE,
                    }
                )
    return pd.DataFrame(rows)


def pair_statistics(x: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, Any]:
    """Kendall's tau-b, mean absolute difference and Cohen's kappa on the complete pairs."""
    both = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[both], y[both]
    out: dict[str, Any] = {"n": int(both.sum()), "tau_b": np.nan, "mad": np.nan, "kappa": np.nan}
    if len(x) == 0:
        return out | {"note": "no sample scored by both"}
    out["mad"] = float(np.abs(x - y).mean())
    out["kappa"], kappa_note = pass_fail_kappa(x >= threshold, y >= threshold)
    out["tau_b"], tau_note = kendall_tau_b(x, y)
    return out | {"note": "; ".join(n for n in (tau_note, kappa_note) if n)}


def rater_offsets(
    scores: pd.DataFrame, rater: str = "judge", tables: RatingTables | None = None
) -> pd.DataFrame:
    """Per rater: mean offset from the mean of the others on the same sample (+ = lenient),
    and Kendall's tau-b and MAD against that leave-one-out consensus. ``tables``:
    ``rating_tables(scores, rater)`` if already computed."""
    group = group_columns(rater)
    rows = []
    for key, table in rating_tables(scores, rater) if tables is None else tables:
        values = table.to_numpy(dtype=float)
        present = ~np.isnan(values)
        totals = np.where(present, values, 0.0).sum(axis=1, keepdims=True)
        counts = present.sum(axis=1, keepdims=True)
        others = (totals - np.where(present, values, 0.0)) / np.where(
            counts - present > 0, counts - present, np.nan
        )
        for j, name in enumerate(table.columns):
            mine, consensus = values[:, j], others[:, j]
            use = ~np.isnan(mine) & ~np.isnan(consensus)
            tau, note = kendall_tau_b(mine[use], consensus[use])
            rows.append(
                {
                    **dict(zip(group, key, strict=True)),
                    "rater": name,
                    "n": int(use.sum()),
                    "mean_rating": float(np.nanmean(mine)) if (~np.isnan(mine)).any() else np.nan,
                    "offset": float((mine[use] - consensus[use]).mean()) if use.any() else np.nan,
                    "consensus_tau_b": tau,
                    "consensus_mad": float(np.abs(mine[use] - consensus[use]).mean())
                    if use.any()
                    else np.nan,
                    "missing": AVAILABLE,
                    "note": note if table.shape[1] > 1 else "no other rater",
                }
            )
    return pd.DataFrame(rows)
