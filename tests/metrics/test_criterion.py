"""A criterion of one's own: the spec refuses what cannot be judged, the answer schema allows only
the criterion's answers, the majority vote is Ragas' AspectCritic's, and the probability-weighted
score is G-Eval's expected level."""

from __future__ import annotations

import asyncio
import math

import pytest
from pydantic import ValidationError
from ragas.metrics import AspectCritic
from ragas.metrics._aspect_critic import AspectCriticOutput

from judgegrid.core.context import ScoreContext, Weighted
from judgegrid.core.criterion import Criterion, CriterionSpec
from judgegrid.core.errors import JudgegridError, OptionError, ScoringError
from judgegrid.core.sample import Sample
from judgegrid.metrics.criterion import (
    CriterionMetric,
    answer_model,
    choice_probabilities,
    criterion_prompt,
    expected_level,
    input_model,
    majority,
)

RUBRIC = {1: "useless", 2: "partly helpful", 3: "helpful", 4: "very helpful"}


def spec(**fields):
    return CriterionSpec(
        **({"name": "polite", "definition": "Is the reply polite?", "type": "binary"} | fields)
    )


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"definition": "  "}, "definition"),
        ({"type": "scale", "scale": {1: "bad", 2: "ok", 4: "good"}}, r"miss \[3\]"),
        ({"type": "scale", "scale": {1: "bad"}}, "two levels"),
        ({"type": "labels", "labels": {"correct": 1}}, "two labels"),
        ({"type": "labels"}, "two labels"),
        ({"wordings": ("Is it polite?", "is it  POLITE?")}, r"wordings\[1\] repeats wordings\[0\]"),
        ({"wordings": ("is the reply  polite?",)}, r"wordings\[0\] repeats the definition"),
        ({"type": "labels", "labels": {"good": 1, "fine": 1, "bad": 0}}, "same score 1"),
        ({"type": "labels", "labels": ["good", "bad"]}, "labels without scores"),
        ({"type": "labels", "labels": {"good": None, "bad": 0}}, "'good' has no score"),
        ({"fields": ("response", "id")}, "judgegrid's own field"),
        ({"fields": ("answer", "response")}, "response is named twice"),
        ({"strictness": 2}, "odd number"),
        ({"name": "Polite reply"}, "lower-case"),
        ({"fields": ()}, "empty"),
        ({"type": "scale", "scale": RUBRIC, "strictness": 3}, "only for type binary"),
        ({"unknown": 1}, "unknown field"),
        # issue 39: what YAML gives that is not what it looks like, lists that must differ
        ({"type": "labels", "labels": {True: 1, False: 0}}, "write 'yes' in quotes"),
        ({"type": "labels", "labels": {"good": float("nan"), "bad": 0}}, "finite number"),
        ({"type": "scale", "scale": {True: "bad", 2: "good"}}, "a key is the boolean True"),
        ({"strictness": True}, "not a number"),
        ({"fails_when": ("injection", "injection")}, r"fails_when\[0\] and fails_when\[1\]"),
        (
            {"type": "pairwise", "compare": ("response", "response_b"), "scale": {1: "a", 2: "b"}},
            "no middle one for a tie",
        ),
    ],
)
def test_what_cannot_be_judged_is_refused_with_its_reason(fields, words):
    with pytest.raises(ValidationError, match=words):
        spec(**fields)


def test_a_criterion_refused_is_judgegrids_error_and_still_pydantics():
    """``Criterion(...)`` raised pydantic's bare ValidationError, which escaped ``except
    judgegrid.JudgegridError``; it is an OptionError now, and a ValidationError still, so code
    written against either catches it, and ``errors()`` says what pydantic said."""
    with pytest.raises(OptionError) as raised:
        Criterion(name="Polite", definition="Is it polite?", type="scale", scale={1: "a", 3: "b"})
    error = raised.value
    assert isinstance(error, JudgegridError) and isinstance(error, ValidationError)
    assert [p.where for p in error.problems] == ["name", "scale"]
    assert str(error).splitlines()[1] == (
        "Criterion: scale: levels 1..3 miss [2]: no gaps (got {1: 'a', 3: 'b'})"
    )
    assert [e["loc"] for e in error.errors()] == [("name",), ("scale",)]


@pytest.mark.parametrize(
    ("kind", "extra", "good", "bad"),
    [
        ("binary", {}, {"verdict": "pass"}, {"verdict": "yes"}),
        (
            "labels",
            {"labels": {"correct": 1, "partial": 0.5, "wrong": 0}},
            {"label": "partial"},
            {"label": "right"},
        ),
        ("scale", {"scale": RUBRIC}, {"level": 3}, {"level": 5}),
    ],
)
def test_the_answer_schema_allows_only_the_criterions_answers(kind, extra, good, bad):
    model = answer_model(spec(type=kind, **extra))
    assert model.model_validate(good | {"reason": "r"})
    with pytest.raises(ValidationError):
        model.model_validate(bad | {"reason": "r"})


def test_fields_are_read_in_any_scheme_and_extra_columns_are_told_apart():
    criterion = spec(fields=("question", "actual_output", "tone", "reference_contexts"))
    assert criterion.fields == ("user_input", "response", "tone", "reference_contexts")
    assert criterion.extra_fields == ("tone",)


def test_the_public_name_is_criterion():
    from judgegrid import Criterion

    assert Criterion is CriterionSpec


def test_the_prompt_says_the_wording_the_steps_and_the_rubric_and_the_fields_it_shows():
    criterion = spec(
        type="scale",
        scale=RUBRIC,
        steps=("Read the question.", "Read the reply."),
        wordings=("Does the reply help the user?",),
        fields=("user_input", "response", "reference"),
    )
    first, second = criterion_prompt(criterion, 0), criterion_prompt(criterion, 1)
    asked = input_model(criterion)(user_input="Q?", response="A.", reference="R.")
    text = first.render(asked)
    assert "criterion: Is the reply polite?" in text and "2. Read the reply." in text
    assert "4: very helpful" in text and "Question: Q?" in text and "Reference: R." in text
    assert "Does the reply help the user?" in second.render(asked)
    assert text.index('"level"') < text.index('"reason"')  # the score token comes first


def test_the_language_note_is_said_under_the_definition_and_only_when_written():
    noted = spec(language="Vietnamese politeness norms apply")
    asked = input_model(noted)(user_input="Q?", response="A.")
    text = criterion_prompt(noted).render(asked)
    assert "Is the reply polite?\nLanguage: Vietnamese politeness norms apply" in text
    assert "Language:" not in criterion_prompt(spec()).render(asked)


@pytest.mark.parametrize(
    "verdicts", [[1], [0], [1, 0, 1], [0, 0, 1], [1, 1, 0, 0, 0], [0, 1, 1, 1, 0, 1, 0]]
)
def test_the_majority_is_ragas_aspect_critics(verdicts):
    critic = AspectCritic(
        name="polite", definition="Is the reply polite?", strictness=len(verdicts)
    )
    expected = critic._compute_score([AspectCriticOutput(reason="r", verdict=v) for v in verdicts])
    winner, share = majority(verdicts)
    assert winner == expected
    assert share == pytest.approx(sum(verdicts) / len(verdicts))


def test_the_expected_level_weights_each_allowed_level_by_its_probability():
    logprobs = {"3": math.log(0.5), "4": math.log(0.3), " 2": math.log(0.1), "x": math.log(0.1)}
    expected = (3 * 0.5 + 4 * 0.3 + 2 * 0.1) / 0.9  # "x" is no level: renormalised without it
    assert expected_level(logprobs, [1, 2, 3, 4]) == pytest.approx(expected)
    assert expected_level({"5": 0.0}, [1, 2, 3, 4]) is None  # no allowed level: say so
    assert expected_level({}, [1, 2]) is None


# -- CriterionMetric: a cell computed through ScoreContext ------------------------------------


class FakeJudge:
    """Answers each generation from a list of (answer, top log-probabilities or None), and
    records what it was asked; ``ask_many`` gives the answers alone."""

    def __init__(self, replies):
        self.replies, self.asked = replies, []

    async def ask(self, q):
        return (await self.ask_many(q, 1))[0]

    async def ask_many(self, q, n):
        self.asked.append(("many", q, n))
        return [q.schema.model_validate(answer) for answer, _ in self.replies[:n]]

    async def ask_weighted(self, q, n=1):
        self.asked.append(("weighted", q, n))
        return [Weighted(q.schema.model_validate(a), lp) for a, lp in self.replies[:n]]


SAMPLE = Sample(id="s", user_input="Who wrote Hamlet?", response="Shakespeare.")


def score(criterion, replies, wording=0, strictness=None):
    judge = FakeJudge(replies)
    ctx = ScoreContext(judge, None, strictness, wording)
    return asyncio.run(CriterionMetric(criterion).compute(SAMPLE, ctx)), judge


def verdict(v, p_pass=None):
    answer = {"verdict": v, "reason": f"said {v}"}
    if p_pass is None:
        return answer, None
    return answer, {"pass": math.log(p_pass), "fail": math.log(1 - p_pass)}


def test_a_binary_criterion_keeps_the_majority_of_its_votes_and_their_share():
    result, judge = score(spec(strictness=3), [verdict("fail"), verdict("pass"), verdict("pass")])
    assert (result.score, result.answer, result.weighting) == (1.0, 1.0, "none")
    assert result.details == {"verdicts": [0, 1, 1], "pass_share": 2 / 3, "answer": "pass"}
    assert result.reason == "said pass"  # a reason of the winning side
    assert judge.asked[0][0] == "many" and judge.asked[0][2] == 3
    assert judge.asked[0][1].score_field is None  # no log-probabilities asked


def test_the_weighted_binary_score_is_p_pass_averaged_over_the_votes():
    replies = [verdict("pass", 0.9), verdict("fail", 0.4), verdict("pass", 0.8)]
    result, judge = score(spec(strictness=3, weighting="logprobs"), replies)
    assert result.answer == 1.0 and result.weighting == "logprobs"
    assert result.score == pytest.approx((0.9 + 0.4 + 0.8) / 3)
    assert result.details["probabilities"]["1.0"] == pytest.approx(0.7)
    assert judge.asked[0][0] == "weighted" and judge.asked[0][1].score_field == "verdict"


def test_a_scale_weighted_by_the_level_tokens_is_geval_and_missing_ones_are_said():
    rubric = spec(type="scale", scale=RUBRIC, weighting="auto")
    tokens = {"3": math.log(0.6), "4": math.log(0.3), "x": math.log(0.1)}
    result, _ = score(rubric, [({"level": 3, "reason": "r"}, tokens)])
    assert result.score == pytest.approx(expected_level(tokens, [1, 2, 3, 4]))
    assert (result.answer, result.weighting, result.details["answer"]) == (3.0, "logprobs", 3)
    assert set(result.details["probabilities"]) == {"3.0", "4.0"}
    missing, _ = score(rubric, [({"level": 2, "reason": "r"}, None)])
    assert (missing.score, missing.answer, missing.weighting) == (2.0, 2.0, "missing")
    assert "probabilities" not in missing.details


def test_labels_score_the_label_and_weight_by_each_labels_score():
    labelled = spec(type="labels", labels={"correct": 1, "partial": 0.5, "wrong": 0})
    plain, _ = score(labelled, [({"label": "partial", "reason": "r"}, None)])
    assert (plain.score, plain.answer, plain.details["answer"]) == (0.5, 0.5, "partial")
    tokens = {'"correct': math.log(0.5), "part": math.log(0.25), " wrong": math.log(0.25)}
    weighted, _ = score(
        labelled.model_copy(update={"weighting": "logprobs"}),
        [({"label": "correct", "reason": "r"}, tokens)],
    )
    assert weighted.score == pytest.approx(1 * 0.5 + 0.5 * 0.25 + 0 * 0.25)


def test_a_piece_of_two_labels_is_no_labels():
    probabilities = choice_probabilities(
        {"p": 0.0, "fail": 0.0}, {"pass": 1.0, "partial": 0.5, "fail": 0.0}
    )
    assert probabilities == {0.0: 1.0}


def test_the_cells_wording_is_the_one_asked():
    worded = spec(wordings=("Is the tone courteous?",))
    _, judge = score(worded, [verdict("pass")], wording=1)
    assert "Is the tone courteous?" in judge.asked[0][1].messages[1]["content"]
    with pytest.raises(ScoringError, match="no wording 2"):
        score(worded, [verdict("pass")], wording=2)
