"""How far the judges are apart on each sample: the samples worth opening first.

Per metric and sample, a judge's rating is the mean over its configurations (embedding,
dimension, strictness) of each configuration's mean of scored repeats; the sample's
disagreement is the highest judge's rating minus the lowest. This is the same measure as the
view's "disagreement" sort, so a sample the report names is at the top of the view's list.

Missing data (``MISSING``): available-case. Failed and skipped repeats never enter a rating; a
configuration with no scored repeat is left out of its judge's mean; a judge with no scored
configuration on the sample is left out; a sample rated by fewer than two judges has no
disagreement (NaN) and is listed last.
"""

from __future__ import annotations

import pandas as pd

MISSING = (
    "available-case: a judge's rating is the mean over its configurations of the scored "
    "repeats' mean; failed and skipped repeats are left out; fewer than two judges rated: NaN"
)
COLUMNS = [
    "metric",
    "sample_id",
    "judges",
    "disagreement",
    "low_judge",
    "low",
    "high_judge",
    "high",
    "missing",
]


def sample_disagreement(spread: pd.DataFrame) -> pd.DataFrame:
    """One row per metric and sample, most disagreed first: how many judges rated it, the
    gap between the highest and the lowest judge, and who they are (ties: the judge first by
    name). ``spread``: ``frames.tables.repeat_spread``'s per-configuration means of a sample."""
    rated = spread.dropna(subset=["mean"])
    if rated.empty:
        return pd.DataFrame(columns=COLUMNS)
    by_judge = (
        rated.groupby(["metric", "sample_id", "judge"], dropna=False)["mean"]
        .mean()
        .rename("rating")
        .reset_index()
        .sort_values(["metric", "sample_id", "judge"], kind="stable")
    )
    samples = by_judge.groupby(["metric", "sample_id"], dropna=False, sort=False)["rating"]
    low = by_judge.loc[samples.idxmin()].set_index(["metric", "sample_id"])
    high = by_judge.loc[samples.idxmax()].set_index(["metric", "sample_id"])
    table = pd.DataFrame(
        {
            "judges": samples.count(),
            "low_judge": low["judge"],
            "low": low["rating"],
            "high_judge": high["judge"],
            "high": high["rating"],
        }
    )
    table["disagreement"] = (table["high"] - table["low"]).where(table["judges"] >= 2)
    table["missing"] = MISSING
    table = table.reset_index().sort_values(["metric", "sample_id"], kind="stable")
    table = table.sort_values("disagreement", ascending=False, na_position="last", kind="stable")
    return table[COLUMNS].reset_index(drop=True)
