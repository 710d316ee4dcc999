"""What every metric is: answer schemas, a pure scoring function, and one async step that asks.

A metric never calls a provider itself. It receives a ``ScoreContext`` whose ``judge`` and
``embedder`` do the I/O (with caching, retries and accounting), so the metric module holds only
prompts, schemas and arithmetic, and its scoring function can be tested table by table.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict

from judgegrid.errors import ScoringError

if TYPE_CHECKING:
    from judgegrid.dataset import Sample
    from judgegrid.single import SampleScore

Message = dict[str, str]


@dataclass(frozen=True)
class Question:
    """One request to the judge.

    ``schema`` validates the answer. ``request_shape``, when given, is the JSON schema sent to
    the provider instead of the schema's own, to say more about the wanted answer than validation
    demands (e.g. exactly one verdict per statement); a grammar-constrained local model then
    cannot wander off, while the answer of any judge is still validated as leniently as Ragas
    would read it. ``index`` tells apart repeated generations of the same request.
    """

    step: str
    messages: list[Message]
    schema: type[BaseModel]
    index: int = 0
    request_shape: dict[str, Any] | None = None

    def shape(self) -> dict[str, Any]:
        return self.request_shape or schema_of(self.schema)


@functools.cache
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, built once: pydantic rebuilds it on every call (about a
    millisecond), and every judge step needs it for its key and its request.

    The dict is shared: a caller that adjusts it works on ``schema_copy``.
    """
    return model.model_json_schema()


def schema_copy(model: type[BaseModel]) -> dict[str, Any]:
    """A private copy of the model's JSON schema, to adjust for one request."""
    return copy.deepcopy(schema_of(model))


class Judge(Protocol):
    """What a metric may ask of the judge: one schema-checked JSON answer per question."""

    async def ask(self, q: Question) -> Any: ...

    async def ask_many(self, q: Question, n: int) -> list[Any]:
        """Generations 0..n-1 of one request (one call with the provider's n where supported)."""
        ...


class Embedder(Protocol):
    """What a metric may ask of the embedding model: one vector per text, at the cell's size."""

    async def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass
class ScoreContext:
    judge: Judge
    embedder: Embedder | None = None
    strictness: int | None = None


@dataclass
class MetricResult:
    score: float
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Metric:
    """Base of all metrics. Subclasses set the class attributes and implement ``compute``."""

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    required_fields: ClassVar[tuple[str, ...]]
    judge_calls: ClassVar[str] = ""  # judge calls per sample, for `judgegrid metrics`
    also_needs: ClassVar[str] = ""  # a requirement the field list cannot say (e.g. 'A or B')
    uses_embeddings: ClassVar[bool] = False
    uses_strictness: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, params: BaseModel | None = None, **kwargs: Any):
        self.params = params if params is not None else self.Params(**kwargs)

    def missing_fields(self, sample: Sample) -> list[str]:
        return [f for f in self.required_fields if sample.is_missing(f)]

    def default_strictness(self) -> int | None:
        """The strictness a single score uses when none is given (metrics without one: None)."""
        return None

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        raise NotImplementedError

    # -- one sample outside a grid (judgegrid.single holds the clients; imported on use, since
    # -- it builds on the judge and embedding clients, which build on this module) ------------

    def score(self, sample: Sample | dict[str, Any], **kwargs: Any) -> SampleScore:
        """Score one sample: ``judge="provider/model"``, ``embeddings=...`` where needed; see
        ``judgegrid.single.ascore_sample`` for the options. Returns score, reason and trace."""
        from judgegrid.single import score_sample

        return score_sample(self, sample, **kwargs)

    async def ascore(self, sample: Sample | dict[str, Any], **kwargs: Any) -> SampleScore:
        from judgegrid.single import ascore_sample

        return await ascore_sample(self, sample, **kwargs)


def share_of_ones(flags: Sequence[int], undefined: str) -> float:
    """(#flags equal to 1) / (#flags), the arithmetic of every "supported share" metric; no flag
    leaves the score undefined, which is raised with the metric's own ``undefined`` message."""
    if not flags:
        raise ScoringError(undefined)
    return sum(1 for f in flags if f == 1) / len(flags)


# How long a free-text field of an answer is asked to be at most. A grammar-bound local judge
# cannot run on past it (a small model otherwise loops inside a string until max_tokens); any
# judge's answer is still validated against the answer schema's own, looser bounds.
REASON_CHARS = 60
SENTENCE_CHARS = 200


def tightened_shape(schema: type[BaseModel], max_lengths: dict[str, int]) -> dict[str, Any]:
    """The answer schema as requested: strings of the named properties (or the strings of an
    array property) asked to be at most the given length, wherever the property occurs."""
    shape = schema_copy(schema)

    def strings_of(prop: dict[str, Any]) -> list[dict[str, Any]]:
        if prop.get("type") == "string":
            return [prop]
        if prop.get("type") == "array":
            return strings_of(prop.get("items") or {})
        return [s for alt in prop.get("anyOf", []) for s in strings_of(alt)]

    for node in [shape, *shape.get("$defs", {}).values()]:
        for name, prop in node.get("properties", {}).items():
            if name in max_lengths:
                for string in strings_of(prop):
                    string["maxLength"] = min(string.get("maxLength", 10**9), max_lengths[name])
    return shape


def exactly(shape: dict[str, Any], array: str, n: int) -> dict[str, Any]:
    """Ask for exactly ``n`` items in the top-level array property ``array`` (one per input)."""
    shape["properties"][array] |= {"minItems": n, "maxItems": n}
    return shape


SYSTEM_PROMPT = (
    "You are a careful evaluator of question-answering systems. "
    "Reply with one JSON object that matches the requested format, and nothing else."
)


def chat(user_prompt: str) -> list[Message]:
    """The two messages every judge step sends: a fixed system line and the task prompt."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_prompt},
    ]
