"""Faithfulness (Ragas ``faithfulness``): how much of the response the retrieved contexts support.

Two judge steps: split the response into standalone statements, then give each statement an NLI
verdict against the joined contexts. score = supported / verdicts returned. Both steps are shared
with other metrics that need the same statements or the same verdicts (they are memoised by
content, so an identical request is one call per judge, sample and repeat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from judgegrid.core.context import Judge, ScoreContext
from judgegrid.core.errors import ScoringError
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import (
    REASON_CHARS,
    SENTENCE_CHARS,
    Metric,
    MetricResult,
    NoParams,
    exactly,
    share_of_ones,
    tightened_shape,
)
from judgegrid.metrics.prompt import Example, Prompt

# Bounds on the answers: generous for any real judge, and they stop a small local model that
# loops inside a string from running on to max_tokens (a grammar enforces them there).
MAX_STATEMENTS = 16
MAX_STATEMENT_CHARS = 400
MAX_REASON_CHARS = 200


class Statements(BaseModel):
    statements: list[Annotated[str, Field(max_length=MAX_STATEMENT_CHARS)]] = Field(
        max_length=MAX_STATEMENTS
    )


class Verdict(BaseModel):
    statement: str = Field(max_length=MAX_STATEMENT_CHARS)
    reason: str = Field(max_length=MAX_REASON_CHARS)
    verdict: Literal[0, 1]


class Verdicts(BaseModel):
    statements: list[Verdict] = Field(max_length=MAX_STATEMENTS)


class StatementsInput(BaseModel):
    question: str = Field(title="Question")
    answer: str = Field(title="Answer")


STATEMENTS_PROMPT = Prompt(
    instruction="Break the answer into short statements. Each statement must stand on its own: "
    "replace pronouns with the names they refer to, and keep every fact of the answer. "
    "Add nothing that the answer does not say.",
    input=StatementsInput,
    output=Statements,
    reply_format='{"statements": ["...", "..."]}',
    writes="the statements",
    examples=(
        Example(
            StatementsInput(
                question="Who wrote Frankenstein, and when was it published?",
                answer="Mary Shelley wrote it. She published it in 1818.",
            ),
            Statements(
                statements=[
                    "Mary Shelley wrote the novel Frankenstein.",
                    "Mary Shelley published Frankenstein in 1818.",
                ]
            ),
        ),
    ),
)


class VerdictsInput(BaseModel):
    context: str = Field(title="Context")
    statements: list[str] = Field(title="Statements")


VERDICTS_PROMPT = Prompt(
    instruction="For each statement, decide whether the context supports it. verdict 1: the "
    "statement follows directly from the context. verdict 0: it does not, or the context does "
    "not say. Give a reason of at most eight words, and keep the statements in order.",
    input=VerdictsInput,
    output=Verdicts,
    reply_format='{"statements": [{"statement": "...", "reason": "...", "verdict": 0 or 1}]}',
    examples=(
        Example(
            VerdictsInput(
                context="The Amazon flows through Peru, Colombia and Brazil, and it carries "
                "more water than any other river.",
                statements=[
                    "The Amazon flows through Brazil.",
                    "The Amazon is the longest river in Africa.",
                ],
            ),
            Verdicts(
                statements=[
                    Verdict(
                        statement="The Amazon flows through Brazil.",
                        reason="The context names Brazil.",
                        verdict=1,
                    ),
                    Verdict(
                        statement="The Amazon is the longest river in Africa.",
                        reason="Africa is not mentioned.",
                        verdict=0,
                    ),
                ]
            ),
        ),
    ),
)


# -- shared steps (also used by NoiseSensitivity) --------------------------------------------


def _statements_shape() -> dict:
    """At least one short statement is asked for (a grammar-bound local model can neither
    answer with nothing nor ramble on in one); any judge's answer is still read as Ragas would."""
    shape = tightened_shape(Statements, {"statements": SENTENCE_CHARS})
    shape["properties"]["statements"]["minItems"] = 1
    shape["properties"]["statements"]["items"]["minLength"] = 3
    return shape


async def split_statements(
    judge: Judge, question: str, text: str, language: str | None = None
) -> list[str]:
    """The text's statements, written in the sample's ``language``."""
    q = Question(
        "statements",
        STATEMENTS_PROMPT.messages(StatementsInput(question=question, answer=text), language),
        Statements,
        request_shape=_statements_shape(),
    )
    answer = await judge.ask(q)
    return [s.strip() for s in answer.statements if s.strip()]


async def nli_verdicts(judge: Judge, context: str, statements: Sequence[str]) -> list[Verdict]:
    """One verdict per statement is asked for; whatever comes back is scored as returned."""
    echo = max((len(s) for s in statements), default=0) + 10  # the statement, repeated
    shape = tightened_shape(Verdicts, {"statement": echo, "reason": REASON_CHARS})
    exactly(shape, "statements", len(statements))
    asked = VERDICTS_PROMPT.messages(VerdictsInput(context=context, statements=list(statements)))
    q = Question("nli", asked, Verdicts, request_shape=shape)
    return (await judge.ask(q)).statements


# -- pure scoring ----------------------------------------------------------------------------


def faithfulness_score(verdicts: Sequence[int]) -> float:
    """(#verdict 1) / (#verdicts returned); no verdicts leaves the score undefined."""
    return share_of_ones(verdicts, "the judge returned no verdicts; faithfulness is undefined")


class Faithfulness(Metric[NoParams]):
    name = "faithfulness"
    human_question = (
        "What share of the response's claims do the contexts support? (0: none … 1: all)"
    )
    title = "Faithfulness"
    description = "Share of the response's statements that the retrieved contexts support"
    judge_calls = "2: statements (shared), NLI verdicts"
    required_fields = ("user_input", "response", "retrieved_contexts")

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        statements = await split_statements(
            ctx.judge, sample.user_input or "", sample.response or "", sample.language
        )
        if not statements:
            raise ScoringError("the judge found no statements in the response")
        verdicts = await nli_verdicts(
            ctx.judge, "\n".join(sample.retrieved_contexts or []), statements
        )
        score = faithfulness_score([v.verdict for v in verdicts])
        unsupported = [v.statement for v in verdicts if v.verdict == 0]
        reason = f"{len(verdicts) - len(unsupported)} of {len(verdicts)} statements supported" + (
            f"; unsupported: {'; '.join(unsupported)}" if unsupported else ""
        )
        return MetricResult(
            score,
            reason,
            {"statements": statements, "verdicts": [v.model_dump() for v in verdicts]},
        )
