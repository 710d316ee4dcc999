"""The strictness trade-off (ResponseRelevancy): what more generated questions buy and cost.

Per metric, judge and strictness, over every embedding configuration: the mean score, the mean
run-to-run SD (over repeats per sample, then samples), and the calls, tokens, cost and latency a
score needs. A cell's usage is what computing it needed on its own: calls shared with other
cells (questions reused by a smaller strictness, vectors by another dimension) count in each.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import scored
from judgegrid.analyses.frames.tables import repeat_spread

STRICTNESS_GROUP = ["metric", "judge", "strictness"]


def strictness_tradeoff(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per metric with a strictness, judge and strictness value."""
    with_strictness = scores[scores["strictness"] > 0]
    columns = [
        *STRICTNESS_GROUP,
        "scored",
        "failed",
        "mean_score",
        "mean_run_sd",
        "calls_per_score",
        "tokens_per_score",
        "cost_per_score",
        "latency_per_score_s",
        "missing",
    ]
    if with_strictness.empty:
        return pd.DataFrame(columns=columns)
    ok = scored(with_strictness)
    usage = _usage(ok)
    failed = (
        (with_strictness["status"] == "failed")
        .groupby([with_strictness[c] for c in STRICTNESS_GROUP])
        .sum()
        .rename("failed")
    )
    sd = repeat_spread(with_strictness).groupby(STRICTNESS_GROUP)["sd"].mean().rename("mean_run_sd")
    table = usage.join(failed, how="left").join(sd, how="left").reset_index()
    table["missing"] = "scored cells only; failed cells counted in 'failed'"
    return table.reindex(columns=columns)


def _usage(ok: pd.DataFrame) -> pd.DataFrame:
    ok = ok.assign(tokens_total=ok["tokens_in"] + ok["tokens_out"])
    grouped = ok.groupby(STRICTNESS_GROUP)
    usage = grouped.agg(
        scored=("score", "size"),
        mean_score=("score", "mean"),
        calls_per_score=("calls", "mean"),
        tokens_per_score=("tokens_total", "mean"),
        latency_per_score_s=("latency_s", "mean"),
    )
    # cost is unknown (None) for some providers: a mean over known costs would mislead
    cost_known = grouped["cost"].count() == grouped["cost"].size()
    usage["cost_per_score"] = grouped["cost"].mean().where(cost_known, np.nan)
    return usage
