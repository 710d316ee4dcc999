"""Grammar-constrained sampling for llama.cpp that stays fast on a 262k-token vocabulary.

llama-cpp-python puts llama.cpp's grammar sampler in front of the sampler chain, so the grammar is
checked against every token of the vocabulary at every step. Gemma 3 has 262,144 tokens, which
makes constrained generation about three times slower than free generation. Here the grammar is
asked only about the token the sampler picks from the raw logits (greedy, or top-k, top-p, min-p
and temperature, as llama-cpp-python's chain); only if it rejects that token is the grammar
applied to the whole vocabulary and the token picked again from what remains. This is how
llama.cpp's own tools sample with a grammar ("resampling"). A token the grammar rejects is never
chosen; greedy decoding gives exactly what grammar-first decoding gives.

The same stage records log-probabilities when a request asks for them (``TokenRecorder``):
llama-cpp-python's own ``logprobs`` need ``logits_all``, which keeps a row of logits per context
position (gigabytes for Gemma's vocabulary) and sorts the whole vocabulary in Python per token.
The stage sees the logits anyway, and reads the few it needs.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

TOP_K = 40  # llama-cpp-python's defaults for create_completion
MIN_P = 0.05


class TokenRecorder:
    """The log-probabilities of each generated token and of the ``top`` most likely tokens at
    its place, as OpenAI returns them: token id → log-probability.

    They are the model's own distribution, the softmax of its raw logits at temperature 1,
    read BEFORE the grammar mask: a token the grammar forbids may be among the alternatives,
    and the allowed ones do not add up to 1. Either is usable for G-Eval's weighting, which
    keeps only the allowed answers and renormalises over them (``expected_level``).
    Alternatives less likely than e^-10 times the most likely token (under 1 in 20,000) are
    left out, as weighing nothing: ranking the whole vocabulary (262,144 tokens for Gemma) at
    every token would cost more than making the token; this way it costs about 2 ms.
    """

    FLOOR = 10.0  # how far (in log-probability) below the most likely token an alternative may be

    def __init__(self, top: int):
        self.top = top
        # per generated token: (its id, its log-probability, the top alternatives)
        self.steps: list[tuple[int, float, list[tuple[int, float]]]] = []

    def before_mask(
        self, ids: np.ndarray, logits: np.ndarray
    ) -> tuple[float, list[tuple[int, float]]]:
        """What a step needs before the grammar touches the logits: their log-sum-exp and the
        top alternatives (id, log-probability), most likely first."""
        high = float(np.max(logits))
        total = high + math.log(float(np.sum(np.exp(logits - high), dtype=np.float64)))
        near = np.flatnonzero(logits >= high - self.FLOOR) if self.top > 0 else np.array([], int)
        if len(near) > self.top:
            near = near[np.argpartition(logits[near], -self.top)[-self.top :]]
        best = near[np.argsort(logits[near])[::-1]]
        return total, [(int(ids[i]), float(logits[i]) - total) for i in best]

    def record(
        self, seen: tuple[float, list[tuple[int, float]]], chosen_id: int, chosen_logit: float
    ) -> None:
        """The chosen token: the grammar leaves an allowed token's logit as it was."""
        total, alternatives = seen
        self.steps.append((chosen_id, chosen_logit - total, alternatives))


class ResamplingGrammar:
    """A sampler-chain stage that chooses the next token itself, grammar-checked lazily
    (without a grammar, it samples by the same rules and only records log-probabilities)."""

    def __init__(
        self,
        vocab: Any,
        grammar_text: str | None,
        temperature: float,
        top_p: float,
        seed: int | None,
        recorder: TokenRecorder | None = None,
    ):
        import llama_cpp

        self._lib = llama_cpp
        self._grammar: Any = None
        if grammar_text is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar_text.encode("utf-8"), b"root"
            )
            if not self._grammar:
                raise ValueError("llama.cpp could not parse the grammar")
        self._temperature = temperature
        self._top_p = top_p
        self._rng = np.random.default_rng(seed)
        self.recorder = recorder

    def close(self) -> None:
        if self._grammar:
            self._lib.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()

    def __call__(self, candidates_p: Any) -> None:
        """Choose the next token and leave it as the only finite logit for the greedy stage."""
        data = _view(candidates_p)
        seen = self.recorder.before_mask(data.id, data.logit) if self.recorder else None
        choice = self._choose(data.logit)
        if not self._allows(int(data.id[choice]), float(data.logit[choice])):
            self._lib.llama_sampler_apply(self._grammar, candidates_p)  # the slow, exact path
            data = _view(candidates_p)
            choice = self._choose(data.logit)
        logits = data.logit
        if self._grammar:
            self._lib.llama_sampler_accept(self._grammar, int(data.id[choice]))
        chosen = float(logits[choice])
        if self.recorder is not None and seen is not None:
            self.recorder.record(seen, int(data.id[choice]), chosen)
        logits[:] = -np.inf
        logits[choice] = chosen if math.isfinite(chosen) else 0.0

    def _choose(self, logits: np.ndarray) -> int:
        if self._temperature <= 0:
            return int(np.argmax(logits))
        top = _best(logits, TOP_K)
        top = top[np.isfinite(logits[top])]
        if len(top) == 0:
            return int(np.argmax(logits))
        probs = _softmax(logits[top])
        keep = max(int(np.searchsorted(np.cumsum(probs), self._top_p) + 1), 1)
        keep = min(keep, int(np.sum(probs >= MIN_P * probs[0])) or 1)
        top = top[:keep]
        return int(self._rng.choice(top, p=_softmax(logits[top] / self._temperature)))

    def _allows(self, token: int, logit: float) -> bool:
        if not self._grammar:
            return True
        lib = self._lib
        single = (lib.llama_token_data * 1)(lib.llama_token_data(token, logit, 0.0))
        array = lib.llama_token_data_array(data=single, size=1, selected=-1, sorted=False)
        lib.llama_sampler_apply(self._grammar, ctypes.byref(array))
        return math.isfinite(single[0].logit)


def _best(logits: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n largest logits, largest first."""
    n = min(n, len(logits))
    top = np.argpartition(logits, -n)[-n:]
    return top[np.argsort(logits[top])[::-1]]


def _softmax(values: np.ndarray) -> np.ndarray:
    shifted = np.exp(values.astype(np.float64) - np.max(values))
    return shifted / shifted.sum()


def _view(candidates_p: Any) -> np.recarray:
    """The candidates as a numpy record array over llama.cpp's own memory (no copy)."""
    import llama_cpp

    array = candidates_p.contents
    address = ctypes.addressof(array.data.contents)
    return np.recarray(
        shape=(array.size,),
        dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True),
        buf=(llama_cpp.llama_token_data * array.size).from_address(address),
    )


_LOG_CALLBACK: Any = None


def silence_llama_logs() -> None:
    """llama.cpp writes notes to stderr even with verbose=False; a run's output stays clean."""
    global _LOG_CALLBACK
    import llama_cpp

    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
        llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


def make_llama_class() -> type:
    """A ``llama_cpp.Llama`` whose grammar-constrained sampling uses ``ResamplingGrammar``."""
    from llama_cpp import Llama
    from llama_cpp import _internals as internals

    class ResamplingLlama(Llama):
        """``next_seed`` and ``next_recorder`` (log-probabilities wanted) are set by the caller
        before a completion, under the model's one-call-at-a-time turn."""

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.next_seed: int | None = None
            self.next_recorder: TokenRecorder | None = None

        def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
            grammar = kwargs.get("grammar")
            if grammar is None and self.next_recorder is None:
                return super()._init_sampler(*args, **kwargs)
            stage = ResamplingGrammar(
                self._model.vocab,
                None if grammar is None else grammar._grammar,
                float(kwargs.get("temp", 0.8)),
                float(kwargs.get("top_p", 0.95)),
                self.next_seed,
                self.next_recorder,
            )
            sampler = internals.LlamaSampler()
            sampler.add_custom(stage)
            sampler.add_greedy()
            # keep the stage alive as long as the chain (an attribute llama_cpp does not declare)
            setattr(sampler, "_judgegrid_stage", stage)  # noqa: B010
            return sampler

    return ResamplingLlama
