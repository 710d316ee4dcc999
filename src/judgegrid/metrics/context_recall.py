"""ContextRecall (Ragas LLM ``context_recall``): how much of the reference the contexts support.

One judge call: classify every sentence of the reference as attributable to the retrieved
contexts (1) or not (0); the score is the attributed share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from judgegrid.core.context import ScoreContext
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import (
    REASON_CHARS,
    SENTENCE_CHARS,
    Metric,
    MetricResult,
    NoParams,
    share_of_ones,
    tightened_shape,
)
from judgegrid.metrics.prompt import Example, Prompt


class Classification(BaseModel):
    statement: str = Field(max_length=400)
    reason: str = Field(max_length=300)
    attributed: Literal[0, 1]


class Classifications(BaseModel):
    classifications: list[Classification] = Field(max_length=32)


class AttributionInput(BaseModel):
    question: str = Field(title="Question")
    context: str = Field(title="Context")
    reference: str = Field(title="Reference")


CLASSIFICATION_PROMPT = Prompt(
    instruction="Take each sentence of the reference answer and decide whether the context "
    "supports it: attributed 1 if it does, 0 if it does not. Give a reason of at most ten words.",
    input=AttributionInput,
    output=Classifications,
    reply_format='{"classifications": [{"statement": "...", "reason": "...", '
    '"attributed": 0 or 1}]}',
    examples=(
        Example(
            AttributionInput(
                question="Where is Mount Fuji, and when did it last erupt?",
                context="Mount Fuji is the highest mountain in Japan.",
                reference="Mount Fuji is in Japan. It last erupted in 1707.",
            ),
            Classifications(
                classifications=[
                    Classification(
                        statement="Mount Fuji is in Japan.",
                        reason="The context says so.",
                        attributed=1,
                    ),
                    Classification(
                        statement="It last erupted in 1707.",
                        reason="No eruption is mentioned.",
                        attributed=0,
                    ),
                ]
            ),
        ),
    ),
)


def _echo_chars(reference: str) -> int:
    """Room for one reference sentence repeated back (the longest, and a little more)."""
    sentences = re.split(r"(?<=[.!?])\s+", reference.strip())
    return min(SENTENCE_CHARS, max(len(s) for s in sentences) + 10)


def context_recall_score(attributed: Sequence[int]) -> float:
    """(#attributed) / (#classifications); no classification leaves the score undefined."""
    return share_of_ones(
        attributed, "the judge classified no reference sentence; context recall is undefined"
    )


class ContextRecall(Metric[NoParams]):
    name = "context_recall"
    human_question = (
        "What share of the reference's claims can be found in the contexts? (0: none … 1: all)"
    )
    title = "ContextRecall"
    description = "Share of the reference's sentences that the retrieved contexts support"
    judge_calls = "1"
    required_fields = ("user_input", "retrieved_contexts", "reference")

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        asked = AttributionInput(
            question=sample.user_input or "",
            context="\n".join(sample.retrieved_contexts or []),
            reference=sample.reference or "",
        )
        answer = await ctx.judge.ask(
            Question(
                "context_recall.classify",
                CLASSIFICATION_PROMPT.messages(asked),
                Classifications,
                request_shape=tightened_shape(
                    Classifications,
                    {"statement": _echo_chars(sample.reference or ""), "reason": REASON_CHARS},
                ),
            )
        )
        flags = [c.attributed for c in answer.classifications]
        score = context_recall_score(flags)
        missing = [c.statement for c in answer.classifications if not c.attributed]
        reason = f"{sum(flags)} of {len(flags)} reference sentences supported" + (
            f"; not supported: {'; '.join(missing)}" if missing else ""
        )
        return MetricResult(
            score, reason, {"classifications": [c.model_dump() for c in answer.classifications]}
        )
