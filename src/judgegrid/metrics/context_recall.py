"""ContextRecall (Ragas LLM ``context_recall``): how much of the reference the contexts support.

Pure scoring only so far; the prompts and the judge step come with issue 3.
"""

from __future__ import annotations

from collections.abc import Sequence

from judgegrid.errors import ScoringError


def context_recall_score(attributed: Sequence[int]) -> float:
    """(#attributed) / (#classifications); no classification leaves the score undefined."""
    if not attributed:
        raise ScoringError(
            "the judge classified no reference sentence; context recall is undefined"
        )
    return sum(1 for a in attributed if a == 1) / len(attributed)
