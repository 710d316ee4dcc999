"""A pairwise criterion's prompt: the judge reads the shown fields and answers A and B, answers A,
B or tie (no tie when ties are off), the verdict first; the swap shows the pair both ways and reads
either order's verdict back in the pair's own terms."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from judgegrid.core.criterion import pair_scale_problems
from judgegrid.metrics.pairwise import (
    Pair,
    PairwiseCriterion,
    answer_model,
    expected_preference,
    input_model,
    judging,
    pairwise_prompt,
    position_of,
    position_of_level,
    preference_for_a,
    preference_score,
    presentations,
    strength_of_level,
    winner_of,
)

PAIR = Pair(
    id="p1",
    a="Paris is the capital of France.",
    b="France is in Europe.",
    shown={"user_input": "What is the capital of France?", "retrieved_contexts": "Paris ..."},
)
GRADED = {1: "A much better", 2: "A better", 3: "about the same", 4: "B better", 5: "B much better"}


def criterion(**fields) -> PairwiseCriterion:
    return PairwiseCriterion(**({"definition": "Which answer is more relevant?"} | fields))


def test_the_judge_may_answer_a_b_or_tie_and_the_verdict_comes_first():
    model = answer_model(criterion())
    assert list(model.model_fields) == ["verdict", "reason"]  # the score token first
    for verdict in ("A", "B", "tie"):
        assert model.model_validate({"verdict": verdict, "reason": "r"}).verdict == verdict
    with pytest.raises(ValidationError):
        model.model_validate({"verdict": "C", "reason": "r"})


def test_ties_false_forbids_a_tie_in_the_schema_and_the_prompt():
    no_ties = criterion(ties=False)
    with pytest.raises(ValidationError):
        answer_model(no_ties).model_validate({"verdict": "tie", "reason": "r"})
    prompt = pairwise_prompt(no_ties)
    assert prompt.reply_format == '{"verdict": "A" or "B", "reason": "..."}'
    assert "tie" not in prompt.instruction and "must choose one" in prompt.instruction


def test_a_graded_scale_asks_a_level_from_a_much_better_to_b_much_better():
    graded = criterion(scale=GRADED)
    model = answer_model(graded)
    assert list(model.model_fields) == ["level", "reason"]
    with pytest.raises(ValidationError):
        model.model_validate({"level": 6, "reason": "r"})
    prompt = pairwise_prompt(graded)
    assert "1: A much better" in prompt.instruction and "5: B much better" in prompt.instruction
    assert prompt.reply_format == '{"level": 1 or 2 or 3 or 4 or 5, "reason": "..."}'


@pytest.mark.parametrize(
    ("levels", "expected"),
    [
        ((1, 2, 3, 4, 5), ["A", "A", "tie", "B", "B"]),
        ((1, 2, 3, 4), ["A", "A", "B", "B"]),  # an even scale has no tie
        ((-2, -1, 0, 1, 2), ["A", "A", "tie", "B", "B"]),
    ],
)
def test_a_level_prefers_a_below_the_middle_and_b_above(levels, expected):
    assert [position_of_level(level, levels) for level in levels] == expected


def test_a_levels_strength_runs_from_the_tie_to_the_scales_end():
    levels = (1, 2, 3, 4, 5)
    assert [strength_of_level(level, levels) for level in levels] == [1.0, 0.5, 0.0, 0.5, 1.0]


@pytest.mark.parametrize(
    ("scale", "ties", "words"),
    [
        ({1: "A better"}, True, "two levels"),
        ({1: "A better", 3: "B better"}, True, "consecutive"),
        ({1: "A better", 2: " "}, True, "description"),
        (GRADED, False, "even number"),
    ],
)
def test_a_bad_scale_is_named(scale, ties, words):
    assert any(words in problem for problem in pair_scale_problems(scale, ties))


def test_a_good_scale_has_no_problem():
    assert pair_scale_problems(GRADED, True) == []
    assert pair_scale_problems({1: "A better", 2: "B better"}, False) == []
    assert pair_scale_problems(None, False) == []


def test_the_judge_reads_the_named_fields_then_answer_a_and_answer_b():
    model = input_model(criterion(fields=("user_input", "retrieved_contexts")))
    titles = [field.title for field in model.model_fields.values()]
    assert titles == ["Question", "Contexts", "Answer A", "Answer B"]


def test_both_orders_show_the_pair_each_way_round():
    crit = criterion()
    (first_order, first), (second_order, second) = presentations(PAIR, crit)
    assert (first_order, second_order) == ("ab", "ba")
    assert (first.answer_a, first.answer_b) == (PAIR.a, PAIR.b)
    assert (second.answer_a, second.answer_b) == (PAIR.b, PAIR.a)
    text = pairwise_prompt(crit).render(second)
    assert f"Answer A: {PAIR.b}\nAnswer B: {PAIR.a}\nJSON:" in text
    assert "Question: What is the capital of France?" in text
    assert "Contexts" not in text  # only the criterion's fields are shown


@pytest.mark.parametrize(
    ("verdict", "order", "winner"),
    [
        ("A", "ab", "a"),
        ("B", "ab", "b"),
        ("A", "ba", "b"),
        ("B", "ba", "a"),
        ("tie", "ab", "tie"),
        ("tie", "ba", "tie"),
    ],
)
def test_a_verdict_in_either_order_is_read_back_in_the_pairs_terms(verdict, order, winner):
    assert winner_of(verdict, order) == winner


def test_a_judge_of_content_gives_the_same_winner_in_both_orders():
    """The judge picks the position holding the Paris answer; read back, both orders agree."""
    crit = criterion()
    winners = set()
    for order, shown in presentations(PAIR, crit):
        verdict = "A" if "Paris" in shown.answer_a else "B"
        winners.add(winner_of(verdict, order))
    assert winners == {"a"}


def test_a_graded_answer_is_a_signed_preference_in_the_pairs_terms():
    graded = criterion(scale=GRADED)
    model = answer_model(graded)
    much_a = model.model_validate({"level": 1, "reason": "r"})
    assert position_of(much_a, graded) == "A"
    assert preference_for_a(much_a, graded, "ab") == 1.0
    assert preference_for_a(much_a, graded, "ba") == -1.0  # position A held b
    better_b = model.model_validate({"level": 4, "reason": "r"})
    assert preference_for_a(better_b, graded, "ab") == -0.5
    same = model.model_validate({"level": 3, "reason": "r"})
    assert preference_for_a(same, graded, "ba") == 0.0
    plain = criterion()
    verdict = answer_model(plain).model_validate({"verdict": "B", "reason": "r"})
    assert preference_for_a(verdict, plain, "ba") == 1.0


def logprobs(**p: float) -> dict[str, float]:
    return {token.replace("_", " "): math.log(v) for token, v in p.items()}


def test_the_expected_preference_weighs_a_b_and_tie_by_their_probabilities():
    plain = criterion()
    tokens = logprobs(A=0.6, _B=0.3, tie=0.1)  # a token may carry a space
    assert expected_preference(tokens, plain, "ab") == pytest.approx(0.3)
    assert expected_preference(tokens, plain, "ba") == pytest.approx(-0.3)  # A held b
    assert expected_preference(logprobs(A=0.2, t=0.6), plain, "ab") == pytest.approx(0.25)
    no_ties = criterion(ties=False)  # a tie's probability is not an allowed answer's
    assert expected_preference(tokens, no_ties, "ab") == pytest.approx(0.3 / 0.9)
    assert expected_preference(logprobs(C=1.0), plain, "ab") is None


def test_the_expected_preference_of_a_scale_is_g_evals_expected_level_on_it():
    graded = criterion(scale=GRADED)
    assert expected_preference(logprobs(**{"1": 0.5, "5": 0.5}), graded, "ab") == 0.0
    assert expected_preference(logprobs(**{"2": 1.0}), graded, "ab") == pytest.approx(0.5)
    assert expected_preference(logprobs(**{"2": 0.5, "1": 0.5}), graded, "ba") == pytest.approx(
        -0.75
    )
    assert expected_preference(logprobs(x=1.0), graded, "ab") is None


def test_a_preference_is_a_cells_score_from_0_to_1():
    assert [preference_score(p) for p in (1.0, 0.0, -1.0, 0.5)] == [1.0, 0.5, 0.0, 0.75]


def test_the_reason_is_asked_in_the_samples_language():
    crit = criterion()
    (_, shown), _ = presentations(PAIR, crit)
    assert "Write the reason in Vietnamese." in pairwise_prompt(crit).render(shown, "vi")
    assert "Write the reason" not in pairwise_prompt(crit).render(shown, "en")


def test_a_judging_is_recorded_with_its_order_position_and_winner():
    plain = criterion()
    verdict = answer_model(plain).model_validate({"verdict": "A", "reason": "r"})
    score, details = judging(verdict, plain, "ba")
    assert score == 0.0  # position A held b: a vote for b
    assert details == {"answer": "A", "order": "ba", "position": "A", "winner": "b"}
    graded = criterion(scale=GRADED)
    level = answer_model(graded).model_validate({"level": 2, "reason": "r"})
    score, details = judging(level, graded, "ab")
    assert score == 0.75 and details["winner"] == "a" and details["answer"] == 2
