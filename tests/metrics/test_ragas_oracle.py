"""Ragas' own scoring code as the oracle: identical parsed judge answers, identical scores.

Ragas is a test-only dependency (the ``dev`` extra). Its pure scoring helpers are called as
unbound functions; ResponseRelevancy, whose arithmetic Ragas keeps inside ``ascore``, is run
through Ragas with a scripted LLM and fixed embedding vectors.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from types import SimpleNamespace

import numpy as np
import pytest

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from ragas.embeddings.base import BaseRagasEmbedding
from ragas.llms.base import InstructorBaseRagasLLM
from ragas.metrics.collections.answer_relevancy.metric import (
    AnswerRelevancy as RagasAnswerRelevancy,
)
from ragas.metrics.collections.context_entity_recall.metric import (
    ContextEntityRecall as RagasEntityRecall,
)
from ragas.metrics.collections.context_precision.metric import (
    ContextPrecision as RagasContextPrecision,
)
from ragas.metrics.collections.faithfulness.metric import (
    Faithfulness as RagasFaithfulness,
)
from ragas.metrics.collections.faithfulness.util import (
    NLIStatementOutput,
    StatementFaithfulnessAnswer,
)
from ragas.metrics.collections.noise_sensitivity.metric import (
    NoiseSensitivity as RagasNoiseSensitivity,
)

from judgegrid.metrics.context_entity_recall import entity_recall, normalise_entity
from judgegrid.metrics.context_precision import average_precision
from judgegrid.metrics.context_recall import context_recall_score
from judgegrid.metrics.faithfulness import faithfulness_score
from judgegrid.metrics.noise_sensitivity import noise_sensitivity_score
from judgegrid.metrics.response_relevancy import response_relevancy_score

# ragas.metrics binds the name _context_recall to a metric instance; import the module itself
legacy_context_recall = importlib.import_module("ragas.metrics._context_recall")

RNG = np.random.default_rng(20261123)
BINARY_LISTS = [RNG.integers(0, 2, size=n).tolist() for n in range(1, 9) for _ in range(12)]


@pytest.mark.parametrize("verdicts", BINARY_LISTS)
def test_faithfulness_matches_ragas(verdicts):
    answers = NLIStatementOutput(
        statements=[
            StatementFaithfulnessAnswer(statement=f"s{i}", reason="r", verdict=v)
            for i, v in enumerate(verdicts)
        ]
    )
    assert faithfulness_score(verdicts) == RagasFaithfulness._compute_score(None, answers)


@pytest.mark.parametrize("flags", BINARY_LISTS)
def test_context_recall_matches_ragas(flags):
    classified = [
        legacy_context_recall.ContextRecallClassification(statement="s", reason="r", attributed=f)
        for f in flags
    ]
    ragas = legacy_context_recall.ContextRecall._compute_score(None, classified)
    assert context_recall_score(flags) == ragas


@pytest.mark.parametrize("verdicts", [*BINARY_LISTS, [0, 0, 0], [1, 0, 1], [0, 1, 1]])
def test_context_precision_matches_ragas(verdicts):
    ragas = RagasContextPrecision._calculate_average_precision(None, verdicts)
    # Ragas adds 1e-10 to the denominator; no relevant context gives 0.0 in both
    assert average_precision(verdicts) == pytest.approx(ragas, abs=1e-9)


def test_context_entity_recall_matches_ragas_on_normalised_entities():
    words = ["paris", "1889", "eiffel tower", "gustave eiffel", "france", "seine", "324 m"]
    for _ in range(200):
        ref = list(RNG.choice(words, size=RNG.integers(1, 7)))
        ctx = list(RNG.choice(words, size=RNG.integers(0, 7)))
        ragas = RagasEntityRecall._compute_recall_score(None, ref, ctx)
        assert entity_recall(ref, ctx) == pytest.approx(ragas, abs=1e-7)
    # judgegrid also folds case and white space, which Ragas does not: a documented difference
    assert normalise_entity(" Eiffel   Tower ") == "eiffel tower"
    assert entity_recall(["Paris"], ["PARIS"]) == 1.0
    assert RagasEntityRecall._compute_recall_score(None, ["Paris"], ["PARIS"]) < 1e-6


@pytest.mark.parametrize("mode", ["relevant", "irrelevant"])
def test_noise_sensitivity_matches_ragas_on_random_tables(mode):
    ragas = SimpleNamespace(mode=mode)
    for _ in range(300):
        g, a, k = RNG.integers(1, 5), RNG.integers(1, 5), RNG.integers(1, 5)
        r2gt = RNG.integers(0, 2, size=(g, k)).astype(bool)
        r2a = RNG.integers(0, 2, size=(a, k)).astype(bool)
        gt2a = RNG.integers(0, 2, size=a).astype(bool)
        expected = RagasNoiseSensitivity._compute_score(
            ragas,
            {"retrieved2ground_truth": r2gt, "retrieved2answer": r2a, "ground_truth2answer": gt2a},
        )
        assert noise_sensitivity_score(r2gt, r2a, gt2a, mode) == pytest.approx(expected)


class _CannedLLM(InstructorBaseRagasLLM):
    """Answers Ragas' question-generation prompt with the next canned generation."""

    def __init__(self, generations):
        self._generations = list(generations)

    def generate(self, prompt, response_model):
        question, noncommittal = self._generations.pop(0)
        return response_model(question=question, noncommittal=noncommittal)

    async def agenerate(self, prompt, response_model):
        return self.generate(prompt, response_model)


class _FixedEmbeddings(BaseRagasEmbedding):
    def __init__(self, vectors: dict[str, list[float]]):
        super().__init__()
        self._vectors = vectors

    def embed_text(self, text, **kwargs):
        return self._vectors[text]

    async def aembed_text(self, text, **kwargs):
        return self._vectors[text]


@pytest.mark.parametrize(
    "flags", [[0, 0, 0], [1, 0, 1], [1, 1, 1], [0], [1], [0, 1, 1, 1, 0], [1, 1, 1, 1, 0]]
)
def test_response_relevancy_matches_ragas(flags):
    n = len(flags)
    questions = [f"generated question {i}" for i in range(n)]
    vectors = {text: RNG.normal(size=16).tolist() for text in ["the question", *questions]}
    ragas = RagasAnswerRelevancy(
        llm=_CannedLLM(zip(questions, flags, strict=True)),
        embeddings=_FixedEmbeddings(vectors),
        strictness=n,
    )
    expected = asyncio.run(ragas.ascore(user_input="the question", response="an answer")).value
    ours = response_relevancy_score(
        np.array(vectors["the question"]), np.array([vectors[q] for q in questions]), flags
    )
    assert ours == pytest.approx(expected, abs=1e-9)
