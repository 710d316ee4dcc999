"""Score one sample with one metric, outside a grid — the way the seeds use Ragas and DeepEval.

>>> from judgegrid.metrics import ResponseRelevancy                      # doctest: +SKIP
>>> r = ResponseRelevancy(strictness=3).score(sample, judge="openai/gpt-4o-mini",
...                                            embeddings="openai/text-embedding-3-small")
>>> r.score, r.reason, r.calls                                           # doctest: +SKIP

The judge and embedding clients are the grid runner's own (schema-checked answers, retries,
accounting); the calls go to an in-memory store whose rows become the result's trace.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judgegrid.dataset import Sample
from judgegrid.embedder import EmbeddingModel
from judgegrid.errors import InputError, Problem
from judgegrid.judge import JudgeModel, StepMemo
from judgegrid.matrix import DimensionMethod, ModelOptions, RetryPolicy
from judgegrid.metrics.base import ScoreContext
from judgegrid.providers import register_local_models
from judgegrid.store import RunStore
from judgegrid.transport import Limits, Usage

if TYPE_CHECKING:
    from judgegrid.metrics.base import Metric


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
    metric: Metric,
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
    policy = RetryPolicy(**(retry or {}))
    limits, rng = Limits(8, 4), random.Random(repeat)
    judge_model = JudgeModel(
        judge,
        judge,
        ModelOptions(**(judge_options or {})),
        policy,
        limits,
        store,
        StepMemo(store),
        rng,
    )
    bound_judge = judge_model.bind(case.id, repeat)
    bound_embedder = None
    if embeddings:
        embedding_model = EmbeddingModel(
            embeddings,
            embeddings,
            ModelOptions(**(embedding_options or {})),
            dimension_method,
            policy,
            limits,
            store,
            rng,
        )
        bound_embedder = embedding_model.bind(dimension)
    n = strictness or metric.default_strictness()
    ctx = ScoreContext(judge=bound_judge, embedder=bound_embedder, strictness=n)
    try:
        result = await metric.compute(case, ctx)
        usage = Usage.total(bound_judge.usage, bound_embedder.usage if bound_embedder else None)
        calls = store.calls_frame().to_dict(orient="records")
    finally:
        store.close()
    return SampleScore(metric.name, result.score, result.reason, result.details, usage, calls)


def score_sample(metric: Metric, sample: Sample | dict[str, Any], **kwargs: Any) -> SampleScore:
    """The blocking form of ``ascore_sample`` (not for use inside a running event loop)."""
    return asyncio.run(ascore_sample(metric, sample, **kwargs))
