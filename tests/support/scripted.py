"""A scripted judge and embedding model: canned JSON through litellm, no network.

Registered as the litellm provider ``scripted``, so the tests exercise the same path as a real
model (litellm.acompletion → provider → response) while every answer is decided here. Tests can
replace the answer for a step, make calls fail with an HTTP status, or slow them down, and give
the score token's log-probabilities of a request that asks for them (``alternatives``; none by
default, as a provider that returns none).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import litellm
from litellm import CustomLLM, EmbeddingResponse, ModelResponse, Usage
from litellm.llms.custom_llm import CustomLLMError
from litellm.types.utils import ChoiceLogprobs

from judgegrid.plan.placeholders import (  # noqa: F401 (tests import these from here)
    EMBED_DIM,
    bag_of_words,
    default_answer,
    last_block,
    step_of,
)
from judgegrid.testing.logprob_tokens import scripted_logprobs

PROVIDER = "scripted"


@dataclass
class Script:
    """What the scripted provider does; tests mutate it, ``reset`` restores the defaults.

    ``fail(model, step, n)`` returns an HTTP status to fail with, or None; ``n`` counts earlier
    attempts of the same request (same messages and seed, or same texts).
    ``alternatives(step, prompt, model, text)`` gives, for a request that asks for
    ``logprobs``, the alternatives at the score token of the reply ``text`` (value → log-
    probability, the chosen value among them), or None to return no log-probabilities.
    """

    answer: Callable[[str, str, str], dict[str, Any] | str] = default_answer
    fail: Callable[[str, str, int], int | None] = lambda model, step, n: None
    alternatives: Callable[[str, str, str, str], dict[str, float] | None] = (
        lambda step, prompt, model, text: None
    )
    delay_s: float = 0.0
    calls: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.answer = default_answer
        self.fail = lambda model, step, n: None
        self.alternatives = lambda step, prompt, model, text: None
        self.delay_s = 0.0
        self.calls.clear()


SCRIPT = Script()


class ScriptedProvider(CustomLLM):
    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        prompt = "\n\n".join(str(m.get("content") or "") for m in messages)
        step = step_of(messages[1]["content"] if len(messages) > 1 else prompt)
        params = dict(kwargs.get("optional_params") or {})
        fingerprint = (model, json.dumps(messages[:2]), params.get("seed"))
        with SCRIPT.lock:
            n = sum(1 for c in SCRIPT.calls if c.get("fingerprint") == fingerprint)
            SCRIPT.calls.append(
                {
                    "kind": "completion",
                    "model": model,
                    "step": step,
                    "params": params,
                    "fingerprint": fingerprint,
                    "api_key": kwargs.get("api_key"),
                }
            )
        if SCRIPT.delay_s:
            time.sleep(SCRIPT.delay_s)
        status = SCRIPT.fail(model, step, n)
        if status:
            raise CustomLLMError(status_code=status, message=f"scripted failure {status}")
        answer = SCRIPT.answer(step, prompt, model)
        text = answer if isinstance(answer, str) else json.dumps(answer)
        response: ModelResponse = kwargs.get("model_response") or ModelResponse()
        response.choices[0].message.content = text  # type: ignore[union-attr]
        response.choices[0].finish_reason = "stop"
        if params.get("logprobs"):
            alternatives = SCRIPT.alternatives(step, prompt, model, text)
            logprobs = scripted_logprobs(text, alternatives, params.get("top_logprobs"))
            if logprobs is not None:
                response.choices[0].logprobs = ChoiceLogprobs(**logprobs)  # type: ignore[union-attr]
        response.model = model
        response.usage = Usage(
            prompt_tokens=len(prompt) // 4,
            completion_tokens=len(text) // 4,
            total_tokens=(len(prompt) + len(text)) // 4,
        )
        return response

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages, *args, **kwargs)

    def embedding(self, model: str, input: list, *args: Any, **kwargs: Any) -> Any:
        texts = [input] if isinstance(input, str) else list(input)
        fingerprint = (model, json.dumps(texts))
        with SCRIPT.lock:
            n = sum(1 for c in SCRIPT.calls if c.get("fingerprint") == fingerprint)
            SCRIPT.calls.append(
                {
                    "kind": "embedding",
                    "model": model,
                    "step": "embed",
                    "texts": texts,
                    "fingerprint": fingerprint,
                    "params": dict(kwargs.get("optional_params") or {}),
                    "api_key": kwargs.get("api_key"),
                }
            )
        status = SCRIPT.fail(model, "embed", n)
        if status:
            raise CustomLLMError(status_code=status, message=f"scripted failure {status}")
        response: EmbeddingResponse = kwargs.get("model_response") or EmbeddingResponse()
        response.data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t)}
            for i, t in enumerate(texts)
        ]
        response.model = model
        response.usage = Usage(prompt_tokens=sum(len(t) // 4 for t in texts), total_tokens=0)
        return response

    async def aembedding(self, model: str, input: list, *args: Any, **kwargs: Any) -> Any:
        return self.embedding(model, input, *args, **kwargs)


def register() -> None:
    litellm.custom_provider_map = [
        *[p for p in litellm.custom_provider_map if p["provider"] != PROVIDER],
        {"provider": PROVIDER, "custom_handler": ScriptedProvider()},
    ]
    litellm.utils.custom_llm_setup()
