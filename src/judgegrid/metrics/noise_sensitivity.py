"""NoiseSensitivity (Ragas ``noise_sensitivity``): how often the response states something wrong
that the retrieved contexts led it to. Lower is better.

The steps are Faithfulness' own: the reference and the response are split into statements, and
NLI verdicts are asked for reference statements vs each context, response statements vs each
context, and response statements vs the reference. Being the same requests, the response's
statements (and, with one context, its verdicts) are shared with Faithfulness, and both modes
share every call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from judgegrid.core.context import Judge, ScoreContext
from judgegrid.core.errors import ScoringError
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import Metric, MetricResult
from judgegrid.metrics.faithfulness import nli_verdicts, split_statements

Mode = Literal["relevant", "irrelevant"]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Mode = Field(
        "relevant",
        description="relevant: wrong statements supported by relevant contexts; irrelevant: "
        "wrong statements supported only by irrelevant ones.",
    )


# -- pure scoring ----------------------------------------------------------------------------


def noise_sensitivity_score(
    ref_vs_context: np.ndarray,
    response_vs_context: np.ndarray,
    response_vs_reference: np.ndarray,
    mode: Mode = "relevant",
) -> float:
    """Score from the three NLI verdict tables.

    ref_vs_context[g, k]: reference statement g is supported by context k (G×K);
    response_vs_context[a, k]: response statement a is supported by context k (A×K);
    response_vs_reference[a]: response statement a is supported by the reference (A).
    """
    r2gt = np.asarray(ref_vs_context, dtype=bool)
    r2a = np.asarray(response_vs_context, dtype=bool)
    gt2a = np.asarray(response_vs_reference, dtype=bool)
    if r2a.shape[0] == 0:
        raise ScoringError("the response has no statements; noise sensitivity is undefined")
    if r2gt.shape[0] == 0:
        raise ScoringError("the reference has no statements; noise sensitivity is undefined")
    if r2gt.shape[1] != r2a.shape[1] or r2a.shape[0] != gt2a.shape[0]:
        raise ScoringError("the NLI verdict tables do not fit together (statement/context counts)")
    incorrect = ~gt2a
    relevant_ctx = np.asarray(r2gt.any(axis=0), dtype=bool)
    rel_faithful = (relevant_ctx[None, :] & r2a).any(axis=1)
    if mode == "relevant":
        return float(np.mean(rel_faithful & incorrect))
    irr_faithful = (~relevant_ctx[None, :] & r2a).any(axis=1) & ~rel_faithful
    return float(np.mean(irr_faithful & incorrect))


# -- the steps that ask ----------------------------------------------------------------------


async def verdict_column(judge: Judge, premise: str, statements: Sequence[str]) -> list[int]:
    """One 0/1 per statement against ``premise``; a table needs exactly one verdict each."""
    verdicts = await nli_verdicts(judge, premise, statements)
    if len(verdicts) != len(statements):
        raise ScoringError(
            f"the judge returned {len(verdicts)} verdicts for {len(statements)} statements; "
            "noise sensitivity needs one per statement"
        )
    return [v.verdict for v in verdicts]


async def verdict_table(
    judge: Judge, contexts: Sequence[str], statements: Sequence[str]
) -> np.ndarray:
    """statements × contexts: statement i supported by context k."""
    columns = await asyncio.gather(*(verdict_column(judge, c, statements) for c in contexts))
    return np.array(columns, dtype=int).T.reshape(len(statements), len(contexts))


class NoiseSensitivity(Metric[Params]):
    name = "noise_sensitivity"
    human_question = (
        "What share of the response's claims are wrong, i.e. not supported by the reference?"
        " (0: none — best … 1: all)"
    )
    human_anchors = ("none: best", "half", "all: worst")
    title = "NoiseSensitivity"
    description = (
        "Share of the response's statements that are wrong yet supported by a (relevant or "
        "irrelevant) retrieved context"
    )
    judge_calls = "2K+3 for K contexts, statements and verdicts shared with faithfulness"
    required_fields = ("user_input", "response", "retrieved_contexts", "reference")
    higher_is_better = False
    Params = Params

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        question = sample.user_input or ""
        contexts = list(sample.retrieved_contexts or [])
        reference_statements, response_statements = await asyncio.gather(
            split_statements(ctx.judge, question, sample.reference or "", sample.language),
            split_statements(ctx.judge, question, sample.response or "", sample.language),
        )
        if not reference_statements:
            raise ScoringError("the judge found no statements in the reference")
        if not response_statements:
            raise ScoringError(
                "the judge found no statements in the response; noise sensitivity is undefined"
            )
        r2gt, r2a, gt2a = await asyncio.gather(
            verdict_table(ctx.judge, contexts, reference_statements),
            verdict_table(ctx.judge, contexts, response_statements),
            verdict_column(ctx.judge, sample.reference or "", response_statements),
        )
        mode = self.params.mode
        score = noise_sensitivity_score(r2gt, r2a, np.array(gt2a), mode)
        wrong = [s for s, ok in zip(response_statements, gt2a, strict=True) if not ok]
        reason = (
            f"{len(wrong)} of {len(response_statements)} response statements not supported by "
            f"the reference; {int(r2gt.any(axis=0).sum())} of {len(contexts)} contexts relevant"
        )
        details = {
            "mode": mode,
            "reference_statements": reference_statements,
            "response_statements": response_statements,
            "ref_vs_context": r2gt.tolist(),
            "response_vs_context": r2a.tolist(),
            "response_vs_reference": gt2a,
        }
        return MetricResult(score, reason, details)
