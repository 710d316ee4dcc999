"""ContextPrecision (Ragas ``context_precision`` / ``context_utilization``): are the useful
contexts ranked first?

One judge call per retrieved context, in rank order: was this context useful to arrive at the
answer (the reference, or the response when there is no reference)? The verdicts are scored by
average precision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judgegrid.core.context import ScoreContext
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import (
    REASON_CHARS,
    Metric,
    MetricResult,
    tightened_shape,
)
from judgegrid.metrics.prompt import Example, Prompt

STEP = "context_precision.verdict"


class ContextVerdict(BaseModel):
    reason: str = Field(max_length=300)
    verdict: Literal[0, 1]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["auto", "reference", "response"] = Field(
        "auto",
        description="Judge usefulness against the reference or the response; auto "
        "uses the reference when the sample has one.",
    )


class UsefulnessInput(BaseModel):
    question: str = Field(title="Question")
    answer: str = Field(title="Answer")
    context: str = Field(title="Context")


_EIFFEL = {"question": "When was the Eiffel Tower finished?", "answer": "It was finished in 1889."}

VERDICT_PROMPT = Prompt(
    instruction="Was the context useful to arrive at the given answer to the question? verdict 1 "
    "if it helps, 0 if it does not. Give a reason of at most ten words.",
    input=UsefulnessInput,
    output=ContextVerdict,
    reply_format='{"reason": "...", "verdict": 0 or 1}',
    examples=(
        Example(
            UsefulnessInput(
                **_EIFFEL,
                context="The Eiffel Tower was completed in March 1889 for the World's Fair.",
            ),
            ContextVerdict(reason="It gives the year the tower was finished.", verdict=1),
        ),
        Example(
            UsefulnessInput(
                **_EIFFEL, context="Tickets to the top of the tower cost more in summer."
            ),
            ContextVerdict(reason="It is about ticket prices, not the year.", verdict=0),
        ),
    ),
)

# -- pure scoring ----------------------------------------------------------------------------


def average_precision(verdicts: Sequence[int]) -> float:
    """Σ_k precision@k · v_k / Σ_k v_k over the contexts in rank order; no useful context → 0.0.

    >>> round(average_precision([1, 0, 1]), 4), round(average_precision([0, 1, 1]), 4)
    (0.8333, 0.5833)
    """
    hits, total = 0, 0.0
    for k, verdict in enumerate(verdicts, start=1):
        if verdict:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


# -- the step that asks --------------------------------------------------------------------


class ContextPrecision(Metric[Params]):
    name = "context_precision"
    human_question = (
        "Tick each context that is useful for answering the question, in its rank order."
    )
    human_form = "contexts"
    title = "ContextPrecision"
    description = "Average precision of the contexts the judge finds useful, in rank order"
    judge_calls = "one per retrieved context"
    required_fields = ("user_input", "retrieved_contexts")
    also_needs = "reference (mode reference), response (mode response), either (auto)"
    Params = Params

    def answer_field(self, sample: Sample) -> str:
        mode = self.params.mode
        if mode == "auto":
            return "response" if sample.is_missing("reference") else "reference"
        return mode

    def missing_fields(self, sample: Sample) -> list[str]:
        missing = super().missing_fields(sample)
        if self.params.mode == "auto":
            if sample.is_missing("reference") and sample.is_missing("response"):
                missing.append("reference or response")
        elif sample.is_missing(self.answer_field(sample)):
            missing.append(self.answer_field(sample))
        return missing

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        field = self.answer_field(sample)
        answer = getattr(sample, field) or ""
        contexts = sample.retrieved_contexts or []
        answers = await asyncio.gather(
            *(
                ctx.judge.ask(
                    Question(
                        STEP,
                        VERDICT_PROMPT.messages(
                            UsefulnessInput(
                                question=sample.user_input or "", answer=answer, context=c
                            )
                        ),
                        ContextVerdict,
                        request_shape=tightened_shape(ContextVerdict, {"reason": REASON_CHARS}),
                    )
                )
                for c in contexts
            )
        )
        verdicts = [a.verdict for a in answers]
        details = {"against": field, "verdicts": verdicts, "reasons": [a.reason for a in answers]}
        return MetricResult(average_precision(verdicts), f"useful contexts: {verdicts}", details)
