"""Which weighting each criterion cell got, counted per judge: no silent fallback.

A criterion asked with ``weighting: logprobs`` (or ``auto``) records per cell what it got
(``weighting``): ``logprobs`` (the score is the probability-weighted value), ``missing`` (asked,
none came back: the score is the plain answer) or ``none`` (not asked). The report counts the
``missing`` cells of each judge, and the card flags a judge with any, so a score that fell back
to the plain answer is never taken for a weighted one.

Missing data: every scored cell of a criterion, of every wording (a failed cell has no
weighting); a table without the ``weighting`` column (a run before criteria) has no rows.
"""

from __future__ import annotations

import pandas as pd

from judgegrid.analyses.frames.criteria import Criteria

WEIGHTING_COLUMNS = [
    "metric",
    "judge",
    "cells",
    "logprobs",
    "without_logprobs",
    "none",
    "without_share",
    "missing",
]
KINDS = ("logprobs", "missing", "none")  # the values of the ``weighting`` column
WEIGHTING_MISSING = "every scored cell of a criterion, every wording (a failed cell has none)"


def weighting_counts(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per criterion and judge: scored cells by the weighting they got, and the share missing."""
    if "weighting" not in scores.columns:
        return pd.DataFrame(columns=WEIGHTING_COLUMNS)
    rows = scores[(scores["status"] == "scored") & scores["metric"].isin(set(criteria))]
    if rows.empty:
        return pd.DataFrame(columns=WEIGHTING_COLUMNS)
    counts = (
        rows.assign(weighting=rows["weighting"].fillna("none"))
        .pivot_table(
            index=["metric", "judge"], columns="weighting", values="sample_id", aggfunc="count"
        )
        .reindex(columns=list(KINDS), fill_value=0)
        .fillna(0)
        .astype(int)
        .reset_index()
    )
    counts["cells"] = counts[list(KINDS)].sum(axis=1)
    counts = counts.rename(columns={"missing": "without_logprobs"})
    counts["without_share"] = counts["without_logprobs"] / counts["cells"]
    counts["missing"] = WEIGHTING_MISSING
    return counts[WEIGHTING_COLUMNS]


def missing_words(counts: pd.DataFrame, metric: str) -> list[str]:
    """The card's flags of ``metric``: each judge with cells whose log-probabilities never came
    (``gpt: no logprobs 12/40``: of its scored cells)."""
    if counts.empty:
        return []
    mine = counts[(counts["metric"] == metric) & (counts["without_logprobs"] > 0)]
    return [
        f"{r['judge']}: no logprobs {r['without_logprobs']}/{r['cells']}"
        for r in mine.to_dict("records")
    ]
