"""A criterion of one's own: the spec refuses what cannot be judged, the answer schema allows only
the criterion's answers, the majority vote is Ragas' AspectCritic's, and the probability-weighted
score is G-Eval's expected level."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError
from ragas.metrics import AspectCritic
from ragas.metrics._aspect_critic import AspectCriticOutput

from judgegrid.core.criterion import CriterionSpec
from judgegrid.metrics.criterion import (
    answer_model,
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
        ({"unknown": 1}, "extra"),
    ],
)
def test_what_cannot_be_judged_is_refused_with_its_reason(fields, words):
    with pytest.raises(ValidationError, match=words):
        spec(**fields)


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
