"""Parsing judge replies: JSON extraction, schema validation, truncation."""

from __future__ import annotations

import pytest

from judgegrid.calls.judge import derive_seed, extract_json, parse_answer
from judgegrid.core.errors import JudgeOutputError
from judgegrid.metrics.faithfulness import Verdicts
from judgegrid.metrics.response_relevancy import GeneratedQuestion


@pytest.mark.parametrize(
    "text",
    [
        '{"question": "Where?", "noncommittal": 0}',
        '```json\n{"question": "Where?", "noncommittal": 0}\n```',
        'Sure! Here it is: {"question": "Where?", "noncommittal": 0} Hope this helps.',
    ],
)
def test_extracts_json_around_prose_and_fences(text):
    assert parse_answer(text, GeneratedQuestion).question == "Where?"


def test_control_characters_inside_strings_are_tolerated():
    assert extract_json('{"question": "a\tb", "noncommittal": 1}')["noncommittal"] == 1


def test_garbage_is_reported_with_the_raw_text():
    with pytest.raises(JudgeOutputError) as info:
        parse_answer("I think the answer is fine.", GeneratedQuestion)
    assert "no JSON object" in str(info.value)
    assert info.value.raw == "I think the answer is fine."


def test_schema_mismatch_names_the_field():
    with pytest.raises(JudgeOutputError, match=r"noncommittal"):
        parse_answer('{"question": "Where?", "noncommittal": 2}', GeneratedQuestion)


def test_truncation_is_reported_as_such():
    with pytest.raises(JudgeOutputError, match="cut off at max_tokens") as info:
        parse_answer('{"statements": [{"statement": "x", "rea', Verdicts, finish_reason="length")
    assert info.value.truncated


def test_seeds_differ_by_repeat_and_generation_and_respect_no_seed():
    seeds = {derive_seed(42, r, i) for r in range(3) for i in range(5)}
    assert len(seeds) == 15
    assert derive_seed(None, 1, 2) is None


def test_a_reply_cut_for_repetition_says_so():
    with pytest.raises(JudgeOutputError, match="kept repeating itself") as info:
        parse_answer('{"statements": ["It is high. It is high. It is', Verdicts, "repetition")
    assert info.value.truncated


def test_tightened_shape_asks_for_shorter_strings_but_validation_stays_loose():
    from judgegrid.metrics.base import exactly, tightened_shape
    from judgegrid.metrics.faithfulness import Verdicts

    shape = exactly(tightened_shape(Verdicts, {"statement": 30, "reason": 80}), "statements", 2)
    verdict = shape["$defs"]["Verdict"]["properties"]
    assert verdict["statement"]["maxLength"] == 30 and verdict["reason"]["maxLength"] == 80
    assert shape["properties"]["statements"]["minItems"] == 2
    assert shape["properties"]["statements"]["maxItems"] == 2
    long_reason = {"statement": "s", "reason": "r" * 150, "verdict": 1}
    assert Verdicts.model_validate({"statements": [long_reason]})  # an answer is read leniently
    loose = Verdicts.model_json_schema()["$defs"]["Verdict"]["properties"]["reason"]
    assert loose["maxLength"] > 80
