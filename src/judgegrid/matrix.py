"""The model matrix: which judges, embedding models, dimensions and metrics to cross (YAML).

The schema follows the Spring AI multi-model configuration the project grew from (seed 002):
``defaults`` plays the part of ``default-options`` and is merged into every judge and embedding
entry; ``retry`` mirrors ``spring.ai.retry``. The entries themselves are the plain configuration
objects of ``options.py``; this module reads YAML into them and checks the whole. Keys may be
written in kebab-case (``max-tokens``) or snake_case (``max_tokens``). Every error names the
file, the path inside it and what was expected.
"""

from __future__ import annotations

import copy
import difflib
import os
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judgegrid.errors import MatrixError, Problem
from judgegrid.metrics import METRICS, resolve_metric_name
from judgegrid.options import (
    Concurrency,
    EmbeddingSpec,
    JudgeSpec,
    ModelOptions,
    RetryPolicy,
    StrictModel,
)
from judgegrid.redaction import redact_secret_fields, redact_value


class Defaults(StrictModel):
    judge: ModelOptions = ModelOptions()
    embedding: ModelOptions = ModelOptions()
    dimensions: list[Annotated[int, Field(gt=0)]] | None = Field(None, min_length=1)


class MetricSpec(BaseModel):
    """A metric by name with its parameters, which the metric's own Params model checks."""

    model_config = ConfigDict(extra="allow", frozen=True)
    name: str

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Matrix(StrictModel):
    name: str | None = None
    dataset: str | None = Field(
        None, description="Data set path (relative to the matrix file) or 'demo'."
    )
    defaults: Defaults = Defaults()
    retry: RetryPolicy = RetryPolicy()
    concurrency: Concurrency = Concurrency()
    judges: list[JudgeSpec] = Field(min_length=1)
    embeddings: list[EmbeddingSpec] = Field(default_factory=list)
    metrics: list[MetricSpec] = Field(min_length=1)
    strictness: list[Annotated[int, Field(ge=1, le=20)]] = Field(
        default_factory=lambda: [3], min_length=1
    )
    repeats: int = Field(1, ge=1)
    limit: int | None = Field(
        None, ge=1, description="Score only the first N samples (the CLI's --limit overrides)."
    )

    @field_validator("metrics", mode="before")
    @classmethod
    def _names_as_specs(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value

    # -- the resolved view the runner uses ---------------------------------------------------

    def judge_label(self, index: int) -> str:
        judge = self.judges[index]
        return judge.label or judge.id

    def embedding_label(self, index: int) -> str:
        emb = self.embeddings[index]
        return emb.label or emb.id

    def judge_options(self, judge: JudgeSpec) -> ModelOptions:
        """The defaults with the judge's own options laid over them."""
        return _merge(self.defaults.judge, judge.options)

    def embedding_options(self, emb: EmbeddingSpec) -> ModelOptions:
        return _merge(self.defaults.embedding, emb.options)

    def embedding_dimensions(self, emb: EmbeddingSpec) -> list[int]:
        """Dimensions to score; an empty list means 'the model's own size' (written as 0)."""
        return list(emb.dimensions or self.defaults.dimensions or [0])

    def metric_params(self, spec: MetricSpec) -> BaseModel:
        return METRICS[resolve_metric_name(spec.name)].Params(**spec.params)

    def strictness_for(self, spec: MetricSpec) -> list[int]:
        params = self.metric_params(spec)
        own = getattr(params, "strictness", None)
        return sorted(set(own or self.strictness))


def _merge(base: ModelOptions, override: ModelOptions) -> ModelOptions:
    merged = base.model_dump()
    for key in override.model_fields_set:
        value = getattr(override, key)
        merged[key] = {**base.extra, **value} if key == "extra" else value
    return ModelOptions(**merged)


# -- loading -----------------------------------------------------------------------------------


def load_matrix(path: str | os.PathLike[str]) -> Matrix:
    """Read and validate a matrix file; raise MatrixError listing every problem found."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise MatrixError(source, [Problem("", f"cannot read the file ({exc.strerror})")]) from None
    return parse_matrix(text, source)


def parse_matrix(text: str, source: str = "<matrix>") -> Matrix:
    """Validate matrix text; raise MatrixError listing every problem found."""
    matrix, problems = inspect_matrix(text, source)
    if problems or matrix is None:
        raise MatrixError(source, problems)
    return matrix


def inspect_matrix(text: str, source: str = "<matrix>") -> tuple[Matrix | None, list[Problem]]:
    """Every problem in a matrix, and the best matrix that can be read despite them.

    Fields that fail validation are set aside and the rest validated again, so that one
    misspelt field does not hide an unknown metric or a missing key further down.
    """
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [Problem(where, f"not valid YAML: {problem}")]
    if not isinstance(raw, dict):
        return None, [Problem("", "expected a mapping with judges: and metrics:")]
    raw = _snake_keys(raw)
    problems: list[Problem] = []
    try:
        matrix: Matrix | None = Matrix.model_validate(raw)
    except ValidationError as exc:
        problems += [_problem_from(err) for err in exc.errors()]
        matrix = _without_faulty_fields(raw, [tuple(e["loc"]) for e in exc.errors()])
    if matrix is not None:
        problems += _semantic_problems(matrix)
    return matrix, problems


ConfigT = TypeVar("ConfigT", bound=BaseModel)


def parse_config(kind: type[ConfigT], data: Any, source: str) -> ConfigT:
    """One option block given in Python (``judge_options``, ``retry``) read as the matrix reads
    it: kebab-case or snake_case keys, every problem named with a 'did you mean'."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MatrixError(source, [Problem("", f"expected a mapping, got {type(data).__name__}")])
    try:
        return kind.model_validate(_snake_keys(data))
    except ValidationError as exc:
        raise MatrixError(source, [_problem_from(e, kind) for e in exc.errors()]) from None


def _without_faulty_fields(raw: dict[str, Any], locations: list[tuple[Any, ...]]) -> Matrix | None:
    pruned = copy.deepcopy(raw)
    for loc in locations:
        parent: Any = pruned
        for part in loc[:-1]:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                parent = None
                break
        if isinstance(parent, dict):
            parent.pop(loc[-1], None)
    try:
        return Matrix.model_validate(pruned)
    except ValidationError:
        return None


def _snake_keys(value: Any, under_extra: bool = False) -> Any:
    """Accept Spring-style kebab-case keys; provider arguments under ``extra`` stay as written."""
    if isinstance(value, dict):
        return {
            (k if under_extra else str(k).replace("-", "_")): _snake_keys(v, k == "extra")
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_snake_keys(v) for v in value]
    return value


def format_location(loc: tuple[int | str, ...]) -> str:
    """('judges', 2, 'options', 'temperature') -> 'judges[2].options.temperature'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problem_from(err: Any, root: type[BaseModel] | None = None) -> Problem:
    loc = tuple(err["loc"])
    where = format_location(loc)
    if err["type"] == "extra_forbidden":
        known = _known_fields(loc[:-1], root or Matrix)
        guess = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean '{guess[0]}'?" if guess else f"; expected one of {', '.join(known)}"
        return Problem(where, f"unknown field{hint}")
    if err["type"] == "missing":
        return Problem(where, "required field is missing")
    message = err["msg"].removeprefix("Value error, ")
    shown = err.get("input")
    if loc and loc[-1] == "api_key_env":  # refused because it holds a key, not a variable name
        shown = redact_value(shown)
    return Problem(where, f"{message} (got {redact_secret_fields(shown)!r})")


def _known_fields(loc: tuple[int | str, ...], root: type[BaseModel]) -> list[str]:
    """The field names allowed at a location of the matrix, for 'did you mean' hints."""
    model: type[BaseModel] | None = root
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field else None
    return sorted(model.model_fields) if model else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found:
            return found
    return None


def _semantic_problems(matrix: Matrix) -> list[Problem]:
    problems: list[Problem] = []
    problems += _duplicate_labels("judges", [j.label or j.id for j in matrix.judges])
    problems += _duplicate_labels("embeddings", [e.label or e.id for e in matrix.embeddings])
    for i, spec in enumerate(matrix.metrics):
        problems += _metric_problems(i, spec, has_embeddings=bool(matrix.embeddings))
    return problems


def _duplicate_labels(section: str, labels: list[str]) -> list[Problem]:
    seen: dict[str, int] = {}
    problems = []
    for i, label in enumerate(labels):
        if label in seen:
            problems.append(
                Problem(
                    f"{section}[{i}].label",
                    f"'{label}' is used by {section}[{seen[label]}] too; give each entry a "
                    "distinct label (the same model at two settings needs two labels)",
                )
            )
        seen.setdefault(label, i)
    return problems


def _metric_problems(i: int, spec: MetricSpec, has_embeddings: bool) -> list[Problem]:
    try:
        name = resolve_metric_name(spec.name)
    except KeyError:
        guess = difflib.get_close_matches(spec.name, list(METRICS), n=1)
        hint = f"did you mean '{guess[0]}'? " if guess else ""
        return [
            Problem(
                f"metrics[{i}].name",
                f"unknown metric '{spec.name}'; {hint}known: {', '.join(METRICS)}",
            )
        ]
    metric = METRICS[name]
    try:
        metric.Params(**spec.params)
    except ValidationError as exc:
        return [
            Problem(f"metrics[{i}].{format_location(tuple(e['loc']))}", e["msg"])
            for e in exc.errors()
        ]
    if metric.uses_embeddings and not has_embeddings:
        return [
            Problem(
                f"metrics[{i}]",
                f"{name} needs an embedding model; add one under embeddings:",
            )
        ]
    return []
