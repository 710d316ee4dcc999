"""The local model's scheduler: serialised calls, longest shared prompt prefix first."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from judgegrid.calls.providers import local
from judgegrid.calls.providers.local import (
    Cancelled,
    PrefixScheduler,
    RepetitionGuard,
    render_prompt,
)


def test_waiting_call_with_the_longest_shared_prefix_goes_next():
    scheduler = PrefixScheduler()
    order: list[str] = []
    running = threading.Event()
    release = threading.Event()

    def first():
        with scheduler.turn("question prompt: sample 1"):
            running.set()
            release.wait(5)
            order.append("question prompt: sample 1")

    def call(prompt: str):
        with scheduler.turn(prompt):
            order.append(prompt)

    threads = [threading.Thread(target=first)]
    threads[0].start()
    running.wait(5)
    for prompt in ["statements prompt: sample 1", "question prompt: sample 2"]:
        t = threading.Thread(target=call, args=(prompt,))
        t.start()
        threads.append(t)
    time.sleep(0.2)  # both are waiting now
    release.set()
    for t in threads:
        t.join(5)
    assert order == [
        "question prompt: sample 1",
        "question prompt: sample 2",
        "statements prompt: sample 1",
    ]


def test_calls_never_overlap():
    scheduler = PrefixScheduler()
    inside = []
    overlap = []

    def call(i: int):
        with scheduler.turn(f"prompt {i % 3}"):
            inside.append(i)
            if len(inside) > 1:
                overlap.append(i)
            time.sleep(0.005)
            inside.remove(i)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert overlap == []


def test_messages_render_as_one_completion_prompt():
    prompt = render_prompt(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Answer: x\nJSON:"},
        ]
    )
    assert prompt == "Be brief.\n\nAnswer: x\nJSON:"


def test_repetition_guard_fires_on_the_third_repeat_of_a_run():
    prompt = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]  # repetition in the prompt does not count
    guard = RepetitionGuard(prompt_tokens=len(prompt))
    loop = [7, 8, 9, 10, 11]
    generated = [5, 6]
    fired_at = None
    for i, token in enumerate(loop * 4):
        generated.append(token)
        if guard(prompt + generated, None):
            fired_at = i
            break
    assert fired_at == 3 * len(loop) - 1


def test_repetition_guard_fires_on_a_statement_of_fifty_tokens_repeated():
    """A whole statement looped (Vietnamese or Chinese: 40–60 tokens) is cut at its third
    copy, not left to run to max_tokens."""
    statement = list(range(300, 350))
    guard = RepetitionGuard(prompt_tokens=0)
    generated: list[int] = []
    fired_at = None
    for i, token in enumerate(statement * 4):
        generated.append(token)
        if guard(generated, None):
            fired_at = i
            break
    assert fired_at == 3 * len(statement) - 1


def test_repetition_guard_leaves_ordinary_json_alone():
    tokens = [*range(100, 160), 5, 6, 7, 8, 9, *range(200, 230), 5, 6, 7, 8, 9]
    guard = RepetitionGuard(prompt_tokens=0)
    assert not any(guard(tokens[: i + 1], None) for i in range(len(tokens)))


def test_a_call_cancelled_while_it_waits_leaves_the_queue_and_the_rest_go_on():
    scheduler = PrefixScheduler()
    order: list[str] = []
    running, release, cancelled = threading.Event(), threading.Event(), threading.Event()
    outcome: list[str] = []

    def first():
        with scheduler.turn("prompt a"):
            running.set()
            release.wait(5)
            order.append("a")

    def cancelled_call():
        try:
            with scheduler.turn("prompt a, the longest shared prefix", cancelled):
                order.append("cancelled call ran")
        except Cancelled:
            outcome.append("left the queue")

    def last():
        with scheduler.turn("prompt b"):
            order.append("b")

    threads = [threading.Thread(target=f) for f in (first, cancelled_call, last)]
    threads[0].start()
    running.wait(5)
    threads[1].start()
    threads[2].start()
    cancelled.set()
    threads[1].join(5)
    assert outcome == ["left the queue"]  # before the model was even free
    release.set()
    for t in threads:
        t.join(5)
    assert order == ["a", "b"]


def test_a_cancelled_async_call_tells_its_thread_to_stop(monkeypatch):
    seen: dict[str, threading.Event] = {}
    entered = threading.Event()

    def generating(model, messages, params, cancelled):
        seen["cancelled"] = cancelled
        entered.set()
        cancelled.wait(30)  # a generation that ends only when told to
        return {
            "text": "",
            "finish_reason": "cancelled",
            "prompt_tokens": 1,
            "completion_tokens": 1,
        }

    monkeypatch.setattr(local, "complete_locally", generating)
    provider = local._make_provider()

    async def cancel_mid_generation() -> None:
        task = asyncio.create_task(
            provider.acompletion("local/gemma-3-270m", [], optional_params={})
        )
        await asyncio.to_thread(entered.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_mid_generation())
    assert seen["cancelled"].is_set()
