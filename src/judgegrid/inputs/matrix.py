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
import importlib.util
import os
import re
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import InputError, MatrixError, OptionError, Problem
from judgegrid.core.names import each_given_twice, given_twice, repeats, unknown_name
from judgegrid.core.options import (
    BATCH_PROVIDERS,
    BatchMode,
    BatchSetting,
    Concurrency,
    DecisionOptions,
    Dimensions,
    EmbeddingSpec,
    Execution,
    JudgeSpec,
    ModelEntry,
    ModelOptions,
    RetryPolicy,
    StrictModel,
    has_batch_api,
    provider_of,
)
from judgegrid.core.records import PREFERENCE
from judgegrid.core.redaction import key_shaped_name
from judgegrid.core.validation import PublicModel, problem_from, snake_keys
from judgegrid.core.values import Distinct, Whole, distinct
from judgegrid.inputs.probes import ALL, DEFAULT_PER_METRIC, PROBES, targets, unseen_changes
from judgegrid.inputs.spring import is_spring, spring_matrix_data, spring_problem
from judgegrid.inputs.textfile import as_path, nothing_in, read_utf8
from judgegrid.inputs.yaml_text import load_yaml
from judgegrid.metrics import METRICS, Metric, builtin_metric_named, resolve_metric_name
from judgegrid.metrics.pairwise import criterion_metric

MATRIX_SHAPE = "a mapping with judges: and metrics: (or criteria:)"

# Bounds on what a matrix may ask, said in the message that refuses more: a run of more cells
# (repeats × samples × judges × …) than MAX_CELLS is refused before one is made; one cell
# repeated more than MAX_REPEATS times is already a typo; MAX_PROBES_PER_METRIC is more samples
# than a probe needs to tell a judge that does not notice.
MAX_CELLS = 10_000_000
MAX_REPEATS = 1_000_000
MAX_PROBES_PER_METRIC = 1_000


class Defaults(StrictModel):
    judge: ModelOptions = Field(
        ModelOptions(), description="Options of every judge entry; an entry's own options win."
    )
    embedding: ModelOptions = Field(
        ModelOptions(), description="Options of every embedding entry; an entry's own options win."
    )
    dimensions: Dimensions | None = Field(
        None,
        min_length=1,
        description="Dimensions for embedding entries that list none (each once, at most 16,384).",
    )
    batch: BatchSetting = Field(
        None, description="Batch mode for every judge and embedding entry that does not say."
    )


class MetricSpec(BaseModel):
    """A metric by name with its parameters, which the metric's own Params model checks."""

    model_config = ConfigDict(extra="allow", frozen=True)
    name: str = Field(
        description="The metric's name (snake_case or Ragas' spelling); parameters sit beside it."
    )

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ProbeOptions(StrictModel):
    """``probes:``: which probes (``inputs/probes.py``), how many samples per metric, and how
    many repeats of each probe cell."""

    names: Literal["all"] | list[str] = Field(
        "all", description="'all' or probe names (foreign_contexts, injection, ...)."
    )
    per_metric: Whole = Field(
        DEFAULT_PER_METRIC, ge=1, le=MAX_PROBES_PER_METRIC, description="Samples probed per metric."
    )
    seed: Whole = Field(0, description="Which samples are probed and how contexts are shuffled.")
    repeats: Whole | None = Field(
        None,
        ge=1,
        le=MAX_REPEATS,
        description="Repeats of each probe cell (default: the matrix's repeats). A probe asks "
        "whether a score moves, not how stable it is; 1 halves its cost under repeats: 2.",
    )

    @field_validator("names")
    @classmethod
    def _known(cls, value: str | list[str]) -> str | list[str]:
        unknown = [] if value == ALL else [n for n in value if n not in PROBES]
        if unknown:
            raise ValueError(f"unknown probe {unknown[0]!r}; known: {', '.join([ALL, *PROBES])}")
        return value if value == ALL else distinct(value, "names")


class Matrix(StrictModel, PublicModel):
    """A grid: judges × embeddings × metrics and criteria × repeats. Read from a file it is
    checked whole (``inspect_matrix``); built by hand, ``Matrix(...)`` raises a MatrixError
    (also a pydantic ValidationError, as it was before)."""

    door: ClassVar[str] = "Matrix"
    refused_as: ClassVar[type[InputError]] = MatrixError
    name: str | None = Field(
        None, description="A name for the grid, used in the run directory's name."
    )
    dataset: str | None = Field(
        None, description="Data set path (relative to the matrix file) or 'demo'."
    )
    columns: dict[str, str] | None = Field(
        None, description="Sample field -> the data set's own name ({user_input: question})."
    )
    defaults: Defaults = Field(
        Defaults(),
        description="Merged into every judge and embedding entry (Spring AI's default-options).",
    )
    retry: RetryPolicy = Field(
        RetryPolicy(),
        description="When and how a failed call is tried again (like spring.ai.retry).",
    )
    concurrency: Concurrency = Field(
        Concurrency(), description="How many calls are in flight at once."
    )
    execution: Execution = Field(
        Execution(),
        description="Where the run is scored: this process, worker processes or a Ray cluster.",
    )
    judges: list[JudgeSpec] = Field(
        min_length=1,
        description="The judge models; the same model at two settings needs two labels.",
    )
    embeddings: list[EmbeddingSpec] = Field(
        default_factory=list,
        description="The embedding models, for metrics that embed (response_relevancy).",
    )
    metrics: list[MetricSpec] = Field(
        default_factory=list,
        description="The metrics to score: names, or mappings of a name and its parameters.",
    )
    criteria: list[CriterionSpec] = Field(
        default_factory=list,
        description="Criteria of your own (name, definition, fields, type: binary, labels, "
        "scale, or pairwise with the two columns it compares), scored by every judge like a "
        "metric.",
    )
    strictness: Annotated[list[Annotated[Whole, Field(ge=1, le=20)]], Distinct] = Field(
        default_factory=lambda: [3],
        min_length=1,
        description="Questions response_relevancy generates per score; each is a grid column "
        "(so each given once).",
    )
    repeats: Whole = Field(
        1,
        ge=1,
        le=MAX_REPEATS,
        description="How often each cell is scored, to measure run-to-run spread.",
    )
    limit: Whole | None = Field(
        None, ge=1, description="Score only the first N samples (the CLI's --limit overrides)."
    )
    decision: DecisionOptions = Field(
        DecisionOptions(), description="How the decision card chooses a judge."
    )
    juries: bool | list[list[str]] = Field(
        False,
        description="Panels of judges scored as virtual judges from the calls already made: "
        "true for one panel of every judge, or lists of judge labels.",
    )
    probes: ProbeOptions | None = Field(
        None, description="Perturbed copies of the samples scored as extra cells ('all')."
    )

    @field_validator("probes", mode="before")
    @classmethod
    def _probe_shorthand(cls, value: Any) -> Any:
        """``probes: all``, ``probes: [injection]`` or ``probes: true`` mean those names with
        the defaults; ``probes: false`` none."""
        if value is True:
            return {}
        if value is False:
            return None
        if isinstance(value, str | list):
            return {"names": value}
        return value

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

    def batch_for(self, entry: ModelEntry) -> BatchMode | None:
        """The entry's batch mode (its own, else the defaults'), or None: live calls."""
        own = entry.batch if entry.batch is not None else self.defaults.batch
        return own if own is not None and own.enabled else None

    @property
    def jury_panels(self) -> list[list[str]]:
        """The juries as lists of judge labels: with ``juries: true``, one panel of every judge
        (when there are two or more)."""
        if self.juries is True:
            labels = [self.judge_label(i) for i in range(len(self.judges))]
            return [labels] if len(labels) > 1 else []
        return [list(dict.fromkeys(panel)) for panel in self.juries or []]

    @property
    def batched(self) -> bool:
        """Whether any entry sends its requests through a provider's batch API."""
        return any(self.batch_for(e) for e in [*self.judges, *self.embeddings])

    def metric_params(self, spec: MetricSpec) -> BaseModel:
        return METRICS[resolve_metric_name(spec.name)].Params(**spec.params)

    def strictness_for(self, spec: MetricSpec) -> list[int]:
        params = self.metric_params(spec)
        own = getattr(params, "strictness", None)
        return sorted(set(own or self.strictness))

    @property
    def extra_fields(self) -> tuple[str, ...]:
        """The data set's columns the criteria read that are no sample field."""
        return tuple(dict.fromkeys(f for c in self.criteria for f in c.extra_fields))

    def scorers(self) -> dict[str, Metric[Any]]:
        """Every metric and criterion of the matrix, by the name its cells carry."""
        metrics: dict[str, Metric[Any]] = {
            m.name: m(self.metric_params(spec))
            for spec in self.metrics
            for m in [METRICS[resolve_metric_name(spec.name)]]
        }
        return metrics | {c.name: criterion_metric(c) for c in self.criteria}

    @property
    def scored_names(self) -> list[str]:
        """Every metric and criterion of the run by the name its cells carry, in the matrix's
        order: what a metric or criterion named against a run is checked against. A metric no
        name resolves is left out (it is the matrix's own problem, said by its check)."""
        metrics = [builtin_metric_named(m.name) for m in self.metrics]
        return [m for m in metrics if m is not None] + [c.name for c in self.criteria]

    @property
    def criteria_by_name(self) -> dict[str, CriterionSpec]:
        """The matrix's criteria by name, as the analyses and the labels look them up."""
        return {c.name: c for c in self.criteria}

    def generations(self) -> dict[str, int]:
        """The most generations of one request a metric's (or criterion's) cells want: the
        runner makes them together, whichever cell asks first, and the plan counts them so."""
        most = {resolve_metric_name(s.name): max(self.strictness_for(s)) for s in self.metrics}
        return most | {c.name: c.strictness for c in self.criteria if c.type == "binary"}


def _merge(base: ModelOptions, override: ModelOptions) -> ModelOptions:
    merged = base.model_dump()
    for key in override.model_fields_set:
        value = getattr(override, key)
        merged[key] = {**base.extra, **value} if key == "extra" else value
    return ModelOptions(**merged)


# -- loading -----------------------------------------------------------------------------------


def load_matrix(path: str | os.PathLike[str]) -> Matrix:
    """Read and validate a matrix file; raise MatrixError listing every problem found."""
    return parse_matrix(read_matrix_text(path), str(path))


def read_matrix_text(path: str | os.PathLike[str]) -> str:
    """A matrix file's text; MatrixError if missing, a directory, unreadable or not UTF-8."""
    path = as_path(path, "matrix", MatrixError)
    if path.is_dir():
        raise MatrixError(str(path), [Problem("", "is a directory; name the matrix file in it")])
    text = read_utf8(path, str(path), MatrixError)
    if path.suffix.lower() == ".properties" or SPRING_PROPERTY.search(text):
        raise MatrixError(str(path), [Problem("", SPRING_PROPERTIES)])
    return text


# Spring's other form of the same settings: one ``spring.a.b=value`` a line, which YAML would
# read as one long string (the matrix, and ``init --from``, read application.yaml).
SPRING_PROPERTY = re.compile(r"^[ \t]*spring\.[\w.\[\]-]+[ \t]*=", re.MULTILINE)
SPRING_PROPERTIES = (
    "Spring's .properties form is not read; write the same settings as application.yaml, "
    "each dotted key a nested mapping: spring.ai.openai.api-key=${OPENAI_API_KEY} becomes "
    "spring: {ai: {openai: {api-key: ${OPENAI_API_KEY}}}} (docs/your-own-models.md)"
)


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
    raw, problems = yaml_data(text, MATRIX_SHAPE)
    if problems:
        return None, problems
    return inspect_matrix_data(raw)


def yaml_data(text: str, shape: str) -> tuple[Any, list[Problem]]:
    """The value of a YAML text a matrix (or a part of one: ``run --add-judges``' file) is
    written in, or the problem at its line and column; ``shape``: what was expected."""
    empty = nothing_in(text)
    if empty:
        return None, [Problem("", f"{empty}; expected {shape}")]
    try:
        raw = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [Problem(where, f"not valid YAML: {problem}")]
    if raw is None:
        return None, [Problem("", f"only comments, no value; expected {shape}")]
    return raw, []


def matrix_from_data(raw: Any, source: str = "<matrix>") -> Matrix:
    """A matrix given as Python data (the dict a YAML file would load to); MatrixError if bad."""
    matrix, problems = inspect_matrix_data(raw)
    if problems or matrix is None:
        raise MatrixError(source, problems)
    return matrix


def inspect_matrix_data(raw: Any) -> tuple[Matrix | None, list[Problem]]:
    """``inspect_matrix`` for data already loaded from YAML (or written in Python)."""
    if not isinstance(raw, dict):
        return None, [Problem("", f"expected {MATRIX_SHAPE}")]
    if is_spring(raw):  # a Spring AI application.yaml, read as it is (inputs/spring.py)
        data, spring_problems = spring_matrix_data(raw)
        translated, found = inspect_matrix_data(data)
        return translated, spring_problems + [spring_problem(p) for p in found]
    raw = snake_keys(raw)
    problems: list[Problem] = []
    try:
        matrix: Matrix | None = Matrix.model_validate(raw)
    except ValidationError as exc:
        problems += [problem_from(err, Matrix) for err in exc.errors()]
        matrix = _without_faulty_fields(raw, [tuple(e["loc"]) for e in exc.errors()])
    if matrix is not None:
        problems += _semantic_problems(matrix)
    return matrix, problems


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


def _semantic_problems(matrix: Matrix) -> list[Problem]:
    problems: list[Problem] = []
    problems += _duplicate_labels("judges", [j.label or j.id for j in matrix.judges])
    problems += _duplicate_labels("embeddings", [e.label or e.id for e in matrix.embeddings])
    for i, spec in enumerate(matrix.metrics):
        problems += _metric_problems(i, spec, has_embeddings=bool(matrix.embeddings))
    problems += _metrics_named_twice(matrix)
    problems += _criterion_problems(matrix)
    problems += _batch_problems(matrix)
    problems += _jury_problems(matrix)
    problems += execution_problems(matrix.execution, matrix.batched)
    problems += _probe_problems(matrix)
    problems += _key_shaped_names(matrix)
    return problems


def _key_shaped_names(matrix: Matrix) -> list[Problem]:
    """A label, a model id or a jury member shaped like a key: refused, as every report, table
    and message shows it (``core.redaction.looks_like_key``)."""
    names = [
        (f"{section}[{i}].{field}", name)
        for section, entries in (("judges", matrix.judges), ("embeddings", matrix.embeddings))
        for i, entry in enumerate(entries)
        for field, name in (("id", entry.id), ("label", entry.label))
        if name is not None
    ]
    if not isinstance(matrix.juries, bool):
        names += [(f"juries[{i}]", " ".join(panel)) for i, panel in enumerate(matrix.juries)]
    if matrix.name is not None:  # names the run directory and titles the report
        names.append(("name", matrix.name))
    shown = "a label is shown in every report"
    return [
        Problem(where, reason)
        for where, name in names
        if (reason := key_shaped_name(name, shown)) is not None
    ]


def execution_problems(execution: Execution, batched: bool) -> list[Problem]:
    """What an ``execution:`` block (the matrix's, or with ``--workers``/``--backend`` laid
    over it) cannot do: shards in batch mode, Ray where it is not installed."""
    problems = []
    if execution.distributed and batched:
        message = (
            "batch mode runs in one process: drop --workers/--backend (or execution:) or set "
            "batch: false; a provider batch gathers the whole grid's requests of a stage, "
            "which shards would split into many small batches, and the pending batches are "
            "kept by the run's own database"
        )
        problems.append(Problem("execution.workers", message))
    if execution.engine == "ray" and importlib.util.find_spec("ray") is None:
        message = "ray is not installed here; pip install 'judgegrid[ray]'"
        problems.append(Problem("execution.backend", message))
    return problems


def _probe_problems(matrix: Matrix) -> list[Problem]:
    """Probes named in ``probes:`` that none of the matrix's metrics can have (each probe
    perturbs what some metrics read and not others): they would never be made."""
    if matrix.probes is None or matrix.probes.names == ALL:
        return []
    metrics = []
    for spec in matrix.metrics:
        try:
            metrics.append(resolve_metric_name(spec.name))
        except OptionError:
            continue  # the metric's own problem
    probed = targets(metrics, matrix.criteria)
    if not probed:
        return []
    useless = [n for n in matrix.probes.names if not any(n in t.probes for t in probed)]
    named = ", ".join(t.name for t in probed)
    return [
        Problem(
            "probes.names",
            f"{name} probes none of this matrix's metrics ({named}); it is for "
            f"{', '.join(PROBES[name].metrics)}"
            + (" and criteria that show the judge what it changes" if matrix.criteria else ""),
        )
        for name in useless
    ]


def _jury_problems(matrix: Matrix) -> list[Problem]:
    """A jury is two judges or more of the matrix, each named by its label."""
    if isinstance(matrix.juries, bool):
        return []
    labels = [matrix.judge_label(i) for i in range(len(matrix.judges))]
    problems = []
    for i, panel in enumerate(matrix.juries):
        unknown = [m for m in panel if m not in labels]
        problems += [
            Problem(f"juries[{i}]", unknown_name("judge", m, labels, "in the matrix"))
            for m in unknown
        ]
        twice = each_given_twice("judge", panel)
        problems += [Problem(f"juries[{i}]", reason) for reason in twice]
        if not unknown and not twice and len(panel) < 2:
            problems.append(Problem(f"juries[{i}]", "a jury needs two different judges or more"))
    for later, first in repeats(matrix.juries, key=frozenset):
        message = (
            f"the same jury as juries[{first}] ({', '.join(matrix.juries[first])}), in "
            "another order; give each jury once"
        )
        problems.append(Problem(f"juries[{later}]", message))
    return problems


def _metrics_named_twice(matrix: Matrix) -> list[Problem]:
    """One metric named twice, in any spelling (``faithfulness``, ``Faithfulness``): its cells
    would be made twice under one name, one entry's settings lost."""
    names = [m.name for m in matrix.metrics]
    return [
        Problem(f"metrics[{later}].name", given_twice("metric", names, later, first))
        for later, first in repeats(names, key=lambda name: builtin_metric_named(name) or name)
    ]


def _batch_problems(matrix: Matrix) -> list[Problem]:
    """Batch mode needs a provider whose batch API litellm feeds OpenAI's JSONL lines."""
    problems = []
    for section, entries in (("judges", matrix.judges), ("embeddings", matrix.embeddings)):
        for i, entry in enumerate(entries):
            if matrix.batch_for(entry) and not has_batch_api(entry.id):
                where = f"{section}[{i}].batch" if entry.batch else "defaults.batch"
                problems.append(
                    Problem(
                        where,
                        f"batch mode is for {' and '.join(BATCH_PROVIDERS)} models (OpenAI's "
                        f"batch file format); {entry.id} is a {provider_of(entry.id)} model: "
                        "set batch: false on it",
                    )
                )
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
    except OptionError as exc:
        return [Problem(f"metrics[{i}].name", p.message) for p in exc.problems]
    metric = METRICS[name]
    try:
        metric.Params(**spec.params)
    except ValidationError as exc:
        found = [problem_from(e, metric.Params) for e in exc.errors()]
        return [Problem(f"metrics[{i}].{p.where}", p.message) for p in found]
    if metric.uses_embeddings and not has_embeddings:
        return [
            Problem(
                f"metrics[{i}]",
                f"{name} needs an embedding model; add one under embeddings:",
            )
        ]
    return []


NOTHING_TO_SCORE = Problem(
    "metrics", "nothing to score: name a metric here or a criterion under criteria:"
)


def with_criteria(
    matrix: Matrix, handed: Sequence[tuple[str, CriterionSpec]], argument: str = "criteria"
) -> Matrix:
    """The matrix with criteria handed beside it (``run_grid(criteria=[...])``) after its own,
    each ``(its place, the spec)``. A handed name that the matrix's criteria or an earlier
    handed one already has, or anything a matrix would refuse of a criterion (a built-in
    metric's name, ``fails-when``), is an OptionError naming the ``argument`` and the place."""
    if not handed:
        return matrix
    problems = []
    taken = {c.name: "a criterion of the matrix" for c in matrix.criteria}
    for where, spec in handed:
        if spec.name in taken:
            message = (
                f"'{spec.name}' is the name of {taken[spec.name]} too; every table tells "
                "criteria apart by name: rename one (Criterion(name=...), the peer's name=...)"
            )
            problems.append(Problem(f"{where}.name", message))
        taken.setdefault(spec.name, where)
    if problems:
        raise OptionError(argument, problems)
    merged = matrix.model_copy(update={"criteria": [*matrix.criteria, *(s for _, s in handed)]})
    before = set(_semantic_problems(matrix))
    places = [where for where, _ in handed]
    found = [p for p in _semantic_problems(merged) if p not in before]
    if found:
        raise OptionError(argument, [handed_place(p, len(matrix.criteria), places) for p in found])
    return merged


def handed_place(problem: Problem, own: int, places: list[str]) -> Problem:
    """A problem of the merged matrix's ``criteria[i]`` (``own``: the matrix's own criteria,
    first) said at the handed criterion's place."""
    match = re.match(r"criteria\[(\d+)\]", problem.where)
    if match is None or int(match.group(1)) < own:
        return problem
    place = places[int(match.group(1)) - own]
    return Problem(place + problem.where[match.end() :], problem.message)


def _criterion_problems(matrix: Matrix) -> list[Problem]:
    """Something to score; a criterion's name that is a built-in metric's (in any spelling) or
    another criterion's; ``fails-when`` naming what is not a directional probe."""
    if not matrix.metrics and not matrix.criteria:
        return [NOTHING_TO_SCORE]
    problems = []
    seen: dict[str, int] = {}
    for i, criterion in enumerate(matrix.criteria):
        clash = builtin_metric_named(criterion.name)
        if clash is not None:
            message = (
                f"'{criterion.name}' is the built-in metric {clash}'s name; give the criterion "
                "another, so every table tells the two apart"
            )
            problems.append(Problem(f"criteria[{i}].name", message))
        if criterion.name == PREFERENCE:
            message = f"'{PREFERENCE}' names people's preference labels; choose another name"
            problems.append(Problem(f"criteria[{i}].name", message))
        if criterion.name in seen:
            message = f"'{criterion.name}' is the name of criteria[{seen[criterion.name]}] too"
            problems.append(Problem(f"criteria[{i}].name", message))
        seen.setdefault(criterion.name, i)
        directional = [n for n, p in PROBES.items() if p.kind == "directional"]
        for name in criterion.fails_when:
            if name not in directional:
                message = (
                    f"{name!r} is not a directional probe; fails-when names probes that must "
                    f"fail the criterion: {', '.join(directional)}"
                )
                problems.append(Problem(f"criteria[{i}].fails_when", message))
        for name, field in unseen_changes(criterion):
            message = (
                f"{name} changes the {field}, which the criterion does not show the judge; "
                f"add {field} to its fields or drop {name}"
            )
            problems.append(Problem(f"criteria[{i}].fails_when", message))
    return problems
