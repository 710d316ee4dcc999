"""Plain configuration objects for the model clients: a model's options, its retry policy, how
its embeddings are cut to a dimension, and one judge or embedding entry of a matrix.

These are value types: the clients (``judge``, ``embedder``, ``transport``) are configured with
them, and the matrix (``matrix.py``) is parsed into them, so the clients never import the matrix.
Keys are snake_case here; ``matrix.py`` accepts kebab-case spellings before validating.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from judgegrid.core.redaction import (
    SECRET_FIELDS,
    from_environment,
    is_secret_header,
    looks_like_key,
)
from judgegrid.core.values import Distinct, Number, Whole

# How long a call over HTTP waits for its answer when the matrix sets no timeout: a judge's
# answer of a few hundred tokens takes seconds even on a busy hosted model, a batch of
# embeddings less; litellm's own default (600 s, retried) left a silent server silent for an
# hour. A self-served model on a slow machine may need more: the matrix's timeout wins.
JUDGE_TIMEOUT_S = 120.0
EMBEDDING_TIMEOUT_S = 60.0

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")


def parse_duration(value: Any) -> float:
    """Seconds from a number (seconds) or a string such as ``2000ms``, ``2s``, ``1m`` or ``1h``."""
    if isinstance(value, bool):
        raise ValueError("expected a duration such as 2s or 2000ms")
    if isinstance(value, int | float):
        return float(value)
    match = _DURATION.match(str(value))
    if not match:
        raise ValueError("expected a duration such as 2s or 2000ms")
    number, unit = float(match.group(1)), match.group(2) or "s"
    return number * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]


def duration_words(seconds: float) -> str:
    """A duration as a person reads it: ``an hour``, ``20 minutes``, ``2.5 hours``."""
    if seconds == 3600:
        return "an hour"
    units = (("hour", 3600.0), ("minute", 60.0))
    unit, size = next(((u, n) for u, n in units if seconds >= n), ("second", 1.0))
    count = seconds / size
    return f"{count:g} {unit}{'s' if count != 1 else ''}"


Duration = Annotated[Number, BeforeValidator(parse_duration), Field(ge=0)]


def not_an_http_url(url: str) -> str | None:
    """Why ``url`` cannot be a provider's address (None: it can): litellm needs the scheme and
    the host, and without them (``localhost:8000``) every call fails, after the run began. The
    one check of a matrix's ``api_base`` and a Spring file's ``base-url``."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.netloc:
        return None
    return f"not an http(s) URL: {url!r} (e.g. http://127.0.0.1:8000/v1)"


class StrictModel(BaseModel):
    """Unknown fields are errors (a typo must not be ignored) and values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


OutputMode = Literal["auto", "json_schema", "json_object", "instructions"]


class ModelOptions(StrictModel):
    """Options that reach litellm with every call to one model."""

    temperature: Number | None = Field(
        None,
        ge=0,
        le=2,
        description="Sampling temperature (0 to 2); unset: the provider's default.",
    )
    max_tokens: Whole | None = Field(
        None,
        gt=0,
        description="Most tokens an answer may take; a longer one fails as cut off at max_tokens.",
    )
    top_p: Number | None = Field(
        None,
        gt=0,
        le=1,
        description="Nucleus sampling: the share of probability mass sampled from (0 to 1].",
    )
    seed: Whole | None = Field(
        None, description="Base seed; repeat r and generation i get seed + 1000*r + i."
    )
    timeout: Duration | None = Field(
        None,
        description="How long one call over HTTP may wait for its answer (2s, 1m); unset: "
        f"{JUDGE_TIMEOUT_S:g} s for a judge, {EMBEDDING_TIMEOUT_S:g} s for an embedding model. "
        "A call still waiting after 10 s is named on the terminal. The in-process local/ "
        "models have none unless it is set (a slow machine is not a dead server).",
    )
    api_base: str | None = Field(
        None, description="The URL of the provider or of your own OpenAI-compatible server."
    )
    api_key_env: str | None = Field(
        None, description="Name of the environment variable holding the key (never the key)."
    )
    output_mode: OutputMode = Field(
        "auto",
        description="How a judge's answers are held to their JSON shape. auto: json_schema where "
        "litellm's tables say the model enforces a schema (and for in-process models), else "
        "json_object or the prompt's instructions. Set json_schema for a self-served model "
        "whose server enforces schemas (vLLM, llama.cpp's server, Ollama): the tables cannot "
        "know what a server at an api_base does.",
    )
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Further provider arguments passed to litellm as is."
    )

    @field_validator("api_key_env")
    @classmethod
    def _looks_like_variable_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError(
                "expected the NAME of an environment variable (e.g. OPENAI_API_KEY), not a key"
            )
        return value

    @field_validator("extra")
    @classmethod
    def _no_inline_secrets(cls, value: dict[str, Any]) -> dict[str, Any]:
        secret = sorted(k for k in value if k.lower().replace("-", "_") in SECRET_FIELDS)
        if secret:
            raise ValueError(
                f"{', '.join(secret)} must not be written in the matrix; put the key in an "
                "environment variable and name it in api_key_env"
            )
        headers = value.get("extra_headers")
        if headers is not None:
            _headers_hold_no_key(headers)
        return value


def _headers_hold_no_key(headers: Any) -> None:
    """``extra: {extra_headers: …}``: a mapping of names to text, no credential written in it.
    A key-shaped value, or any literal value of a credential header (``Authorization``,
    ``x-api-key``), is refused like a key written in ``api_key_env``: it would sit in the
    matrix file; ``${VAR}`` reads it from the environment at call time."""
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ValueError("extra_headers: expected a mapping of header names to text")
    for name, text in headers.items():
        if from_environment(text):
            continue
        if is_secret_header(name) or looks_like_key(text):
            raise ValueError(
                f"extra_headers.{name}: a credential must not be written in the matrix; put "
                f"it in an environment variable and write its name: {name}: "
                "'Bearer ${MY_GATEWAY_KEY}'"
            )


BatchRetry = Literal["batch", "live"]
# More workers than any machine or cluster here runs at once: a typo, not a plan.
MAX_WORKERS = 1024
# Providers whose batch API takes OpenAI's JSONL request lines through litellm's batch functions,
# and what they accept: the completion windows, and the lines and bytes of one batch file.
BATCH_PROVIDERS = ("openai", "azure")
BATCH_WINDOWS = ("24h",)
BATCH_MAX_LINES = 50_000
BATCH_MAX_BYTES = 200 * 2**20


def provider_of(model_id: str) -> str:
    """litellm's provider prefix of a model id (``openai`` for a bare name, as litellm does)."""
    return model_id.split("/", 1)[0] if "/" in model_id else "openai"


def has_batch_api(model_id: str) -> bool:
    """Whether batch mode can run the model (its provider takes OpenAI's batch files)."""
    return provider_of(model_id) in BATCH_PROVIDERS


class BatchMode(StrictModel):
    """Requests to the entry go through the provider's batch API instead of one call each
    (about half the price, answers within the completion window). Written ``batch: true`` for
    the defaults, or as a mapping to set any of these."""

    enabled: bool = Field(True, description="false: live calls (batch: false).")
    completion_window: str = Field(
        "24h",
        description="The provider's completion window: 24h, the one OpenAI's and Azure's batch "
        "APIs accept.",
        json_schema_extra={"enum": list(BATCH_WINDOWS)},  # the schema says what is accepted
    )
    poll_interval: Duration = Field(
        30.0, description="First wait between two looks at a pending batch; grows 1.5× a look."
    )
    max_poll_interval: Duration = Field(600.0, description="The longest wait between two looks.")
    gather: Duration = Field(
        2.0,
        description="A batch file is sent once no new request has come for this long (the "
        "requests a stage makes arrive together), or once it is full.",
    )
    max_lines: Whole = Field(
        BATCH_MAX_LINES,
        ge=1,
        le=BATCH_MAX_LINES,
        description="Requests per batch file (OpenAI takes 50,000 at most).",
    )
    max_bytes: Whole = Field(
        BATCH_MAX_BYTES,
        ge=1024,
        le=BATCH_MAX_BYTES,
        description="Bytes per batch file (OpenAI takes 200 MB at most).",
    )
    retry: BatchRetry = Field(
        "batch",
        description="Where a failed or expired line is tried again (within retry.max_attempts): "
        "batch (in the next batch) or live (one call at once).",
    )

    @field_validator("completion_window")
    @classmethod
    def _window_providers_accept(cls, value: str) -> str:
        if value.strip() not in BATCH_WINDOWS:
            raise ValueError(
                f"the batch APIs ({', '.join(BATCH_PROVIDERS)}) accept a completion window of "
                f"{' or '.join(BATCH_WINDOWS)} only"
            )
        return value.strip()


def _batch_flag(value: Any) -> Any:
    """``batch: true`` is the default batch mode; ``batch: false`` is live whatever the
    defaults say; absent (None) follows the defaults."""
    return {"enabled": value} if isinstance(value, bool) else value


BatchSetting = Annotated[BatchMode | None, BeforeValidator(_batch_flag)]


class ModelEntry(StrictModel):
    """What every judge and embedding entry has: a model, its options and its own limits."""

    id: str = Field(min_length=1, description="litellm model id")
    label: str | None = Field(None, description="Name used in reports; defaults to the id.")
    options: ModelOptions = Field(
        ModelOptions(),
        description="Options sent with every call to this model, laid over the matrix's defaults.",
    )
    max_concurrency: Whole | None = Field(
        None, ge=1, description="Calls in flight to this entry (default: concurrency.per-model)."
    )
    requests_per_minute: Number | None = Field(
        None, gt=0, description="At most this many requests a minute to this entry."
    )
    tokens_per_minute: Number | None = Field(
        None, gt=0, description="At most this many tokens (in + out) a minute to this entry."
    )
    batch: BatchSetting = Field(
        None,
        description="true (or a mapping of batch options): send this entry's requests through "
        "the provider's batch API; false: live even when defaults.batch is set.",
    )


class JudgeSpec(ModelEntry):
    id: str = Field(min_length=1, description="litellm model id, e.g. openai/gpt-4o-mini")


DimensionMethod = Literal["auto", "native", "truncate"]
# The widest embedding models published give 4,096 dimensions (e5-mistral-7b, NV-Embed-v2,
# Qwen3-Embedding-8B; OpenAI's largest 3,072). Four times that is room for what comes next; more
# is a typo (a vector of a billion floats is 4 GB a sample), refused even where litellm does not
# know the model's own size to check against.
MAX_DIMENSIONS = 16_384


def _at_most_max_dimensions(value: int) -> int:
    if value > MAX_DIMENSIONS:
        raise ValueError(
            f"{value:,} dimensions: more than {MAX_DIMENSIONS:,}, four times the widest "
            "embedding models' 4,096; a typo?"
        )
    return value


Dimension = Annotated[
    Whole,
    Field(gt=0, json_schema_extra={"maximum": MAX_DIMENSIONS}),
    AfterValidator(_at_most_max_dimensions),  # a message that says why, not pydantic's le
]
# Each dimension is a grid column: one given twice would score the same cells twice.
Dimensions = Annotated[list[Dimension], Distinct]


class EmbeddingSpec(ModelEntry):
    id: str = Field(min_length=1, description="litellm embedding model id")
    dimensions: Dimensions | None = Field(
        None,
        min_length=1,
        description="Dimensions to score at, each once and at most 16,384 (default: "
        "defaults.dimensions, else the model's).",
    )
    dimension_method: DimensionMethod = Field(
        "auto",
        description="native: ask the provider for d dimensions; truncate: keep the first d "
        "components and L2-renormalise; auto: native for OpenAI text-embedding-3-*.",
    )


class RetryPolicy(StrictModel):
    on_http_codes: list[Whole] = Field(
        default_factory=lambda: [408, 429, 500, 502, 503, 504],
        description="HTTP statuses that are tried again; any other fails the call at once.",
    )
    on_timeout: bool = Field(
        True,
        description="Whether a call that timed out is tried again: once at most, whatever "
        "max-attempts says (a server silent for a whole timeout twice is down or not there).",
    )
    initial_interval: Duration = Field(
        2.0, description="The first wait before a retry (2s, 2000ms); a Retry-After header wins."
    )
    max_interval: Duration = Field(30.0, description="The longest wait between two attempts.")
    multiplier: Number = Field(
        2.0, ge=1, description="Each wait is the previous one times this, up to max-interval."
    )
    jitter: Number = Field(0.1, ge=0, le=1, description="± share of each wait drawn at random")
    max_attempts: Whole = Field(
        5, ge=1, description="Attempts of one call in all, the first included."
    )


class Concurrency(StrictModel):
    total: Whole = Field(8, ge=1, description="Calls in flight across all models.")
    per_model: Whole = Field(4, ge=1, description="Calls in flight to one model.")


Backend = Literal["processes", "ray"]
# A Ray cluster's address: ray://host:port (its client server) or host:port (its head node).
RAY_ADDRESS = r"(ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):\d{1,5}"


class DecisionOptions(StrictModel):
    """How the decision card chooses (``decision:`` in the matrix)."""

    margin: Number | None = Field(
        None,
        gt=0,
        lt=1,
        description="Non-inferiority margin: name the cheapest judge whose quality is shown "
        "(one-sided 95%) within this much of the best's.",
    )
    blind_only: bool = Field(
        False,
        description="Leave out labels given with the judges shown (judgegrid label "
        "--show-judges): validity against people from blind labels only.",
    )


class Execution(StrictModel):
    """Where a run's shards are scored: in this process (1 worker), in local worker processes
    (joblib's loky) or on a Ray cluster. The matrix's limits hold for the run as a whole: each of
    the workers gets its share of every concurrency and per-minute limit."""

    workers: Whole = Field(
        1,
        ge=1,
        le=MAX_WORKERS,
        description="Worker processes (or Ray tasks at once); 1 scores in this process.",
    )
    backend: Backend | None = Field(
        None, description="processes (the default when workers > 1) or ray."
    )
    address: str | None = Field(
        None,
        description="ray only: the address of a running Ray cluster (ray://host:10001 or "
        "auto); without it a local Ray instance is started.",
    )

    @field_validator("address")
    @classmethod
    def _ray_address(cls, value: str | None) -> str | None:
        """``auto``, ``ray://host:port`` or ``host:port``: anything else would fail inside
        Ray's own start, after the run directory was made."""
        if value is None or value.strip() == "auto":
            return value
        if not re.fullmatch(RAY_ADDRESS, value.strip()):
            raise ValueError(
                "expected auto, ray://host:port (a Ray client server) or host:port (the "
                "cluster's head)"
            )
        return value.strip()

    @model_validator(mode="after")
    def _address_needs_ray(self) -> Execution:
        if self.address is not None and self.backend != "ray":
            raise ValueError("address is for backend: ray only")
        return self

    @property
    def distributed(self) -> bool:
        """Whether shards go to workers (a backend is named or more than one worker asked)."""
        return self.workers > 1 or self.backend is not None

    @property
    def engine(self) -> Backend:
        return self.backend or "processes"
