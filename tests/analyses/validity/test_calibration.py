"""Calibration of log-prob weighted judges against people: the Brier score checked against
scikit-learn's brier_score_loss (binary and multi-class) and the reliability curve against its
calibration_curve; a confident wrong judge scores worse than an unsure one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from judgegrid.analyses.validity.calibration import (
    calibration,
    forecasts,
    probabilities,
    reliability,
)
from support.criterion_frames import (
    BINARY,
    LABELS,
    SCALE,
    at_random,
    criterion_scores,
    follows,
    people_labels,
    truths,
)


def _noisy_binary(seed=0, samples=200):
    """P(pass) spread over [0, 1]: a judge whose confidence tracks the truth loosely."""
    rng = np.random.default_rng(seed)
    truth = [float(x) for x in rng.integers(0, 2, samples)]
    scores = criterion_scores(BINARY, {"a": follows()}, truth, repeats=1, weighting="logprobs")
    p = np.clip(np.array(truth) * 0.5 + rng.random(samples) * 0.5, 0, 1)
    scores["score"] = p
    return scores, truth, p


def test_binary_brier_and_curve_match_scikit_learn():
    scores, truth, p = _noisy_binary()
    brier, curve = calibration(scores, people_labels(BINARY.name, truth), {BINARY.name: BINARY})
    assert brier.iloc[0]["brier"] == pytest.approx(brier_score_loss(truth, p))
    assert brier.iloc[0]["brier_low"] < brier.iloc[0]["brier"] < brier.iloc[0]["brier_high"]
    observed, predicted = calibration_curve(truth, p, n_bins=10, strategy="uniform")
    assert curve["observed"].to_numpy() == pytest.approx(observed)
    assert curve["predicted"].to_numpy() == pytest.approx(predicted)
    assert curve["n"].sum() == len(truth)
    gap = np.abs(curve["observed"] - curve["predicted"]) * curve["n"]
    assert brier.iloc[0]["ece"] == pytest.approx(gap.sum() / len(truth))


def test_a_value_on_a_bin_edge_falls_where_scikit_learn_puts_it():
    p = np.array([0.0, 0.1, 0.2, 0.5, 0.7, 1.0])
    y = np.array([0, 0, 1, 1, 0, 1.0])
    observed, predicted = calibration_curve(y, p, n_bins=10, strategy="uniform")
    curve = reliability(p, y)
    assert curve["observed"].to_numpy() == pytest.approx(observed)
    assert curve["predicted"].to_numpy() == pytest.approx(predicted)


@pytest.mark.parametrize("spec", [LABELS, SCALE])
def test_multi_class_brier_matches_scikit_learn(spec):
    truth = truths(spec, 80, seed=1)
    scores = criterion_scores(
        spec, {"a": follows(0.4, spec)}, truth, repeats=1, weighting="logprobs", seed=1
    )
    labels = people_labels(spec.name, truth)
    table = forecasts(scores, labels, {spec.name: spec})
    p = np.stack(list(table["p"]))
    label = table["label"].to_numpy(int)
    brier, curve = calibration(scores, labels, {spec.name: spec})
    expected = brier_score_loss(label, p, labels=list(range(p.shape[1])), scale_by_half=False)
    assert brier.iloc[0]["brier"] == pytest.approx(expected)
    right = (p.argmax(axis=1) == label).astype(float)
    observed, predicted = calibration_curve(right, p.max(axis=1), n_bins=10, strategy="uniform")
    assert curve["observed"].to_numpy() == pytest.approx(observed)
    assert curve["predicted"].to_numpy() == pytest.approx(predicted)


def test_a_confident_wrong_judge_scores_worse_than_an_unsure_one():
    truth = truths(BINARY, 60)
    labels = people_labels(BINARY.name, truth)
    confident = criterion_scores(
        BINARY, {"j": at_random(BINARY)}, truth, weighting="logprobs", confidence=0.99
    )
    unsure = criterion_scores(
        BINARY, {"j": at_random(BINARY)}, truth, weighting="logprobs", confidence=0.55
    )
    sure = calibration(confident, labels, {BINARY.name: BINARY})[0].iloc[0]["brier"]
    wary = calibration(unsure, labels, {BINARY.name: BINARY})[0].iloc[0]["brier"]
    assert wary < 0.26 < sure


def test_only_logprob_cells_of_wording_0_count_and_probabilities_are_renormalised():
    truth = truths(SCALE, 10)
    scores = criterion_scores(SCALE, {"a": follows()}, truth, wordings=2, weighting="logprobs")
    labels = people_labels(SCALE.name, truth)
    scores.loc[scores.index[:2], "weighting"] = "missing"  # s000: repeats 0, 1 of wording 0
    table = forecasts(scores, labels, {SCALE.name: SCALE})
    assert len(table) == 10  # one per sample: its weighted repeats averaged
    scores.loc[scores.index[:3], "weighting"] = "missing"  # s000's wording 0: none weighted
    assert "s000" not in set(forecasts(scores, labels, {SCALE.name: SCALE})["sample_id"])
    details = json.dumps({"probabilities": {"5": 0.2, "4.0": 0.2, "other": 0.6}})
    assert probabilities(details, 4.5, SCALE) == pytest.approx([0, 0, 0, 0.5, 0.5])
    assert probabilities(json.dumps({"answer": 3}), 3.0, SCALE) is None
    assert probabilities(None, 0.7, BINARY) == pytest.approx([0.3, 0.7])


def test_no_weighted_cell_no_table():
    truth = truths(BINARY, 10)
    scores = criterion_scores(BINARY, {"a": follows()}, truth)
    brier, curve = calibration(scores, people_labels(BINARY.name, truth), {BINARY.name: BINARY})
    assert brier.empty and curve.empty
