"""Score one sample with one metric, outside a grid — the way the seeds use Ragas and DeepEval.

>>> from judgegrid import ResponseRelevancy, score_sample                 # doctest: +SKIP
>>> r = score_sample(ResponseRelevancy(strictness=3), sample, judge="openai/gpt-4o-mini",
...                  embeddings="openai/text-embedding-3-small")
>>> r.score, r.reason, r.calls                                           # doctest: +SKIP

The judge and embedding clients are the grid runner's own, built by the same factory
(schema-checked answers, retries, accounting); the calls go to an in-memory store whose rows
become the result's trace. No cross-run cache: a single score always asks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from judgegrid.clients import ClientFactory
from judgegrid.context import ScoreContext
from judgegrid.errors import InputError, Problem
from judgegrid.matrix import parse_config
from judgegrid.metrics import Metric
from judgegrid.options import (
    Concurrency,
    DimensionMethod,
    EmbeddingSpec,
    JudgeSpec,
    ModelOptions,
    RetryPolicy,
)
from judgegrid.providers import register_local_models
from judgegrid.sample import Sample
from judgegrid.store import RunStore
from judgegrid.usage import Usage


@dataclass
class SampleScore:
    """One metric's score of one sample, with the reason and every call that produced it."""

    metric: str
    score: float
    reason: str | None
    details: dict[str, Any]
    usage: Usage
    calls: list[dict[str, Any]] = field(default_factory=list)


def as_sample(sample: Sample | dict[str, Any]) -> Sample:
    """A Sample from a dict with Ragas or legacy field names (question, answer, contexts, …)."""
    if isinstance(sample, Sample):
        return sample
    return Sample.model_validate({"id": "sample", **sample})


async def ascore_sample(
    metric: Metric[Any],
    sample: Sample | dict[str, Any],
    *,
    judge: str,
    embeddings: str | None = None,
    dimension: int = 0,
    judge_options: dict[str, Any] | None = None,
    embedding_options: dict[str, Any] | None = None,
    dimension_method: DimensionMethod = "auto",
    retry: dict[str, Any] | None = None,
    strictness: int | None = None,
    repeat: int = 0,
) -> SampleScore:
    """Score ``sample`` with ``metric``; raises the judgegrid error that stopped it, if any."""
    case = as_sample(sample)
    missing = metric.missing_fields(case)
    if missing:
        raise InputError(
            f"sample '{case.id}'",
            [Problem("", f"has no {', '.join(missing)}, which {metric.title} needs")],
        )
    register_local_models([judge, embeddings or ""])
    store = RunStore(":memory:")
    clients = ClientFactory(
        store,
        parse_config(RetryPolicy, retry, "retry"),
        Concurrency(total=8, per_model=4),
        seed=repeat,
    )
    bound_judge = clients.judge(
        judge, JudgeSpec(id=judge), parse_config(ModelOptions, judge_options, "judge_options")
    ).bind(case.id, repeat)
    bound_embedder = None
    if embeddings:
        spec = EmbeddingSpec(id=embeddings, dimension_method=dimension_method)
        options = parse_config(ModelOptions, embedding_options, "embedding_options")
        bound_embedder = clients.embedder(embeddings, spec, options).bind(dimension)
    n = strictness or metric.default_strictness()
    ctx = ScoreContext(judge=bound_judge, embedder=bound_embedder, strictness=n)
    try:
        result = await metric.compute(case, ctx)
        usage = Usage.total(bound_judge.usage, bound_embedder.usage if bound_embedder else None)
        calls = [
            {str(k): v for k, v in row.items()} for row in store.calls_frame().to_dict("records")
        ]
    finally:
        store.close()
    return SampleScore(metric.name, result.score, result.reason, result.details, usage, calls)


def score_sample(
    metric: Metric[Any], sample: Sample | dict[str, Any], **kwargs: Any
) -> SampleScore:
    """The blocking form of ``ascore_sample`` (not for use inside a running event loop)."""
    return asyncio.run(ascore_sample(metric, sample, **kwargs))
