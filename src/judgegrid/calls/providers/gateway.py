"""litellm, set up once for judgegrid: no banners, no hidden SDK retries, keys from the
environment, prices from its map.

litellm takes about a second to import, so it is imported on first use (``litellm_module``),
not when judgegrid is: ``judgegrid validate`` and ``judgegrid metrics`` stay quick.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from judgegrid.core.options import EMBEDDING_TIMEOUT_S, JUDGE_TIMEOUT_S, ModelOptions
from judgegrid.core.redaction import ENV_PLACEHOLDER


def litellm_module() -> Any:
    """litellm, imported on first use (it takes a second) and told not to print help banners."""
    import litellm

    litellm.suppress_debug_info = True
    # litellm's OpenAI embedding path reads max_retries=0 as "unset" (``0 or DEFAULT``) and lets
    # the SDK retry twice unseen; judgegrid makes and records every attempt itself.
    setattr(litellm, "DEFAULT_MAX_RETRIES", 0)  # noqa: B010 (declared Final, meant as a setting)
    return litellm


def no_sdk_retries(model: str) -> dict[str, Any]:
    """Keyword arguments that stop a provider SDK (openai's retries twice) from retrying on its
    own: every attempt must be judgegrid's, under the matrix's policy, and in the calls table."""
    return {} if model.startswith("local/") else {"max_retries": 0}


def logprobs_unsupported(model: str) -> bool:
    """Whether litellm knows the model's provider cannot return the score token's alternatives:
    its supported parameters lack ``logprobs`` or ``top_logprobs`` (with the chosen token's
    log-probability alone there is nothing to weigh). A model litellm does not know is not
    refused (the run records "missing" where none come back); the embedded models return them.
    Asks no provider: litellm's own tables (offline with LITELLM_LOCAL_MODEL_COST_MAP)."""
    if model.startswith("local/"):
        return False
    litellm = litellm_module()
    try:
        name, provider, _, _ = litellm.get_llm_provider(model)
        params = litellm.get_supported_openai_params(model=name, custom_llm_provider=provider)
    except Exception:  # a provider litellm does not know: not known to refuse
        return False
    return params is not None and not {"logprobs", "top_logprobs"} <= set(params)


def call_timeout(model: str, options: ModelOptions, kind: str) -> float | None:
    """The seconds one call may wait for its answer: the options' ``timeout``, else judgegrid's
    default for a call over HTTP (``kind`` "completion" or "embedding"). An in-process
    ``local/`` model gets none unless one is set: it is not a server that may be gone, and on
    a two-core machine a long prompt may take minutes."""
    if options.timeout is not None:
        return options.timeout
    if model.startswith("local/"):
        return None
    return JUDGE_TIMEOUT_S if kind == "completion" else EMBEDDING_TIMEOUT_S


# What a self-served OpenAI-compatible server (vLLM, llama.cpp, Ollama) gets as its key when the
# matrix names none: the openai SDK refuses to send a request without one.
PLACEHOLDER_KEY = "not-needed"


def call_kwargs(model: str, options: ModelOptions) -> dict[str, Any]:
    """What a call adds to (or changes in) the logged request: the key read from the environment
    variable the options name (never written anywhere), credentials written in the api_base's
    URL (``url_credentials``) and the SDK's own retries switched off. The logged request keeps
    the api_base as written; the stores mask its credentials (``core.redaction``).

    An ``openai/`` model at an ``api_base`` with no ``api_key_env`` is a self-served endpoint
    (preflight asks no key for it): it gets a placeholder, never OPENAI_API_KEY from the
    environment, which belongs to OpenAI and not to whatever listens at that address."""
    variable = options.api_key_env
    kwargs: dict[str, Any] = {}
    if variable and variable in os.environ:
        kwargs = {"api_key": os.environ[variable]}
    if not variable and options.api_base and model.startswith("openai/"):
        kwargs = {"api_key": PLACEHOLDER_KEY}
    base, headers = url_credentials(options.api_base) if options.api_base else (None, {})
    if headers:
        kwargs["api_base"] = base
    written = options.extra.get("extra_headers") or {}
    if headers or written:
        kwargs["extra_headers"] = {**environment_headers(written, os.environ), **headers}
    return {**kwargs, **no_sdk_retries(model)}


def environment_headers(headers: dict[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """The matrix's ``extra_headers`` as sent: each ``${VAR}`` replaced by the variable's value
    (``Bearer ${GATEWAY_KEY}``), read at call time and never written (the logged request keeps
    the placeholder). A variable the environment lacks was refused before the run
    (``header_variables``)."""
    return {
        name: ENV_PLACEHOLDER.sub(lambda m: environ.get(m.group(1), ""), value)
        for name, value in headers.items()
    }


def header_variables(options: ModelOptions) -> list[str]:
    """The environment variables the ``extra_headers`` of ``options`` read (``${VAR}``)."""
    headers = options.extra.get("extra_headers") or {}
    return [m.group(1) for value in headers.values() for m in ENV_PLACEHOLDER.finditer(value)]


def url_credentials(api_base: str) -> tuple[str, dict[str, str]]:
    """(the api_base without its userinfo, the headers that carry it): ``https://user:KEY@host``
    is sent as HTTP Basic authentication, as curl and browsers send it. litellm's HTTP client
    refuses a URL with credentials in it next to the SDK's own Authorization header, so the
    URL as written would never reach the server."""
    parts = urlsplit(api_base)
    if "@" not in parts.netloc:
        return api_base, {}
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return urlunsplit(parts._replace(netloc=host)), {"Authorization": f"Basic {basic}"}


class Pricer:
    """The cost of a response from litellm's price map: 0 for in-process models, None (unknown,
    never 0) for a model the map lacks, which is then not asked again."""

    def __init__(self, model: str, call_type: str = "completion"):
        self.model, self.call_type = model, call_type
        self._unpriced = model.startswith("local/")

    def __call__(self, raw: Any) -> float | None:
        if self.model.startswith("local/"):
            return 0.0
        hidden = getattr(raw, "_hidden_params", None) or {}
        if "response_cost" in hidden:  # litellm prices every response itself: not twice
            cost = hidden["response_cost"]
            return None if cost is None else float(cost)
        if self._unpriced:  # asking litellm again costs time and cannot find a price
            return None
        try:
            return float(
                litellm_module().completion_cost(completion_response=raw, call_type=self.call_type)
            )
        except Exception:  # litellm raises for a model missing from its price table
            self._unpriced = True
            return None


def token_price(model: str, kind: str, prompt: int, output: int) -> float | None:
    """litellm's live price of the tokens, None where its map lacks the model (local: 0)."""
    if model.startswith("local/") or (prompt == 0 and output == 0):
        return 0.0
    try:
        p, o = litellm_module().cost_per_token(
            model=model, prompt_tokens=prompt, completion_tokens=output, call_type=kind
        )
    except Exception:  # litellm raises for a model its price map lacks
        return None
    return float(p) + float(o)


def batch_token_price(model: str, prompt: int, output: int) -> float | None:
    """litellm's batch price of the tokens: the map's ``*_cost_per_token_batches`` where it
    has them, else half the live price (litellm's own rule for batches); None where the map
    lacks the model, never 0."""
    if model.startswith("local/") or (prompt == 0 and output == 0):
        return 0.0
    litellm = litellm_module()
    from litellm.cost_calculator import batch_cost_calculator

    try:
        litellm.get_model_info(model=model)  # raises for a model the map lacks
        usage = litellm.Usage(
            prompt_tokens=prompt, completion_tokens=output, total_tokens=prompt + output
        )
        p, o = batch_cost_calculator(usage=usage, model=model)
    except Exception:
        return None
    return float(p) + float(o)
