"""How a request reaches a provider: concurrency limits, the retry policy, and call accounting.

Both the judge client and the embedding client send their requests through ``send``. It applies
the matrix's retry policy (HTTP codes, exponential backoff with jitter, ``Retry-After``), fails at
once on permanent errors (400/401/403/404) with a message naming the model, and hands one
``CallRecord`` per attempt to the recorder, so the calls table shows every request made. A call
that timed out is tried once more at most, and a call still waiting after ``WAITING_NOTICE_S``
is named on the terminal (the log), so a silent server is never a silent run.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from judgegrid.core.errors import ProviderError
from judgegrid.core.options import RetryPolicy
from judgegrid.core.records import CallRecord
from judgegrid.core.redaction import redact_text, redact_url
from judgegrid.core.usage import Usage

PERMANENT_CODES = {
    400: "bad request",
    401: "authentication failed",
    403: "permission denied",
    404: "model or endpoint not found",
}
# Permanent failures that concern the model, not the request: the model is stopped for the run.
MODEL_WIDE_CODES = {401, 403, 404}
# A call that timed out is tried this often in all (once more), whatever max-attempts says: a
# server silent for a whole timeout twice is down or not there, and five timeouts of two
# minutes would hold one cell for ten.
TIMEOUT_ATTEMPTS = 2
# A call still without an answer this long is named on the terminal: which model, where, and
# how long it may still wait.
WAITING_NOTICE_S = 10.0
# A refused connection to one of these is to a server on this machine, such as serve-local's.
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

log = logging.getLogger("judgegrid")


class Recorder(Protocol):
    def record_call(self, call: CallRecord) -> None: ...


class Deferred(Protocol):
    """A request that a provider's batch API may answer instead of a call (``batches``).

    ``takes(attempt)`` says whether that attempt goes into a batch (else it is a live call);
    after ``result`` returns or raises, ``batch_id`` names the batch that answered and
    ``live_cost`` what the same call would have cost live."""

    batch_id: str | None
    live_cost: float | None

    def takes(self, attempt: int) -> bool: ...

    async def result(self, attempt: int) -> Any: ...


class RateLimit:
    """A token bucket refilled evenly at ``per_minute`` units a minute.

    It holds at most one second's worth (or one unit), so a run never bursts a minute's budget
    at once. A request larger than the bucket waits for a full bucket and leaves it in debt:
    it goes, and the requests after it wait longer. Waiters are served in arrival order.
    A worker's buckets start empty (``start_full`` False): it runs shard after shard, each with
    new buckets, and full ones would let a burst through at every shard's start.
    """

    def __init__(
        self,
        per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        start_full: bool = True,
    ):
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity if start_full else 0.0
        self._clock, self._sleep = clock, sleep
        self._updated = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(self.capacity, self.level + (now - self._updated) * self.rate)
        self._updated = now

    async def acquire(self, amount: float) -> None:
        async with self._lock:
            need = min(amount, self.capacity)
            while True:
                self._refill()
                if self.level >= need - 1e-9:  # float dust must not keep a waiter waiting
                    self.level -= amount
                    return
                await self._sleep((need - self.level) / self.rate)

    def settle(self, correction: float) -> None:
        """Charge (or refund, if negative) the difference between a guess and the real use."""
        self._refill()
        self.level = min(self.capacity, self.level - correction)


class ModelStopped(ProviderError):
    """A model already failed permanently (401/403/404) in this run; it is not called again.

    ``send`` passes it on as the very ProviderError of the first failure, so every cell of the
    stopped model carries one and the same message."""


class Limits:
    """Calls in flight and call rates: at most ``total`` overall, ``per_model`` (or the entry's
    own) per model, optional requests and tokens per minute per model; and a stop per model
    after a permanent failure, so a bad key costs one failed call per slot, not a retry storm."""

    def __init__(self, total: int, per_model: int, start_full: bool = True):
        self._start_full = start_full
        self._total = asyncio.Semaphore(total)
        self._per_model_default = per_model
        self._per_model: dict[str, asyncio.Semaphore] = {}
        self._requests: dict[str, RateLimit] = {}
        self._tokens: dict[str, RateLimit] = {}
        self._stopped: dict[str, tuple[str, int | None]] = {}

    def register(
        self,
        label: str,
        limit: int | None,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ) -> None:
        self._per_model[label] = asyncio.Semaphore(limit or self._per_model_default)
        if requests_per_minute:
            self._requests[label] = RateLimit(requests_per_minute, start_full=self._start_full)
        if tokens_per_minute:
            self._tokens[label] = RateLimit(tokens_per_minute, start_full=self._start_full)

    def stop(self, label: str, message: str, status: int | None = None) -> None:
        self._stopped.setdefault(label, (message, status))

    def _check(self, label: str) -> None:
        if label in self._stopped:
            message, status = self._stopped[label]
            raise ModelStopped(message, status=status, permanent=True)

    async def unlimited(self, label: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        """A request that no concurrency or per-minute limit holds back (a batch line: the
        provider's batch limits hold instead), unless the model was stopped."""
        self._check(label)
        return await fn()

    async def __call__(self, label: str, fn: Callable[[], Awaitable[Any]], tokens: int = 0) -> Any:
        model_sem = self._per_model.setdefault(label, asyncio.Semaphore(self._per_model_default))
        self._check(label)
        async with model_sem:
            self._check(label)
            if label in self._requests:
                await self._requests[label].acquire(1)
            if label in self._tokens:
                await self._tokens[label].acquire(tokens)
            async with self._total:
                self._check(label)
                return await fn()

    def settle_tokens(self, label: str, correction: int) -> None:
        if label in self._tokens:
            self._tokens[label].settle(correction)


@dataclass(frozen=True)
class Transport:
    """What every client of a run shares to send requests: the retry policy, the limits, where
    each attempt is recorded, and the random source of the backoff jitter."""

    policy: RetryPolicy
    limits: Limits
    recorder: Recorder
    rng: random.Random


def status_of(exc: BaseException) -> int | None:
    """The HTTP status a provider exception carries (litellm maps every provider onto these)."""
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return 408
    return None


def retry_after_seconds(exc: BaseException) -> float | None:
    """The Retry-After (seconds) a provider sent; litellm keeps the real headers on the
    exception itself (its ``response`` is often a stand-in without them)."""
    candidates = [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]
    for headers in candidates:
        try:
            value = headers.get("retry-after") if headers else None
            if value is not None:
                return max(0.0, float(value))
        except (TypeError, ValueError, AttributeError):
            continue
    return None


def backoff_seconds(policy: RetryPolicy, attempt: int, rng: random.Random) -> float:
    """Wait before attempt ``attempt + 1``: initial × multiplier^(attempt-1), capped, ± jitter."""
    base = min(policy.max_interval, policy.initial_interval * policy.multiplier ** (attempt - 1))
    return max(0.0, base * (1 + policy.jitter * (2 * rng.random() - 1)))


def is_retryable(policy: RetryPolicy, status: int | None) -> bool:
    if status == 408:
        return policy.on_timeout
    return status in policy.on_http_codes or status is None


def is_connection_error(exc: BaseException) -> bool:
    """The provider was not reached at all (refused, reset, no route, DNS): litellm reports
    these with status 500, so the exception's class chain is what tells them apart."""
    if status_of(exc) == 408:  # litellm's Timeout is a subclass of its connection error
        return False
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError) or any(
            "ConnectionError" in c.__name__ or "ConnectError" in c.__name__
            for c in type(seen).__mro__
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def destination(request: dict[str, Any]) -> str:
    """Where a request goes, as a message may say it: its ``api_base`` with the credentials
    masked, or the provider's own endpoint."""
    base = request.get("api_base")
    return redact_url(str(base)) if base else "the provider's endpoint"


def waiting_words(label: str, request: dict[str, Any]) -> str:
    """The notice of a call still waiting (``WAITING_NOTICE_S``)."""
    return (
        f"judgegrid: waiting for {label} at {destination(request)} "
        f"(timeout {request['timeout']:g} s)"
    )


def unreached(request: dict[str, Any] | None) -> str:
    """What a refused connection means and what to do: a server of yours (an ``api_base``) is
    named, with the command that serves the local models where it is this machine's."""
    base = (request or {}).get("api_base")
    if not base:
        return "the provider could not be reached: check the network"
    host = urlsplit(str(base)).hostname or ""
    serve = ", e.g. judgegrid serve-local" if host in LOOPBACK_HOSTS else ""
    return (
        f"nothing answers at {destination(request or {})}; start its server{serve}, or fix api_base"
    )


def describe_failure(
    model: str, exc: BaseException, status: int | None, request: dict[str, Any] | None = None
) -> str:
    kind = PERMANENT_CODES.get(status or 0)
    text = redact_text(" ".join(str(exc).split()))[:300]
    if status == 408 and request is not None and request.get("timeout"):
        return (
            f"{model}: timed out (HTTP 408): no answer within the timeout of "
            f"{request['timeout']:g} s from {destination(request)}; check api_base, or raise "
            f"options.timeout for a slow model. Provider said: {text}"
        )
    if status in (401, 403):
        return (
            f"{model}: {kind} (HTTP {status}); check the key named in api_key_env and "
            f"that it may use this model. Provider said: {text}"
        )
    if status == 404:
        return f"{model}: {kind} (HTTP 404); check the model id and api_base. Provider said: {text}"
    if is_connection_error(exc):
        return f"{model}: connection error ({unreached(request)}): {text}"
    prefix = f"HTTP {status}" if status else type(exc).__name__
    return f"{model}: {prefix}: {text}"


class _Attempt:
    """One try of a request; its clock starts when the concurrency limits let it go."""

    def __init__(self, number: int, call: Callable[[], Awaitable[Any]], waiting: str | None = None):
        self.number, self._call, self._waiting = number, call, waiting
        self.started, self.clock = time.time(), time.perf_counter()

    async def run(self) -> Any:
        self.started, self.clock = time.time(), time.perf_counter()
        if self._waiting is None:
            return await self._call()
        notice = asyncio.get_running_loop().call_later(WAITING_NOTICE_S, log.warning, self._waiting)
        try:
            return await self._call()
        finally:
            notice.cancel()


def _notice(label: str, request: dict[str, Any]) -> str | None:
    """The waiting notice of a live call, or None: for an in-process model (no timeout: it is
    working, not waiting), or where the call's own timeout would end it first (and say why)."""
    timeout = request.get("timeout")
    if timeout is None or timeout <= WAITING_NOTICE_S:
        return None
    return waiting_words(label, request)


async def send(
    *,
    kind: str,
    model: str,
    label: str,
    step_key: str,
    request: dict[str, Any],
    call: Callable[[], Awaitable[Any]],
    read: Callable[[Any], tuple[str, Usage, str | None]],
    transport: Transport,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    tokens_estimate: int = 0,
    deferred: Deferred | None = None,
) -> tuple[Any, str, Usage]:
    """Send one request under the retry policy; return (raw response, text, usage of all tries).

    ``read`` turns a raw response into (text for the calls table, usage, finish reason).
    ``tokens_estimate`` is charged to a tokens-per-minute limit before the call and corrected
    with the provider's count after it. ``deferred`` (batch mode) answers the attempts it
    takes from a provider batch, outside the concurrency and per-minute limits.
    """
    policy, limits, recorder = transport.policy, transport.limits, transport.recorder
    total, timeouts = Usage(), 0

    def record(attempt: _Attempt, status: str, usage: Usage, **fields: Any) -> None:
        usage.latency_s = time.perf_counter() - attempt.clock
        total.add(usage)
        recorder.record_call(
            CallRecord(
                kind=kind,
                model=model,
                label=label,
                step_key=step_key,
                attempt=attempt.number,
                status=status,
                request=request,
                started_at=attempt.started,
                usage=usage,
                **fields,
            )
        )

    for number in range(1, policy.max_attempts + 1):
        # the batch that answers this attempt, if it goes into one (else a live call)
        batcher = deferred if deferred is not None and deferred.takes(number) else None
        if batcher is not None:
            attempt = _Attempt(number, functools.partial(batcher.result, number))
        else:
            attempt = _Attempt(number, call, _notice(label, request))
        batch: dict[str, Any] = {"batch_id": None}
        try:
            if batcher is not None:
                raw = await limits.unlimited(label, attempt.run)
            else:
                raw = await limits(label, attempt.run, tokens=tokens_estimate)
        except asyncio.CancelledError:
            raise
        except ModelStopped as stopped:  # no request was sent: nothing to record or retry
            raise ProviderError(str(stopped), stopped.status, permanent=True) from None
        except Exception as exc:
            if batcher is None:
                limits.settle_tokens(label, -tokens_estimate)
            status = status_of(exc)
            message = describe_failure(model, exc, status, request)
            if batcher is not None:
                batch["batch_id"] = batcher.batch_id
            record(attempt, "error", Usage(calls=1), error=message, http_status=status, **batch)
            permanent = status in PERMANENT_CODES
            if status in MODEL_WIDE_CODES:
                limits.stop(label, message, status)
            timeouts += status == 408
            final = permanent or getattr(exc, "final", False)  # final: trying again cannot help
            final = final or timeouts >= TIMEOUT_ATTEMPTS
            if final or not is_retryable(policy, status) or number == policy.max_attempts:
                tries = f" after {number} attempts" if number > 1 else ""
                error = ProviderError(message + tries, status, permanent=permanent)
                error.usage = total
                raise error from exc
            wait = retry_after_seconds(exc)
            wait = backoff_seconds(policy, number, transport.rng) if wait is None else wait
            await sleep(min(wait, max(policy.max_interval, 0.0)))
            continue
        text, usage, finish = read(raw)
        if batcher is not None:
            batch |= {"batch_id": batcher.batch_id, "live_cost": batcher.live_cost}
        else:
            limits.settle_tokens(label, usage.tokens_in + usage.tokens_out - tokens_estimate)
        record(attempt, "ok", usage, response=text, finish_reason=finish, **batch)
        return raw, text, total
    raise AssertionError("unreachable: the loop returns or raises")
