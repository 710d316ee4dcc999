"""litellm's tables read without litellm give litellm's own answers, model by model.

``calls.providers.litellm_tables`` answers the plan's questions (prices, windows, keys, output
mode, ``n``, token counts) from the files litellm ships so that ``judgegrid plan`` need not
import it. Each answer is held here to litellm's for every model of its map the tables claim,
so an upgrade of litellm that changes a rule fails here, not silently in a plan.
"""

from __future__ import annotations

import random

import litellm
import pytest

from judgegrid.calls.judge import output_mode_of, supports_n
from judgegrid.calls.providers import litellm_tables as tables
from judgegrid.calls.providers.gateway import batch_token_price, token_price
from judgegrid.plan.placeholders import answer_for_messages

OPENAI = [
    f"openai/{name}"
    for name, entry in tables.price_map().items()
    if isinstance(entry, dict) and entry.get("litellm_provider") == "openai"
]
KNOWN = [model for model in OPENAI if tables.known_model(model) is not None]
TOKENS = [(1, 0), (0, 1), (123, 45), (170_000_000, 18_000_000), (253_000_000, 52_000_000)]


def test_the_tables_claim_the_openai_chat_and_embedding_models():
    kinds = {tables.known_model(m).kind for m in KNOWN}  # type: ignore[union-attr]
    assert "openai/gpt-4o-mini" in KNOWN and "openai/text-embedding-3-small" in KNOWN
    assert kinds == {"completion", "embedding"} and len(KNOWN) > 50
    assert tables.known_model("openrouter/openai/gpt-4o-mini") is None
    assert tables.known_model("openai/no-such-model") is None  # a self-served name: litellm


@pytest.mark.parametrize("model", KNOWN)
def test_a_known_model_is_what_litellm_says(model, monkeypatch):
    known = tables.known_model(model)
    assert known is not None
    info = litellm.get_model_info(model)
    assert known.context_tokens == info.get("max_input_tokens")
    assert known.vector_size == info.get("output_vector_size")
    litellm.get_llm_provider(model=model)  # routes: raises if not
    if known.kind == "completion":
        assert known.output_mode == output_mode_of(model)
        assert known.supports_n == supports_n(model)
    for prompt, output in TOKENS:
        output = output if known.kind == "completion" else 0
        assert known.price(prompt, output) == token_price(model, known.kind, prompt, output)
        assert known.batch_price(prompt, output) == batch_token_price(model, prompt, output)


@pytest.mark.parametrize("key", ["sk-test-not-real", "", None])
def test_the_key_a_known_model_needs_is_litellms(key, monkeypatch):
    has_key = key is not None  # litellm asks only that the variable is set, even empty
    if has_key:
        monkeypatch.setenv(tables.OPENAI_KEY, key)
    else:
        monkeypatch.delenv(tables.OPENAI_KEY, raising=False)
    for model in ("openai/gpt-4o-mini", "openai/text-embedding-3-small"):
        known = tables.known_model(model)
        assert known is not None
        expected = litellm.validate_environment(model=model)["missing_keys"]
        assert known.missing_keys({}) == expected == ([] if has_key else [tables.OPENAI_KEY])


MODELS_FOR_TOKENS = [
    "openai/gpt-4o-mini",
    "openai/text-embedding-3-small",
    "local/smollm2-135m",
    "local/gemma-3-270m",
    "openai/smollm2-135m",  # a self-served model (model_matrices/local-http.yaml)
    "ollama/qwen2.5:7b",
    "ollama/llama3.1:8b",
]


def _texts() -> list[str]:
    rng = random.Random(31)
    words = ["Ann", "wrote", "the", "report", "in", "1999.", "Ça", "va", "日本語", "<|endoftext|>"]
    texts = ["", "a", "Ann wrote it. She finished it in 1999.", "x" * 5000, "é" * 2049]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 900))) for _ in range(20)]
    return texts


@pytest.mark.parametrize("model", MODELS_FOR_TOKENS)
def test_tokens_are_counted_as_litellm_counts_them(model):
    assert tables.counts_with_default_encoding(model)
    for text in _texts():
        assert tables.count_text(text) == litellm.token_counter(model=model, text=text)
        messages = [
            {"role": "system", "content": "Answer in JSON."},
            {"role": "user", "content": text},
        ]
        assert tables.count_messages(messages) == litellm.token_counter(
            model=model, messages=messages
        )
    prompt = [{"role": "user", "content": "Break the answer into short statements.\nAnn."}]
    answer = str(answer_for_messages(prompt, model))
    assert tables.count_text(answer) == litellm.token_counter(model=model, text=answer)


def test_models_litellm_counts_otherwise_are_left_to_it(monkeypatch):
    names = ("gpt-4o-mini", "openrouter/google/gemini-2.5-flash", "groq/llama-3.1-8b", "plain")
    for model in (*names, "replicate/meta/x"):
        assert not tables.counts_with_default_encoding(model)
    monkeypatch.setenv("TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS", "64")
    assert not tables.counts_with_default_encoding("openai/gpt-4o-mini")
    assert tables.count_text("x" * (tables.EXACT_CHARS + 1)) is None


def test_nothing_is_claimed_when_litellm_would_fetch_its_prices(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    tables.known_model.cache_clear()
    try:
        assert tables.known_model("openai/gpt-4o-mini") is None
    finally:
        monkeypatch.undo()
        tables.known_model.cache_clear()
