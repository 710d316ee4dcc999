"""Run-to-run stability of each configuration: how far repeats of the same cell disagree.

Per configuration (metric x judge x embedding x dimension x strictness): the mean run-to-run SD
over samples, ICC(1) over repeats (samples as targets, repeats as interchangeable raters), the
share of samples whose pass/fail at the metric's threshold flips between repeats, and the
repeats needed for a reliability of 0.8 (Spearman-Brown on ICC(1)).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import REPEATS_LISTWISE, scored
from judgegrid.analyses.frames.tables import CONFIG_AXES, repeat_spread
from judgegrid.analyses.stats.icc import icc, spearman_brown_needed
from judgegrid.core.scales import PLAIN, Scales

STABILITY_COLUMNS = [
    *CONFIG_AXES,
    "samples",
    "mean_score",
    "mean_run_sd",
    "max_range",
    "threshold",
    "flip_share",
    "flip_samples",
    "icc1",
    "icc1_low",
    "icc1_high",
    "icc1_samples",
    "repeats",
    "repeats_for_0.8",
    "missing",
    "note",
]
# The columns summary.md shows (the CSV has them all).
STABILITY_SUMMARY_COLUMNS = [
    "metric",
    "judge",
    "embedding",
    "dimension",
    "strictness",
    "mean_run_sd",
    "flip_share",
    "icc1",
    "icc1_low",
    "icc1_high",
    "repeats_for_0.8",
]


def stability(
    scores: pd.DataFrame,
    scales: Scales = PLAIN,
    spread: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per configuration; SDs and flips use samples with at least two scored repeats.
    ``spread``: ``repeat_spread(scores)`` if already made."""
    spread = repeat_spread(scores) if spread is None else spread
    if spread.empty:
        return pd.DataFrame(columns=STABILITY_COLUMNS)
    flips = _flips(scores, scales)
    per_config = (
        spread.groupby(CONFIG_AXES, dropna=False)
        .agg(
            samples=("sample_id", "count"),
            mean_score=("mean", "mean"),
            mean_run_sd=("sd", "mean"),
            max_range=("range", "max"),
        )
        .reset_index()
    )
    table = per_config.merge(flips, on=CONFIG_AXES, how="left")
    table = table.merge(_repeat_icc(scores), on=CONFIG_AXES, how="left")
    table["repeats_for_0.8"] = [spearman_brown_needed(v) for v in table["icc1"]]
    table["missing"] = (
        "SD, range, flips: samples with >= 2 scored repeats; ICC(1): " + REPEATS_LISTWISE
    )
    return table.reindex(columns=STABILITY_COLUMNS)


def _flips(scores: pd.DataFrame, scales: Scales) -> pd.DataFrame:
    """Share of samples (>= 2 scored repeats) with repeats on both sides of the threshold."""
    rows = scored(scores)[[*CONFIG_AXES, "sample_id", "score"]].copy()
    # each metric's threshold looked up once, then taken by its code (``map`` over a million
    # Arrow strings made a Python call a row)
    metric, names = pd.factorize(rows["metric"])
    rows["threshold"] = np.array([scales.threshold(str(m)) for m in names], dtype=float)[metric]
    rows["passes"] = rows["score"] >= rows["threshold"]
    per_sample = rows.groupby([*CONFIG_AXES, "sample_id"], dropna=False).agg(
        threshold=("threshold", "first"), n=("passes", "size"), passed=("passes", "sum")
    )
    per_sample = per_sample[per_sample["n"] >= 2]
    per_sample["flip"] = (per_sample["passed"] > 0) & (per_sample["passed"] < per_sample["n"])
    out = (
        per_sample.groupby(CONFIG_AXES, dropna=False)
        .agg(threshold=("threshold", "first"), flip_share=("flip", "mean"), n=("flip", "size"))
        .reset_index()
        .rename(columns={"n": "flip_samples"})
    )
    return out


def _repeat_icc(scores: pd.DataFrame) -> pd.DataFrame:
    """ICC(1) per configuration over a samples x repeats table (listwise)."""
    wide = scored(scores).pivot_table(
        index=[*CONFIG_AXES, "sample_id"], columns="repeat", values="score", aggfunc="first"
    )
    rows = []
    for key, block in wide.groupby(level=list(range(len(CONFIG_AXES))), dropna=False):
        values = block.to_numpy(dtype=float)
        values = values[:, ~np.isnan(values).all(axis=0)]
        result = icc(values)
        rows.append(
            (
                *key,
                result["icc1"],
                result["icc1_low"],
                result["icc1_high"],
                result["n"],
                result["k"],
                result["note"].replace("raters", "repeats").replace("every rater", "every repeat"),
            )
        )
    return pd.DataFrame(
        rows,
        columns=[*CONFIG_AXES, "icc1", "icc1_low", "icc1_high", "icc1_samples", "repeats", "note"],
    )
