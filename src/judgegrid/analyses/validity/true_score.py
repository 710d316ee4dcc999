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
- each labelled sample weighs what ``frames.label_weights.sample_weights`` gives it (the
  queue's draws at ``1 / (N q)``, a label's own ``probability``, else 1: a uniform draw). All 1:
  the figures are the unweighted ones, exactly, and ``weights`` says "uniform". Otherwise a
  sample drawn ``k`` times is ``k`` observations (with-replacement draws are independent),
  each with its draw's weight, and the corrected mean is ``stats.ppi``'s design-based one:
  the judge's mean over every sample it scored (the draws came from all of them) plus the
  draws' ratio (Hajek) mean of the gap, its interval from the draws' own spread (t); people's
  mean is that ratio mean of their values. A ratio needs only how the weights compare, so
  ``N`` and the judge's unscored samples drop out. ``weights`` then says "labels weighted by
  the queue's draw probabilities over N samples".

A pairwise criterion (``pairwise_true_scores``) corrects each system's win rate instead: a
pair's outcome for a system is 1 when the combined verdict (or people's preference) is its
answer, 0.5 a tie, 0 the other's; a judge's ``scored`` pairs are those with a combined verdict
(the criterion's rule), and a pair people preferred with no combined verdict is in
``labels_unscored``. People's preferences weigh what the criterion's own queue drew them with
(``frames.label_weights``, each pair a sample), as a pointwise metric's labels do. The card's
line is the pointwise metrics' alone (two systems, two figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.keys import codes_among
from judgegrid.analyses.frames.label_weights import is_uniform, metric_weights
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
WEIGHTED = "labels weighted by the queue's draw probabilities"
TRUE_SCORE_MISSING = (
    "the judge's scored samples (mean of scored repeats); labels on samples it did not score "
    "left out (labels_unscored)"
)


@dataclass(frozen=True)
class Drawn:
    """A metric's labelled samples' weights (``label_weights.sample_weights``; index: sample
    id), the observations each stands for, and the words for ``weights``."""

    weight: pd.Series
    observations: pd.Series
    words: str


def people_values(labels: pd.DataFrame) -> pd.DataFrame:
    """Per metric and sample: people's value, the mean over annotators of each one's mean
    label (on the metric's own scale: a criterion's category scores too)."""
    frame = labels.dropna(subset=["value"]).astype(
        {"sample_id": str, "metric": str, "annotator": str, "value": float}
    )
    each = frame.groupby(["metric", "sample_id", "annotator"], as_index=False)["value"].mean()
    return each.groupby(["metric", "sample_id"], as_index=False)["value"].mean()


def true_scores(
    scores: pd.DataFrame,
    labels: pd.DataFrame | None,
    skip: frozenset[str] = frozenset(),
    weights: pd.DataFrame | None = None,
    sampling: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per labelled metric and judge (``TRUE_SCORE_COLUMNS``); ``skip``: metrics not
    scored per sample (pairwise criteria); ``weights``: ``frames.label_weights.sample_weights``
    (None: every label a uniform draw); ``sampling``: its ``sampling_words``, for ``weights``.
    ``chosen`` is False until ``with_chosen``."""
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
        drawn = drawn_of(weights, str(metric), (sampling or {}).get(str(metric), ""))
        row = _row(block, mine, drawn)
        rows.append({**row, "metric": metric, "judge": judge, "chosen": False})
    return pd.DataFrame(rows, columns=TRUE_SCORE_COLUMNS)


def drawn_of(weights: pd.DataFrame | None, metric: str, words: str) -> Drawn | None:
    """The metric's labelled samples' weights and observations, or None where every weight is
    1 (today's unweighted figures)."""
    if weights is None or weights.empty:
        return None
    mine = metric_weights(weights, metric)
    if mine.empty or is_uniform(mine["weight"].to_numpy(float)):
        return None
    # observations a sample stands for, per annotator (their mean: label_weights' rule)
    each = (mine["draws"].astype(float) / mine["labels"].astype(float)).round().clip(lower=1)
    return Drawn(mine["weight"].astype(float), each.astype(int), words or WEIGHTED)


def with_chosen(table: pd.DataFrame, chosen: dict[str, str]) -> pd.DataFrame:
    """The table with ``chosen`` set on the rows of the judge the card names for the metric."""
    if table.empty:
        return table
    keys = zip(table["metric"], table["judge"], strict=True)
    return table.assign(chosen=[chosen.get(str(m)) == str(j) for m, j in keys])


def _row(
    block: pd.DataFrame, people: pd.DataFrame, drawn: Drawn | None = None
) -> dict[str, object]:
    """One judge on one metric: its ratings (``block``) against people's values. Unweighted,
    PPI's unlabelled set is the judge's other samples; weighted (``drawn``), every sample it
    scored, each labelled sample repeated by its observations (module docstring)."""
    rating = pd.Series(block["rating"].to_numpy(), index=_ids(block))
    value = pd.Series(people["value"].to_numpy(), index=_ids(people))
    known = value.index.isin(rating.index)
    if not known.any():
        return _unpaired(block, len(people), drawn.words if drawn else UNIFORM)
    y, f = value.to_numpy()[known], rating.reindex(value.index[known]).to_numpy()
    note = "" if len(y) >= 2 else "fewer than 2 labelled samples the judge scored"
    if drawn is not None:
        return _weighted_row(block, people, value.index[known], y, f, drawn, note)
    rest = rating.to_numpy()[~rating.index.isin(value.index)]
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


def _weighted_row(
    block: pd.DataFrame,
    people: pd.DataFrame,
    samples: pd.Index,
    y: np.ndarray,
    f: np.ndarray,
    drawn: Drawn,
    note: str,
) -> dict[str, object]:
    """The weighted figures (module docstring): each labelled sample's observations as rows,
    each row its share of the sample's weight (a draw's ``1 / (N q)``)."""
    keys = samples.astype(str)
    repeat = drawn.observations.reindex(keys).fillna(1).to_numpy(int)
    w = drawn.weight.reindex(keys).fillna(1.0).to_numpy(float) / repeat
    y, f, w = np.repeat(y, repeat), np.repeat(f, repeat), np.repeat(w, repeat)
    found = ppi_mean(y, f, block["rating"].to_numpy(float), weights=w)
    if len(samples) >= 2 and not found.corrected.se > 0:
        note = "people and the judge agree on every labelled sample: no spread to measure"
    return {
        "scored": len(block),
        "judge_mean": float(block["rating"].mean()),
        "labels": len(samples),
        "labels_unscored": len(people) - len(samples),
        "people_mean": found.people.mean,
        "people_low": found.people.low,
        "people_high": found.people.high,
        "corrected": found.corrected.mean,
        "corrected_low": found.corrected.low,
        "corrected_high": found.corrected.high,
        "lam": found.lam,
        "effective_labels": found.effective_labels,
        "weights": drawn.words,
        "note": note,
        "missing": TRUE_SCORE_MISSING,
    }


def _ids(frame: pd.DataFrame) -> pd.Index:
    """The sample ids as whole numbers or Python objects: a hash lookup, where pandas' Arrow
    strings' ``isin`` loops in Python (a merge a judge was 15 ms on 200,000 scores)."""
    ids = frame["sample_id"].to_numpy()
    return pd.Index(ids if ids.dtype.kind in "iu" else ids.astype(object))


def _unpaired(block: pd.DataFrame, labels: int, weights: str) -> dict[str, object]:
    """A judge that scored none of the labelled samples: its own mean, nothing to correct."""
    return {
        "scored": len(block),
        "judge_mean": float(block["rating"].mean()),
        "labels": 0,
        "labels_unscored": labels,
        "weights": weights,
        "note": "the judge scored none of the labelled samples",
        "missing": TRUE_SCORE_MISSING,
    }


def pairwise_true_scores(
    both: pd.DataFrame,
    people: pd.DataFrame,
    systems: pd.DataFrame,
    drawn: Drawn | None = None,
) -> pd.DataFrame:
    """Per judge and system of one pairwise criterion: its win rate under the judge over the
    pairs it took part in, corrected by people's preferences (``PAIRWISE_TRUE_SCORE_COLUMNS``).
    ``both``: ``judge, pair, combined``; ``people``: ``pair, preferred``; ``systems``: ``pair,
    system_a, system_b`` (none recorded: the systems are the answers, ``a`` and ``b``);
    ``drawn``: the labelled pairs' weights (``drawn_of``, by pair; None: every weight 1),
    read as a pointwise metric's samples'."""
    if both.empty or people.empty:
        return pd.DataFrame(columns=PAIRWISE_TRUE_SCORE_COLUMNS)
    # each pair's position among both tables' pairs (first seen first): its ``sample_id``
    at, pairs = pd.factorize(pd.concat([both["pair"], people["pair"]], ignore_index=True))
    coded = None if drawn is None else _by_code(drawn, pd.Index(pairs))
    wrote = _wrote(systems, pd.Index(pairs))
    games = _games(both[["judge", "combined"]], at[: len(both)], wrote, "combined")
    said = _games(
        people.assign(judge="")[["judge", "preferred"]], at[len(both) :], wrote, "preferred"
    )
    rows = []
    for (judge, system), block in games.groupby(["judge", "system"], sort=True, observed=True):
        mine = said.loc[(said["system"] == system).to_numpy(bool), ["sample_id", "value"]]
        found = _row(block, mine, coded)
        rows.append({**found, "judge": judge, "system": system, "chosen": False})
    return pd.DataFrame(rows, columns=PAIRWISE_TRUE_SCORE_COLUMNS)


def _by_code(drawn: Drawn, pairs: pd.Index) -> Drawn:
    """``drawn`` keyed as the games key a pair (its position in ``pairs``, as text, as
    ``_weighted_row`` looks a sample up); a weighted pair none of the games has is left out."""
    where = pairs.get_indexer(drawn.weight.index.astype(object))
    kept = where >= 0
    codes = pd.Index(where[kept].astype(str))
    return Drawn(
        drawn.weight[kept].set_axis(codes),
        drawn.observations.reindex(drawn.weight.index)[kept].set_axis(codes),
        drawn.words,
    )


def _pairs(frame: pd.DataFrame) -> np.ndarray:
    return frame["pair"].to_numpy(dtype=object)


@dataclass(frozen=True)
class Wrote:
    """Per pair (its position in the pairs' index): the code of the system that wrote answer a
    and of the one that wrote b (a pair none is recorded for: the answer's own name, ``a`` or
    ``b``), and the systems' names, sorted, that the codes index."""

    a: np.ndarray
    b: np.ndarray
    names: pd.Index


def _wrote(systems: pd.DataFrame, pairs: pd.Index) -> Wrote:
    """Each pair's systems as codes, looked up once a pair (the first row that names it), so
    that the games of a million verdicts take them by position, not by a pair's name."""
    by_pair = systems.reindex(columns=SYSTEM_COLUMNS).drop_duplicates("pair")
    where = pairs.get_indexer(pd.Index(_pairs(by_pair)))
    found = where >= 0
    sides = {}
    for side in ("a", "b"):
        named = np.full(len(pairs), side, dtype=object)
        given = by_pair[f"system_{side}"].to_numpy(object)[found]
        named[where[found]] = np.where(pd.isna(given), side, given)
        sides[side] = named
    names = pd.Index(pd.unique(np.concatenate(list(sides.values())))).sort_values()
    a, b = (names.get_indexer(sides[side]) for side in ("a", "b"))
    return Wrote(a, b, names)


def _games(verdicts: pd.DataFrame, at: np.ndarray, wrote: Wrote, column: str) -> pd.DataFrame:
    """Each pair twice, once a system (``sample_id`` the pair's code, ``at``: whole numbers
    look up fast): its outcome as ``rating`` and ``value`` (the one the judge's rows and the
    other people's rows are read by). Judge and system are categories (sorted), so that
    grouping a million games by them counts codes."""
    said = codes_among(verdicts[column], list(OUTCOME))
    known = said >= 0
    at = at[known]
    outcome = np.array(list(OUTCOME.values()))[said[known]]
    judges = pd.Categorical(verdicts["judge"][known])
    sides = [
        pd.DataFrame(
            {
                "judge": judges,
                "sample_id": at,
                "system": pd.Categorical.from_codes(codes[at], wrote.names),
                "rating": won,
                "value": won,
            }
        )
        for codes, won in ((wrote.a, outcome), (wrote.b, 1.0 - outcome))
    ]
    return pd.concat(sides, ignore_index=True)
