"""What litellm would say about a model, read from the files litellm ships, without importing it.

Importing litellm takes 3 to 5 seconds on a loaded machine (it builds about 1,900 pydantic models
before it answers anything), which is all of ``judgegrid plan``'s time on a matrix that calls
nothing. Most of what the plan and the checks before a run ask of it is written in two of its
data files: the price map (``model_prices_and_context_window_backup.json``: prices, context
windows, vector sizes, JSON-schema support) and its copy of tiktoken's ``cl100k_base``. This
module answers from them, for the cases where litellm's answer is a plain read of them:

- ``openai/NAME`` where NAME is an OpenAI chat or embedding model of the map priced per token
  (no price tiers by prompt size): its facts (``KnownModel``);
- any ``provider/model`` id the map does not name and no Hugging Face tokenizer of litellm's
  claims: token counts, as litellm's ``token_counter`` makes them (tiktoken ``cl100k_base``,
  text cut in chunks, 3 tokens a message and 3 for the reply).

Everything else gets ``None`` and the caller asks litellm itself. The tests hold each answer
to litellm's own for every model of the map, so a litellm upgrade that changes a rule fails
them rather than the plan (``tests/calls/test_litellm_tables.py``).
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgegrid.core.errors import OptionError, Problem

PRICE_MAP = "model_prices_and_context_window_backup.json"
TOKENIZERS = "litellm_core_utils/tokenizers"
OPENAI_KEY = "OPENAI_API_KEY"
# litellm's token_counter: text encoded in chunks of this many characters, texts up to the
# second figure counted exactly; each can be changed in the environment, then litellm counts
TIKTOKEN_CHUNK_CHARS = 1024
EXACT_CHARS = 4_000_000
COUNTER_SETTINGS = ("TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS", "TOKEN_COUNTER_MAX_EXACT_CHARS")
TOKENS_PER_MESSAGE = 3
TOKENS_FOR_REPLY = 3  # every reply is primed with <|start|>assistant<|message|>
DEFAULT_ENCODING = "cl100k_base"
CUSTOM_TOKENIZERS_ENV = "CUSTOM_TIKTOKEN_CACHE_DIR"  # litellm's: where tiktoken's files are
# ids in which litellm's token_counter finds a Hugging Face tokenizer (llama 2 and 3, Replicate)
HF_TOKENIZER_WORDS = ("llama-2", "llama-3", "replicate")


@dataclass(frozen=True)
class KnownModel:
    """An OpenAI model as litellm's tables describe it."""

    kind: str  # "completion" or "embedding"
    context_tokens: int | None
    vector_size: int | None
    output_mode: str  # json_schema where the map says it takes a response schema
    supports_n: bool
    input_cost: float
    output_cost: float
    batch_input_cost: float
    batch_output_cost: float

    def missing_keys(self, env: Any) -> list[str]:
        """The key litellm's ``validate_environment`` asks for, if the environment lacks it."""
        return [] if OPENAI_KEY in os.environ or env.get(OPENAI_KEY) else [OPENAI_KEY]

    def price(self, prompt: int, output: int) -> float:
        """litellm's ``cost_per_token``: prompt and output tokens at their prices, summed."""
        return float(prompt * self.input_cost) + float(output * self.output_cost)

    def batch_price(self, prompt: int, output: int) -> float:
        return float(prompt * self.batch_input_cost) + float(output * self.batch_output_cost)


def litellm_folder() -> Path | None:
    """Where litellm is installed, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


@functools.cache
def price_map() -> dict[str, Any]:
    """litellm's bundled price map (the one it reads with LITELLM_LOCAL_MODEL_COST_MAP=True)."""
    folder = litellm_folder()
    if folder is None or not (folder / PRICE_MAP).is_file():
        return {}
    loaded = json.loads((folder / PRICE_MAP).read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def uses_local_price_map() -> bool:
    """litellm reads its bundled map only when told to (judgegrid tells it on import)."""
    return os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() == "true"


@functools.cache
def known_model(model: str) -> KnownModel | None:
    """The facts of an ``openai/NAME`` model whose prices, window and options litellm reads
    from its map alone; None for every other model (ask litellm)."""
    provider, _, name = model.partition("/")
    if provider != "openai" or not uses_local_price_map():
        return None
    entry = price_map().get(name)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai":
        return None
    kind = {"chat": "completion", "embedding": "embedding"}.get(str(entry.get("mode")))
    if kind is None or any("_above_" in key for key in entry):  # prices by prompt size
        return None
    input_cost = float(entry.get("input_cost_per_token") or 0.0)
    output_cost = float(entry.get("output_cost_per_token") or 0.0)
    return KnownModel(
        kind=kind,
        context_tokens=entry.get("max_input_tokens"),
        vector_size=entry.get("output_vector_size"),
        output_mode="json_schema" if entry.get("supports_response_schema") else "json_object",
        # litellm's GPT-5 search models take no ``n`` (OpenAIGPT5Config)
        supports_n=not ("gpt-5" in name and "search" in name),
        input_cost=input_cost,
        output_cost=output_cost,
        batch_input_cost=entry.get("input_cost_per_token_batches", input_cost / 2),
        batch_output_cost=entry.get("output_cost_per_token_batches", output_cost / 2),
    )


def similar_model(model: str) -> str | None:
    """The model of litellm's map closest to ``model`` from the same provider
    (``openai/gpt-4o-minii``: ``openai/gpt-4o-mini``), for a name litellm does not know; None
    where none is close."""
    provider, _, name = model.partition("/")
    if not name:
        return None
    names = {
        key.removeprefix(f"{provider}/")
        for key, entry in price_map().items()
        if isinstance(entry, dict) and entry.get("litellm_provider") == provider
    }
    guess = difflib.get_close_matches(name, sorted(names), n=1, cutoff=0.8)
    return f"{provider}/{guess[0]}" if guess and guess[0] != name else None


def counts_with_default_encoding(model: str) -> bool:
    """Whether litellm's ``token_counter`` counts this model's tokens with tiktoken's
    cl100k_base by its default rules: a ``provider/model`` id its map does not name (so none of
    its OpenAI, Azure, Cohere or Anthropic name lists holds it) and no Hugging Face tokenizer's
    word in it, with the counter's settings left as they are."""
    lowered = model.lower()
    return (
        "/" in model
        and model not in price_map()
        and not any(word in lowered for word in HF_TOKENIZER_WORDS)
        and not any(setting in os.environ for setting in COUNTER_SETTINGS)
        and litellm_folder() is not None
    )


@functools.cache
def default_encoding() -> Any:
    """tiktoken's cl100k_base from the copy litellm ships (where litellm points tiktoken too)."""
    import tiktoken  # litellm's own dependency: a tenth of a second, only when tokens are counted

    folder = litellm_folder()
    assert folder is not None  # counts_with_default_encoding checked it
    custom = os.environ.get(CUSTOM_TOKENIZERS_ENV)
    os.environ["TIKTOKEN_CACHE_DIR"] = custom or str(folder / TOKENIZERS)  # as litellm sets it
    try:
        return tiktoken.get_encoding(DEFAULT_ENCODING)
    except (OSError, ValueError) as exc:  # a folder without it: tiktoken fetches it, offline
        if not custom:
            raise
        message = (
            f"no {DEFAULT_ENCODING} tokenizer could be read there or fetched "
            f"({type(exc).__name__}); unset it to count with the copy litellm ships"
        )
        raise OptionError(f"{CUSTOM_TOKENIZERS_ENV}={custom}", [Problem("", message)]) from None


def count_text(text: str) -> int | None:
    """The tokens of a text as litellm's ``token_counter(text=...)`` counts them on the default
    encoding; None for a text so long that litellm would estimate it from samples."""
    if len(text) > EXACT_CHARS:
        return None
    encoding = default_encoding()
    return sum(
        len(encoding.encode(text[start : start + TIKTOKEN_CHUNK_CHARS], disallowed_special=()))
        for start in range(0, len(text), TIKTOKEN_CHUNK_CHARS)
    )


def count_messages(messages: list[dict[str, str]]) -> int | None:
    """The tokens of chat messages (role and content each) as litellm's
    ``token_counter(messages=...)`` counts them on the default encoding; None as ``count_text``."""
    total = TOKENS_FOR_REPLY
    for message in messages:
        total += TOKENS_PER_MESSAGE
        for value in message.values():
            counted = count_text(value)
            if counted is None:
                return None
            total += counted
    return total
