"""Calibration against people, for the cells whose score came with probabilities.

A judge asked with ``weighting: logprobs`` gives each answer a probability (``weighting ==
"logprobs"``). A judge that is confident and wrong is worse than one that knows when it is
unsure; calibration tells them apart, against the people's label of each sample:

- **Brier score**: binary, the mean of (P(pass) - y)^2 with P(pass) the cell's score (the
  probability of pass, averaged over its strictness verdicts) and y the person's pass (1) or
  fail (0): 0 is perfect, 0.25 is a constant one half. Labels and scale: the multi-class Brier
  score, the mean over samples of sum_k (p_k - y_k)^2 over the categories, p the probabilities
  of the cell's ``details`` renormalised over the criterion's categories (0 perfect, 2 worst).
  A 95% percentile bootstrap interval over samples.
- **Reliability curve**: the probabilities cut into ten equal bins on [0, 1]; per bin the mean
  predicted probability and the observed share. Binary: of P(pass) against the people's pass;
  labels and scale: of the judge's confidence (its highest probability) against whether that
  answer is the person's label. ``ece``: the expected calibration error, sum over bins of
  (samples in the bin / samples) x |observed - predicted|.

Missing data: per judge and labelled sample, the probabilities are averaged over the scored
repeats of wording 0 whose weighting is ``logprobs`` (a repeat without them, ``missing``, is left
out and counted in ``weighting``'s table); a labels or scale cell whose details hold no
probability of any category is left out; a sample whose annotators tie takes no part.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.criteria import (
    Criteria,
    categories,
    criterion_rows,
    definition_rows,
    details_of,
    people_answers,
)
from judgegrid.core.criterion import CriterionSpec

BINS = 10
DRAWS = 2000
CALIBRATION_MISSING = (
    "labelled samples with a logprobs-weighted scored repeat of wording 0; its probabilities "
    "averaged over those repeats; a cell with no category's probability left out"
)
BRIER_COLUMNS = [
    "metric",
    "type",
    "judge",
    "n",
    "brier",
    "brier_low",
    "brier_high",
    "ece",
    "missing",
]
CURVE_COLUMNS = ["metric", "judge", "bin", "predicted", "observed", "n"]


def probabilities(row_details: Any, score: float, spec: CriterionSpec) -> np.ndarray | None:
    """One cell's probability per category (code order), summing to 1; None when it has none.
    Binary: (1 - score, score), the score being P(pass)."""
    k = len(categories(spec))
    if spec.type == "binary":
        return np.array([1.0 - score, score]) if np.isfinite(score) else None
    given = details_of(row_details).get("probabilities")
    if not given:
        return None
    position = {round(c, 9): i for i, c in enumerate(categories(spec))}
    p = np.zeros(k)
    for alternative, value in given.items():
        try:
            code = position.get(round(float(alternative), 9))
        except ValueError:
            continue
        if code is not None:
            p[code] += float(value)
    return p / p.sum() if p.sum() > 0 else None


def forecasts(
    scores: pd.DataFrame, labels: pd.DataFrame | None, criteria: Criteria
) -> pd.DataFrame:
    """Per criterion, judge and labelled sample: the mean probability vector over its weighted
    repeats (``p``, code order) and the person's label code. Columns: metric, judge, sample_id,
    p, label."""
    columns = ["metric", "judge", "sample_id", "p", "label"]
    people = people_answers(labels, criteria).rename(columns={"code": "label"})
    rows = criterion_rows(definition_rows(scores), criteria)
    if people.empty or rows.empty or "weighting" not in rows.columns:
        return pd.DataFrame(columns=columns)
    rows = rows[rows["weighting"] == "logprobs"]
    details = rows["details"] if "details" in rows.columns else pd.Series(None, index=rows.index)
    vectors = [
        probabilities(d, float(s), criteria[str(m)])
        for d, s, m in zip(details, rows["score"], rows["metric"], strict=True)
    ]
    rows = rows.assign(p=pd.Series(vectors, index=rows.index, dtype=object))
    rows = rows[rows["p"].map(lambda v: v is not None)]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    mean = rows.groupby(["metric", "judge", "sample_id"])["p"].apply(
        lambda v: np.mean(np.stack(list(v)), axis=0)
    )
    table = mean.reset_index().merge(
        people[["metric", "sample_id", "label"]], on=["metric", "sample_id"]
    )
    return table[columns]


def brier(p: np.ndarray, label: np.ndarray, binary: bool) -> np.ndarray:
    """Per sample: (P(pass) - y)^2 for binary, sum_k (p_k - y_k)^2 otherwise."""
    onehot = np.eye(p.shape[1])[label.astype(int)]
    if binary:
        return np.asarray((p[:, 1] - onehot[:, 1]) ** 2)
    return np.asarray(((p - onehot) ** 2).sum(axis=1))


def reliability(predicted: np.ndarray, observed: np.ndarray, bins: int = BINS) -> pd.DataFrame:
    """Per non-empty bin of ``predicted`` (equal widths on [0, 1]; a value on an edge goes to the
    lower bin): mean predicted, observed share, count. Columns: bin, predicted, observed, n."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.searchsorted(edges[1:-1], predicted)
    n = np.bincount(which, minlength=bins)
    pred = np.bincount(which, weights=predicted, minlength=bins)
    seen = np.bincount(which, weights=observed, minlength=bins)
    used = n > 0
    return pd.DataFrame(
        {
            "bin": np.flatnonzero(used),
            "predicted": pred[used] / n[used],
            "observed": seen[used] / n[used],
            "n": n[used],
        }
    )


def curve_points(p: np.ndarray, label: np.ndarray, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """(predicted, observed) per sample: P(pass) and pass for binary; the highest probability and
    whether its category is the label otherwise."""
    if binary:
        return p[:, 1], (label == 1).astype(float)
    return p.max(axis=1), (p.argmax(axis=1) == label).astype(float)


def calibration(
    scores: pd.DataFrame, labels: pd.DataFrame | None, criteria: Criteria, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per criterion and judge with weighted cells: (Brier table, reliability curve table)."""
    table = forecasts(scores, labels, criteria)
    briers, curves = [], []
    for (metric, judge), block in table.groupby(["metric", "judge"]):
        spec = criteria[str(metric)]
        binary = spec.type == "binary"
        p = np.stack(list(block["p"]))
        label = block["label"].to_numpy(float)
        per_sample = brier(p, label, binary)
        predicted, observed = curve_points(p, label, binary)
        curve = reliability(predicted, observed)
        ece = float(
            (curve["n"] * (curve["observed"] - curve["predicted"]).abs()).sum() / len(label)
        )
        low, high = _bootstrap_mean(per_sample, seed)
        briers.append(
            {
                "metric": metric,
                "type": spec.type,
                "judge": judge,
                "n": len(label),
                "brier": float(per_sample.mean()),
                "brier_low": low,
                "brier_high": high,
                "ece": ece,
                "missing": CALIBRATION_MISSING,
            }
        )
        curves.append(curve.assign(metric=str(metric), judge=str(judge)))
    curve_table = (
        pd.concat(curves, ignore_index=True)[CURVE_COLUMNS]
        if curves
        else pd.DataFrame(columns=CURVE_COLUMNS)
    )
    return pd.DataFrame(briers, columns=BRIER_COLUMNS), curve_table


def _bootstrap_mean(values: np.ndarray, seed: int) -> tuple[float, float]:
    """95% percentile bootstrap interval of a mean; NaN below three values."""
    if len(values) < 3:
        return float("nan"), float("nan")
    drawn = np.random.default_rng(seed).integers(0, len(values), size=(DRAWS, len(values)))
    low, high = np.percentile(values[drawn].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)
