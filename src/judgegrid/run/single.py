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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from judgegrid.calls.clients import ClientFactory
from judgegrid.calls.providers import register_local_models
from judgegrid.core.arguments import checked
from judgegrid.core.context import ScoreContext
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, MatrixError, OptionError, Problem
from judgegrid.core.options import Concurrency, DimensionMethod
from judgegrid.core.sample import Sample
from judgegrid.core.usage import Usage
from judgegrid.inputs.dataset import sample_from_record
from judgegrid.inputs.matrix import Matrix, inspect_matrix_data
from judgegrid.inputs.peers import PeerCriterion, criterion_from_peer, fields_present
from judgegrid.metrics import Metric
from judgegrid.metrics.criterion import CriterionMetric
from judgegrid.metrics.pairwise import criterion_metric
from judgegrid.run.preflight import matrix_problems
from judgegrid.store.run_db import RunStore


@dataclass
class SampleScore:
    """One metric's score of one sample, with the reason and every call that produced it."""

    metric: str
    score: float
    reason: str | None
    details: dict[str, Any]
    usage: Usage
    calls: list[dict[str, Any]] = field(default_factory=list)
    answer: float | None = None  # a criterion's category score (pass 1/fail 0, label, level)
    weighting: str | None = None  # a criterion's: none, logprobs, or missing


def as_sample(sample: Sample | dict[str, Any], extra: Sequence[str] = ()) -> Sample:
    """A Sample from a dict with Ragas or legacy field names (question, answer, contexts, …);
    ``extra``: the columns a criterion reads that are no sample field, kept."""
    return sample if isinstance(sample, Sample) else sample_from_record(sample, extra=extra)


def as_metric(metric: Metric[Any] | CriterionSpec) -> Metric[Any]:
    """A metric, or a criterion (``Criterion(...)``) scored as one."""
    return criterion_metric(metric) if isinstance(metric, CriterionSpec) else metric


def peer_metric(metric: Any, sample: Sample | dict[str, Any]) -> CriterionSpec:
    """A peer's criterion object read for one sample: the extra columns it names kept, a Ragas
    metric's optional columns those the sample has (as Ragas scores one sample)."""
    first = criterion_from_peer(metric, argument="metric")
    case = as_sample(sample, first.extra_fields)
    return criterion_from_peer(metric, available=fields_present([case]), argument="metric")


# Where a problem of the one-judge matrix built from score_sample's arguments is, in the
# arguments' own names.
_ARGUMENT_NAMES = (
    ("judges[0].options", "judge_options"),
    ("judges[0]", "judge"),
    ("embeddings[0].options", "embedding_options"),
    ("embeddings[0].dimensions", "dimension"),
    ("embeddings[0].dimension_method", "dimension_method"),
    ("embeddings[0]", "embeddings"),
    ("criteria[0]", "metric"),
)


def single_matrix(
    metric: Metric[Any],
    judge: str,
    embeddings: str | None,
    dimension: int | None,
    judge_options: Any,
    embedding_options: Any,
    dimension_method: Any,
    retry: Any,
) -> Matrix:
    """The arguments of score_sample read as a one-judge matrix, so they are checked exactly as a
    matrix file is (field names, keys, models, URLs, dimensions), before any call."""
    if metric.uses_embeddings and not embeddings:
        raise OptionError(
            "embeddings",
            [
                Problem(
                    "", f"{metric.name} needs an embedding model; pass embeddings='provider/model'"
                )
            ],
        )
    raw: dict[str, Any] = {
        "judges": [{"id": judge, "options": judge_options or {}}],
        "retry": retry or {},
    }
    if isinstance(metric, CriterionMetric):
        raw["criteria"] = [metric.spec]
    else:
        raw["metrics"] = [metric.name]
    if embeddings:
        entry = {"id": embeddings, "options": embedding_options or {}}
        entry["dimension_method"] = dimension_method
        if dimension:
            entry["dimensions"] = [dimension]
        raw["embeddings"] = [entry]
    matrix, problems = inspect_matrix_data(raw)
    if matrix is not None and not problems:
        problems = matrix_problems(matrix)
    if problems or matrix is None:
        raise MatrixError("score_sample", [_in_argument_names(p) for p in problems])
    return matrix


def _in_argument_names(problem: Problem) -> Problem:
    for matrix_path, argument in _ARGUMENT_NAMES:
        if problem.where.startswith(matrix_path):
            return Problem(argument + problem.where[len(matrix_path) :], problem.message)
    return problem


@checked
async def ascore_sample(
    metric: Metric | CriterionSpec | PeerCriterion,  # a metric, a criterion, or a peer's one
    sample: Sample | dict[str, Any],
    *,
    judge: Annotated[str, Field(min_length=1)],
    embeddings: str | None = None,
    dimension: Annotated[int, Field(ge=1)] | None = None,
    judge_options: dict[str, Any] | None = None,
    embedding_options: dict[str, Any] | None = None,
    dimension_method: DimensionMethod = "auto",
    retry: dict[str, Any] | None = None,
    strictness: Annotated[int, Field(ge=1, le=20)] | None = None,
    repeat: Annotated[int, Field(ge=0)] = 0,
    wording: Annotated[int, Field(ge=0)] = 0,
) -> SampleScore:
    """Score ``sample`` with ``metric``; raises the judgegrid error that stopped it, if any.

    Every argument is checked before a call: its type and range (``dimension`` ≥ 1, None for
    the model's own size; ``strictness`` 1 to 20; ``repeat`` ≥ 0), the options as a matrix's
    (``max-tokens`` or ``max_tokens``, a did-you-mean for a typo), the models and keys as
    ``judgegrid validate`` checks them, the sample's fields against what the metric needs.
    ``metric`` may be a ``Criterion``, or a peer's criterion object (DeepEval's ``GEval``;
    Ragas' ``AspectCritic``, ``RubricsScore``, ``DiscreteMetric``), read as ``run_grid``
    reads it; ``wording`` is then which of its wordings is asked (0: its definition).
    """
    if not isinstance(metric, Metric | CriterionSpec):  # a peer's criterion: checked as one
        metric = peer_metric(metric, sample)
    metric = as_metric(metric)
    check_wording(metric, wording)
    case = as_sample(
        sample, metric.spec.extra_fields if isinstance(metric, CriterionMetric) else ()
    )
    missing = metric.missing_fields(case)
    if missing:
        raise DatasetError(
            f"sample '{case.id}'",
            [Problem("", f"has no {', '.join(missing)}, which {metric.title} needs")],
        )
    matrix = single_matrix(
        metric,
        judge,
        embeddings,
        dimension,
        judge_options,
        embedding_options,
        dimension_method,
        retry,
    )
    register_local_models([judge, embeddings or ""])
    store = RunStore(":memory:")
    clients = ClientFactory(store, matrix.retry, Concurrency(total=8, per_model=4), seed=repeat)
    judge_spec = matrix.judges[0]
    bound_judge = clients.judge(judge, judge_spec, matrix.judge_options(judge_spec)).bind(
        case.id, repeat
    )
    bound_embedder = None
    if embeddings:
        spec = matrix.embeddings[0]
        options = matrix.embedding_options(spec)
        bound_embedder = clients.embedder(embeddings, spec, options).bind(dimension or 0)
    n = strictness or metric.default_strictness()
    ctx = ScoreContext(bound_judge, bound_embedder, n, wording)
    try:
        result = await metric.compute(case, ctx)
        usage = Usage.total(bound_judge.usage, bound_embedder.usage if bound_embedder else None)
        calls = [
            {str(k): v for k, v in row.items()} for row in store.calls_frame().to_dict("records")
        ]
    finally:
        store.close()
    return SampleScore(
        metric.name,
        result.score,
        result.reason,
        result.details,
        usage,
        calls,
        result.answer,
        result.weighting,
    )


def check_wording(metric: Metric[Any], wording: int) -> None:
    """A wording the metric has: a criterion's 0..its other wordings; a built-in metric's 0."""
    count = len(metric.spec.definitions) if isinstance(metric, CriterionMetric) else 1
    if wording >= count:
        message = f"{metric.name} has wordings 0..{count - 1} (0: its definition), not {wording}"
        raise OptionError("wording", [Problem("", message)])


def score_sample(
    metric: Metric[Any] | CriterionSpec | Any, sample: Sample | dict[str, Any], **kwargs: Any
) -> SampleScore:
    """The blocking form of ``ascore_sample`` (not for use inside a running event loop); its
    arguments are checked as ``ascore_sample`` checks them, before any call."""
    return asyncio.run(ascore_sample(metric, sample, **kwargs))
