"""Your system's score by people's standard: each judge's mean over every sample it scored,
corrected by the few samples people labelled (``stats.ppi``: PPI++).

A user reports "faithfulness 0.82 this release": the chosen judge's mean over all outputs. That
mean carries the judge's bias. Per metric (and pointwise criterion, on its categories' scores:
a binary criterion's pass rate on 0/1) and judge (``pooled_by_choice``: as the card names it),
this gives the judge's mean, people's mean on the labelled samples with its classical interval,
the corrected mean with its 95% interval, and the labels it is worth. ``chosen`` marks the
card's judge.

Missing data, stated:

- a judge's sample is its rating (mean of its scored repeats); a sample it did not score
  (failed or skipped every repeat) is not among its ``scored`` samples, so the estimate is of
  the people-standard mean over the samples the judge can score; PPI's unlabelled set is its
  scored samples with no label (all labelled: people's own mean, the judge adds nothing);
- a label on a sample the judge did not score cannot be paired and is left out of both
  people's and the corrected mean (counted in ``labels_unscored``);
- people's value of a sample is the mean over its annotators (an annotator's repeated labels
  averaged first); a label with no value is dropped;
- the labels count as a uniform draw from the samples (weight 1): the labels table does not
  carry the queue's draw probabilities yet (``weights`` says so).

A pairwise criterion (``pairwise_true_scores``) corrects each system's win rate instead: a
pair's outcome for a system is 1 when the combined verdict (or people's preference) is its
answer, 0.5 a tie, 0 the other's; a judge's ``scored`` pairs are those with a combined verdict
(the criterion's rule), and a pair people preferred with no combined verdict is in
``labels_unscored``. The card's line is the pointwise metrics' alone (two systems, two figures).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import pooled_by_choice, ratings
from judgegrid.analyses.stats.ppi import classical_mean, ppi_mean

TRUE_SCORE_COLUMNS = [
    "metric",
    "judge",
    "chosen",
    "scored",
    "judge_mean",
    "labels",
    "labels_unscored",
    "people_mean",
    "people_low",
    "people_high",
    "corrected",
    "corrected_low",
    "corrected_high",
    "lam",
    "effective_labels",
    "weights",
    "note",
    "missing",
]
PAIRWISE_TRUE_SCORE_COLUMNS = ["judge", "system", *TRUE_SCORE_COLUMNS[2:]]
SYSTEM_COLUMNS = ["pair", "system_a", "system_b"]
OUTCOME = {"a": 1.0, "tie": 0.5, "b": 0.0}  # answer a's outcome; b's is 1 minus it
UNIFORM = "uniform (draw probabilities not recorded with the labels)"
TRUE_SCORE_MISSING = (
    "the judge's scored samples (mean of scored repeats); labels on samples it did not score "
    "left out (labels_unscored)"
)


def people_values(labels: pd.DataFrame) -> pd.DataFrame:
    """Per metric and sample: people's value, the mean over annotators of each one's mean
    label (on the metric's own scale: a criterion's category scores too)."""
    frame = labels.dropna(subset=["value"]).astype(
        {"sample_id": str, "metric": str, "annotator": str, "value": float}
    )
    each = frame.groupby(["metric", "sample_id", "annotator"], as_index=False)["value"].mean()
    return each.groupby(["metric", "sample_id"], as_index=False)["value"].mean()


def true_scores(
    scores: pd.DataFrame, labels: pd.DataFrame | None, skip: frozenset[str] = frozenset()
) -> pd.DataFrame:
    """One row per labelled metric and judge (``TRUE_SCORE_COLUMNS``); ``skip``: metrics not
    scored per sample (pairwise criteria). ``chosen`` is False until ``with_chosen``."""
    if labels is None or labels.empty or scores.empty:
        return pd.DataFrame(columns=TRUE_SCORE_COLUMNS)
    people = people_values(labels)
    rated = ratings(pooled_by_choice(scores[~scores["metric"].isin(skip)]))
    rated = rated.dropna(subset=["rating"]).astype({"sample_id": str})
    rows = []
    for (metric, judge), block in rated.groupby(["metric", "judge"], sort=True):
        mine = people[people["metric"] == metric]
        if mine.empty:
            continue
        rows.append({**_row(block, mine), "metric": metric, "judge": judge, "chosen": False})
    return pd.DataFrame(rows, columns=TRUE_SCORE_COLUMNS)


def with_chosen(table: pd.DataFrame, chosen: dict[str, str]) -> pd.DataFrame:
    """The table with ``chosen`` set on the rows of the judge the card names for the metric."""
    if table.empty:
        return table
    keys = zip(table["metric"], table["judge"], strict=True)
    return table.assign(chosen=[chosen.get(str(m)) == str(j) for m, j in keys])


def _row(block: pd.DataFrame, people: pd.DataFrame) -> dict[str, object]:
    """One judge on one metric: its ratings (``block``) against people's values; PPI's
    unlabelled set is the judge's other samples (``stats.ppi``)."""
    rating = pd.Series(block["rating"].to_numpy(), index=_ids(block))
    value = pd.Series(people["value"].to_numpy(), index=_ids(people))
    known = value.index.isin(rating.index)
    if not known.any():
        return _unpaired(block, len(people))
    y, f = value.to_numpy()[known], rating.reindex(value.index[known]).to_numpy()
    rest = rating.to_numpy()[~rating.index.isin(value.index)]
    note = "" if len(y) >= 2 else "fewer than 2 labelled samples the judge scored"
    if len(rest):
        found = ppi_mean(y, f, rest)
        corrected, lam, effective = found.corrected, found.lam, found.effective_labels
        if len(y) >= 2 and not corrected.se > 0:
            note = "people and the judge agree on every labelled sample: no spread to measure"
    else:  # every sample labelled: people's mean is the answer, the judge adds nothing
        corrected, lam, effective = classical_mean(y), 0.0, float(len(y))
        note = "every sample the judge scored is labelled: people's own mean"
    people_alone = classical_mean(y)
    return {
        "scored": len(block),
        "judge_mean": float(block["rating"].mean()),
        "labels": len(y),
        "labels_unscored": len(people) - len(y),
        "people_mean": people_alone.mean,
        "people_low": people_alone.low,
        "people_high": people_alone.high,
        "corrected": corrected.mean,
        "corrected_low": corrected.low,
        "corrected_high": corrected.high,
        "lam": lam,
        "effective_labels": effective,
        "weights": UNIFORM,
        "note": note,
        "missing": TRUE_SCORE_MISSING,
    }


def _ids(frame: pd.DataFrame) -> pd.Index:
    """The sample ids as whole numbers or Python objects: a hash lookup, where pandas' Arrow
    strings' ``isin`` loops in Python (a merge a judge was 15 ms on 200,000 scores)."""
    ids = frame["sample_id"].to_numpy()
    return pd.Index(ids if ids.dtype.kind in "iu" else ids.astype(object))


def _unpaired(block: pd.DataFrame, labels: int) -> dict[str, object]:
    """A judge that scored none of the labelled samples: its own mean, nothing to correct."""
    return {
        "scored": len(block),
        "judge_mean": float(block["rating"].mean()),
        "labels": 0,
        "labels_unscored": labels,
        "weights": UNIFORM,
        "note": "the judge scored none of the labelled samples",
        "missing": TRUE_SCORE_MISSING,
    }


def pairwise_true_scores(
    both: pd.DataFrame, people: pd.DataFrame, systems: pd.DataFrame
) -> pd.DataFrame:
    """Per judge and system of one pairwise criterion: its win rate under the judge over the
    pairs it took part in, corrected by people's preferences (``PAIRWISE_TRUE_SCORE_COLUMNS``).
    ``both``: ``judge, pair, combined``; ``people``: ``pair, preferred``; ``systems``: ``pair,
    system_a, system_b`` (none recorded: the systems are the answers, ``a`` and ``b``)."""
    if both.empty or people.empty:
        return pd.DataFrame(columns=PAIRWISE_TRUE_SCORE_COLUMNS)
    pairs = pd.Index(pd.unique(np.concatenate([_pairs(both), _pairs(people)])))
    games = _games(both[["judge", "pair", "combined"]], systems, "combined", pairs)
    said = _games(people[["pair", "preferred"]].assign(judge=""), systems, "preferred", pairs)
    rows = []
    for (judge, system), block in games.groupby(["judge", "system"], sort=True):
        mine = said.loc[said["system"] == system, ["sample_id", "value"]]
        rows.append({**_row(block, mine), "judge": judge, "system": system, "chosen": False})
    return pd.DataFrame(rows, columns=PAIRWISE_TRUE_SCORE_COLUMNS)


def _pairs(frame: pd.DataFrame) -> np.ndarray:
    return frame["pair"].to_numpy(dtype=object)


def _games(
    verdicts: pd.DataFrame, systems: pd.DataFrame, column: str, pairs: pd.Index
) -> pd.DataFrame:
    """Each pair twice, once a system (``sample_id`` the pair's position in ``pairs``: whole
    numbers look up fast): its outcome as ``rating`` and ``value`` (the one the judge's rows
    and the other people's rows are read by)."""
    known = verdicts[verdicts[column].isin(list(OUTCOME)).to_numpy(bool)]
    at = pairs.get_indexer(pd.Index(_pairs(known)))
    by_pair = systems.reindex(columns=SYSTEM_COLUMNS).drop_duplicates("pair")
    wrote = by_pair.set_index(pd.Index(_pairs(by_pair))).reindex(pairs[at])
    outcome = known[column].map(OUTCOME).to_numpy(float)
    sides = [
        pd.DataFrame(
            {
                "judge": known["judge"].to_numpy(),
                "sample_id": at,
                "system": wrote[f"system_{side}"].fillna(side).to_numpy(),
                "rating": won,
                "value": won,
            }
        )
        for side, won in (("a", outcome), ("b", 1.0 - outcome))
    ]
    return pd.concat(sides, ignore_index=True)
