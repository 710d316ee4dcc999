"""What a metric is given to score with: a judge and an embedding model it may ask, nothing else.

Metrics never reach a provider themselves. The grid runner and single-sample scoring hand them a
``ScoreContext`` whose clients do the I/O (caching, retries, accounting); tests hand them scripted
ones. These protocols are all a metric may rely on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from judgegrid.core.question import Question


@dataclass(frozen=True)
class Weighted:
    """An answer with the log-probabilities the judge gave the alternatives of its score token
    (``Question.score_field``'s value, first token): token text → log-probability. None when
    the provider returned none, so the caller records that the plain answer stood alone."""

    answer: Any
    top_logprobs: dict[str, float] | None


class Judge(Protocol):
    """What a metric may ask of the judge: one schema-checked JSON answer per question."""

    async def ask(self, q: Question) -> Any: ...

    async def ask_many(self, q: Question, n: int) -> list[Any]:
        """Generations 0..n-1 of one request (one call with the provider's n where supported)."""
        ...

    async def ask_weighted(self, q: Question, n: int = 1) -> list[Weighted]:
        """Generations 0..n-1 of a request with ``q.score_field`` set, each with the
        alternatives of its score token (G-Eval's weighting)."""
        ...


class Embedder(Protocol):
    """What a metric may ask of the embedding model: one vector per text, at the cell's size."""

    async def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass
class ScoreContext:
    """A cell's clients and the coordinates a metric reads: ``strictness`` (None: the
    metric's own), ``wording`` (a criterion's: 0 its definition, k its k-th other wording;
    built-in metrics have one wording, 0)."""

    judge: Judge
    embedder: Embedder | None = None
    strictness: int | None = None
    wording: int = 0
