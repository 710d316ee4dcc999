"""ContextPrecision (Ragas ``context_precision`` / ``context_utilization``): are the useful
contexts ranked first?

Pure scoring only so far; the prompts and the judge step come with issue 3.
"""

from __future__ import annotations

from collections.abc import Sequence


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
