"""A-against-B judging, the words the metric that asks and the analyses that read share: the
two orders a pair is shown in, a verdict in the pair's own terms, and the two rules that
combine a pair's two orders into one verdict: MT-Bench's (the default) and JudgeBench's sum."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Winner = Literal["a", "b", "tie"]  # a verdict in the pair's own terms
Order = Literal["ab", "ba"]  # the answer shown as A first: "ab" shows a as A, "ba" shows b
ORDERS: tuple[Order, Order] = ("ab", "ba")
Combine = Literal["mt-bench", "sum"]  # a pairwise criterion's ``combine:``
COMBINE_RULES: tuple[Combine, Combine] = ("mt-bench", "sum")
RULE_NAMES = {
    "mt-bench": "MT-Bench's rule: the answer both orders chose, else a tie",
    "sum": "JudgeBench's sum: +1 an order for a, -1 for b, a tie or no verdict 0; a if the "
    "sum is positive, b if negative, else a tie",
}


def combine_orders(winners: Iterable[str]) -> str:
    """The winner every order chose, else a tie: MT-Bench's rule (FastChat
    ``llm_judge/show_result.py``, ``display_result_pairwise``: a match whose two judgings
    differ, or agree on a tie, counts as a tie for both models)."""
    chosen = set(winners)
    return chosen.pop() if len(chosen) == 1 else "tie"


def combine_by_sum(winners: Iterable[str | None]) -> str:
    """JudgeBench's rule (Tan et al. 2025, section 4): each order counts +1 for ``a``, -1 for
    ``b``, 0 for a tie or an order without a verdict (None); the pair goes to ``a`` when the sum
    is positive, ``b`` when negative, else it is a tie. So one order for ``a`` and the other a
    tie is ``a``; orders that disagree, and two ties, are a tie."""
    total = sum(1 if w == "a" else -1 if w == "b" else 0 for w in winners)
    return "a" if total > 0 else "b" if total < 0 else "tie"


def combine(winners: Iterable[str | None], rule: Combine = "mt-bench") -> str:
    """A pair's orders combined by ``rule``; MT-Bench's needs every order judged (the caller
    leaves out a pair with an order that has no verdict)."""
    if rule == "sum":
        return combine_by_sum(winners)
    return combine_orders(w for w in winners if w is not None)
