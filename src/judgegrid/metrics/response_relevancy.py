"""ResponseRelevancy (Ragas ``answer_relevancy``): does the response answer the question asked?

The judge reads the response alone and writes the question it answers, ``strictness`` times;
the score is the mean cosine similarity between the user's question and those questions, and 0
when every generation calls the response noncommittal (ALL, as in Ragas since PR #2327).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from judgegrid.dataset import Sample
from judgegrid.errors import ScoringError
from judgegrid.metrics.base import Metric, MetricResult, Question, ScoreContext, chat

STEP = "response_relevancy.question"


class GeneratedQuestion(BaseModel):
    question: str = Field(max_length=300, description="The question the response answers.")
    noncommittal: Literal[0, 1] = Field(description="1 if the response is evasive or vague.")


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    strictness: list[Annotated[int, Field(ge=1, le=20)]] | None = Field(
        None, description="Overrides the matrix's strictness values for this metric."
    )


_EXAMPLES = [
    (
        "The Great Barrier Reef lies off the coast of Queensland, in north-eastern Australia.",
        {"question": "Where is the Great Barrier Reef?", "noncommittal": 0},
    ),
    (
        "I am not sure when the treaty was signed; it might have been some time in the nineties.",
        {"question": "When was the treaty signed?", "noncommittal": 1},
    ),
    (
        "Insulin is made by beta cells in the pancreas and it lowers the sugar in the blood.",
        {"question": "Which cells make insulin and what does insulin do?", "noncommittal": 0},
    ),
]


def question_prompt(response: str) -> str:
    """The prompt for one generated question; the few-shot examples suit base models too."""
    lines = [
        "Read the answer and write the one question that it answers. Also say whether the "
        "answer is noncommittal: 1 if it is evasive, vague or says it does not know, else 0.",
        'Reply with JSON: {"question": "...", "noncommittal": 0 or 1}.',
        "",
    ]
    for answer, output in _EXAMPLES:
        lines += [f"Answer: {answer}", f"JSON: {json.dumps(output)}", ""]
    lines += [f"Answer: {response}", "JSON:"]
    return "\n".join(lines)


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
    """mean_i cos(E(user_input), E(q_i)) × (0 if all generations are noncommittal else 1)."""
    if len(noncommittal) and all(noncommittal):
        return 0.0
    return float(np.mean(cosine_similarities(question_vector, generated_vectors)))


# -- the step that asks --------------------------------------------------------------------


class ResponseRelevancy(Metric):
    name = "response_relevancy"
    title = "ResponseRelevancy"
    description = (
        "Mean cosine between the question and questions the judge writes from the response"
    )
    required_fields = ("user_input", "response")
    uses_embeddings = True
    uses_strictness = True
    Params = Params

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        n = ctx.strictness or 3
        messages = chat(question_prompt(sample.response or ""))
        generations = await ctx.judge.ask_many(Question(STEP, messages, GeneratedQuestion), n)
        flags = [g.noncommittal for g in generations]
        questions = [g.question.strip() for g in generations if g.question.strip()]
        details = {"questions": [g.question for g in generations], "noncommittal": flags}
        if not questions:
            raise ScoringError(f"all {n} generated questions are empty")
        if all(flags):
            return MetricResult(0.0, "every generation judged the response noncommittal", details)
        if ctx.embedder is None:
            raise ScoringError("response_relevancy needs an embedding model")
        vectors = await ctx.embedder.embed([sample.user_input or "", *questions])
        score = response_relevancy_score(vectors[0], vectors[1:], flags)
        return MetricResult(score, None, details)
