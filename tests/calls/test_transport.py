"""Rate limits and the stop after a permanent failure, on a fake clock (no real waiting)."""

from __future__ import annotations

import asyncio

import pytest

from judgegrid import run_grid
from judgegrid.calls.transport import Limits, ModelStopped, RateLimit, describe_failure
from judgegrid.inputs.matrix import parse_matrix


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def most_in_any_window(times: list[float], rate: float, capacity: float) -> bool:
    """No window [t_i, t_j] holds more requests than the bucket allows."""
    return all(
        j - i + 1 <= capacity + rate * (times[j] - times[i]) + 1e-9
        for i in range(len(times))
        for j in range(i, len(times))
    )


def test_requests_per_minute_spaces_requests_evenly():
    clock = FakeClock()
    limit = RateLimit(per_minute=120, clock=clock, sleep=clock.sleep)  # 2 a second, burst 2

    async def go() -> list[float]:
        times = []
        for _ in range(10):
            await limit.acquire(1)
            times.append(clock.now)
        return times

    times = asyncio.run(go())
    assert times[:2] == [0.0, 0.0]  # the burst
    assert times[-1] == pytest.approx(4.0)  # then one every 0.5 s
    assert most_in_any_window(times, rate=2.0, capacity=2.0)


def test_concurrent_waiters_are_served_in_order_within_the_rate():
    clock = FakeClock()
    limit = RateLimit(per_minute=600, clock=clock, sleep=clock.sleep)  # 10/s, burst 10
    times: list[float] = []

    async def one() -> None:
        await limit.acquire(1)
        times.append(clock.now)

    async def go() -> None:
        await asyncio.gather(*(one() for _ in range(35)))

    asyncio.run(go())
    assert len(times) == 35 and times == sorted(times)
    assert times[-1] == pytest.approx(2.5)
    assert most_in_any_window(times, rate=10.0, capacity=10.0)


def test_tokens_per_minute_a_large_request_goes_and_leaves_a_debt():
    clock = FakeClock()
    limit = RateLimit(per_minute=120, clock=clock, sleep=clock.sleep)  # 2 tokens/s, bucket 2

    async def go() -> list[float]:
        await limit.acquire(5)  # more than the bucket: goes at once (bucket full), debt of 3
        first = clock.now
        await limit.acquire(1)  # waits for the debt and its own token: (3 + 1) / 2 s
        second = clock.now
        limit.settle(-4)  # the provider said the first used 4 tokens fewer: refunded
        await limit.acquire(2)
        return [first, second, clock.now]

    first, second, third = asyncio.run(go())
    assert first == 0.0
    assert second == pytest.approx(2.0)
    assert third == pytest.approx(2.0)  # the refund filled the bucket


def test_a_stopped_model_is_not_called_again():
    calls = []

    async def go() -> None:
        limits = Limits(total=4, per_model=2)
        limits.register("m", None)

        async def call() -> str:
            calls.append(1)
            return "ok"

        assert await limits("m", call) == "ok"
        limits.stop("m", "m: authentication failed (HTTP 401)")
        with pytest.raises(ModelStopped, match="m: authentication failed"):
            await limits("m", call)
        assert await limits("other", call) == "ok"

    asyncio.run(go())
    assert len(calls) == 2


def test_rate_limits_in_the_matrix_reach_the_calls(write_matrix, tmp_path):
    judges = [
        {"id": "scripted/judge-a", "label": "a", "requests-per-minute": 1200},
        {"id": "scripted/judge-b", "label": "b", "tokens-per-minute": 600000},
    ]
    path = write_matrix(judges=judges, strictness=[3])
    matrix = parse_matrix(path.read_text())
    assert matrix.judges[0].requests_per_minute == 1200
    assert matrix.judges[1].tokens_per_minute == 600000
    result = run_grid(path, limit=4, run_dir=tmp_path / "run")
    assert (result.scores["status"] == "scored").all()
    a = result.calls[result.calls["label"] == "a"].sort_values("started_at")
    starts = list(a["started_at"] - a["started_at"].min())
    # 4 samples × 2 repeats × (3 questions + statements + verdicts): more than one burst holds
    assert len(starts) == 40
    # 20 a second with a burst of 20; 10 ms of slack for the clock of the calls table
    assert most_in_any_window(starts, rate=20.0, capacity=20.0 + 0.2)


def test_rate_limits_must_be_positive(write_matrix):
    from judgegrid.core.errors import MatrixError

    path = write_matrix(judges=[{"id": "scripted/judge-a", "requests-per-minute": 0}])
    with pytest.raises(MatrixError, match=r"judges\[0\].requests_per_minute"):
        parse_matrix(path.read_text())


class _RateLimited(Exception):
    """What litellm raises for a 429: the status, and the provider's headers on the exception."""

    status_code = 429

    def __init__(self, retry_after: str):
        super().__init__("rate limited")
        self.litellm_response_headers = {"retry-after": retry_after}


class _Recorder:
    def __init__(self) -> None:
        self.calls: list = []

    def record_call(self, call) -> None:
        self.calls.append(call)


def test_retry_after_wins_over_backoff_and_every_attempt_is_recorded():
    import random

    from judgegrid.calls.transport import Transport, send
    from judgegrid.core.options import RetryPolicy
    from judgegrid.core.usage import Usage

    waits: list[float] = []
    answers = iter([_RateLimited("7"), _RateLimited("0.25"), "fine"])

    async def call():
        item = next(answers)
        if isinstance(item, Exception):
            raise item
        return item

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def go():
        limits = Limits(total=1, per_model=1)
        recorder = _Recorder()
        _, text, usage = await send(
            kind="completion",
            model="m",
            label="m",
            step_key="k",
            request={"model": "m"},
            call=call,
            read=lambda raw: (raw, Usage(calls=1), "stop"),
            transport=Transport(
                RetryPolicy(initial_interval=1.0, max_interval=5.0, jitter=0.0),
                limits,
                recorder,
                random.Random(0),
            ),
            sleep=sleep,
        )
        return text, usage, recorder.calls

    text, usage, calls = asyncio.run(go())
    assert text == "fine" and usage.calls == 3
    assert waits == [5.0, 0.25]  # Retry-After, capped by max-interval; backoff would say 1, 2
    assert [(c.attempt, c.status, c.http_status) for c in calls] == [
        (1, "error", 429),
        (2, "error", 429),
        (3, "ok", None),
    ]


def test_accounting_never_adds_an_unknown_price_as_zero():
    import pandas as pd

    from judgegrid.analyses.frames.usage import run_usage, usage_by_model
    from judgegrid.outputs.tables_text import format_cost

    calls = pd.DataFrame(
        {
            "kind": ["completion"] * 4,
            "label": ["priced", "priced", "unpriced", "unpriced"],
            "model": ["openai/gpt-4o-mini"] * 2 + ["openai/x"] * 2,
            "status": ["ok", "error", "ok", "ok"],
            "attempt": [2, 1, 1, 1],
            "tokens_in": [10, 0, 5, 5],
            "tokens_out": [3, 0, 1, 1],
            "cost": [0.002, 0.0, None, None],
            "latency_s": [0.5, 0.1, 0.2, 0.4],
        }
    )
    table = usage_by_model(calls).set_index("label")
    assert table.loc["priced", "cost"] == 0.002
    assert table.loc["priced", "retried"] == 1 and table.loc["priced", "errors"] == 1
    assert pd.isna(table.loc["unpriced", "cost"])  # unknown, not 0
    assert format_cost(table.loc["unpriced", "cost"]) == "unknown"
    assert format_cost(None) == "unknown" and format_cost(0.0) == "$0.0000"
    assert table.loc["unpriced", "mean_latency_s"] == pytest.approx(0.3)
    assert run_usage(calls)["cost"] is None and run_usage(calls)["requests"] == 4


@pytest.mark.parametrize(
    ("api_base", "says"),
    [
        (
            "http://127.0.0.1:8431/v1",
            "nothing answers at http://127.0.0.1:8431/v1; start its server, "
            "e.g. judgegrid serve-local, or fix api_base",
        ),
        (
            "http://gpu-box:8000/v1",
            "nothing answers at http://gpu-box:8000/v1; start its server, or fix api_base",
        ),
        (None, "the provider could not be reached: check the network"),
    ],
)
def test_a_refused_connection_names_where_it_went_and_what_to_do(api_base, says):
    """A server you run and forgot to start is the common cause: the cause names its address
    and what to do before litellm's words, so a cut "why cells were failed" line shows them."""
    refused = ConnectionRefusedError("[Errno 111] Connection refused")
    request = {"api_base": api_base} if api_base else {}
    message = describe_failure("openai/smollm2-135m", refused, None, request)
    assert message.startswith(f"openai/smollm2-135m: connection error ({says}): ")
