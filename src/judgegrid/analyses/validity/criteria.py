"""Validity of each judge against people on a criterion: is its answer the person's?

Per criterion and judge, against the people's label of each sample (``criteria.people_answers``,
the annotators' modal label):

- binary and labels: accuracy (Wilson interval), Cohen's kappa (bootstrap interval), and for
  binary the true-positive rate (pass found when the person says pass) and true-negative rate
  (fail found when the person says fail), Wilson intervals; for labels, each label's recall
  (``criterion_recall``, Wilson intervals; binary's two rows there are its TNR and TPR);
- scale: weighted kappa (quadratic, bootstrap interval) and Spearman's rho (Fisher z,
  Bonett-Wright SE), beside exact and within-one-level accuracy.

A sample is **right** for a judge when its answer equals the person's label (for a scale: the
same level; within one level is shown beside it, but the card's rule counts the exact level, as
for the other types). ``chance`` is the no-information rate: the accuracy of always giving the
people's most frequent label on the same samples; a judge must beat it, not one half.

Missing data: a labelled sample counts in the accuracy when the judge attempted it on wording
0: its modal answer over scored repeats, a tie between answers (no single answer) or a failed
cell never scored count as wrong, as a tie and an unscored pair count elsewhere. Kappa, rates,
recall and Spearman use the samples with both an answer and a label. A sample the judge skipped
(it lacks a field), or one whose annotators tie, takes no part. Juries have no answer of their
own and take no part.

Weights (``frames.label_weights``): where a queue drew a criterion's labels with unequal
probabilities, accuracy, chance, the rates, within-one, kappa and rho weight each labelled
sample by its ``1 / (N q)`` (``stats.weighted``) and the row's note says so; the card's rung
carries the weights (``PeopleRight.weights``). Every weight 1: the unweighted figures, exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.criteria import (
    Criteria,
    attempted_never_scored,
    categories,
    category_names,
    judge_answers,
    people_answers,
)
from judgegrid.analyses.frames.label_weights import is_uniform, metric_weights
from judgegrid.analyses.stats.categorical import Weights, cohen_from_table, interval
from judgegrid.analyses.stats.correlation import spearman_with_ci
from judgegrid.analyses.stats.intervals import accuracy_interval, wilson_interval
from judgegrid.analyses.stats.weighted import (
    share_size,
    weighted_rank_correlation,
    weighted_share,
)
from judgegrid.core.criterion import CriterionSpec

CRITERION_VALIDITY_MISSING = (
    "labelled samples the judge attempted on wording 0: a tie between its repeats' answers or "
    "a failed cell counts as wrong in the accuracy; kappa, rates and rho use the samples with "
    "both an answer and a label; skipped samples and samples whose annotators tie take no part"
)
VALIDITY_COLUMNS = [
    "metric",
    "type",
    "judge",
    "n",
    "answered",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "chance",
    "kappa",
    "kappa_low",
    "kappa_high",
    "tpr",
    "tpr_low",
    "tpr_high",
    "tnr",
    "tnr_low",
    "tnr_high",
    "within_one",
    "spearman",
    "spearman_low",
    "spearman_high",
    "note",
    "missing",
]
RECALL_COLUMNS = ["metric", "judge", "label", "n", "recall", "low", "high"]


@dataclass(frozen=True)
class PeopleRight:
    """One criterion's evidence for the card: per labelled sample and judge, right (1.0) or
    wrong (0.0) against the person's label, NaN where the judge did not attempt it; and the
    no-information rate the judges must beat. ``weights``: per sample (``right``'s index), its
    weight where the criterion's labels are not all drawn uniformly (None: every weight 1);
    ``labels``: per sample, how many people labelled it."""

    right: pd.DataFrame  # samples x judges
    chance: float
    weights: pd.Series | None = None
    labels: pd.Series | None = None


def outcome_table(
    scores: pd.DataFrame, labels: pd.DataFrame | None, criteria: Criteria
) -> pd.DataFrame:
    """Per criterion, judge and labelled sample it attempted: the judge's code (NaN: a tie or a
    failed cell), the person's, and ``right``. Columns: metric, judge, sample_id, code, label,
    right."""
    people = people_answers(labels, criteria).rename(columns={"code": "label"})
    columns = ["metric", "judge", "sample_id", "code", "label", "right"]
    if people.empty:
        return pd.DataFrame(columns=columns)
    answered = judge_answers(scores, criteria)[["metric", "judge", "sample_id", "code"]]
    failed = attempted_never_scored(scores, criteria).assign(code=np.nan)
    attempts = pd.concat([answered, failed], ignore_index=True)
    table = attempts.merge(people[["metric", "sample_id", "label"]], on=["metric", "sample_id"])
    table["right"] = (table["code"] == table["label"]).astype(float)
    return table[columns]


def people_right(
    outcomes: pd.DataFrame, weights: pd.DataFrame | None = None
) -> dict[str, PeopleRight]:
    """Per labelled criterion: the card's right/wrong table and its chance level, from
    ``outcome_table``; with ``weights`` (``frames.label_weights.sample_weights``), each
    sample's weight and label count, the chance level weighted too."""
    out = {}
    for metric, block in outcomes.groupby("metric"):
        right = block.pivot_table(index="sample_id", columns="judge", values="right")
        labelled = block.drop_duplicates("sample_id").set_index("sample_id")["label"]
        out[str(metric)] = weighted_right(
            right, labelled.reindex(right.index).to_numpy(float), weights, str(metric)
        )
    return out


def weighted_right(
    right: pd.DataFrame, labelled: np.ndarray, weights: pd.DataFrame | None, metric: str
) -> PeopleRight:
    """``metric``'s right/wrong table (items x judges) as the card reads it: with ``weights``
    (``frames.label_weights.sample_weights``), each item's weight and label count, and the
    chance level of the people's labels (``labelled``, in ``right``'s order) weighted too. A
    pointwise criterion's samples and a pairwise criterion's pairs alike."""
    mine = _sample_weights(weights, metric, right.index)
    counts = None
    if weights is not None and not weights.empty:
        found = metric_weights(weights, metric)["labels"]
        counts = found.reindex(right.index.astype(str)).fillna(1).astype(int)
    chance = no_information_rate(labelled, None if mine is None else mine.to_numpy(float))
    return PeopleRight(right, chance, mine, counts)


def _sample_weights(
    weights: pd.DataFrame | None, metric: str, samples: pd.Index
) -> pd.Series | None:
    """``samples``' weights for ``metric``, or None where they are all 1 (unweighted)."""
    if weights is None or weights.empty:
        return None
    found = metric_weights(weights, metric)["weight"].astype(float)
    mine = found.reindex(samples.astype(str)).fillna(1.0)
    return None if is_uniform(mine.to_numpy()) else pd.Series(mine.to_numpy(), index=samples)


def no_information_rate(labels: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The share of the most frequent label (each sample by its weight, if given): what always
    answering it would score."""
    if len(labels) == 0:
        return float("nan")
    if weights is not None:
        codes, inverse = np.unique(labels, return_inverse=True)
        mass = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(codes))
        return float(mass.max() / mass.sum())
    _, counts = np.unique(labels, return_counts=True)
    return float(counts.max() / len(labels))


def criterion_validity(
    outcomes: pd.DataFrame, criteria: Criteria, weights: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per labelled criterion and judge: the type's validity figures (module docstring), from
    ``outcome_table``. With ``weights`` not all 1 for a criterion, its accuracy, chance,
    kappa, within-one and Spearman are weighted (``_weighted_figures``) and the note says so."""
    rows = []
    for (metric, judge), block in outcomes.groupby(["metric", "judge"]):
        mine = _sample_weights(weights, str(metric), pd.Index(block["sample_id"]))
        w = None if mine is None else mine.to_numpy(float)
        rows.append(_validity_row(str(metric), str(judge), criteria[str(metric)], block, w))
    return pd.DataFrame(rows, columns=VALIDITY_COLUMNS)


WEIGHTED_NOTE = (
    "weighted by the queue's draw probabilities: accuracy, chance, within one and the rates "
    "weighted means (Hajek), Wilson at the effective n; kappa and rho weighted, kappa by the "
    "weighted bootstrap, rho by Fisher z with the weighted bootstrap's SE"
)


def _validity_row(
    metric: str, judge: str, spec: CriterionSpec, block: pd.DataFrame, w: np.ndarray | None
) -> dict[str, Any]:
    n = len(block)
    right = int(block["right"].sum())
    low, high = wilson_interval(right, n)
    answered = block["code"].notna().to_numpy()
    both = block[answered]
    code, label = both["code"].to_numpy(float), both["label"].to_numpy(float)
    w_both = None if w is None else w[answered]
    k = len(categories(spec))
    weights: Weights = "quadratic" if spec.type == "scale" else None
    pair = np.column_stack([code, label])
    kappa = (
        interval(lambda t, u: cohen_from_table(t, k, u, weights), pair, unit_weights=w_both)
        if len(pair)
        else (np.nan,) * 3
    )
    row: dict[str, Any] = {
        "metric": metric,
        "type": spec.type,
        "judge": judge,
        "n": n,
        "answered": len(both),
        "accuracy": right / n if n else np.nan,
        "accuracy_low": low,
        "accuracy_high": high,
        "chance": no_information_rate(block["label"].to_numpy(float), w),
        "kappa": kappa[0],
        "kappa_low": kappa[1],
        "kappa_high": kappa[2],
        "note": "",
        "missing": CRITERION_VALIDITY_MISSING,
    }
    if w is not None and n:
        values = block["right"].to_numpy(float)
        share = weighted_share(values, w)
        row |= {"accuracy": share, "note": WEIGHTED_NOTE}
        row["accuracy_low"], row["accuracy_high"] = accuracy_interval(share, share_size(values, w))
    if spec.type == "binary":
        row |= _rate("tpr", code, label, 1.0, w_both) | _rate("tnr", code, label, 0.0, w_both)
    if spec.type == "scale":
        gap = block["code"].to_numpy(float) - block["label"].to_numpy(float)
        near = (np.abs(gap) <= 1).astype(float)
        row |= {
            "within_one": (float(near.mean()) if w is None else weighted_share(near, w))
            if n
            else np.nan,
            **_scale_rho(code, label, w_both),
        }
        if w is not None:
            row["note"] = _join(row["note"], WEIGHTED_NOTE)
    return row


def _scale_rho(code: np.ndarray, label: np.ndarray, w: np.ndarray | None) -> dict[str, Any]:
    """A scale's Spearman rho with people: plain, or weighted (``stats.weighted``) with the
    Fisher-z interval at the weighted bootstrap's spread."""
    if w is None:
        rho, rho_low, rho_high, note = spearman_with_ci(code, label)
    else:
        rho, rho_low, rho_high, note = weighted_rank_correlation(code, label, w, "spearman")
    return {
        "spearman": rho,
        "spearman_low": rho_low,
        "spearman_high": rho_high,
        "note": "spearman: " + note if note else "",
    }


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _rate(
    name: str, code: np.ndarray, label: np.ndarray, category: float, w: np.ndarray | None = None
) -> dict[str, float]:
    """The share of the samples the person put in ``category`` that the judge put there too
    (weighted by the samples' ``w``, if given: Hajek, Wilson at the effective n)."""
    mine = label == category
    hits, n = int((code[mine] == category).sum()), int(mine.sum())
    if w is not None and n:
        found = (code[mine] == category).astype(float)
        share = weighted_share(found, w[mine])
        low, high = accuracy_interval(share, share_size(found, w[mine]))
        return {name: share, f"{name}_low": low, f"{name}_high": high}
    low, high = wilson_interval(hits, n)
    return {name: hits / n if n else np.nan, f"{name}_low": low, f"{name}_high": high}


def criterion_recall(outcomes: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per binary or labels criterion, judge and category: the judge's recall of the samples
    the people put there (Wilson interval), on the samples with both an answer and a label;
    from ``outcome_table``."""
    table = outcomes.dropna(subset=["code"])
    rows = []
    for (metric, judge), block in table.groupby(["metric", "judge"]):
        spec = criteria[str(metric)]
        if spec.type == "scale":
            continue
        code, label = block["code"].to_numpy(float), block["label"].to_numpy(float)
        for k, name in enumerate(category_names(spec)):
            rate = _rate("recall", code, label, float(k))
            rows.append(
                {
                    "metric": metric,
                    "judge": judge,
                    "label": name,
                    "n": int((label == k).sum()),
                    "recall": rate["recall"],
                    "low": rate["recall_low"],
                    "high": rate["recall_high"],
                }
            )
    return pd.DataFrame(rows, columns=RECALL_COLUMNS)
