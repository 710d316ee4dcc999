"""A Spring AI ``application.yaml`` read as a model matrix, as it is.

spring-ai-ragas users already describe their judges in Spring's multi-model shape (seed 002):
``spring.ai.chat-models`` and ``spring.ai.embedding-models``, each with ``default-options`` and a
``list``; ``spring.ai.openai`` with the base-url and the key as a ``${ENV}`` placeholder; and
``spring.ai.retry``. This module translates that shape into the matrix's own data (the dict a
judgegrid YAML file loads to), which the matrix loader then checks as usual; problems found
there are named back by their Spring path.

The provider follows the base-url: OpenRouter's gives ``openrouter/<id>``; any other
OpenAI-compatible server gives ``openai/<id>`` with ``api_base``; none gives OpenAI itself. A key
is only ever a placeholder: its variable's NAME becomes the entries' ``api_key_env``, the value
is never read. Matrix fields Spring has no word for (metrics, dataset, repeats, ...) may sit in
a top-level ``judgegrid:`` block beside ``spring:``; with no metrics, every metric is scored.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from judgegrid.core.errors import Problem
from judgegrid.core.options import not_an_http_url
from judgegrid.core.redaction import has_credentials, looks_like_key
from judgegrid.core.validation import boolean_hint
from judgegrid.metrics import METRICS

SPRING_KEY = "spring"
EXTRA_KEY = "judgegrid"
OPENROUTER_HOST = "openrouter.ai"
SPRING_MAX_ATTEMPTS = 10  # Spring AI's spring.ai.retry.max-attempts default
CHAT = "spring.ai.chat-models"
EMBEDDING = "spring.ai.embedding-models"
OPENAI = "spring.ai.openai"
# A Spring option name (kebab or camel) → the matrix's ModelOptions field.
JUDGE_OPTIONS = {
    "temperature": "temperature",
    "max-tokens": "max_tokens",
    "maxtokens": "max_tokens",
}
JUDGE_OPTIONS |= {"top-p": "top_p", "topp": "top_p", "seed": "seed"}
# ``${VAR}`` or ``${VAR:default}``: the variable's name is kept, the default never used.
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}")
# Where a matrix path came from in the Spring file, longest prefix first.
SPRING_PATHS = (
    ("defaults.judge", f"{CHAT}.default-options"),
    ("defaults.embedding", f"{EMBEDDING}.default-options"),
    ("defaults.dimensions", f"{EMBEDDING}.default-options.dimensions"),
    ("judges", f"{CHAT}.list"),
    ("embeddings", f"{EMBEDDING}.list"),
    ("retry", "spring.ai.retry"),
)
_noted: set[str] = set()


def is_spring(raw: Any) -> bool:
    """Whether loaded YAML is a Spring configuration (its top-level key is ``spring``)."""
    return isinstance(raw, dict) and SPRING_KEY in raw


def spring_matrix_data(raw: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The matrix data a Spring configuration means, and the problems of its Spring shape."""
    problems: list[Problem] = []
    unknown = sorted(set(raw) - {SPRING_KEY, EXTRA_KEY})
    problems += [
        Problem(k, f"unknown top-level key beside spring: (or {EXTRA_KEY}:)") for k in unknown
    ]
    ai = _mapping(
        _mapping(raw.get(SPRING_KEY), "spring", problems).get("ai"), "spring.ai", problems
    )
    openai = _mapping(ai.get("openai"), OPENAI, problems)
    chat_conn = _connection(
        openai, _mapping(openai.get("chat"), f"{OPENAI}.chat", problems), "chat", problems
    )
    emb_section = _mapping(openai.get("embedding"), f"{OPENAI}.embedding", problems)
    emb_conn = _connection(openai, emb_section, "embedding", problems)
    chat_models = _mapping(ai.get("chat-models"), CHAT, problems)
    emb_models = _mapping(ai.get("embedding-models"), EMBEDDING, problems)
    chat_defaults = _mapping(
        chat_models.get("default-options"), f"{CHAT}.default-options", problems
    )
    emb_defaults = dict(
        _mapping(emb_models.get("default-options"), f"{EMBEDDING}.default-options", problems)
    )
    default_dims = emb_defaults.pop("dimensions", None)
    data: dict[str, Any] = {
        "defaults": {
            "judge": {**_judge_options(chat_defaults), **chat_conn.options},
            "embedding": {**_extra_options(emb_defaults), **emb_conn.options},
        },
        "judges": _entries(
            chat_models,
            chat_conn,
            _single(openai, "chat", problems),
            CHAT,
            problems,
            embedding=False,
        ),
        "embeddings": _entries(
            emb_models,
            emb_conn,
            _single(openai, "embedding", problems),
            EMBEDDING,
            problems,
            embedding=True,
        ),
        "retry": _retry(_mapping(ai.get("retry"), "spring.ai.retry", problems)),
    }
    if default_dims is not None:
        data["defaults"]["dimensions"] = _as_list(default_dims)
    data |= _mapping(raw.get(EXTRA_KEY), EXTRA_KEY, problems)
    if "metrics" not in data:
        data["metrics"] = (
            list(METRICS)
            if data["embeddings"]
            else [m for m, k in METRICS.items() if not k.uses_embeddings]
        )
        _note(
            f"note: no metrics in the Spring file; scoring {len(data['metrics'])}: "
            f"{', '.join(data['metrics'])} (add judgegrid: {{metrics: [...]}} to choose)"
        )
    return data, list(dict.fromkeys(problems))  # a root base-url is read twice: said once


def spring_problem(problem: Problem) -> Problem:
    """A problem of the translated matrix named by the Spring path it came from."""
    for matrix_path, spring_path in SPRING_PATHS:
        if problem.where == matrix_path or problem.where.startswith(
            (f"{matrix_path}.", f"{matrix_path}[")
        ):
            rest = problem.where[len(matrix_path) :].replace("_", "-")  # Spring's spelling
            return Problem(spring_path + rest, problem.message)
    if problem.where and not problem.where.startswith("spring"):
        return Problem(f"{EXTRA_KEY}.{problem.where}", problem.message)
    return problem


class _Connection:
    """Where one kind of model is reached: the litellm prefix and the options it implies."""

    def __init__(self, prefix: str, options: dict[str, Any]) -> None:
        self.prefix = prefix
        self.options = options


def _add_once(problems: list[Problem], problem: Problem) -> None:
    """A problem of ``spring.ai.openai``, which the chat and the embedding models both read,
    named once."""
    if problem not in problems:
        problems.append(problem)


def _key_as_default(variable: str) -> str:
    """Why ``${VARIABLE:key}`` is refused: the default puts the key in the file itself."""
    return (
        f"the default after ${{{variable}:…}} looks like an API key, written in the file "
        f"itself; write ${{{variable}}} and set the environment variable {variable} (judgegrid "
        "reads keys only from the environment, and never uses a default)"
    )


# A key in the base-url (``https://user:key@host``, ``?key=…``) would be written by ``init`` into
# the matrix it makes, and masked (so lost) when a run is stored: Spring has api-key for it.
CREDENTIALS_IN_URL = (
    "carries credentials (user:key@ or a key parameter), which init would write into the "
    "matrix and a run could not resume; give the key as api-key: ${ENV_VAR} and set the variable"
)


def _carries_credentials(url: str) -> bool:
    """Whether a base-url holds a secret: userinfo (with a scheme or without) or a key
    parameter (``core.redaction.has_credentials``)."""
    authority = url.split("://", 1)[-1].split("/", 1)[0]
    return "@" in authority or has_credentials(url)


def _connection(
    openai: dict[str, Any], own: dict[str, Any], kind: str, problems: list[Problem]
) -> _Connection:
    """The base-url and api-key of ``spring.ai.openai.<kind>``, else of ``spring.ai.openai``."""
    base_url = own.get("base-url", openai.get("base-url"))
    key = own.get("api-key", openai.get("api-key"))
    where = f"{OPENAI}.{kind}" if "api-key" in own else OPENAI
    options: dict[str, Any] = {}
    if isinstance(key, bool):  # api-key: no, read by YAML as a boolean
        hint = boolean_hint(key, number_due=False)
        _add_once(problems, Problem(f"{where}.api-key", f"the boolean {key}: {hint}"))
    elif key is not None:
        match = PLACEHOLDER.fullmatch(str(key).strip())
        if match and looks_like_key(match.group(2) or ""):
            _add_once(problems, Problem(f"{where}.api-key", _key_as_default(match.group(1))))
        elif match:
            options["api_key_env"] = match.group(1)
        else:
            _add_once(
                problems,
                Problem(
                    f"{where}.api-key",
                    "write the key as a ${ENV_VAR} placeholder and set the variable; judgegrid "
                    "reads keys only from the environment, never from a file",
                ),
            )
    if base_url is None:
        return _Connection("openai/", options)
    url_at = f"{OPENAI}.{kind}" if "base-url" in own else OPENAI
    if isinstance(base_url, bool):  # base-url: on, read by YAML as a boolean
        hint = boolean_hint(base_url, number_due=False)
        _add_once(problems, Problem(f"{url_at}.base-url", f"the boolean {base_url}: {hint}"))
        return _Connection("openai/", options)
    url = str(base_url).rstrip("/")
    if _carries_credentials(url):
        _add_once(problems, Problem(f"{url_at}.base-url", CREDENTIALS_IN_URL))
        return _Connection("openai/", options)
    if OPENROUTER_HOST in url:
        return _Connection("openrouter/", options)
    reason = not_an_http_url(url)
    if reason is not None:
        problems.append(Problem(f"{url_at}.base-url", reason))
        return _Connection("openai/", options)
    # Spring appends /v1/chat/completions to its base-url; litellm's api_base ends at /v1.
    options["api_base"] = url if url.endswith("/v1") else f"{url}/v1"
    return _Connection("openai/", options)


def _single(openai: dict[str, Any], kind: str, problems: list[Problem]) -> dict[str, Any] | None:
    """``spring.ai.openai.<kind>.options`` (the one-model setup) as an entry, if it names one;
    its keys that are no names are named at their own place."""
    section = openai.get(kind)
    opts = section.get("options") if isinstance(section, dict) else None
    if isinstance(opts, dict):
        opts = _mapping(opts, f"{OPENAI}.{kind}.options", problems)
    if isinstance(opts, dict) and opts.get("model"):
        rest = {k: v for k, v in opts.items() if k != "model"}
        return {"id": opts["model"], "options": rest}
    return None


def _entries(
    models: dict[str, Any],
    conn: _Connection,
    single: dict[str, Any] | None,
    where: str,
    problems: list[Problem],
    *,
    embedding: bool,
) -> list[dict[str, Any]]:
    listed = models.get("list")
    if listed is None:
        listed = [single] if single else []
    if not isinstance(listed, list):
        problems.append(Problem(f"{where}.list", "expected a list of { id: ... } entries"))
        return []
    entries = []
    for i, item in enumerate(listed):
        if not isinstance(item, dict) or item.get("id") in (None, ""):
            problems.append(
                Problem(
                    f"{where}.list[{i}].id", "missing: each entry needs an id (the model's name)"
                )
            )
            continue
        if not _is_name(item["id"]):
            problems.append(Problem(f"{where}.list[{i}].id", _not_a_name(item["id"])))
            continue
        options = dict(_mapping(item.get("options"), f"{where}.list[{i}].options", problems))
        entry: dict[str, Any] = {"id": f"{conn.prefix}{item['id']}", "label": str(item["id"])}
        if embedding and "dimensions" in options:
            entry["dimensions"] = _as_list(options.pop("dimensions"))
        own = _extra_options(options) if embedding else _judge_options(options)
        if own:
            entry["options"] = own
        entries.append(entry)
    return entries


def _judge_options(options: dict[str, Any]) -> dict[str, Any]:
    """Spring chat options as ModelOptions fields; the ones it has no field for go to extra."""
    known = {JUDGE_OPTIONS[_plain(k)]: v for k, v in options.items() if _plain(k) in JUDGE_OPTIONS}
    rest = {k: v for k, v in options.items() if _plain(k) not in JUDGE_OPTIONS}
    return known | _extra_options(rest)


def _extra_options(options: dict[str, Any]) -> dict[str, Any]:
    return {"extra": {k.replace("-", "_"): v for k, v in options.items()}} if options else {}


def _plain(key: str) -> str:
    return key.lower() if "-" in key else re.sub(r"(?<!^)(?=[A-Z])", "-", key).lower()


def _retry(retry: dict[str, Any]) -> dict[str, Any]:
    """``spring.ai.retry`` as the matrix's retry: its backoff block flattened, Spring's
    default of 10 attempts kept. ``on-client-errors`` has no counterpart: judgegrid never
    retries a 4xx other than those listed in ``on-http-codes``."""
    if not retry:
        return {}
    backoff = retry.get("backoff")
    backoff = backoff if isinstance(backoff, dict) else {}
    out: dict[str, Any] = {"max_attempts": retry.get("max-attempts", SPRING_MAX_ATTEMPTS)}
    if "on-http-codes" in retry:
        out["on_http_codes"] = retry["on-http-codes"]
    for key in ("initial-interval", "max-interval", "multiplier"):
        if key in backoff:
            out[key.replace("-", "_")] = backoff[key]
    return out


def _mapping(value: Any, where: str, problems: list[Problem]) -> dict[str, Any]:
    """``value`` as a mapping of Spring names; a key that is not text (YAML's unquoted
    ``yes``/``on`` is a boolean, ``1`` a number) is refused and left out."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(Problem(where, f"expected a mapping, got {type(value).__name__}"))
        return {}
    problems += [Problem(f"{where}.{key}", _not_a_name(key)) for key in value if not _is_name(key)]
    return {key: item for key, item in value.items() if _is_name(key)}


def _is_name(value: Any) -> bool:
    return isinstance(value, str)


def _not_a_name(value: Any) -> str:
    """Why a key or an id that YAML read as a boolean or a number is not a name."""
    if isinstance(value, bool):
        return f"expected a name, got the boolean {value}: {boolean_hint(value, number_due=False)}"
    return f"expected a name, got {type(value).__name__} {value!r}: write it in quotes"


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _note(text: str) -> None:
    """Say once per process what was assumed (the loader may read one file several times)."""
    if text not in _noted:
        _noted.add(text)
        print(text, file=sys.stderr)
