"""``ask_weighted``: the score token's alternatives asked for, read back and kept with the answer.

Through the scripted provider (a litellm custom provider) and the fault server (litellm's OpenAI
path), as a run reaches any model; then from the run database (resume) and the cross-run cache,
which must hand back the very ``Weighted`` the call gave.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from typing import Literal

import pytest
from pydantic import BaseModel

from judgegrid.calls.clients import ClientFactory
from judgegrid.calls.judge import TOP_LOGPROBS, JudgeModel, judge_identity, key_of_step
from judgegrid.calls.providers.gateway import logprobs_unsupported
from judgegrid.core.context import Weighted
from judgegrid.core.digest import json_sha
from judgegrid.core.options import BatchMode, Concurrency, JudgeSpec, ModelOptions, RetryPolicy
from judgegrid.core.question import Question
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore
from judgegrid.testing.fault_server import FaultPlan

PASS_FAIL = {"pass": math.log(0.7), "fail": math.log(0.3)}


class Verdict(BaseModel):
    verdict: Literal["pass", "fail"]
    reason: str


def question(score_field: str | None = "verdict", text: str = "Is the reply polite?") -> Question:
    messages = [{"role": "system", "content": "You judge."}, {"role": "user", "content": text}]
    return Question("criterion", messages, Verdict, score_field=score_field)


def judge_of(
    store: RunStore,
    cache: ResultCache | None = None,
    model: str = "scripted/judge",
    **options: object,
) -> JudgeModel:
    factory = ClientFactory(store, RetryPolicy(max_attempts=2), Concurrency(), cache)
    return factory.judge("j", JudgeSpec(id=model), ModelOptions(**options))


def ask(judge: JudgeModel, q: Question, n: int = 1, repeat: int = 0) -> list[Weighted]:
    return asyncio.run(judge.bind("s1", repeat).ask_weighted(q, n))


@pytest.fixture
def polite(scripted_provider):
    """A scripted judge that says pass, with 0.7 / 0.3 on pass and fail at the verdict."""
    scripted_provider.answer = lambda step, prompt, model: {"verdict": "pass", "reason": "kind"}
    scripted_provider.alternatives = lambda step, prompt, model, text: PASS_FAIL
    return scripted_provider


def test_a_weighted_question_asks_for_logprobs_and_gets_the_score_tokens_alternatives(
    tmp_path, polite
):
    (answer,) = ask(judge_of(RunStore(tmp_path / "run.sqlite")), question())
    assert answer.answer == Verdict(verdict="pass", reason="kind")
    assert answer.top_logprobs == pytest.approx(PASS_FAIL)
    params = polite.calls[-1]["params"]
    assert params["logprobs"] is True and params["top_logprobs"] == TOP_LOGPROBS


def test_no_logprobs_back_gives_none_not_a_guess(tmp_path, scripted_provider):
    scripted_provider.answer = lambda step, prompt, model: {"verdict": "fail", "reason": "rude"}
    (answer,) = ask(judge_of(RunStore(tmp_path / "run.sqlite")), question())
    assert answer == Weighted(Verdict(verdict="fail", reason="rude"), None)
    assert scripted_provider.calls[-1]["params"]["logprobs"] is True  # asked, none came


def test_an_unweighted_question_asks_none_and_never_shares_the_weighted_answer(tmp_path, polite):
    judge = judge_of(RunStore(tmp_path / "run.sqlite"))
    assert judge.step_key(question(None), 0) != judge.step_key(question(), 0)
    plain = asyncio.run(judge.bind("s1", 0).ask(question(None)))
    assert plain == Verdict(verdict="pass", reason="kind")
    assert "logprobs" not in polite.calls[-1]["params"]
    (weighted,) = ask(judge, question())
    assert len(polite.calls) == 2  # a call of its own
    assert weighted.top_logprobs == pytest.approx(PASS_FAIL)


def test_an_unweighted_steps_key_is_what_it_was_so_earlier_caches_still_answer():
    """The address of every answer cached before weighting existed, written out as it was."""
    identity = judge_identity("j", "scripted/judge", ModelOptions(), "json_schema")
    q = question(None)
    before = {"step": q.step, "messages": q.messages, "shape": q.shape(), "repeat": 1, "index": 0}
    assert key_of_step(identity, q, 1) == json_sha({**identity, **before})
    assert key_of_step(identity, question(), 1) != json_sha({**identity, **before})


def test_ask_weighted_refuses_a_question_without_a_score_field(tmp_path, polite):
    with pytest.raises(ValueError, match="score_field"):
        ask(judge_of(RunStore(tmp_path / "run.sqlite")), question(None))


def test_a_resumed_run_gets_the_same_weighted_answers_without_a_call(tmp_path, polite):
    counter = itertools.count()
    polite.alternatives = lambda step, prompt, model, text: (
        None if next(counter) == 1 else {"pass": -0.4, "fail": -1.1}
    )
    store = RunStore(tmp_path / "run.sqlite")
    first = ask(judge_of(store), question(), n=3)
    store.close()
    assert [w.top_logprobs is None for w in first] == [False, True, False]
    calls = len(polite.calls)

    again = ask(judge_of(RunStore(tmp_path / "run.sqlite")), question(), n=3)
    assert again == first
    assert len(polite.calls) == calls


def test_the_cross_run_cache_hands_back_the_alternatives(tmp_path, polite):
    cache = ResultCache(tmp_path / "cache.sqlite")
    first = ask(judge_of(RunStore(tmp_path / "a.sqlite"), cache), question())
    cache.close()
    calls = len(polite.calls)
    cache = ResultCache(tmp_path / "cache.sqlite")
    second = ask(judge_of(RunStore(tmp_path / "b.sqlite"), cache), question())
    assert second == first and second[0].top_logprobs == pytest.approx(PASS_FAIL)
    assert len(polite.calls) == calls


def test_a_corrected_reply_keeps_the_alternatives_of_the_reply_that_was_kept(tmp_path, polite):
    replies = iter(["I would say it passes.", {"verdict": "fail", "reason": "curt"}])
    polite.answer = lambda step, prompt, model: next(replies)
    polite.alternatives = lambda step, prompt, model, text: (
        {"fail": -0.2, "pass": -1.7} if text.startswith("{") else {"I": -0.1}
    )
    (answer,) = ask(judge_of(RunStore(tmp_path / "run.sqlite")), question())
    assert answer.answer.verdict == "fail"
    assert answer.top_logprobs == {"fail": -0.2, "pass": -1.7}
    assert len(polite.calls) == 2


def test_the_fault_server_scripts_alternatives_per_choice_through_openais_path(tmp_path, server):
    """One call with n=3 (the provider's n): each choice carries its own log-probabilities."""
    per_choice = itertools.cycle([{"pass": -0.1, "fail": -2.4}, None, {"pass": -1.0}])
    server.set_plan(FaultPlan(alternatives=lambda model, text: next(per_choice)))
    judge = judge_of(
        RunStore(tmp_path / "run.sqlite"),
        model="openai/fake-judge",
        api_base=server.url,
        output_mode="json_schema",
    )
    assert judge.supports_n
    answers = ask(judge, question(), n=3)
    assert server.requests == 1
    assert [a.answer.verdict for a in answers] == ["pass"] * 3
    assert [a.top_logprobs for a in answers] == [{"pass": -0.1, "fail": -2.4}, None, {"pass": -1.0}]


def test_the_fault_server_gives_none_unless_asked_or_scripted(tmp_path, server):
    server.set_plan(FaultPlan())
    judge = judge_of(
        RunStore(tmp_path / "run.sqlite"),
        model="openai/fake-judge",
        api_base=server.url,
        output_mode="json_schema",
    )
    (answer,) = ask(judge, question())
    assert answer.top_logprobs is None and answer.answer.verdict == "pass"


def test_a_provider_litellm_knows_to_refuse_logprobs_is_not_asked_for_them():
    q = question()
    refused = JudgeModel("c", "anthropic/claude-3-5-haiku-20241022", ModelOptions(), None, None)
    asked = JudgeModel("g", "openai/gpt-4o-mini", ModelOptions(), None, None)
    assert "logprobs" not in refused._request(q.messages, q, None)
    assert asked._request(q.messages, q, None)["top_logprobs"] == TOP_LOGPROBS
    assert "logprobs" not in asked._request(q.messages, question(None), None)


@pytest.mark.parametrize(
    ("model", "refused"),
    [
        ("openai/gpt-4o-mini", False),
        ("gpt-4o-mini", False),
        ("groq/llama-3.1-8b-instant", False),
        ("together_ai/meta-llama/Llama-3-8b-chat-hf", False),
        ("anthropic/claude-3-5-haiku-20241022", True),
        ("openai/o3-mini", True),  # OpenAI's reasoning models return none
        ("gpt-5-mini", True),
        ("bedrock/anthropic.claude-3-haiku-20240307-v1:0", True),
        ("ollama/llama3", True),
        ("mistral/mistral-small-latest", True),
        # litellm maps Gemini's logprobs but not top_logprobs: nothing to weigh
        ("gemini/gemini-1.5-flash", True),
        ("local/gemma-3-270m", False),  # the embedded judges return them
        ("no-such-provider/model", False),  # unknown to litellm: not refused
    ],
)
def test_logprobs_unsupported_follows_litellms_tables(model, refused):
    assert logprobs_unsupported(model) is refused


def test_a_batch_line_carries_its_alternatives_back(tmp_path, server):
    """Batch mode: the request's logprobs go into the batch file, and the line's answer, read
    back into a litellm response, carries the score token's alternatives."""
    server.set_plan(FaultPlan(alternatives=lambda model, text: {"pass": -0.2, "fail": -1.7}))
    store = RunStore(tmp_path / "run.sqlite")
    factory = ClientFactory(store, RetryPolicy(max_attempts=2), Concurrency())
    options = ModelOptions(api_base=server.url, output_mode="json_schema")
    mode = BatchMode(poll_interval=0.01, gather=0.05)
    judge = factory.judge("j", JudgeSpec(id="openai/fake-judge"), options, batch=mode)
    (answer,) = ask(judge, question())
    assert answer.top_logprobs == {"pass": -0.2, "fail": -1.7}
    assert [r.status for r in store.load_batches("j")] == ["completed"]
