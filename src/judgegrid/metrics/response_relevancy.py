"""ResponseRelevancy (Ragas ``answer_relevancy``): does the response answer the question asked?

The judge reads the response alone and writes the question it answers, ``strictness`` times;
the score is the mean cosine similarity between the user's question and those questions, and 0
when every generation calls the response noncommittal (ALL, as in Ragas since PR #2327).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgegrid.core.context import ScoreContext
from judgegrid.core.errors import ScoringError
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.core.values import Distinct, Whole
from judgegrid.metrics.base import (
    SENTENCE_CHARS,
    Metric,
    MetricResult,
    tightened_shape,
)
from judgegrid.metrics.prompt import Example, Prompt

STEP = "response_relevancy.question"


class GeneratedQuestion(BaseModel):
    question: str = Field(max_length=300, description="The question the response answers.")
    noncommittal: Literal[0, 1] = Field(description="1 if the response is evasive or vague.")


DEFAULT_STRICTNESS = 3


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    strictness: Annotated[list[Annotated[Whole, Field(ge=1, le=20)]], Distinct] | None = Field(
        None,
        description="Questions generated per score; in a matrix, a list that overrides the "
        "matrix's strictness values for this metric.",
    )

    @field_validator("strictness", mode="before")
    @classmethod
    def _one_value_as_list(cls, value: object) -> object:
        return [value] if isinstance(value, int) else value


class ResponseInput(BaseModel):
    response: str = Field(title="Answer")


def _example(answer: str, question: str, noncommittal: Literal[0, 1]) -> Example[Any, Any]:
    return Example(
        ResponseInput(response=answer),
        GeneratedQuestion(question=question, noncommittal=noncommittal),
    )


# The few-shot examples suit base models too.
QUESTION_PROMPT = Prompt(
    instruction="Read the answer and write the one question that it answers. Also say whether "
    "the answer is noncommittal: 1 if it is evasive, vague or says it does not know, else 0.",
    input=ResponseInput,
    output=GeneratedQuestion,
    reply_format='{"question": "...", "noncommittal": 0 or 1}',
    writes="the question",
    examples=(
        _example(
            "The Great Barrier Reef lies off the coast of Queensland, in north-eastern Australia.",
            "Where is the Great Barrier Reef?",
            0,
        ),
        _example(
            "I am not sure when the treaty was signed; it might have been some time in the "
            "nineties.",
            "When was the treaty signed?",
            1,
        ),
        _example(
            "Insulin is made by beta cells in the pancreas and it lowers the sugar in the blood.",
            "Which cells make insulin and what does insulin do?",
            0,
        ),
    ),
)


# -- pure scoring ----------------------------------------------------------------------------


def cosine_similarities(query: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """cos(query, c) for each row c of candidates."""
    query = np.asarray(query, dtype=float)
    candidates = np.atleast_2d(np.asarray(candidates, dtype=float))
    norms = np.linalg.norm(candidates, axis=1) * np.linalg.norm(query)
    if np.any(norms == 0):
        raise ScoringError("an embedding is the zero vector; cosine similarity is undefined")
    return candidates @ query / norms


def response_relevancy_score(
    question_vector: np.ndarray,
    generated_vectors: np.ndarray,
    noncommittal: Sequence[int],
) -> float:
    """mean_i cos(E(user_input), E(q_i)) × (0 if all generations are noncommittal else 1).

    The caller passes only the generations with a non-empty question, vectors and flags alike,
    as Ragas skips empty ones.
    """
    if len(noncommittal) and all(noncommittal):
        return 0.0
    return float(np.mean(cosine_similarities(question_vector, generated_vectors)))


# -- the step that asks --------------------------------------------------------------------


class ResponseRelevancy(Metric[Params]):
    name = "response_relevancy"
    human_question = (
        "How well does the response address the question?"
        " (0: not at all or evasive … 1: fully and directly)"
    )
    human_anchors = ("not at all", "partly", "fully")
    title = "ResponseRelevancy"
    description = (
        "Mean cosine between the question and questions the judge writes from the response"
    )
    judge_calls = (
        "strictness, generated once for the largest and shared by every embedding and dimension"
    )
    required_fields = ("user_input", "response")
    uses_embeddings = True
    uses_strictness = True
    Params = Params

    def default_strictness(self) -> int:
        return max(self.params.strictness or [DEFAULT_STRICTNESS])

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        n = ctx.strictness or DEFAULT_STRICTNESS
        messages = QUESTION_PROMPT.messages(
            ResponseInput(response=sample.response or ""), sample.language
        )
        shape = tightened_shape(GeneratedQuestion, {"question": SENTENCE_CHARS})
        asked = Question(STEP, messages, GeneratedQuestion, request_shape=shape)
        generations = await ctx.judge.ask_many(asked, n)
        kept = [g for g in generations if g.question.strip()]  # as Ragas: empty ones are skipped
        questions = [g.question.strip() for g in kept]
        flags = [g.noncommittal for g in kept]
        details = {
            "questions": [g.question for g in generations],
            "noncommittal": [g.noncommittal for g in generations],
        }
        if not questions:
            raise ScoringError(f"all {n} generated questions are empty")
        if all(flags):
            return MetricResult(0.0, "every generation judged the response noncommittal", details)
        if ctx.embedder is None:
            raise ScoringError("response_relevancy needs an embedding model")
        vectors = await ctx.embedder.embed([sample.user_input or "", *questions])
        score = response_relevancy_score(vectors[0], vectors[1:], flags)
        return MetricResult(score, None, details)
