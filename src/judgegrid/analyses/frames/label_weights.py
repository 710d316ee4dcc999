"""How much each labelled sample counts, so that figures from people's labels stand for all the
run's samples and not for the samples a queue chose (``stats.weighted``).

Per metric (or criterion) and annotator, the observations are:

- the annotator's queue's draws (``label_draws``, ``records.LabelDraw``), where it has any: each
  draw of a sample the annotator labelled is one observation with weight ``1 / (N q)``, ``q``
  the sample's probability a draw and ``N`` the design's samples (a sample drawn twice counts
  twice: Hansen-Hurwitz); a label of that annotator no draw points to counts once, as below;
- otherwise each label once, with weight ``1 / (N q)`` from its own ``probability``; a label
  with none (a data set's, one imported without a design, one from before the queue drew)
  counts as drawn uniformly: weight 1.

A sample's weight is the sum of its observations' weights over each annotator, averaged over
the annotators who labelled it: with one annotator, exactly the Hansen-Hurwitz draws; with
every label drawn uniformly, 1 for every sample (the figures are today's, unweighted). Several
annotators drawing from different designs make it an approximation (their draws are not
pooled), which the docs say.

Missing data: a label with no value (a skip) is no observation, and a draw of a sample the
annotator has not labelled (not yet answered, or skipped) counts for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

WEIGHT_COLUMNS = ["metric", "sample_id", "weight", "labels", "draws"]
UNIFORM_WORDS = "labels drawn uniformly"


def sample_weights(
    labels: pd.DataFrame | None,
    draws: pd.DataFrame | None = None,
    populations: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """Per metric and labelled sample: its weight (module docstring), how many labels it has
    and how many observations (draws, or labels counted once) stand behind its weight.

    ``labels``: ``sample_id, metric, annotator, value`` and optionally ``probability``;
    ``draws``: ``records.DRAW_COLUMNS``; ``populations``: each metric's number of samples
    (``N`` for a label with a probability and no draw, where the metric has no queue's draws
    to give its design's). Columns: ``WEIGHT_COLUMNS``."""
    if labels is None or labels.empty:
        return pd.DataFrame(columns=WEIGHT_COLUMNS)
    keys = ["metric", "annotator", "sample_id"]
    table = labels.dropna(subset=["value"]).astype({k: str for k in keys})
    table = table.drop_duplicates(keys, keep="last")
    probability = (
        table["probability"].astype(float)
        if "probability" in table
        else pd.Series(np.nan, index=table.index)
    )
    drawn = _draw_observations(draws, table[keys])
    alone = np.ones(len(table), bool)
    if not drawn.empty:  # a label some draw points to counts by its draws instead
        pointed = pd.MultiIndex.from_frame(drawn[keys])
        alone = ~pd.MultiIndex.from_frame(table[keys]).isin(pointed)
    sizes = {**dict(populations or {}), **_design_sizes(draws)}
    once = table.loc[alone, keys].assign(
        weight=_label_weights(table["metric"][alone], probability[alone], sizes),
        observations=1,
    )
    # no draws: the labels alone (the empty frame's object columns would make every sum below
    # a Python loop over the groups: 17 s of the report on 100,000 labels)
    observed = pd.concat([once, drawn], ignore_index=True) if not drawn.empty else once
    per_annotator = observed.groupby(keys, as_index=False).agg(
        weight=("weight", "sum"), observations=("observations", "sum")
    )
    out = per_annotator.groupby(["metric", "sample_id"], as_index=False).agg(
        weight=("weight", "mean"),
        labels=("annotator", "count"),
        draws=("observations", "sum"),
    )
    return out.reindex(columns=WEIGHT_COLUMNS)


def _label_weights(
    metric: pd.Series, probability: pd.Series, populations: Mapping[str, int] | None
) -> np.ndarray:
    """Each label's own weight: 1 / (N q), or 1 where it has no probability."""
    weight = np.ones(len(probability))
    given = probability.notna().to_numpy()
    if given.any():
        sizes = metric[given].map(dict(populations or {}))
        if sizes.isna().any():
            unknown = sorted(set(metric[given][sizes.isna()]))
            raise ValueError(
                f"labels of {', '.join(unknown)} carry a probability but the run has no sample "
                "count for them (N of the weight 1 / (N q))"
            )
        weight[given] = 1.0 / (sizes.to_numpy(float) * probability[given].to_numpy(float))
    return weight


def _design_sizes(draws: pd.DataFrame | None) -> dict[str, int]:
    """Each metric's number of samples in its queue's design, where it has draws."""
    if draws is None or draws.empty:
        return {}
    return {str(m): int(n) for m, n in draws.groupby("metric")["population"].max().items()}


def _draw_observations(draws: pd.DataFrame | None, labelled: pd.DataFrame) -> pd.DataFrame:
    """The draws of samples their annotator labelled, each with weight 1 / (N q)."""
    keys = ["metric", "annotator", "sample_id"]
    columns = [*keys, "weight", "observations"]
    if draws is None or draws.empty:
        return pd.DataFrame(columns=columns)
    found = draws.astype({k: str for k in keys}).merge(labelled, on=keys)
    bad = found[(found["probability"] <= 0) | (found["probability"] > 1)]
    if len(bad):
        first = bad.iloc[0]
        raise ValueError(
            f"label_draws: draw {first['draw']} of {first['metric']} ({first['annotator']}) has "
            f"probability {first['probability']}; expected one in (0, 1]"
        )
    weight = 1.0 / (found["population"].astype(float) * found["probability"].astype(float))
    return found[keys].assign(weight=weight.to_numpy(), observations=1)


def metric_weights(weights: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric's rows of ``sample_weights``, indexed by sample id."""
    if weights.empty:
        return pd.DataFrame(columns=WEIGHT_COLUMNS).set_index("sample_id")
    return weights[weights["metric"] == metric].set_index("sample_id")


def is_uniform(weight: np.ndarray) -> bool:
    """Whether every weight is 1: the figures are then the unweighted ones, exactly."""
    w = np.asarray(weight, float)
    return bool(np.all(w == 1.0))


def populations(scores: pd.DataFrame, labels: pd.DataFrame | None) -> dict[str, int]:
    """Each labelled metric's number of samples in the run (``N`` of a label's weight), counted
    only where some label carries a probability (a run's labels mostly do not)."""
    if labels is None or "probability" not in labels or labels["probability"].isna().all():
        return {}
    given = set(labels.loc[labels["probability"].notna(), "metric"].astype(str))
    mine = scores[scores["metric"].isin(given)]
    return {str(m): int(n) for m, n in mine.groupby("metric")["sample_id"].nunique().items()}


def sampling_words(
    weights: pd.DataFrame, draws: pd.DataFrame | None, sizes: Mapping[str, int]
) -> dict[str, str]:
    """Per labelled metric, what its figures from labels stand for, in words for the report
    and the card: "labels drawn uniformly", or "labels weighted by the queue's draw
    probabilities over N samples" (N: the queue's design, else the run's samples)."""
    if weights.empty:
        return {}
    drawn = _design_sizes(draws)
    out = {}
    for metric, block in weights.groupby("metric"):
        if is_uniform(block["weight"].to_numpy(float)):
            out[str(metric)] = UNIFORM_WORDS
            continue
        population = drawn.get(str(metric), sizes.get(str(metric)))
        over = f" over {population} samples" if population else ""
        out[str(metric)] = f"labels weighted by the queue's draw probabilities{over}"
    return out
