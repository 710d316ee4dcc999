"""A sample's language reaches the judge: the steps that write text are asked to write it in
that language; English (or no language) leaves every request as it was, so the cache holds."""

from __future__ import annotations

import asyncio

import pytest
from test_prompts_pinned import BagOfWords, RecordingJudge

from judgegrid.core.context import ScoreContext
from judgegrid.core.sample import Sample, language_name, language_tag
from judgegrid.metrics import METRICS

SAMPLE = {
    "id": "s",
    "user_input": "Когда был основан Санкт-Петербург?",
    "response": "Санкт-Петербург основал Пётр I в 1703 году.",
    "retrieved_contexts": ["Санкт-Петербург был основан царём Петром I в 1703 году."],
    "reference": "Пётр I основал Санкт-Петербург в 1703 году.",
}


def requests(metric: str, sample: Sample, **params) -> dict[str, list[str]]:
    """The user prompt of every request a metric sends, by step."""
    judge = RecordingJudge()
    ctx = ScoreContext(judge=judge, embedder=BagOfWords(), strictness=1)
    asyncio.run(METRICS[metric](**params).compute(sample, ctx))
    out: dict[str, list[str]] = {}
    for asked in judge.asked:
        out.setdefault(asked["step"], []).append(asked["messages"][-1]["content"])
    return out


@pytest.mark.parametrize(
    ("metric", "step", "line"),
    [
        ("response_relevancy", "response_relevancy.question", "Write the question in Russian."),
        ("faithfulness", "statements", "Write the statements in Russian."),
        ("noise_sensitivity", "statements", "Write the statements in Russian."),
        ("answer_relevancy", "statements", "Write the statements in Russian."),
        ("answer_relevancy", "answer_relevancy.reason", "Write the reason in Russian."),
    ],
)
def test_steps_that_write_text_are_asked_for_the_samples_language(metric, step, line):
    sent = requests(metric, Sample(**SAMPLE, language="ru"))
    assert sent[step] and all(line in prompt for prompt in sent[step])


def test_steps_that_only_judge_get_no_language_line():
    sent = requests("faithfulness", Sample(**SAMPLE, language="ru"))
    assert not any("Write the" in prompt for prompt in sent["nli"])
    sent = requests("context_precision", Sample(**SAMPLE, language="ru"))
    assert not any("Write the" in p for prompts in sent.values() for p in prompts)


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_english_or_no_language_sends_the_same_requests(metric):
    untagged = requests(metric, Sample(**SAMPLE))
    assert requests(metric, Sample(**SAMPLE, language="en")) == untagged
    assert requests(metric, Sample(**SAMPLE, language="en-GB")) == untagged
    assert not any("Write the" in p for prompts in untagged.values() for p in prompts)


def test_languages_are_read_as_tags_or_english_names():
    assert language_tag("Vietnamese") == "vi"
    assert language_tag(" zh_Hans ") == "zh-Hans"
    assert language_name("zh-Hans") == "Chinese (Simplified)"
    with pytest.raises(ValueError, match="unknown language 'Elvish'"):
        language_tag("Elvish")
