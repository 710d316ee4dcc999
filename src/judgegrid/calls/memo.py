"""Each answer computed once: in flight, in the run database, in the cross-run cache, else asked.

One memo serves judge answers (keyed by step key) and embedding vectors (keyed by dimension and
text) alike. A key is looked up in flight first (another cell is already asking), then by
``find`` (the run database, so a resumed run does not ask again, then the cross-run cache); only
the keys nobody has are handed to ``compute``, together, so a batch is one call. What ``compute``
delivers is saved by ``keep`` and handed to every cell waiting for it.

A failure reaches every cell already waiting for it, and is never saved, so the next run asks
again. Within a run, ``share_failures`` says whether a later ask gets the same failure (judge
steps: one broken step fails every metric that needs it, at no further cost) or asks again
(vectors). On an interrupt the keys not yet delivered are dropped, to be asked on resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

Deliver = Callable[[int, V | BaseException], None]
# Computes the keys at the given indices, handing each outcome to ``deliver`` as soon as it is
# known (so an interrupt loses only the keys still in flight).
ComputeMissing = Callable[[list[int], Deliver[V]], Awaitable[None]]


class Memo(Generic[K, V]):
    def __init__(
        self,
        find: Callable[[K], V | None],
        keep: Callable[[K, V], None],
        share_failures: bool = True,
    ):
        self._find, self._keep, self._share_failures = find, keep, share_failures
        self._inflight: dict[K, asyncio.Future[V]] = {}

    async def once(self, key: K, compute: Callable[[], Awaitable[V]]) -> V:
        async def compute_missing(missing: list[int], deliver: Deliver[V]) -> None:
            deliver(0, await compute())

        (outcome,) = await self.many([key], compute_missing)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def many(self, keys: list[K], compute: ComputeMissing[V]) -> list[V | BaseException]:
        """The outcome of every key; ``compute`` gets the indices of the ones nobody has yet.

        Repeated keys in ``keys`` are computed once."""
        outcomes: dict[int, V | BaseException] = {}
        waiting: dict[int, asyncio.Future[V]] = {}
        missing: list[int] = []
        first_of: dict[K, int] = {}
        for i, key in enumerate(keys):
            if key in self._inflight:
                waiting[i] = self._inflight[key]
            elif key in first_of:
                continue
            elif (found := self._find(key)) is not None:
                outcomes[i] = found
            else:
                missing.append(i)
            first_of.setdefault(key, i)
        if missing:
            outcomes.update(await self._compute(keys, missing, compute))
        for i, future in waiting.items():
            try:
                outcomes[i] = await asyncio.shield(future)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                outcomes[i] = exc
        return [outcomes[i] if i in outcomes else outcomes[first_of[k]] for i, k in enumerate(keys)]

    async def _compute(
        self, keys: list[K], missing: list[int], compute: ComputeMissing[V]
    ) -> dict[int, V | BaseException]:
        loop = asyncio.get_running_loop()
        futures: dict[int, asyncio.Future[V]] = {i: loop.create_future() for i in missing}
        for i, future in futures.items():
            self._inflight[keys[i]] = future
        done: dict[int, V | BaseException] = {}

        def deliver(i: int, result: V | BaseException) -> None:
            if i in done:
                return
            if isinstance(result, BaseException):
                futures[i].set_exception(result)
                futures[i].exception()  # mark retrieved: waiters re-raise it themselves
                if not self._share_failures:
                    del self._inflight[keys[i]]
            else:
                self._keep(keys[i], result)
                futures[i].set_result(result)
            done[i] = result

        try:
            await compute(missing, deliver)
        except Exception as exc:
            for i in missing:
                deliver(i, exc)
        except BaseException:  # interrupted: the keys not yet done are asked again on resume
            for i, future in futures.items():
                if i not in done:
                    del self._inflight[keys[i]]
                    future.cancel()
            raise
        for i in missing:
            deliver(i, RuntimeError(f"{keys[i]!r} was not produced (a bug)"))
        return done
