"""The local model's scheduler: serialised calls, longest shared prompt prefix first."""

from __future__ import annotations

import threading
import time

from judgegrid.providers.local import PrefixScheduler, RepetitionGuard, render_prompt


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


def test_repetition_guard_leaves_ordinary_json_alone():
    tokens = [*range(100, 160), 5, 6, 7, 8, 9, *range(200, 230), 5, 6, 7, 8, 9]
    guard = RepetitionGuard(prompt_tokens=0)
    assert not any(guard(tokens[: i + 1], None) for i in range(len(tokens)))
