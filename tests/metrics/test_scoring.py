"""Pure scoring functions against hand-computed values from the metric spec."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgegrid.calls.embedder import truncate_and_normalise
from judgegrid.core.errors import ScoringError
from judgegrid.metrics.faithfulness import faithfulness_score
from judgegrid.metrics.response_relevancy import cosine_similarities, response_relevancy_score


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [([1, 1, 1], 1.0), ([1, 0], 0.5), ([0, 0, 0, 1], 0.25), ([0], 0.0), ([1, 0, 1], 2 / 3)],
)
def test_faithfulness_is_supported_over_returned(verdicts, expected):
    assert faithfulness_score(verdicts) == pytest.approx(expected)


def test_faithfulness_without_verdicts_is_an_error_not_nan():
    with pytest.raises(ScoringError, match="no verdicts"):
        faithfulness_score([])


def test_cosine_matches_definition():
    q = np.array([1.0, 2.0, 2.0])
    cands = np.array([[1.0, 2.0, 2.0], [-1.0, -2.0, -2.0], [2.0, -1.0, 0.0], [0.0, 3.0, 4.0]])
    expected = [1.0, -1.0, 0.0, (6 + 8) / (3 * 5)]
    assert cosine_similarities(q, cands) == pytest.approx(expected)


def test_cosine_refuses_zero_vectors():
    with pytest.raises(ScoringError, match="zero vector"):
        cosine_similarities(np.zeros(3), np.ones((1, 3)))


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([0, 0, 0], (1.0 + 0.0 + 0.6) / 3),
        ([1, 0, 1], (1.0 + 0.0 + 0.6) / 3),  # ANY noncommittal does not zero the score
        ([1, 1, 1], 0.0),  # ALL noncommittal does (Ragas since PR #2327)
    ],
)
def test_response_relevancy_mean_cosine_times_noncommittal(flags, expected):
    q = np.array([1.0, 0.0])
    gens = np.array([[2.0, 0.0], [0.0, 5.0], [0.6, 0.8]])
    assert response_relevancy_score(q, gens, flags) == pytest.approx(expected)


def test_truncation_keeps_first_components_and_renormalises():
    v = np.array([[3.0, 4.0, 12.0]])
    out = truncate_and_normalise(v, 2)
    assert out == pytest.approx(np.array([[0.6, 0.8]]))
    assert np.linalg.norm(truncate_and_normalise(v, 0)) == pytest.approx(1.0)


def test_truncation_beyond_model_size_is_an_error():
    with pytest.raises(ScoringError, match="larger than the model's 3"):
        truncate_and_normalise(np.ones((1, 3)), 4)


def test_truncation_changes_cosine_only_by_dropping_components():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 16))
    full = cosine_similarities(a, b[None, :])[0]
    cut = truncate_and_normalise(np.stack([a, b]), 16)
    assert float(cut[0] @ cut[1]) == pytest.approx(full)
    assert not math.isclose(
        float(
            truncate_and_normalise(np.stack([a, b]), 4)[0]
            @ truncate_and_normalise(np.stack([a, b]), 4)[1]
        ),
        full,
    )
