"""The peers' own criteria read as judgegrid's: DeepEval's ``GEval``, Ragas' ``AspectCritic``,
``RubricsScore`` and ``DiscreteMetric`` objects (promptfoo's config: ``inputs/promptfoo.py``).

A user who wrote a criterion for another tool keeps it: each becomes a ``CriterionSpec`` that
says what the peer's own metric asks, so judgegrid can measure which judge to trust for it.

- ``GEval``: ``criteria`` is the definition, ``evaluation_steps`` the steps, the test case's
  ``evaluation_params`` the fields; the score is a scale over GEval's range (0..10, or the
  rubric's), each level described by the rubric's expected outcome, weighted by the score
  token's log-probabilities where the judge returns them (``weighting: auto``), as GEval does.
  ``strict_mode`` asks 0 or 1: a binary criterion.
- ``AspectCritic``: a binary criterion with its definition and strictness (majority vote).
- ``RubricsScore``: a scale whose levels are the rubric's ``scoreN_description`` keys.
- ``DiscreteMetric``: its prompt (placeholders removed) is the definition and the placeholders
  are the fields; pass/fail (or yes/no) values make a binary criterion, other values labels,
  whose scores the caller gives (Ragas' values carry none).

The objects are recognised by their classes' names and modules, never imported: judgegrid needs
neither library. What cannot be mapped is refused by an ``OptionError`` naming the peer's metric.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import core_schema

from judgegrid.core.criterion import NAME, CriterionSpec
from judgegrid.core.errors import InputError, OptionError, Problem
from judgegrid.core.sample import Sample
from judgegrid.core.validation import problem_from

WHERE = "criteria"  # the argument a peer's object is handed in (run_grid's criteria=[...])

# DeepEval's test-case parameters (SingleTurnParams values) -> the sample field that holds them.
DEEPEVAL_FIELDS = {
    "input": "user_input",
    "actual_output": "response",
    "expected_output": "reference",
    "retrieval_context": "retrieved_contexts",
    "context": "reference_contexts",
}
# Ragas' columns and old names -> the sample field (Sample reads the old names too).
RAGAS_FIELDS = {
    "user_input": "user_input",
    "question": "user_input",
    "response": "response",
    "answer": "response",
    "retrieved_contexts": "retrieved_contexts",
    "contexts": "retrieved_contexts",
    "reference": "reference",
    "ground_truth": "reference",
    "reference_contexts": "reference_contexts",
}
FIELD_ORDER = ("user_input", "response", "retrieved_contexts", "reference", "reference_contexts")
# What a Ragas metric whose columns are all optional sees when the data set's fields are not
# known: the question and the reply (pass ``available`` to keep every column the data has).
CORE_FIELDS = ("user_input", "response")
# A DiscreteMetric's two values that mean a pass and a fail.
PASS_FAIL = ({"pass", "fail"}, {"yes", "no"})
RUBRIC_KEY = re.compile(r"^score(-?\d+)_description$")
GEVAL_RANGE = (0, 10)  # GEval's scores without a rubric


def criterion_from_peer(
    obj: Any,
    *,
    available: Collection[str] | None = None,
    labels: Mapping[str, float] | None = None,
    argument: str = WHERE,
    place: str = "",
) -> CriterionSpec:
    """The criterion a peer's metric object asks (see the module's docstring for each).

    ``available``: the data set's fields; a Ragas metric sees those of its optional columns that
    the data set has, as Ragas does (without it, the question and the response). ``labels``: a
    ``DiscreteMetric``'s scores by value, when its values are not pass/fail. OptionError names
    what cannot be mapped: the ``argument`` the object was handed in, at ``place`` in it."""
    kind = peer_kind(obj)
    if kind is None:
        got = f"{type(obj).__module__}.{type(obj).__qualname__}"
        message = (
            f"{got} is not a criterion judgegrid can read; expected DeepEval's GEval or Ragas' "
            "AspectCritic, RubricsScore or DiscreteMetric"
        )
        raise OptionError(argument, [Problem(place, message)])
    where = f"{place} {kind} {getattr(obj, 'name', '')!r}".lstrip()
    try:
        fields = READERS[kind](obj, available, labels, where)
    except OptionError as exc:
        raise OptionError(argument, exc.problems) from None
    return checked_spec(fields, where, OptionError, argument)


class PeerCriterion:
    """A peer's criterion object as an argument's type (``run_grid(criteria=[...])``,
    ``score_sample``): DeepEval's ``GEval`` or Ragas' ``AspectCritic``, ``RubricsScore`` or
    ``DiscreteMetric``, recognised as ``peer_kind`` does, so ``checked`` refuses anything else
    before a run starts."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(_a_peers_criterion)


def _a_peers_criterion(value: Any) -> Any:
    if peer_kind(value) is None:
        raise ValueError("not DeepEval's GEval nor Ragas' AspectCritic, RubricsScore or ...")
    return value


def handed_criteria(
    items: Sequence[Any], available: Collection[str] | None = None, argument: str = WHERE
) -> list[tuple[str, CriterionSpec]]:
    """The criteria handed beside a matrix (``Criterion``s and peers' objects, as ``run_grid``'s
    ``criteria=[...]``), each with its place (``[1] GEval 'Polite'``) for the errors about it;
    ``available``: the data set's fields, as ``criterion_from_peer`` takes them."""
    handed = []
    for k, item in enumerate(items):
        if isinstance(item, CriterionSpec):
            handed.append((f"[{k}] {item.name!r}", item))
        else:
            spec = criterion_from_peer(item, available=available, argument=argument, place=f"[{k}]")
            handed.append((f"[{k}] {peer_kind(item)} {getattr(item, 'name', '')!r}", spec))
    return handed


def fields_present(samples: Iterable[Sample]) -> tuple[str, ...]:
    """The content fields some sample has: what a Ragas metric's optional columns are read
    against (an extra column is never one of its columns)."""
    kept = list(samples)
    return tuple(f for f in FIELD_ORDER if any(not s.is_missing(f) for s in kept))


def peer_kind(obj: Any) -> str | None:
    """Which peer's criterion ``obj`` is (``GEval``, ``AspectCritic``, ...), by its classes'
    names and libraries; None for anything else."""
    for cls in type(obj).__mro__:
        library = cls.__module__.split(".")[0]
        if (library, cls.__name__) in KINDS:
            return cls.__name__
    return None


def checked_spec(
    fields: dict[str, Any], where: str, error: type[InputError], source: str
) -> CriterionSpec:
    """A CriterionSpec of ``fields``, its refusals said as ``error`` at ``where``."""
    try:
        return CriterionSpec.model_validate(fields)
    except ValidationError as exc:
        problems = [problem_from(e, CriterionSpec) for e in exc.errors()]
        raise error(source, [located(p, where) for p in problems]) from None


def located(problem: Problem, where: str) -> Problem:
    """``problem`` placed under ``where`` (the peer's metric, or the place in a file)."""
    return Problem(f"{where}.{problem.where}" if problem.where else where, problem.message)


# -- DeepEval --------------------------------------------------------------------------------


def _from_geval(
    obj: Any, available: Collection[str] | None, labels: Mapping[str, float] | None, where: str
) -> dict[str, Any]:
    params = [getattr(p, "value", p) for p in (obj.evaluation_params or ())]
    if not params:
        raise _refused(where, "no evaluation_params: GEval then judges a trace; name the fields")
    unknown = [p for p in params if p not in DEEPEVAL_FIELDS]
    if unknown:
        known = ", ".join(DEEPEVAL_FIELDS)
        raise _refused(where, f"evaluation_params {unknown} have no sample field; use {known}")
    steps = tuple(obj.evaluation_steps or ())
    spec: dict[str, Any] = {
        "name": slug(obj.name),
        "definition": obj.criteria or "How well does the sample follow the evaluation steps?",
        "steps": steps,
        "fields": tuple(DEEPEVAL_FIELDS[p] for p in params),
    }
    if obj.strict_mode:  # GEval asks 0 or 1 and weights nothing
        return {**spec, "type": "binary"}
    return {**spec, "type": "scale", "scale": geval_scale(obj.rubric, where), "weighting": "auto"}


def geval_scale(rubric: list[Any] | None, where: str) -> dict[int, str]:
    """GEval's levels, each with the outcome its rubric expects (without a rubric, 0..10 from
    "not at all" to "fully")."""
    if not rubric:
        low, high = GEVAL_RANGE
        middle = "partly: the higher, the better the sample meets the criterion"
        return {
            low: "does not meet the criterion at all",
            **{level: middle for level in range(low + 1, high)},
            high: "meets the criterion fully",
        }
    scale = {
        level: str(item.expected_outcome)
        for item in rubric
        for level in range(item.score_range[0], item.score_range[1] + 1)
    }
    gaps = [n for n in range(min(scale), max(scale) + 1) if n not in scale]
    if gaps:
        raise _refused(where, f"rubric gives no outcome for scores {gaps}: a scale has no gaps")
    return scale


# -- Ragas -----------------------------------------------------------------------------------


def _from_aspect_critic(
    obj: Any, available: Collection[str] | None, labels: Mapping[str, float] | None, where: str
) -> dict[str, Any]:
    return {
        "name": slug(obj.name),
        "type": "binary",
        "definition": obj.definition,
        "strictness": obj.strictness,
        "fields": _ragas_fields(obj, available, where),
    }


def _from_rubrics_score(
    obj: Any, available: Collection[str] | None, labels: Mapping[str, float] | None, where: str
) -> dict[str, Any]:
    scale: dict[int, str] = {}
    for key, text in dict(obj.rubrics).items():
        match = RUBRIC_KEY.match(str(key))
        if not match:
            raise _refused(where, f"rubric key {key!r}: expected scoreN_description")
        scale[int(match.group(1))] = str(text)
    return {
        "name": slug(obj.name),
        "type": "scale",
        "definition": "How well does the response meet the scoring rubric?",
        "scale": scale,
        "fields": _ragas_fields(obj, available, where),
    }


def _from_discrete_metric(
    obj: Any, available: Collection[str] | None, labels: Mapping[str, float] | None, where: str
) -> dict[str, Any]:
    prompt = getattr(obj.prompt, "instruction", obj.prompt)
    if not isinstance(prompt, str) or not prompt.strip():
        raise _refused(where, "no prompt: nothing to ask the judge")
    values = [str(v) for v in obj.allowed_values]
    spec = {
        "name": slug(obj.name),
        "definition": _without_placeholders(prompt),
        "fields": _placeholder_fields(prompt, where),
    }
    if {v.lower() for v in values} in PASS_FAIL:
        return {**spec, "type": "binary"}
    if labels is None:
        example = ", ".join(f"{v!r}: ..." for v in values)
        raise _refused(
            where,
            f"allowed_values {values} carry no scores; give them: "
            f"criterion_from_peer(metric, labels={{{example}}})",
        )
    if set(labels) != set(values):
        raise _refused(where, f"labels {sorted(labels)} must name allowed_values {values}")
    return {**spec, "type": "labels", "labels": {v: float(labels[v]) for v in values}}


def _ragas_fields(obj: Any, available: Collection[str] | None, where: str) -> tuple[str, ...]:
    """The metric's required columns, and those of its optional ones that the data set has
    (without ``available``: the question and the response among them)."""
    columns = _single_turn_columns(obj)
    required = {c for c in columns if not c.endswith(":optional")}
    optional = {c.removesuffix(":optional") for c in columns} - required
    unknown = sorted(c for c in required | optional if c not in RAGAS_FIELDS)
    if unknown:
        raise _refused(where, f"columns {unknown} have no sample field")
    seen = CORE_FIELDS if available is None else tuple(available)
    kept = {RAGAS_FIELDS[c] for c in required} | {
        RAGAS_FIELDS[c] for c in optional if RAGAS_FIELDS[c] in seen
    }
    if not kept:
        raise _refused(where, "none of its columns is among the data set's fields")
    return tuple(f for f in FIELD_ORDER if f in kept)


def _single_turn_columns(obj: Any) -> set[str]:
    columns = getattr(obj, "_required_columns", None) or {}
    for kind, names in columns.items():
        if getattr(kind, "value", kind) == "single_turn":
            return set(names)
    return set()


def _placeholder_fields(prompt: str, where: str) -> tuple[str, ...]:
    """The fields a prompt's ``{placeholders}`` name: a Ragas column as its sample field, any
    other name as an extra column of the data set."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(prompt) if name]
    except ValueError as exc:
        raise _refused(where, f"prompt is not a template: {exc}") from None
    fields = list(dict.fromkeys(RAGAS_FIELDS.get(n, n) for n in names))
    if not fields:
        raise _refused(where, "prompt names no field ({response}, {user_input}, ...)")
    return tuple(fields)


def _without_placeholders(prompt: str) -> str:
    """The prompt as a question: placeholders dropped, and a line left with only a label
    ("Response:") dropped with them."""
    lines = []
    for line in prompt.splitlines():
        text = re.sub(r"\{[^{}]*\}", "", line).strip()
        if text and not re.fullmatch(r"[^\s:]{1,30}( [^\s:]{1,30})?:", text):
            lines.append(text)
    return " ".join(lines)


# -- names -----------------------------------------------------------------------------------


def slug(text: str, words: int = 6) -> str:
    """A criterion's name from a peer's name or a rubric's words: lower case, ``_`` between
    words, a letter first (``criterion`` when nothing Latin is left)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    parts = re.findall(r"[a-z0-9]+", ascii_text.lower())[:words]
    name = "_".join(parts)[:48].strip("_") or "criterion"
    name = name if name[0].isalpha() else f"c_{name}"
    assert NAME.match(name), name
    return name


def unique_names(names: list[str]) -> list[str]:
    """The names, a repeated one given _2, _3, ... in order."""
    unique: list[str] = []
    for name in names:
        candidate, k = name, 1
        while candidate in unique:
            k += 1
            candidate = f"{name}_{k}"
        unique.append(candidate)
    return unique


def _refused(where: str, message: str) -> OptionError:
    return OptionError(WHERE, [Problem(where, message)])


Reader = Callable[[Any, Collection[str] | None, Mapping[str, float] | None, str], dict[str, Any]]
READERS: dict[str, Reader] = {
    "GEval": _from_geval,
    "AspectCritic": _from_aspect_critic,
    "RubricsScore": _from_rubrics_score,
    "DiscreteMetric": _from_discrete_metric,
}
KINDS = {
    ("deepeval", "GEval"),
    ("ragas", "AspectCritic"),
    ("ragas", "RubricsScore"),
    ("ragas", "DiscreteMetric"),
}
