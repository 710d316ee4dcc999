"""How much each labelled sample counts, so that figures from people's labels stand for all the
run's samples and not for the samples a queue chose (``stats.weighted``).

Per metric (or criterion) and annotator, the observations are:

- the annotator's queue's draws (``label_draws``, ``records.LabelDraw``), where it has any: each
  draw of a sample the annotator labelled is one observation with weight ``1 / (N q)``, ``q``
  the probability stored with the draw and ``N`` the design's samples (the page draws without
  replacement and stores ``q`` so that this is the label's kind weight, ``decision.kinds``; a
  sample drawn twice by a queue of old, with replacement, counts twice: Hansen-Hurwitz); a
  label of that annotator no draw points to counts once, as below;
- otherwise each label once, with weight ``1 / (N q)`` from its own ``probability``; a label
  with none (a data set's, one imported without a design, one from before the queue drew)
  counts as drawn uniformly: weight 1;
- a label the person chose on ``judgegrid view``'s page (``records.Label.chosen``) that no
  draw of theirs points to is no probability sample: no observation of the design. Its
  sample, if nothing else put it in, weighs 0, and the figures leave it out
  (``without_chosen``), unless every label of its metric was chosen so: then there is no
  design-based figure to give, and each weighs 1 (the figures describe the chosen samples,
  and ``sampling_words`` says so).

A sample's weight is the sum of its observations' weights over each annotator, averaged over
the annotators who labelled it (those who only chose it take no part): with one annotator,
exactly the Hansen-Hurwitz draws; with every label drawn uniformly, 1 for every sample (the
figures are today's, unweighted). Several annotators drawing from different designs make it an
approximation (their draws are not pooled), which the docs say.

People's preferences in a pairs run (``person_weights``) are weighted alike, with each
person's preference of a pair an item of its own: the pairs rung scores one per person and pair.

Missing data: a label with no value (a skip) is no observation, and a draw of a sample the
annotator has not labelled (not yet answered, or skipped) counts for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.keys import person_item

WEIGHT_COLUMNS = ["metric", "sample_id", "weight", "labels", "draws", "chosen"]
UNIFORM_WORDS = "labels drawn uniformly"
CHOSEN_ONLY_WORDS = (
    "labels chosen on the view page, not drawn: the figures describe those samples, not the run"
)


def sample_weights(
    labels: pd.DataFrame | None,
    draws: pd.DataFrame | None = None,
    populations: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """Per metric and labelled sample: its weight (module docstring), how many labels it has,
    how many observations (draws, or labels counted once) stand behind its weight and how many
    of its labels were chosen on the view page with no draw behind them.

    ``labels``: ``sample_id, metric, annotator, value`` and optionally ``probability`` and
    ``chosen``;
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
    chosen = _chosen(table) & alone
    alone &= ~chosen
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
    if chosen.any():
        out = _with_chosen(out, table.loc[chosen, keys])
    return out.assign(chosen=out.get("chosen", 0)).reindex(columns=WEIGHT_COLUMNS)


def person_weights(
    labels: pd.DataFrame | None,
    draws: pd.DataFrame | None = None,
    populations: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """``sample_weights`` with each person's answer an item of its own (``keys.person_item``,
    ``pair/annotator``): people's preferences, which the pairs rung scores one per person. A
    preference weighs the sum of its person's draws of the pair, ``1 / (N q)`` each (a pair
    drawn twice counts twice), not an average over the people who answered the pair; one no
    draw stands behind counts as drawn uniformly (weight 1)."""
    return sample_weights(_per_person(labels), _per_person(draws), populations)


def _per_person(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """``frame`` (labels or draws) with each sample id made its annotator's own item."""
    if frame is None or frame.empty:
        return frame
    items = [
        person_item(str(s), str(a))
        for s, a in zip(frame["sample_id"], frame["annotator"], strict=True)
    ]
    return frame.assign(sample_id=items)


def without_chosen(
    labels: pd.DataFrame | None, weights: pd.DataFrame
) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """The labels and weights the figures read: less the samples only a choice on the view page
    put in (weight 0 beside a metric's sampled labels), which the weighted figures leave out,
    so that no figure meets a weight of 0; ``sampling_words`` (read first) says how many."""
    out = weights["weight"] == 0
    if labels is None or labels.empty or not out.any():
        return labels, weights
    dropped = pd.MultiIndex.from_frame(weights.loc[out, ["metric", "sample_id"]].astype(str))
    keys = pd.MultiIndex.from_frame(labels[["metric", "sample_id"]].astype(str))
    return labels[~keys.isin(dropped)], weights[~out]


def _chosen(table: pd.DataFrame) -> np.ndarray:
    """Which labels the person chose on the view page (``records.Label.chosen``)."""
    if "chosen" not in table:
        return np.zeros(len(table), bool)
    return (table["chosen"].astype(float).fillna(0.0) == 1).to_numpy()


def _with_chosen(out: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """``out`` with the labels chosen on the view page counted: a sample only chosen weighs 0
    (no observation of a design), or 1 where every label of its metric was chosen."""
    counts = chosen.groupby(["metric", "sample_id"], as_index=False).agg(
        chosen=("annotator", "count")
    )
    merged = out.merge(counts, on=["metric", "sample_id"], how="outer")
    merged["chosen"] = merged["chosen"].fillna(0).astype(int)
    merged["labels"] = merged["labels"].fillna(0).astype(int) + merged["chosen"]
    merged["draws"] = merged["draws"].fillna(0).astype(int)
    only_chosen = merged.groupby("metric")["weight"].transform(lambda w: w.isna().all())
    merged["weight"] = merged["weight"].fillna(0.0).where(~only_chosen, 1.0)
    return merged


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
    weights: pd.DataFrame,
    draws: pd.DataFrame | None,
    sizes: Mapping[str, int],
    unit: str = "samples",
) -> dict[str, str]:
    """Per labelled metric, what its figures from labels stand for, in words for the report
    and the card: "labels drawn uniformly", or "labels weighted by the queue's draw
    probabilities over N samples" (N: the queue's design, else the run's samples; ``unit``:
    what the design draws, "pairs" for people's preferences); with
    labels chosen on the view page, that "N labels chosen on the view page are not counted in
    the weighted figures" (``CHOSEN_ONLY_WORDS`` where every label was chosen so)."""
    if weights.empty:
        return {}
    drawn = _design_sizes(draws)
    out = {}
    for metric, block in weights.groupby("metric"):
        # a label chosen on a sample some draw (or uniform label) stands behind is a second
        # opinion of a sampled sample: only the samples nothing but a choice put in are left out
        sampled = block[block["draws"] > 0]
        chosen = int(block["labels"].sum() - sampled["labels"].sum())
        if sampled.empty:
            out[str(metric)] = CHOSEN_ONLY_WORDS
            continue
        if is_uniform(sampled["weight"].to_numpy(float)):
            words = UNIFORM_WORDS
        else:
            population = drawn.get(str(metric), sizes.get(str(metric)))
            over = f" over {population} {unit}" if population else ""
            words = f"labels weighted by the queue's draw probabilities{over}"
        out[str(metric)] = words + (f"; {chosen_words(chosen)}" if chosen else "")
    return out


def chosen_words(chosen: int) -> str:
    """What the report and the card say of labels chosen on the view page (the state line,
    shorter: ``decision.label_state``)."""
    return (
        f"{chosen} label{'s' if chosen != 1 else ''} chosen on the view page "
        f"{'are' if chosen != 1 else 'is'} not counted in the weighted figures"
    )
