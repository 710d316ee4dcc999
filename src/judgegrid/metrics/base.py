"""What every metric is: answer schemas, a pure scoring function, and one async step that asks.

A metric never calls a provider itself. It receives a ``ScoreContext`` (``context.py``) whose
``judge`` and ``embedder`` do the I/O (with caching, retries and accounting), so the metric module
holds only prompts, schemas and arithmetic, and its scoring function can be tested table by
table. To score one sample outside a grid, see ``judgegrid.run.single.score_sample``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from judgegrid.core.context import ScoreContext
from judgegrid.core.errors import OptionError, ScoringError
from judgegrid.core.question import schema_copy
from judgegrid.core.sample import Sample
from judgegrid.core.validation import validate


@dataclass
class MetricResult:
    """A cell's score; a criterion's also its categorical ``answer`` (the category's score) and
    the ``weighting`` it got ("none", "logprobs" or "missing"), None for a built-in metric."""

    score: float
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    answer: float | None = None
    weighting: str | None = None


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


ParamsT = TypeVar("ParamsT", bound=BaseModel)


class Metric(Generic[ParamsT]):
    """Base of all metrics. Subclasses set the class attributes and implement ``compute``.

    A metric is generic over its parameter model (``Metric[Params]``), so ``self.params`` is
    typed; ``Params`` names the same model for validation from a matrix.
    """

    # A built-in metric sets these on its class; a criterion (``criterion.CriterionMetric``),
    # one class for every criterion, on its instance.
    name: str
    title: str
    description: str
    required_fields: tuple[str, ...]
    judge_calls: str = ""  # judge calls per sample, for `judgegrid metrics`
    also_needs: ClassVar[str] = ""  # a requirement the field list cannot say (e.g. 'A or B')
    uses_embeddings: ClassVar[bool] = False
    uses_strictness: ClassVar[bool] = False
    higher_is_better: bool = True
    # What ``judgegrid label`` asks a person, in plain words; ``scale``: a 0–1 answer in steps of
    # 0.25; ``contexts``: tick the useful contexts, scored as the metric scores the judge's ticks.
    human_question: ClassVar[str] = ""
    human_form: ClassVar[Literal["scale", "contexts"]] = "scale"
    # the words under the scale's buttons at 0, 0.5 and 1, as the question's own ends name them
    # ("none … all" of a share; "not at all … fully" of how well a response answers)
    human_anchors: ClassVar[tuple[str, str, str]] = ("none", "half", "all")
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, params: ParamsT | None = None, **kwargs: Any):
        """``Faithfulness(strictness=3)``: parameters are checked like a matrix's (OptionError,
        naming the parameter, with a did-you-mean for a typo)."""
        if params is None:
            params = cast(ParamsT, validate(self.Params, kwargs, self.name, OptionError))
        self.params: ParamsT = params

    def missing_fields(self, sample: Sample) -> list[str]:
        return [f for f in self.required_fields if sample.is_missing(f)]

    def default_strictness(self) -> int | None:
        """The strictness a single score uses when none is given (metrics without one: None)."""
        return None

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        raise NotImplementedError


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
