"""The embedding client: vectors at a requested dimension, through ``litellm.aembedding``.

Providers with native ``dimensions`` (OpenAI text-embedding-3-*) are asked for them. Otherwise the
full vector is fetched once and truncated to the first d components, then L2-renormalised: exact
for Matryoshka-trained models, an approximation for others (the summary says which was used).
Vectors are kept in the run database and in the cross-run cache by (model, requested dimension,
text); texts found in neither are sent in one batch, and a text already in flight is not
requested twice.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from judgegrid.calls.batches import BatchQueue, BatchRequest
from judgegrid.calls.memo import Deliver, Memo
from judgegrid.calls.providers.gateway import Pricer, call_kwargs, call_timeout, litellm_module
from judgegrid.calls.transport import Transport, send
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import JudgegridError, ScoringError
from judgegrid.core.options import DimensionMethod, ModelOptions
from judgegrid.core.usage import Usage
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore

# A vector's address in the memo: (requested dimension, 0 = the model's own; text).
VectorKey = tuple[int, str]


def resolve_dimension_method(model: str, method: DimensionMethod) -> str:
    if method != "auto":
        return method
    return "native" if "text-embedding-3" in model else "truncate"


def truncate_and_normalise(vectors: np.ndarray, dimension: int) -> np.ndarray:
    """Keep the first ``dimension`` components of each row and rescale it to unit length."""
    vectors = np.atleast_2d(np.asarray(vectors, dtype=float))
    if dimension > vectors.shape[1]:
        raise ScoringError(
            f"dimension {dimension} is larger than the model's {vectors.shape[1]} dimensions"
        )
    cut = vectors[:, :dimension] if dimension else vectors
    norms = np.linalg.norm(cut, axis=1, keepdims=True)
    return cut / np.where(norms == 0, 1.0, norms)


def vector_memo(
    store: RunStore, cache: ResultCache | None, model: str, cache_model: str
) -> Memo[VectorKey, np.ndarray]:
    """The memo of one model's vectors: the run database, then the cross-run cache; fresh
    vectors are saved to both. A failed request is asked again by the next cell that needs it."""

    def find(key: VectorKey) -> np.ndarray | None:
        requested, text = key
        found = store.load_vectors(model, requested, [text])
        if not found and cache is not None:
            found = cache.get_vectors(cache_model, requested, [text])
            store.save_vectors(model, requested, found)
        return found.get(text)

    def keep(key: VectorKey, vector: np.ndarray) -> None:
        requested, text = key
        store.save_vectors(model, requested, {text: vector})
        if cache is not None:
            cache.put_vectors(cache_model, requested, {text: vector})

    return Memo(find, keep, share_failures=False)


class EmbeddingModel:
    def __init__(
        self,
        label: str,
        model: str,
        options: ModelOptions,
        method: DimensionMethod,
        transport: Transport,
        store: RunStore,
        cache: ResultCache | None = None,
        batch: BatchQueue | None = None,
    ):
        """``batch``: the entry's batch queue in batch mode (its requests go into batches)."""
        self.label, self.model, self.options = label, model, options
        self.method = resolve_dimension_method(model, method)
        self._transport, self._batch = transport, batch
        self.cache_model = vector_cache_model(model, options)
        self._price = Pricer(model, call_type="embedding")
        self._memo = vector_memo(store, cache, model, self.cache_model)

    def bind(self, dimension: int) -> BoundEmbedder:
        return BoundEmbedder(self, dimension)

    async def vectors(self, texts: list[str], dimension: int) -> tuple[np.ndarray, Usage]:
        """One row per text at ``dimension`` (0 = the model's own size)."""
        requested = dimension if self.method == "native" else 0
        raw, usage = await self._fetch(texts, requested)
        rows = np.stack([raw[t] for t in texts])
        if self.method == "native":
            return rows, usage
        return truncate_and_normalise(rows, dimension), usage

    async def _fetch(self, texts: list[str], requested: int) -> tuple[dict[str, np.ndarray], Usage]:
        """Vectors by text: from the memo, the texts nobody has in one batched call."""
        keys = [(requested, t) for t in texts]
        usage = Usage()

        async def compute(missing: list[int], deliver: Deliver[np.ndarray]) -> None:
            nonlocal usage
            asked = [texts[i] for i in missing]
            fresh, usage = await self._call(asked, requested)
            for i in missing:
                deliver(i, fresh[texts[i]])

        outcomes = await self._memo.many(keys, compute)
        found = {}
        for text, outcome in zip(texts, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                raise outcome
            found[text] = outcome
        return found, usage

    async def _call(self, texts: list[str], requested: int) -> tuple[dict[str, np.ndarray], Usage]:
        litellm = litellm_module()

        o = self.options
        request: dict[str, Any] = {"model": self.model, "input": texts}
        if requested:
            request["dimensions"] = requested
        if o.api_base is not None:
            request["api_base"] = o.api_base
        if (timeout := call_timeout(self.model, o, "embedding")) is not None:
            request["timeout"] = timeout  # the calls table shows the timeout each call had
        request.update(o.extra)

        def read(raw: Any) -> tuple[str, Usage, str | None]:
            tokens = int(getattr(getattr(raw, "usage", None), "prompt_tokens", 0) or 0)
            summary = f"{len(raw.data)} vectors of {len(_vector(raw.data[0]))} dimensions"
            return summary, Usage(calls=1, tokens_in=tokens, cost=self._price(raw)), None

        key = text_sha("\x1f".join([self.model, str(requested), *texts]))
        logged = {**request, "input": [t[:200] for t in texts]}
        raw, _, usage = await send(
            kind="embedding",
            model=self.model,
            label=self.label,
            step_key=key,
            request=logged,
            call=lambda: litellm.aembedding(**(request | call_kwargs(self.model, o))),
            read=read,
            transport=self._transport,
            tokens_estimate=sum(len(t) for t in texts) // 4,
            deferred=BatchRequest(self._batch, key, request) if self._batch else None,
        )
        vectors = {
            t: np.asarray(_vector(item), dtype=np.float32)
            for t, item in zip(texts, raw.data, strict=True)
        }
        return vectors, usage


class BoundEmbedder:
    """An embedding model at one dimension, adding up what the cell it serves has used."""

    def __init__(self, model: EmbeddingModel, dimension: int):
        self._model, self.dimension = model, dimension
        self.usage = Usage()

    async def embed(self, texts: list[str]) -> np.ndarray:
        try:
            rows, usage = await self._model.vectors(texts, self.dimension)
        except JudgegridError as exc:  # the calls of a failed request count for the cell too
            if exc.usage is not None:
                self.usage.add(exc.usage)
            raise
        self.usage.add(usage)
        return rows


def vector_cache_model(model: str, options: ModelOptions) -> str:
    """The cache's name for a model's vectors: its id, plus a digest of the options that may
    change them (another endpoint, provider arguments), so those never share vectors."""
    varying = {"api_base": options.api_base, "extra": options.extra}
    if not options.api_base and not options.extra:
        return model
    return f"{model}|{text_sha(json.dumps(varying, sort_keys=True, default=str))[:16]}"


def _vector(item: Any) -> list[float]:
    return item["embedding"] if isinstance(item, dict) else item.embedding
