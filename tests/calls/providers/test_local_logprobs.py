"""The embedded judges return log-probabilities: a criterion's score token has alternatives.

Real models (``local_models``): a binary criterion asked of Gemma 3 270M and of SmolLM2-135M
through litellm and the judge client, as a run asks it, weighted.
"""

from __future__ import annotations

import asyncio
import math

import pytest

from judgegrid.calls.clients import ClientFactory
from judgegrid.calls.judge import TOP_LOGPROBS
from judgegrid.calls.providers import local, register_local_models
from judgegrid.calls.providers.logprobs import score_alternatives
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.options import Concurrency, JudgeSpec, ModelOptions, RetryPolicy
from judgegrid.core.question import Question, schema_of
from judgegrid.metrics.criterion import criterion_prompt, input_model
from judgegrid.store.run_db import RunStore

pytestmark = pytest.mark.local_models

POLITE = CriterionSpec(
    name="polite", definition="Is the response polite to the user?", type="binary"
)


def polite_question(response: str) -> Question:
    prompt = criterion_prompt(POLITE)
    data = input_model(POLITE)(user_input="Where is my parcel?", response=response)
    return Question("criterion", prompt.messages(data), prompt.output, score_field="verdict")


def test_a_local_completion_asked_for_logprobs_returns_them_token_by_token():
    q = polite_question("Thank you for waiting! It arrives tomorrow.")
    response_format = {"type": "json_schema", "json_schema": {"schema": schema_of(q.schema)}}
    params = {
        "response_format": response_format,
        "temperature": 0.0,
        "max_tokens": 60,
        "seed": 1,
        "logprobs": True,
        "top_logprobs": 5,
    }
    local.complete_locally("local/smollm2-135m", q.messages, params)  # the prompt cached
    out = local.complete_locally("local/smollm2-135m", q.messages, params)
    tokens = out["logprobs"]
    assert tokens and all(len(t["top_logprobs"]) == 5 for t in tokens)
    assert "".join(t["token"] for t in tokens).strip().startswith(out["text"][:10])
    assert all(t["logprob"] <= 0 for t in tokens)
    alternatives = score_alternatives(tokens, "verdict")
    chosen = q.schema.model_validate_json(out["text"]).verdict
    assert alternatives and chosen in alternatives
    # the raw distribution, before the grammar: the probabilities add up to at most 1
    assert sum(math.exp(lp) for lp in alternatives.values()) <= 1 + 1e-6
    # asked for none, none come back, and recording them changed nothing
    plain = local.complete_locally(
        "local/smollm2-135m", q.messages, {**params, "logprobs": None, "top_logprobs": None}
    )
    assert plain["logprobs"] is None and plain["text"] == out["text"]


@pytest.mark.parametrize("model", ["local/gemma-3-270m", "local/smollm2-135m"])
def test_ask_weighted_on_an_embedded_judge_gives_the_verdicts_alternatives(tmp_path, model):
    register_local_models([model])
    store = RunStore(tmp_path / "run.sqlite")
    factory = ClientFactory(store, RetryPolicy(max_attempts=1), Concurrency())
    options = ModelOptions(temperature=0.0, max_tokens=96, seed=7)
    judge = factory.judge("j", JudgeSpec(id=model), options)
    q = polite_question("Whatever. Look it up yourself.")
    (weighted,) = asyncio.run(judge.bind("s1", 0).ask_weighted(q))
    assert weighted.answer.verdict in {"pass", "fail"}
    assert weighted.top_logprobs, "the embedded judge returned no alternatives"
    assert weighted.answer.verdict in weighted.top_logprobs
    assert len(weighted.top_logprobs) <= TOP_LOGPROBS + 1
    assert all(lp <= 0 for lp in weighted.top_logprobs.values())


def test_without_a_grammar_the_recording_stage_samples_as_llama_cpp_does():
    """No response_format (output_mode: instructions): the stage that records log-probabilities
    replaces llama-cpp-python's chain; greedy, both give the same text. (A prompt evaluated
    afresh and one read from llama.cpp's prefix cache can differ in near ties: the comparison is
    made with the prompt cached for both.)"""
    q = polite_question("Thank you for waiting! It arrives tomorrow.")
    params = {"temperature": 0.0, "max_tokens": 24, "seed": 1}
    local.complete_locally("local/smollm2-135m", q.messages, params)  # the prompt cached
    plain = local.complete_locally("local/smollm2-135m", q.messages, params)
    recorded = local.complete_locally(
        "local/smollm2-135m", q.messages, {**params, "logprobs": True, "top_logprobs": 3}
    )
    assert plain["logprobs"] is None
    assert recorded["text"] == plain["text"]
    assert recorded["logprobs"] and len(recorded["logprobs"]) >= recorded["completion_tokens"]
