"""Checks made before the first call: every model routable, every key present.

A matrix can be valid YAML naming models that no provider serves, or keys that the environment
lacks; both would fail every cell. These checks ask litellm's tables and the environment, never a
provider, so ``judgegrid validate`` and the start of a run can refuse such a matrix at once.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from typing import Any

from judgegrid.calls.providers import litellm_tables
from judgegrid.calls.providers.cores import local_threads
from judgegrid.calls.providers.gateway import (
    header_variables,
    litellm_module,
    logprobs_unsupported,
)
from judgegrid.calls.providers.local_models import EMBEDDERS, JUDGES
from judgegrid.core.criterion import criterion_label
from judgegrid.core.errors import DatasetError, MatrixError, OptionError, Problem
from judgegrid.core.names import did_you_mean
from judgegrid.core.options import Execution, ModelEntry, ModelOptions, not_an_http_url
from judgegrid.core.redaction import has_credentials, is_masked_url
from judgegrid.core.sample import SAMPLE_FIELDS, Dataset
from judgegrid.inputs.matrix import Matrix
from judgegrid.metrics import METRICS, Metric, resolve_metric_name
from judgegrid.metrics.pairwise import criterion_metric
from judgegrid.store.cache import check_cache_folder

# A sample field longer than this many characters is refused when the judge's context window is
# unknown: no judge reads several megabytes, and sending them costs money before it fails.
FIELD_CHARS_CAP = 200_000
CHARS_PER_TOKEN = 4  # a rough count, enough to tell a field that cannot fit
CLUSTER_TIMEOUT_S = 3.0  # how long a Ray cluster's address may take to accept a connection


def preflight(
    matrix: Matrix,
    source: str,
    data: Dataset | None = None,
    *,
    keys: bool = True,
    use_cache: bool = True,
) -> None:
    """Problems that would stop every call, found before the first one: unknown models, keys,
    URLs that do not parse, dimensions larger than the model has, samples too long to send.
    ``keys`` False: all but the keys (the plan needs none). ``use_cache``: whether the run
    reads the cache (what a refusal may promise)."""
    problems = matrix_problems(matrix, keys=keys, use_cache=use_cache)
    if data is not None:
        problems += criterion_field_problems(matrix, data)
    if problems:
        raise MatrixError(source, problems)
    if data is not None:
        bad_samples, _ = sample_problems(matrix, data)
        if bad_samples:
            raise DatasetError(data.source, bad_samples)


def check_environment(matrix: Matrix, use_cache: bool) -> None:
    """What a run reads of the environment, checked before anything is made: the cache's
    folder (JUDGEGRID_CACHE_DIR, XDG_CACHE_HOME) when the cache is used, and
    JUDGEGRID_LOCAL_THREADS when a local model is named; each refusal names its variable."""
    if use_cache:
        check_cache_folder()
    if any(m.id.startswith("local/") for m in [*matrix.judges, *matrix.embeddings]):
        local_threads()


def matrix_problems(matrix: Matrix, *, keys: bool = True, use_cache: bool = True) -> list[Problem]:
    """Everything about a valid matrix that would fail its calls: models, keys, settings."""
    credentials = credential_problems(matrix) if keys else []
    settings = setting_problems(matrix, use_cache=use_cache) + weighting_problems(matrix)
    return model_problems(matrix) + credentials + settings


def weighting_problems(matrix: Matrix) -> list[Problem]:
    """``weighting: logprobs`` on a criterion that a judge of the matrix cannot weight: litellm
    knows its provider and says it returns no log-probabilities (``auto`` takes them where
    they come, and says where they did not)."""
    if not any(criterion.weighting == "logprobs" for criterion in matrix.criteria):
        return []  # asked of litellm only when needed: its import is seconds of a plan's start
    blind = [
        f"judges[{i}] ({judge.id})"
        for i, judge in enumerate(matrix.judges)
        if logprobs_unsupported(judge.id)
    ]
    return [
        Problem(
            f"criteria[{i}].weighting",
            f"logprobs: {', '.join(blind)} cannot return log-probabilities (litellm says so of "
            "its provider); use weighting: auto (weighted where a judge returns them, said "
            "where it did not) or leave these judges out",
        )
        for i, criterion in enumerate(matrix.criteria)
        if criterion.weighting == "logprobs" and blind
    ]


def criterion_field_problems(matrix: Matrix, data: Dataset) -> list[Problem]:
    """A criterion's field (or a pairwise criterion's compared column) that no sample of the
    data set has: every cell of it would be skipped, so it is refused, naming the fields the
    samples do have."""
    problems = []
    for i, criterion in enumerate(matrix.criteria):
        named = [("fields", f) for f in criterion.fields]
        named += [("compare", f) for f in criterion.compare or ()]
        for key, field in named:
            if all(sample.is_missing(field) for sample in data):
                message = (
                    f"no sample of {data.source} has {field!r}; the samples have "
                    f"{', '.join(_fields_present(data)) or 'no field'}"
                )
                problems.append(Problem(f"criteria[{i}].{key}", message))
    return problems


def _fields_present(data: Dataset) -> list[str]:
    """The content fields and extra columns some sample has."""
    present = [f for f in SAMPLE_FIELDS if any(not s.is_missing(f) for s in data)]
    return present + sorted({name for s in data for name in (s.extra or {})})


# How a run that needs credentials can be resumed: they come from the environment, not the URL.
RESUMABLE_WAY = (
    "for a run that can be resumed, give the key through api_key_env, or as extra: "
    "{extra_headers: {Authorization: 'Basic ${VARIABLE}'}}"
)


def masked_base_words(use_cache: bool) -> str:
    """Why a resumed run's api_base cannot be called, and what to do: true with the cache (it
    answers what was done) and without (every call is made again)."""
    again = (
        "answers already given come from the cache"
        if use_cache
        else "under --no-cache nothing was kept in the cache: every call is made again"
    )
    return (
        "its credentials (***) were masked when the run was stored, since keys are never "
        f"written, so it cannot be called again; run the matrix file again instead ({again}); "
        f"{RESUMABLE_WAY}"
    )


def unresumable_warning(matrix: Matrix, use_cache: bool) -> str | None:
    """The warning a new run gets at its start when an api_base carries credentials (userinfo,
    a key in the query): they are masked when stored, so ``--resume`` cannot call again."""
    places = credential_bases(matrix)
    if not places:
        return None
    again = (
        "the cache answers what was done"
        if use_cache
        else "under --no-cache every call is made again"
    )
    return (
        f"judgegrid: {', '.join(places)} carries credentials, which are never written (stored "
        f"as ***): if this run stops, --resume cannot finish it; run the matrix again ({again}); "
        f"{RESUMABLE_WAY}"
    )


def credential_bases(matrix: Matrix) -> list[str]:
    """Where an api_base of the matrix carries credentials (``user:key@``, ``?key=…``)."""
    entries = [("judges", i, matrix.judge_options(j)) for i, j in enumerate(matrix.judges)]
    entries += [
        ("embeddings", i, matrix.embedding_options(e)) for i, e in enumerate(matrix.embeddings)
    ]
    return [
        f"{section}[{i}].options.api_base"
        for section, i, options in entries
        if options.api_base and has_credentials(options.api_base)
    ]


def setting_problems(matrix: Matrix, *, use_cache: bool = True) -> list[Problem]:
    """api_base values that are not http(s) URLs, or whose credentials were masked (a resumed
    run's; ``use_cache`` says whether the cache will answer a new run of the matrix);
    dimensions above what the model declares."""
    problems = []
    entries: list[tuple[str, int, ModelEntry]] = [
        ("judges", i, e) for i, e in enumerate(matrix.judges)
    ]
    entries += [("embeddings", i, e) for i, e in enumerate(matrix.embeddings)]
    for section, i, entry in entries:
        where, base = _api_base(matrix, section, i, entry)
        if base is not None:
            reason = not_an_http_url(base)
            if reason is not None:
                problems.append(Problem(where, reason))
            elif is_masked_url(base):  # a resumed run's: the key in it was never written
                problems.append(Problem(where, masked_base_words(use_cache)))
    for i, emb in enumerate(matrix.embeddings):
        size = _vector_size(emb.id)
        too_big = [d for d in matrix.embedding_dimensions(emb) if size and d > size]
        if too_big:
            problems.append(
                Problem(
                    f"embeddings[{i}].dimensions",
                    f"{', '.join(map(str, too_big))} is more than the {size} dimensions "
                    f"{emb.id} has",
                )
            )
    return problems


def unchecked_dimensions(matrix: Matrix) -> list[str]:
    """The dimensions asked of an embedding model whose size litellm does not know: held only
    to MAX_DIMENSIONS, said where ``validate`` and ``plan`` say what they could not check."""
    return [
        f"the dimensions of {emb.id} ({', '.join(map(str, asked))}) against the model (litellm "
        f"does not know its size): one larger than the model's fails its calls"
        for emb in matrix.embeddings
        if (asked := [d for d in matrix.embedding_dimensions(emb) if d])
        and not _vector_size(emb.id)
    ]


def _api_base(matrix: Matrix, section: str, i: int, entry: ModelEntry) -> tuple[str, str | None]:
    """The api_base an entry calls and where it is written: its own options, else the
    defaults' (a base set once in ``defaults:`` is the one most matrices have)."""
    if entry.options.api_base is not None:
        return f"{section}[{i}].options.api_base", entry.options.api_base
    kind = "judge" if section == "judges" else "embedding"
    defaults = matrix.defaults.judge if kind == "judge" else matrix.defaults.embedding
    return f"defaults.{kind}.api_base", defaults.api_base


def cluster_problems(execution: Execution) -> list[Problem]:
    """A Ray cluster named by address (``ray://host:port`` or ``host:port``) that nothing answers
    at: found with one TCP connection before the run directory is made, not by Ray's start
    after it (``auto`` is Ray's own search, left to Ray)."""
    address = execution.address
    if execution.engine != "ray" or address is None or address == "auto":
        return []
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CLUSTER_TIMEOUT_S).close()
    except (OSError, ValueError) as exc:
        reason = (exc.strerror or type(exc).__name__) if isinstance(exc, OSError) else str(exc)
        message = (
            f"no Ray cluster answers at {address} ({reason}); start it (ray start --head) or "
            "leave --address out for a local Ray instance"
        )
        return [Problem("execution.address", message)]
    return []


def sample_problems(matrix: Matrix, data: Dataset) -> tuple[list[Problem], list[str]]:
    """Labels that cannot be read, and fields no judge of the matrix can read (longer than its
    context window, or than FIELD_CHARS_CAP where the window is unknown); and what could not be
    checked."""
    windows = {j.id: _context_tokens(j.id) for j in matrix.judges}
    known = [w for w in windows.values() if w]
    limit_chars = min(known) * CHARS_PER_TOKEN if known else FIELD_CHARS_CAP
    unchecked = [
        f"the context window of {model} (litellm does not know it{_typo(matrix, model)}): "
        f"sample fields are held to {FIELD_CHARS_CAP:,} characters instead"
        for model, window in windows.items()
        if not window
    ]
    problems = label_problems(data) + unknown_label_keys(matrix, data)
    problems += criterion_label_problems(matrix, data)
    problems += unusable_samples(matrix, data)
    for sample in data:
        for field in ("user_input", "response", "reference"):
            text = getattr(sample, field) or ""
            if len(text) > limit_chars:
                problems.append(_too_long(sample.id, field, len(text), limit_chars))
        for k, context in enumerate(sample.retrieved_contexts or []):
            if len(context) > limit_chars:
                problems.append(
                    _too_long(sample.id, f"retrieved_contexts[{k}]", len(context), limit_chars)
                )
    return problems, unchecked


def _typo(matrix: Matrix, model: str) -> str:
    """A hosted model litellm does not know may be a typo: the closest name it knows, where one
    is close. Not for a self-served one (an ``api_base``): its names are the server's own."""
    served = [
        base
        for i, judge in enumerate(matrix.judges)
        if judge.id == model and (base := _api_base(matrix, "judges", i, judge)[1])
    ]
    guess = None if served else litellm_tables.similar_model(model)
    return f"; if the name is mistyped, did you mean {guess}?" if guess else ""


def needed_fields(matrix: Matrix) -> list[str]:
    """Every sample field some metric of the matrix reads, in the metrics' order."""
    fields: dict[str, None] = {}
    for metric in matrix_metrics(matrix):
        fields.update(dict.fromkeys(metric.required_fields))
        if metric.also_needs:  # ContextPrecision: reference or response
            fields.update(dict.fromkeys(("reference", "response")))
    return list(fields)


def unusable_samples(matrix: Matrix, data: Dataset) -> list[Problem]:
    """When no metric can score any sample (every cell would be skipped), the samples with none
    of the fields the metrics read are named, or else the data set as a whole. A data set where
    some samples can be scored keeps the others: each metric that needs a field a sample lacks
    skips that sample, naming the field (the demo set's question-and-answer pairs)."""
    metrics = matrix_metrics(matrix)
    if not metrics or any(not m.missing_fields(s) for s in data for m in metrics):
        return []
    needed = needed_fields(matrix)
    bare = [s for s in data if all(s.is_missing(field) for field in needed)]
    if bare:
        return [
            Problem(
                f"sample '{s.id}'",
                f"has none of the fields the metrics need ({', '.join(needed)}); "
                "fill them in or drop the sample",
            )
            for s in bare
        ]
    wants = "; ".join(f"{m.name}: {', '.join(m.required_fields)}" for m in metrics)
    message = (
        f"no sample has every field of any metric ({wants}), so every cell would be skipped; "
        "fill the fields in, or choose metrics the samples can feed"
    )
    return [Problem("", message)]


def missing_text_problems(
    matrix: Matrix, data: Dataset, pairs: Iterable[tuple[str, str]]
) -> list[Problem]:
    """The texts a metric reads that samples it is to score lack, per metric (``pairs``: its
    (metric, sample id)s): where a run would skip cells one by one, a judge added to an imported
    run is refused before its first call, since the samples were fixed by the import."""
    metrics = {m.name: m for m in matrix_metrics(matrix)}
    samples = {s.id: s for s in data}
    lacking: dict[str, list[str]] = {}
    for metric, sample_id in sorted(pairs):
        sample = samples.get(sample_id)
        fields = metrics[metric].missing_fields(sample) if metric in metrics and sample else []
        if fields:
            lacking.setdefault(metric, []).append(f"'{sample_id}' ({', '.join(fields)})")
    problems = []
    for metric, found in lacking.items():
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        needs = ", ".join(metrics[metric].required_fields)
        message = f"{metric} reads {needs}; {len(found)} sample(s) lack them: {shown}"
        problems.append(Problem(f"metric {metric}", message))
    return problems


def matrix_metrics(matrix: Matrix) -> list[Metric[Any]]:
    """The matrix's metrics with their parameters (an unknown name is the matrix's own problem)."""
    metrics: list[Metric[Any]] = []
    for spec in matrix.metrics:
        try:
            metrics.append(METRICS[resolve_metric_name(spec.name)](matrix.metric_params(spec)))
        except (OptionError, ValueError):
            continue
    return metrics + [criterion_metric(c) for c in matrix.criteria]


def label_problems(data: Dataset) -> list[Problem]:
    """Labels the validity analyses could not read: a label named like a metric that is not a
    number from 0 to 1; a preference (``preferred``: 1 or 0) without the ``pair`` it belongs
    to, or the other way round."""
    problems = []
    for sample in data:
        labels = sample.labels or {}
        where = f"sample '{sample.id}'.labels"
        for key, value in labels.items():
            if key in METRICS and (isinstance(value, bool) or not isinstance(value, int | float)):
                problems.append(
                    Problem(
                        f"{where}.{key}", f"a label named like a metric is a number, got {value!r}"
                    )
                )
            elif key in METRICS and not 0 <= float(value) <= 1:  # the scale people label on
                problems.append(
                    Problem(f"{where}.{key}", f"a metric's label is from 0 to 1, got {value!r}")
                )
        if "preferred" in labels and labels["preferred"] not in (0, 1):
            problems.append(
                Problem(
                    f"{where}.preferred",
                    f"expected 1 (preferred) or 0, got {labels['preferred']!r}",
                )
            )
        if ("preferred" in labels) != ("pair" in labels):
            problems.append(
                Problem(
                    where, "a preference needs both 'pair' (which pair) and 'preferred' (1 or 0)"
                )
            )
    return problems


# A sample's label keys that are no metric or criterion: a preference's (``pair`` names the
# pair, ``preferred`` says 1 or 0, ``aspect`` what a pairs run compares).
PREFERENCE_KEYS = ("pair", "preferred", "aspect")


def unknown_label_keys(matrix: Matrix, data: Dataset) -> list[Problem]:
    """A label named like no metric (built in) and no criterion of the run: a typo
    (``politeness`` for ``polite``) that the analyses would pass over without a word. Each such
    name once, at the first sample that has it, with a did-you-mean over the run's own."""
    own = matrix.scored_names
    known = {*own, *METRICS, *PREFERENCE_KEYS}
    first: dict[str, tuple[str, int]] = {}
    for sample in data:
        for key in sample.labels or {}:
            if key not in known:
                sample_id, count = first.get(key, (sample.id, 0))
                first[key] = (sample_id, count + 1)
    problems = []
    for key, (sample_id, count) in first.items():
        hint = did_you_mean(key, own)
        others = f" (and {count - 1} other samples)" if count > 1 else ""
        message = (
            f"{key!r} is no metric or criterion of this run; {hint}the run's: "
            f"{', '.join(own)}; rename the label, or drop it"
        )
        problems.append(Problem(f"sample '{sample_id}'.labels.{key}{others}", message))
    return problems


def criterion_label_problems(matrix: Matrix, data: Dataset) -> list[Problem]:
    """A person's label, in the data set, of a criterion that is none of its answers: a binary
    criterion's is pass/fail (1/0), a labels criterion's one of its labels (or its score), a
    scale's one of its levels (``core.criterion.criterion_label``, as the labels read it)."""
    problems = []
    for criterion in matrix.criteria:
        for sample in data:
            value = (sample.labels or {}).get(criterion.name)
            if value is None:
                continue
            try:
                criterion_label(criterion, value)
            except ValueError as exc:
                problems.append(
                    Problem(
                        f"sample '{sample.id}'.labels.{criterion.name}",
                        f"{value!r} is no answer of the {criterion.type} criterion "
                        f"{criterion.name}: {exc}",
                    )
                )
    return problems


def _too_long(sample_id: str, field: str, chars: int, limit: int) -> Problem:
    return Problem(
        f"sample '{sample_id}'.{field}",
        f"{chars:,} characters, more than a judge of this matrix can read (about {limit:,}); "
        "shorten it or drop the sample",
    )


def _model_info(model: str) -> dict[str, Any]:
    known = litellm_tables.known_model(model)  # litellm's answer without its import (seconds)
    if known is not None:
        return {"max_input_tokens": known.context_tokens, "output_vector_size": known.vector_size}
    try:
        return dict(litellm_module().get_model_info(model))
    except Exception:  # a model missing from litellm's tables
        return {}


def _vector_size(model: str) -> int | None:
    if model in EMBEDDERS:
        return EMBEDDERS[model].dimensions
    size = _model_info(model).get("output_vector_size")
    return int(size) if size else None


def _context_tokens(model: str) -> int | None:
    if model in JUDGES:
        return JUDGES[model].context_tokens
    window = _model_info(model).get("max_input_tokens")
    return int(window) if window else None


def model_problems(matrix: Matrix) -> list[Problem]:
    """Model ids that litellm cannot route (no provider prefix it knows, no local model)."""
    problems = []
    known_local = {"judges": sorted(JUDGES), "embeddings": sorted(EMBEDDERS)}
    entries = [("judges", i, j.id, j.options.api_base) for i, j in enumerate(matrix.judges)]
    entries += [
        ("embeddings", i, e.id, e.options.api_base) for i, e in enumerate(matrix.embeddings)
    ]
    for section, i, model, api_base in entries:
        if model.startswith("local/"):
            if model not in known_local[section]:
                problems.append(
                    Problem(
                        f"{section}[{i}].id",
                        f"unknown local model '{model}'; "
                        f"the embedded ones are {', '.join(known_local[section])}",
                    )
                )
            continue
        if not _litellm_routes(model, api_base):
            problems.append(
                Problem(
                    f"{section}[{i}].id",
                    f"litellm cannot tell which provider serves '{model}'; write it as "
                    "provider/model (e.g. openai/gpt-4o-mini, openrouter/google/gemini-2.5-flash, "
                    "ollama/llama3.1)",
                )
            )
    return problems


def _litellm_routes(model: str, api_base: str | None) -> bool:
    if api_base is None and litellm_tables.known_model(model) is not None:
        return True  # a model of litellm's map, routed by its prefix
    litellm = litellm_module()
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception:
        return False
    return True


def credential_problems(matrix: Matrix, environ: dict[str, str] | None = None) -> list[Problem]:
    """Keys that calls would need but the environment lacks, found before any call is made.

    One problem per missing variable, naming every entry that needs it.
    """
    env = os.environ if environ is None else environ
    entries = [("judges", i, j.id, matrix.judge_options(j)) for i, j in enumerate(matrix.judges)]
    entries += [
        ("embeddings", i, e.id, matrix.embedding_options(e))
        for i, e in enumerate(matrix.embeddings)
    ]
    needed_by: dict[str, list[str]] = {}
    for section, i, model, options in entries:
        for variable in _missing_keys(model, options, env):
            needed_by.setdefault(variable, []).append(f"{section}[{i}] ({model})")
    return [
        Problem(
            users[0].split(" ")[0] if len(users) == 1 else "",
            f"the environment variable {variable} is not set; it holds the API key for "
            f"{', '.join(users)}",
        )
        for variable, users in needed_by.items()
    ]


def _missing_keys(model: str, options: ModelOptions, env: Any) -> list[str]:
    headers = [v for v in header_variables(options) if not env.get(v)]
    return list(dict.fromkeys(headers + _missing_key_variables(model, options, env)))


def _missing_key_variables(model: str, options: ModelOptions, env: Any) -> list[str]:
    if options.api_key_env:
        return [] if env.get(options.api_key_env) else [options.api_key_env]
    if model.startswith("local/") or options.api_base:
        return []  # in-process models and self-served endpoints need no key by default
    known = litellm_tables.known_model(model)
    if known is not None:
        return known.missing_keys(env)
    litellm = litellm_module()  # deferred: importing it costs a second

    try:
        report = litellm.validate_environment(model=model)
    except Exception:  # an unknown provider: litellm will say so at call time
        return []
    return [k for k in report.get("missing_keys", []) if not env.get(k)]
