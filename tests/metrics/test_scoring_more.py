"""Pure scoring of the metrics issue 3 completes: hand-computed values from the spec."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from judgegrid.core.errors import ScoringError
from judgegrid.metrics.answer_relevancy import answer_relevancy_score
from judgegrid.metrics.context_entity_recall import entity_recall
from judgegrid.metrics.context_precision import average_precision
from judgegrid.metrics.context_recall import context_recall_score
from judgegrid.metrics.noise_sensitivity import noise_sensitivity_score


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([1, 0, 1], (1 + 2 / 3) / 2),  # 0.8333, the spec's example
        ([0, 1, 1], (1 / 2 + 2 / 3) / 2),  # 0.5833, the spec's example
        ([1, 1, 1], 1.0),
        ([0, 0, 1], 1 / 3),
        ([0, 0, 0], 0.0),  # no relevant context
        ([], 0.0),
    ],
)
def test_average_precision(verdicts, expected):
    assert average_precision(verdicts) == pytest.approx(expected)
    assert round(average_precision([1, 0, 1]), 4) == 0.8333
    assert round(average_precision([0, 1, 1]), 4) == 0.5833


def test_relevant_first_beats_noise_first():
    assert average_precision([1, 1, 0, 0]) > average_precision([0, 0, 1, 1])


@pytest.mark.parametrize(("attributed", "expected"), [([1, 1, 0, 1], 0.75), ([0], 0.0), ([1], 1.0)])
def test_context_recall(attributed, expected):
    assert context_recall_score(attributed) == pytest.approx(expected)


def test_context_recall_without_classifications_is_an_error():
    with pytest.raises(ScoringError):
        context_recall_score([])


def test_entity_recall_is_set_based_and_normalised():
    ref = ["Eiffel Tower", "Paris", "1889", "paris", "World's Fair"]
    ctx = ["eiffel  tower", "PARIS", "1889"]
    assert entity_recall(ref, ctx) == pytest.approx(3 / 4)  # 4 distinct reference entities
    assert entity_recall([], ctx) == 0.0
    assert entity_recall(["Einstein", "Ulm"], ["Physics"]) == 0.0


def test_noise_sensitivity_relevant_and_irrelevant_modes_by_hand():
    # contexts: k0 supports the reference, k1 does not (noise)
    r2gt = np.array([[1, 0], [1, 0]])  # G=2 × K=2
    # a0: correct, from k0; a1: wrong, from k0; a2: wrong, from k1 only; a3: wrong, unsupported
    r2a = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    gt2a = np.array([1, 0, 0, 0])
    assert noise_sensitivity_score(r2gt, r2a, gt2a, "relevant") == pytest.approx(1 / 4)
    assert noise_sensitivity_score(r2gt, r2a, gt2a, "irrelevant") == pytest.approx(1 / 4)


def test_noise_sensitivity_undefined_cases():
    with pytest.raises(ScoringError, match="response has no statements"):
        noise_sensitivity_score(np.zeros((1, 2)), np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ScoringError, match="reference has no statements"):
        noise_sensitivity_score(np.zeros((0, 2)), np.zeros((1, 2)), np.zeros(1))


def _ragas_style(r2gt, r2a, gt2a, mode):
    """Ragas' own formulation: a context is 'irrelevant' if ANY reference statement is missing
    from it. Combined with '∧ ¬relevant_faithful' it equals the spec's ¬relevant_ctx."""
    r2gt, r2a, gt2a = (np.asarray(x, dtype=bool) for x in (r2gt, r2a, gt2a))
    relevant_retrieved = np.max(r2gt, axis=0, keepdims=True)
    relevant_faithful = np.max(relevant_retrieved & r2a, axis=1)
    irrelevant_retrieved = np.max(~r2gt, axis=0, keepdims=True)
    irrelevant_faithful = np.max(irrelevant_retrieved & r2a, axis=1) & ~relevant_faithful
    incorrect = ~gt2a
    chosen = relevant_faithful if mode == "relevant" else irrelevant_faithful
    return float(np.mean(chosen & incorrect))


def test_noise_sensitivity_matches_ragas_formulation_on_every_small_table():
    g, a, k = 2, 2, 2
    for bits in itertools.product([0, 1], repeat=g * k + a * k + a):
        r2gt = np.array(bits[: g * k]).reshape(g, k)
        r2a = np.array(bits[g * k : g * k + a * k]).reshape(a, k)
        gt2a = np.array(bits[g * k + a * k :])
        for mode in ("relevant", "irrelevant"):
            assert noise_sensitivity_score(r2gt, r2a, gt2a, mode) == _ragas_style(
                r2gt, r2a, gt2a, mode
            )


@pytest.mark.parametrize(
    ("verdicts", "threshold", "strict", "score", "success"),
    [
        (["yes", "idk", "no"], 0.5, False, 2 / 3, True),  # seed 004's example, the right way up
        (["no", "no", "yes"], 0.5, False, 1 / 3, False),
        ([], 0.5, False, 1.0, True),  # no statements
        (["yes", "no"], 0.5, True, 0.0, False),  # strict: below 1 becomes 0
        (["yes", "idk"], 0.5, True, 1.0, True),
    ],
)
def test_deepeval_answer_relevancy(verdicts, threshold, strict, score, success):
    result = answer_relevancy_score(verdicts, threshold, strict)
    assert result.score == pytest.approx(score)
    assert result.success is success
