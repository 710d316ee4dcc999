"""The one place that builds judge and embedding clients, for a grid run and a single score alike.

A run's clients share one ``Transport`` (retry policy, concurrency and rate limits, the recorder
of every attempt, the jitter's random source), one run database and the cross-run cache. Each
entry's own concurrency and per-minute limits are registered as its client is built.
"""

from __future__ import annotations

import random

from judgegrid.cache import ResultCache
from judgegrid.embedder import EmbeddingModel
from judgegrid.judge import JudgeModel
from judgegrid.options import (
    Concurrency,
    EmbeddingSpec,
    JudgeSpec,
    ModelEntry,
    ModelOptions,
    RetryPolicy,
)
from judgegrid.store import RunStore
from judgegrid.transport import Limits, Transport


class ClientFactory:
    def __init__(
        self,
        store: RunStore,
        policy: RetryPolicy,
        concurrency: Concurrency,
        cache: ResultCache | None = None,
        seed: int = 0,
        full_buckets: bool = True,
    ):
        self.store, self.cache = store, cache
        self.limits = Limits(concurrency.total, concurrency.per_model, full_buckets)
        self.transport = Transport(policy, self.limits, store, random.Random(seed))

    def judge(self, label: str, spec: JudgeSpec, options: ModelOptions) -> JudgeModel:
        """The client of one judge entry; ``options`` are the entry's, defaults merged in."""
        self._register(label, spec)
        return JudgeModel(label, spec.id, options, self.transport, self.store, self.cache)

    def embedder(self, label: str, spec: EmbeddingSpec, options: ModelOptions) -> EmbeddingModel:
        """The client of one embedding entry; ``options`` are the entry's, defaults merged in."""
        self._register(label, spec)
        return EmbeddingModel(
            label,
            spec.id,
            options,
            spec.dimension_method,
            self.transport,
            self.store,
            self.cache,
        )

    def _register(self, label: str, spec: ModelEntry) -> None:
        self.limits.register(
            label, spec.max_concurrency, spec.requests_per_minute, spec.tokens_per_minute
        )
