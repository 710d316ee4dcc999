"""The one place that builds judge and embedding clients, for a grid run and a single score alike.

A run's clients share one ``Transport`` (retry policy, concurrency and rate limits, the recorder
of every attempt, the jitter's random source), one run database and the cross-run cache. Each
entry's own concurrency and per-minute limits are registered as its client is built.
"""

from __future__ import annotations

import random

from judgegrid.calls.batches import BatchQueue
from judgegrid.calls.embedder import EmbeddingModel
from judgegrid.calls.judge import JudgeModel
from judgegrid.calls.transport import Limits, Transport
from judgegrid.core.options import (
    BatchMode,
    Concurrency,
    EmbeddingSpec,
    JudgeSpec,
    ModelEntry,
    ModelOptions,
    RetryPolicy,
)
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore


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
        self.store, self.cache, self.policy = store, cache, policy
        self.limits = Limits(concurrency.total, concurrency.per_model, full_buckets)
        self.transport = Transport(policy, self.limits, store, random.Random(seed))
        self.queues: dict[str, BatchQueue] = {}  # batch mode: one queue per entry

    def judge(
        self, label: str, spec: JudgeSpec, options: ModelOptions, batch: BatchMode | None = None
    ) -> JudgeModel:
        """The client of one judge entry; ``options`` are the entry's, defaults merged in;
        ``batch``: its batch mode, if any."""
        self._register(label, spec)
        queue = self._queue(label, spec, "completion", options, batch)
        return JudgeModel(label, spec.id, options, self.transport, self.store, self.cache, queue)

    def embedder(
        self,
        label: str,
        spec: EmbeddingSpec,
        options: ModelOptions,
        batch: BatchMode | None = None,
    ) -> EmbeddingModel:
        """The client of one embedding entry; ``options`` are the entry's, defaults merged in;
        ``batch``: its batch mode, if any."""
        self._register(label, spec)
        return EmbeddingModel(
            label,
            spec.id,
            options,
            spec.dimension_method,
            self.transport,
            self.store,
            self.cache,
            self._queue(label, spec, "embedding", options, batch),
        )

    def _queue(
        self,
        label: str,
        spec: ModelEntry,
        kind: str,
        options: ModelOptions,
        batch: BatchMode | None,
    ) -> BatchQueue | None:
        if batch is None:
            return None
        queue = BatchQueue(label, spec.id, kind, options, batch, self.store, self.policy)
        self.queues[label] = queue
        return queue

    def _register(self, label: str, spec: ModelEntry) -> None:
        self.limits.register(
            label, spec.max_concurrency, spec.requests_per_minute, spec.tokens_per_minute
        )
