"""AnswerRelevancy, statement variant (DeepEval ``AnswerRelevancyMetric``).

The share of the response's statements that are relevant to the input ("idk" counts as relevant).
Seed 004 prints the ratio upside down ("3/2 = 1.5"); the metric is relevant/total in [0, 1].
Pure scoring only so far; the prompts and the judge steps come with issue 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
