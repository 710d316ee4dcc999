"""Validity against human judgement: preference pairs, numeric labels, and designed contrasts.

Pairwise preference (the protocol of the Ragas paper, Es et al. 2023, Table 1): for each pair
the annotators prefer one member on a dimension; a configuration agrees when the preferred
member gets the strictly higher score (strictly lower for a lower-is-better metric). Ties count
as disagreement. accuracy = agreements / pairs, with a 95% Wilson score interval. A pair whose
member was not scored (failed or skipped) counts against the configuration, as a tie does: it is
wrong, and counted in ``pairs_unscored`` (``pairs`` counts the scored ones; accuracy is over
both).

People's preferences drawn by the preference queue (source ``people``) stand for all the pairs:
given their weights (``frames.label_weights.person_weights``, the card's pairs rung's), a
group whose weights are not all 1 shows the weighted accuracy (``stats.weighted``'s, with its
Wilson interval at the effective number of pairs), the unweighted one beside it
(``accuracy_unweighted``) and what the weights stand for (``weighting``); ``pairs``, ``agree``
and ``ties`` stay counts. Every weight 1: the table is the unweighted one, unchanged.

Preference pairs come from sample labels (``pair``; ``preferred``: 1 for the preferred member, 0
for the other; ``aspect``: the quality the annotators judged) or from the demo set's contrasts
(within a group a lower rank should score better; any two members of different rank form a pair).

Numeric labels (a label named like a metric, e.g. ``faithfulness: 0.8``) are compared with
Spearman's rho over samples with both a rating and a label (pairwise-complete), with a 95% CI by
Fisher's z with the Bonett-Wright standard error sqrt((1 + rho^2/2) / (n - 3)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.label_weights import is_uniform
from judgegrid.analyses.frames.ratings import ratings
from judgegrid.analyses.frames.tables import CONFIG_AXES
from judgegrid.analyses.stats.correlation import spearman_with_ci
from judgegrid.analyses.stats.intervals import wilson_interval
from judgegrid.analyses.stats.weighted import weighted_accuracy
from judgegrid.core.scales import PLAIN, Scales

PAIR_COLUMNS = ["source", "pair", "aspect", "metric", "preferred", "other"]
PAIR_MISSING = "every pair: an unscored one (a failed cell) counts as wrong, like a tie"
ONCE_WORDS = "each pair counts once"

# The dimension a pair's annotators judged -> the metrics of the suite that measure it. Context
# relevance (a focused vs a padded context) has none: context_precision judges whether a context
# was useful for the answer, not whether it is padded, so it is not forced onto these pairs.
ASPECT_METRICS: dict[str, tuple[str, ...]] = {
    "faithfulness": ("faithfulness",),
    "answer_relevance": ("response_relevancy", "answer_relevancy"),
    "context_relevance": (),
}
NO_METRIC_NOTE = {
    "context_relevance": "no metric of the suite measures context padding (context_precision "
    "judges whether each context was useful for the answer, not whether it is padded), so no "
    "metric is scored against these pairs",
}


def pairs_from_labels(labels: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Preference pairs from sample labels {'pair', 'preferred', 'aspect'} (one row a pair
    and metric measuring its dimension)."""
    rows = [
        {
            "sample_id": sid,
            "pair": lab["pair"],
            "preferred": float(lab["preferred"]),
            "aspect": str(lab.get("aspect", "")),
        }
        for sid, lab in labels.items()
        if lab and "pair" in lab and "preferred" in lab
    ]
    if not rows:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    members = pd.DataFrame(rows)
    best = members[members["preferred"] == 1].drop_duplicates("pair")
    rest = members[members["preferred"] != 1].drop_duplicates("pair")
    pairs = best.merge(rest, on=["pair", "aspect"], suffixes=("_best", "_rest"))
    out = pairs.rename(columns={"sample_id_best": "preferred", "sample_id_rest": "other"})
    out["metric"] = out["aspect"].map(lambda d: ASPECT_METRICS.get(d, (d,)))
    out = out.explode("metric").dropna(subset=["metric"])
    out["source"] = "labels"
    return out.reindex(columns=PAIR_COLUMNS).reset_index(drop=True)


def pairs_from_contrasts(contrasts: Mapping[str, Mapping[str, Any] | None]) -> pd.DataFrame:
    """Every two members of a contrast group with different ranks: the lower rank preferred."""
    rows = [
        {"sample_id": sid, "group": c["group"], "metric": c["metric"], "rank": int(c["rank"])}
        for sid, c in contrasts.items()
        if c
    ]
    if not rows:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    members = pd.DataFrame(rows)
    both = members.merge(members, on=["group", "metric"], suffixes=("_a", "_b"))
    both = both[both["rank_a"] < both["rank_b"]]
    return pd.DataFrame(
        {
            "source": "contrast",
            "pair": both["group"] + ":" + both["sample_id_a"] + ">" + both["sample_id_b"],
            "aspect": both["metric"],
            "metric": both["metric"],
            "preferred": both["sample_id_a"],
            "other": both["sample_id_b"],
        }
    ).reset_index(drop=True)


def pair_outcomes(
    scores: pd.DataFrame, pairs: pd.DataFrame, scales: Scales = PLAIN
) -> pd.DataFrame:
    """One row per configuration and pair: both ratings and whether the configuration agrees."""
    if pairs.empty:
        return pd.DataFrame()
    r = ratings(scores)[[*CONFIG_AXES, "sample_id", "rating"]]
    # every configuration of the run, also one whose cells all failed (its pairs: unscored)
    configs = scores[CONFIG_AXES].drop_duplicates()
    grid = configs.merge(pairs, on="metric")
    grid = grid.merge(
        r.rename(columns={"sample_id": "preferred", "rating": "rating_preferred"}),
        on=[*CONFIG_AXES, "preferred"],
        how="left",
    ).merge(
        r.rename(columns={"sample_id": "other", "rating": "rating_other"}),
        on=[*CONFIG_AXES, "other"],
        how="left",
    )
    lower = scales.lower_is_better_of(grid["metric"].unique())
    sign = np.where(grid["metric"].isin(lower), -1.0, 1.0)
    grid["scored"] = grid["rating_preferred"].notna() & grid["rating_other"].notna()
    grid["agree"] = (sign * (grid["rating_preferred"] - grid["rating_other"]) > 0) & grid["scored"]
    grid["tie"] = (grid["rating_preferred"] == grid["rating_other"]) & grid["scored"]
    return grid


def pair_accuracy(
    scores: pd.DataFrame,
    pairs: pd.DataFrame,
    scales: Scales = PLAIN,
    weights: pd.Series | None = None,
    sampling: str = "",
) -> pd.DataFrame:
    """Per source, dimension and configuration: accuracy, Wilson 95% CI, ties, unscored pairs.
    ``weights``: people's preferences' weights by pair (a pair not in it weighs 1), and
    ``sampling`` what they stand for in words (module docstring)."""
    outcomes = pair_outcomes(scores, pairs, scales)
    keys = ["source", "aspect", *CONFIG_AXES]
    if outcomes.empty:
        return pd.DataFrame(columns=[*keys, "pairs", "agree", "ties", "n", "accuracy"])
    table = (
        outcomes.groupby(keys)
        .agg(
            pairs=("scored", "sum"),
            pairs_unscored=("scored", lambda s: int((~s).sum())),
            agree=("agree", "sum"),
            ties=("tie", "sum"),
        )
        .reset_index()
    )
    table["n"] = table["pairs"] + table["pairs_unscored"]
    table["accuracy"] = table["agree"] / table["n"].where(table["n"] > 0)
    bounds = [
        wilson_interval(int(a), int(n)) for a, n in zip(table["agree"], table["n"], strict=True)
    ]
    table["ci_low"] = [b[0] for b in bounds]
    table["ci_high"] = [b[1] for b in bounds]
    table["ci_method"] = "Wilson score, 95%"
    table["missing"] = PAIR_MISSING
    weight = pair_weights(outcomes, weights)
    if weight is None:
        return table
    return weighted_accuracy_rows(table, outcomes.assign(weight=weight), keys, sampling)


def weighting_notes(table: pd.DataFrame, figures: str) -> list[str]:
    """What a table's weighted accuracies stand for (its ``weighting`` column), one line for
    each distinct weighting, ``figures`` naming them: none where every row counts each pair
    once, so a run without a queue's unequal draws reads as before."""
    if table.empty or "weighting" not in table.columns:
        return []
    found = [w for w in dict.fromkeys(table["weighting"].astype(str)) if w != ONCE_WORDS]
    return [
        f"{figures}: weighted as the card weighs them, {w} (each pair once: accuracy_unweighted)."
        for w in found
    ]


def pair_weights(outcomes: pd.DataFrame, weights: pd.Series | None) -> np.ndarray | None:
    """Each outcome's pair's weight (1 for a pair ``weights`` lacks), or None where all are 1."""
    if weights is None or weights.empty or outcomes.empty:
        return None
    weight = weights_by_pair(weights, outcomes["pair"].astype(str))
    return None if is_uniform(weight) else weight


def weights_by_pair(weights: pd.Series, pairs: pd.Series | pd.Index) -> np.ndarray:
    """Each of ``pairs``' weight (a pair not in ``weights`` weighs 1)."""
    return weights.astype(float).reindex(pairs).fillna(1.0).to_numpy(float)


def weighted_groups(
    outcomes: pd.DataFrame, keys: list[str]
) -> dict[Any, tuple[float, float, float]]:
    """Per group of ``outcomes`` by ``keys`` whose weights are not all 1: the weighted
    accuracy and its interval (``stats.weighted.weighted_accuracy`` of ``agree`` by
    ``weight``). A group of equal weights is left out: its counted figures stand."""
    found = {}
    for key, block in outcomes.groupby(keys, sort=True):
        w = block["weight"].to_numpy(float)
        if not is_uniform(w):
            found[key] = weighted_accuracy(block["agree"].to_numpy(float), w)
    return found


def weighted_accuracy_rows(
    table: pd.DataFrame, outcomes: pd.DataFrame, keys: list[str], sampling: str
) -> pd.DataFrame:
    """``table`` (a row per group of ``outcomes`` by ``keys``, in their sorted order) with each
    group's accuracy and interval weighted (``weighted_groups``), the unweighted accuracy kept
    beside it, and the words of its weights (a group whose weights are all 1: unchanged):
    ``validity_pairs``, ``pairwise_rules`` and ``pairwise_groups``."""
    table = table.assign(accuracy_unweighted=table["accuracy"], weighting=ONCE_WORDS)
    figures = weighted_groups(outcomes, keys)
    for at, key in enumerate(outcomes.groupby(keys, sort=True).groups):
        if key in figures:
            table.loc[table.index[at], ["accuracy", "ci_low", "ci_high"]] = figures[key]
            table.loc[table.index[at], "weighting"] = sampling or "weighted"
    return table


def label_correlations(
    scores: pd.DataFrame, labels: Mapping[str, Mapping[str, Any]]
) -> pd.DataFrame:
    """Spearman's rho between ratings and numeric labels named like the configuration's metric."""
    numeric = [
        {"sample_id": sid, "metric": key, "label": float(value)}
        for sid, lab in labels.items()
        for key, value in (lab or {}).items()
        if isinstance(value, int | float) and key not in ("preferred",)
    ]
    if not numeric:
        return pd.DataFrame()
    merged = ratings(scores).merge(pd.DataFrame(numeric), on=["metric", "sample_id"])
    rows = []
    for key, block in merged.groupby(CONFIG_AXES):
        rho, low, high, note = spearman_with_ci(
            block["rating"].to_numpy(), block["label"].to_numpy()
        )
        rows.append(
            {
                **dict(zip(CONFIG_AXES, key, strict=True)),
                "n": len(block),
                "spearman": rho,
                "ci_low": low,
                "ci_high": high,
                "note": note,
                "ci_method": "Fisher z, Bonett-Wright SE, 95%",
                "missing": "pairwise-complete: samples with a rating and a label",
            }
        )
    return pd.DataFrame(rows)


def aspect_notes(sample_info: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What the report must say about labelled aspects no metric of the suite measures."""
    aspects = {
        str((info.get("labels") or {}).get("aspect", ""))
        for info in sample_info.values()
        if info.get("labels")
    }
    return [
        f"{a.replace('_', ' ')} pairs: {NO_METRIC_NOTE[a]}."
        for a in sorted(aspects)
        if a in NO_METRIC_NOTE
    ]
