"""A scripted judge and embedding model: canned JSON through litellm, no network.

Registered as the litellm provider ``scripted``, so the tests exercise the same path as a real
model (litellm.acompletion → provider → response) while every answer is decided here. Tests can
replace the answer for a step, make calls fail with an HTTP status, or slow them down.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import litellm
import numpy as np
from litellm import CustomLLM, EmbeddingResponse, ModelResponse, Usage
from litellm.llms.custom_llm import CustomLLMError

PROVIDER = "scripted"
EMBED_DIM = 64


def step_of(prompt: str) -> str:
    if "write the one question" in prompt:
        return "question"
    if "Break the answer into short statements" in prompt:
        return "statements"
    if "Take each sentence of the reference answer" in prompt:
        return "classify"
    if "decide whether the context supports it" in prompt:
        return "verdicts"
    if "Was the context useful to arrive at the given answer" in prompt:
        return "usefulness"
    if "List the unique named entities" in prompt:
        return "entities"
    if "say whether it is relevant to answering the input" in prompt:
        return "relevance"
    if "Explain in one or two sentences why the answer relevancy score" in prompt:
        return "ar_reason"
    return "unknown"


def last_block(prompt: str, label: str) -> str:
    """The value after the last 'Label:' line of a few-shot prompt (the real input)."""
    matches = re.findall(rf"^{label}: (.*)$", prompt, flags=re.MULTILINE)
    return matches[-1] if matches else ""


def last_section(prompt: str, label: str) -> str:
    """Everything after the last 'Label:' up to the 'JSON:' line (a value may span lines)."""
    matches = re.findall(rf"^{label}: (.*?)\nJSON:", prompt, flags=re.MULTILINE | re.DOTALL)
    return matches[-1] if matches else ""


def default_answer(step: str, prompt: str, model: str) -> dict[str, Any]:
    """Plausible answers: questions echo the answer's words; verdicts check word overlap."""
    if step == "question":
        answer = last_block(prompt, "Answer")
        evasive = any(w in answer.lower() for w in ("not sure", "don't know", "no information"))
        return {"question": f"What about {answer.rstrip('.')}?", "noncommittal": int(evasive)}
    if step == "statements":
        answer = last_block(prompt, "Answer")
        parts = [p.strip() for p in re.split(r"(?<=\.)\s+", answer) if p.strip()]
        return {"statements": parts}
    if step == "verdicts":
        context = last_block(prompt, "Context").lower()
        statements = json.loads(last_block(prompt, "Statements") or "[]")
        items = []
        for s in statements:
            words = {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 3}
            supported = sum(w in context for w in words) >= 0.6 * max(1, len(words))
            items.append({"statement": s, "reason": "word overlap", "verdict": int(supported)})
        return {"statements": items}
    if step == "usefulness":
        answer, context = last_block(prompt, "Answer"), last_block(prompt, "Context")
        return {"reason": "word overlap", "verdict": int(_overlap(answer, context) >= 0.3)}
    if step == "classify":
        context = last_block(prompt, "Context")
        sentences = [p for p in re.split(r"(?<=\.)\s+", last_block(prompt, "Reference")) if p]
        return {
            "classifications": [
                {
                    "statement": s,
                    "reason": "word overlap",
                    "attributed": int(_overlap(s, context) >= 0.6),
                }
                for s in sentences
            ]
        }
    if step == "entities":
        text = last_section(prompt, "Text")
        return {"entities": sorted(set(re.findall(r"\b(?:[A-Z][a-z]+|[0-9]{3,4})\b", text)))}
    if step == "relevance":
        question = last_block(prompt, "Input")
        statements = json.loads(last_block(prompt, "Statements") or "[]")
        return {
            "verdicts": [
                {"verdict": "yes", "reason": None}
                if _overlap(s, question) >= 0.3
                else {"verdict": "no", "reason": "off the question"}
                for s in statements
            ]
        }
    if step == "ar_reason":
        return {"reason": f"The score is {last_block(prompt, 'Score')} because of the verdicts."}
    raise AssertionError(f"scripted judge got an unknown prompt: {prompt[:200]}")


def _overlap(text: str, context: str) -> float:
    """Share of the text's longer words that occur in the context."""
    words = {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}
    return sum(w in context.lower() for w in words) / max(1, len(words))


def bag_of_words(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic embedding: hashed word counts, so shared words mean higher cosine."""
    vector = np.zeros(dim)
    vector[0] = 0.5  # a shared component: no text embeds to a zero vector, even truncated
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    return vector.tolist()


@dataclass
class Script:
    """What the scripted provider does; tests mutate it, ``reset`` restores the defaults.

    ``fail(model, step, n)`` returns an HTTP status to fail with, or None; ``n`` counts earlier
    attempts of the same request (same messages and seed, or same texts).
    """

    answer: Callable[[str, str, str], dict[str, Any] | str] = default_answer
    fail: Callable[[str, str, int], int | None] = lambda model, step, n: None
    delay_s: float = 0.0
    calls: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        self.answer = default_answer
        self.fail = lambda model, step, n: None
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
