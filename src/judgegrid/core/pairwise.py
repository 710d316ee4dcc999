"""A-against-B judging, the words the metric that asks and the analyses that read share: the
two orders a pair is shown in, a verdict in the pair's own terms, and MT-Bench's rule that
combines a pair's two orders into one verdict."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Winner = Literal["a", "b", "tie"]  # a verdict in the pair's own terms
Order = Literal["ab", "ba"]  # the answer shown as A first: "ab" shows a as A, "ba" shows b
ORDERS: tuple[Order, Order] = ("ab", "ba")


def combine_orders(winners: Iterable[str]) -> str:
    """The winner every order chose, else a tie: MT-Bench's rule (FastChat
    ``llm_judge/show_result.py``, ``display_result_pairwise``: a match whose two judgings
    differ, or agree on a tie, counts as a tie for both models)."""
    chosen = set(winners)
    return chosen.pop() if len(chosen) == 1 else "tie"
