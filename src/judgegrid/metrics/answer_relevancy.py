"""AnswerRelevancy, statement variant (DeepEval ``AnswerRelevancyMetric``).

Split the response into statements (the statement step shared with Faithfulness and
NoiseSensitivity), ask for a yes/no/idk relevance verdict per statement, and score the share that
is not "no" ("idk" counts as relevant). Seed 004 prints the ratio upside down ("3/2 = 1.5"); the
metric is relevant/total in [0, 1]. ``include_reason`` adds DeepEval's third call, which explains
the score from the "no" verdicts' reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, field_validator

from judgegrid.core.context import Judge, ScoreContext
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.core.values import Number
from judgegrid.metrics.base import (
    REASON_CHARS,
    SENTENCE_CHARS,
    Metric,
    MetricResult,
    exactly,
    tightened_shape,
)
from judgegrid.metrics.faithfulness import MAX_REASON_CHARS, MAX_STATEMENTS, split_statements
from judgegrid.metrics.prompt import Example, Prompt

VERDICT_STEP = "answer_relevancy.verdicts"
REASON_STEP = "answer_relevancy.reason"


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    threshold: Number = Field(0.5, ge=0, le=1, description="success = score ≥ threshold.")
    include_reason: bool = Field(
        True, description="One more judge call that explains the score (as in DeepEval)."
    )
    strict_mode: bool = Field(
        False, description="Threshold 1; any score below it becomes 0 (as in DeepEval)."
    )


class RelevanceVerdict(BaseModel):
    verdict: Literal["yes", "no", "idk"]
    reason: str | None = Field(None, max_length=MAX_REASON_CHARS)

    @field_validator("verdict", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class RelevanceVerdicts(BaseModel):
    verdicts: list[RelevanceVerdict] = Field(max_length=MAX_STATEMENTS)


class ScoreReason(BaseModel):
    reason: str = Field(max_length=600)


class RelevanceInput(BaseModel):
    question: str = Field(title="Input")
    statements: list[str] = Field(title="Statements")


VERDICTS_PROMPT = Prompt(
    instruction="For each statement, say whether it is relevant to answering the input: "
    '"yes" if it is, "no" if it is not, "idk" if it is ambiguous or supporting information. '
    'Give a short reason only for "no", otherwise null. Keep the statements in order, one '
    "verdict each.",
    input=RelevanceInput,
    output=RelevanceVerdicts,
    reply_format='{"verdicts": [{"verdict": "yes" or "no" or "idk", "reason": "..." or null}]}',
    examples=(
        Example(
            RelevanceInput(
                question="When was the Eiffel Tower built?",
                statements=[
                    "The Eiffel Tower was built between 1887 and 1889.",
                    "Tickets cost more in summer.",
                    "The tower is a symbol of Paris.",
                ],
            ),
            RelevanceVerdicts(
                verdicts=[
                    RelevanceVerdict(verdict="yes", reason=None),
                    RelevanceVerdict(
                        verdict="no",
                        reason="The price of tickets does not say when it was built.",
                    ),
                    RelevanceVerdict(verdict="idk", reason=None),
                ]
            ),
        ),
    ),
)

TwoDecimals = Annotated[float, PlainSerializer(lambda score: f"{score:.2f}", return_type=str)]


class ReasonInput(BaseModel):
    question: str = Field(title="Input")
    score: TwoDecimals = Field(title="Score")
    irrelevant_reasons: list[str] = Field(title="Reasons for irrelevant statements")


REASON_PROMPT = Prompt(
    instruction="Explain in one or two sentences why the answer relevancy score is what it is, "
    "using the reasons given for the irrelevant statements. Say 'The score is <score> because "
    "...'.",
    input=ReasonInput,
    output=ScoreReason,
    reply_format='{"reason": "..."}',
    writes="the reason",
    examples=(
        Example(
            ReasonInput(
                question="When was the Eiffel Tower built?",
                score=0.67,
                irrelevant_reasons=["Ticket prices do not say when it was built."],
            ),
            ScoreReason(reason="The score is 0.67 because one statement is about ticket prices."),
        ),
    ),
)


# -- pure scoring ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerRelevancyResult:
    score: float
    success: bool
    threshold: float


def answer_relevancy_score(
    verdicts: Sequence[str], threshold: float = 0.5, strict_mode: bool = False
) -> AnswerRelevancyResult:
    """(#verdicts that are not "no") / #verdicts; no statements → 1.0.

    strict_mode: the threshold becomes 1 and any score below it becomes 0. success = score ≥
    threshold.
    """
    if strict_mode:
        threshold = 1.0
    relevant = sum(1 for v in verdicts if v.strip().lower() != "no")
    score = relevant / len(verdicts) if verdicts else 1.0
    if strict_mode and score < threshold:
        score = 0.0
    return AnswerRelevancyResult(score, score >= threshold, threshold)


# -- the steps that ask ----------------------------------------------------------------------


async def relevance_verdicts(
    judge: Judge, question: str, statements: Sequence[str]
) -> list[RelevanceVerdict]:
    shape = exactly(
        tightened_shape(RelevanceVerdicts, {"reason": REASON_CHARS}), "verdicts", len(statements)
    )
    q = Question(
        VERDICT_STEP,
        VERDICTS_PROMPT.messages(RelevanceInput(question=question, statements=list(statements))),
        RelevanceVerdicts,
        request_shape=shape,
    )
    return (await judge.ask(q)).verdicts


class AnswerRelevancy(Metric[Params]):
    name = "answer_relevancy"
    human_question = (
        "How well does the response address the question?"
        " (0: not at all … 1: fully, nothing off-topic)"
    )
    human_anchors = ("not at all", "partly", "fully")
    title = "AnswerRelevancy"
    description = (
        "DeepEval's AnswerRelevancyMetric: share of the response's statements relevant to the "
        "input (Ragas' answer_relevancy is response_relevancy here)"
    )
    judge_calls = "2 (statements shared), +1 with include_reason"
    required_fields = ("user_input", "response")
    Params = Params

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        p = self.params
        question = sample.user_input or ""
        statements = await split_statements(
            ctx.judge, question, sample.response or "", sample.language
        )
        verdicts = await relevance_verdicts(ctx.judge, question, statements) if statements else []
        result = answer_relevancy_score(
            [v.verdict for v in verdicts],
            p.threshold,
            p.strict_mode,
        )
        reason = None
        if p.include_reason:
            irrelevant = [v.reason or "" for v in verdicts if v.verdict == "no"]
            answer = await ctx.judge.ask(
                Question(
                    REASON_STEP,
                    REASON_PROMPT.messages(
                        ReasonInput(
                            question=question, score=result.score, irrelevant_reasons=irrelevant
                        ),
                        sample.language,
                    ),
                    ScoreReason,
                    request_shape=tightened_shape(ScoreReason, {"reason": 2 * SENTENCE_CHARS}),
                )
            )
            reason = answer.reason
        details = {
            "statements": statements,
            "verdicts": [v.model_dump() for v in verdicts],
            "success": result.success,
            "threshold": result.threshold,
        }
        return MetricResult(result.score, reason, details)
