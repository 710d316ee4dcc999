"""The score token found in a reply's tokens, however they split the JSON text."""

from __future__ import annotations

import math

import pytest

from judgegrid.calls.providers.logprobs import score_alternatives, value_start
from judgegrid.testing.logprob_tokens import score_offset, scripted_logprobs


def tok(text: str, logprob: float = 0.0, alternatives: dict[str, float] | None = None) -> dict:
    """One token as OpenAI returns it (a plain dict, as in a batch line)."""
    top = alternatives if alternatives is not None else {text: logprob}
    return {
        "token": text,
        "bytes": list(text.encode()),
        "logprob": logprob,
        "top_logprobs": [
            {"token": t, "bytes": list(t.encode()), "logprob": lp} for t, lp in top.items()
        ],
    }


def test_the_value_token_is_found_when_the_quote_is_a_token_of_its_own():
    tokens = [
        tok('{"'),
        tok("verdict"),
        tok('":'),
        tok(' "'),
        tok("pass", -0.1, {"pass": -0.1, "fail": -2.4}),
        tok('",'),
        tok(' "reason": "fine"}'),
    ]
    assert score_alternatives(tokens, "verdict") == {"pass": -0.1, "fail": -2.4}


def test_a_token_that_starts_before_the_value_has_its_prefix_taken_off():
    """`` "pass`` chosen: its alternatives `` "fail`` and ``fail`` both mean fail (added up)."""
    tokens = [
        tok('{"verdict":'),
        tok(
            ' "pass',
            math.log(0.6),
            {' "pass': math.log(0.6), ' "fail': math.log(0.3), "fail": math.log(0.1)},
        ),
        tok('", "reason": "x"}'),
    ]
    alternatives = score_alternatives(tokens, "verdict")
    assert alternatives is not None
    assert math.exp(alternatives["pass"]) == pytest.approx(0.6)
    assert math.exp(alternatives["fail"]) == pytest.approx(0.4)


def test_an_alternative_on_another_path_through_the_text_is_dropped():
    """The chosen token holds more than quotes before the value: an alternative that does not
    begin the same way is not a value at this place."""
    tokens = [
        tok('{"level"'),
        tok(":4", -0.2, {":4": -0.2, ":3": -1.8, ": ": -3.0}),
        tok(', "reason": "x"}'),
    ]
    assert score_alternatives(tokens, "level") == {"4": -0.2, "3": -1.8}


def test_a_number_value_without_quotes():
    tokens = [tok('{"level": '), tok("4", -0.3, {"4": -0.3, "5": -1.5}), tok(', "reason": "ok"}')]
    assert score_alternatives(tokens, "level") == {"4": -0.3, "5": -1.5}


def test_the_chosen_token_counts_even_when_the_provider_left_it_out_of_the_top():
    tokens = [tok('{"verdict": "'), tok("fail", -4.0, {"pass": -0.05}), tok('"}')]
    assert score_alternatives(tokens, "verdict") == {"pass": -0.05, "fail": -4.0}


def test_bytes_are_the_offsets_so_a_character_split_across_tokens_is_no_trouble():
    """A Vietnamese label whose first character's bytes are split between two tokens."""
    label = "đúng"
    raw = label.encode()
    first, second = raw[:1], raw[1:]
    tokens = [
        tok('{"label": "'),
        {"token": "bytes:\\xc4", "bytes": list(first), "logprob": -0.5, "top_logprobs": []},
        {"token": second.decode("utf-8", "replace"), "bytes": list(second), "logprob": 0.0},
        tok('"}'),
    ]
    assert value_start(b"".join(bytes(t["bytes"]) for t in tokens), "label") == len(b'{"label": "')
    alternatives = score_alternatives(tokens, "label")
    assert alternatives is not None and list(alternatives.values()) == [-0.5]


def test_no_tokens_or_no_value_gives_none():
    assert score_alternatives(None, "verdict") is None
    assert score_alternatives([], "verdict") is None
    assert score_alternatives([tok("I think it passes.")], "verdict") is None
    assert score_alternatives([tok('{"verdict": "')], "verdict") is None  # cut before the value


def test_the_first_occurrence_of_the_key_is_the_score():
    tokens = [
        tok('{"verdict": "'),
        tok("pass", -0.1, {"pass": -0.1, "fail": -2.3}),
        tok('", "reason": "the \\"verdict\\": fail"}'),
    ]
    assert score_alternatives(tokens, "verdict") == {"pass": -0.1, "fail": -2.3}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"verdict": "pass", "reason": "x"}', "pass"),
        ('{"level":3,"reason":"x"}', "3"),
        ('  {\n  "label" : "partial"}', "partial"),
    ],
)
def test_scripted_tokens_put_the_alternatives_at_the_first_value(text, value):
    alternatives = {value: -0.2, "other": -1.7}
    logprobs = scripted_logprobs(text, alternatives, top=20)
    assert logprobs is not None
    assert "".join(t["token"] for t in logprobs["content"]) == text
    offset = score_offset(text)
    assert offset is not None and text[offset:].startswith(value)
    field = text.split('"')[1]
    assert score_alternatives(logprobs["content"], field) == alternatives


def test_scripted_tokens_keep_the_most_likely_alternatives_and_none_means_none():
    logprobs = scripted_logprobs('{"level": 2}', {"2": -0.1, "1": -2.0, "3": -3.0}, top=2)
    assert logprobs is not None
    assert score_alternatives(logprobs["content"], "level") == {"2": -0.1, "1": -2.0}
    assert scripted_logprobs('{"level": 2}', None, top=2) is None
