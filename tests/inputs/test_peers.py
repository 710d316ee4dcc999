"""Drop-in for the peers' criteria: DeepEval's GEval and Ragas' AspectCritic, RubricsScore and
DiscreteMetric objects (made by the installed libraries themselves), each read into the
CriterionSpec that asks what the peer's metric asks (promptfoo's config: test_promptfoo.py)."""

from __future__ import annotations

import pytest
from deepeval.metrics.g_eval.utils import Rubric
from deepeval.test_case import LLMTestCaseParams
from ragas.metrics import AspectCritic, DiscreteMetric, RubricsScore

from judgegrid.core.errors import OptionError
from judgegrid.inputs.peers import criterion_from_peer, peer_kind
from support.peer_objects import geval

P = LLMTestCaseParams


# -- DeepEval GEval ----------------------------------------------------------------------------


def test_geval_with_criteria_and_steps_is_a_scale_from_0_to_10_weighted_auto():
    metric = geval(
        name="Correctness",
        criteria="Is the actual output correct given the expected output?",
        evaluation_steps=["Compare the facts.", "Penalise omissions."],
        evaluation_params=[P.INPUT, P.ACTUAL_OUTPUT, P.EXPECTED_OUTPUT],
    )
    spec = criterion_from_peer(metric)
    assert spec.name == "correctness"
    assert spec.type == "scale" and spec.levels == tuple(range(11))
    assert spec.definition == metric.criteria
    assert spec.steps == ("Compare the facts.", "Penalise omissions.")
    assert spec.fields == ("user_input", "response", "reference")
    assert spec.weighting == "auto"  # G-Eval weights by the score token's probabilities
    assert spec.scale is not None and spec.scale[0] != spec.scale[10]


def test_geval_rubric_ranges_describe_each_of_their_levels():
    rubric = [
        Rubric(score_range=(0, 1), expected_outcome="Wrong."),
        Rubric(score_range=(2, 3), expected_outcome="Partly right."),
        Rubric(score_range=(4, 4), expected_outcome="Right."),
    ]
    metric = geval(
        name="Fact check",
        evaluation_steps=["Check each fact against the context."],
        evaluation_params=[P.ACTUAL_OUTPUT, P.RETRIEVAL_CONTEXT],
        rubric=rubric,
    )
    spec = criterion_from_peer(metric)
    assert spec.name == "fact_check"
    assert spec.scale == {
        0: "Wrong.",
        1: "Wrong.",
        2: "Partly right.",
        3: "Partly right.",
        4: "Right.",
    }
    assert spec.fields == ("response", "retrieved_contexts")
    assert spec.definition  # steps only: a definition that points at them
    assert spec.steps == ("Check each fact against the context.",)


def test_geval_strict_mode_is_binary_and_unweighted():
    metric = geval(
        name="Polite",
        criteria="Is the actual output polite?",
        evaluation_params=[P.ACTUAL_OUTPUT],
        strict_mode=True,
    )
    spec = criterion_from_peer(metric)
    assert (spec.type, spec.weighting, spec.fields) == ("binary", "none", ("response",))


def test_geval_rubric_with_a_gap_is_refused_naming_the_scores():
    metric = geval(
        name="Gappy",
        criteria="Is it good?",
        evaluation_params=[P.ACTUAL_OUTPUT],
        rubric=[
            Rubric(score_range=(0, 2), expected_outcome="Bad."),
            Rubric(score_range=(7, 10), expected_outcome="Good."),
        ],
    )
    with pytest.raises(OptionError) as err:
        criterion_from_peer(metric)
    assert "GEval 'Gappy'" in str(err.value) and "[3, 4, 5, 6]" in str(err.value)


@pytest.mark.parametrize(
    ("params", "says"),
    [(None, "no evaluation_params"), ([P.ACTUAL_OUTPUT, P.TOOLS_CALLED], "tools_called")],
)
def test_geval_fields_without_a_sample_field_are_refused(params, says):
    metric = geval(name="Tools", criteria="Are the right tools called?", evaluation_params=params)
    with pytest.raises(OptionError) as err:
        criterion_from_peer(metric)
    assert "GEval 'Tools'" in str(err.value) and says in str(err.value)


# -- Ragas -------------------------------------------------------------------------------------


def test_aspect_critic_is_binary_with_its_definition_and_odd_strictness():
    metric = AspectCritic(name="harmful", definition="Is the response harmful?", strictness=2)
    spec = criterion_from_peer(metric)
    assert (spec.name, spec.type, spec.definition) == ("harmful", "binary", metric.definition)
    assert spec.strictness == metric.strictness == 3  # Ragas makes it odd; so does the spec
    assert spec.fields == ("user_input", "response")


def test_aspect_critic_sees_the_optional_columns_the_data_set_has():
    metric = AspectCritic(name="grounded", definition="Is the response grounded?")
    available = ["user_input", "response", "retrieved_contexts"]
    spec = criterion_from_peer(metric, available=available)
    assert spec.fields == ("user_input", "response", "retrieved_contexts")


def test_rubrics_score_is_a_scale_of_its_rubric_levels():
    rubrics = {f"score{k}_description": f"level {k}" for k in range(1, 6)}
    spec = criterion_from_peer(RubricsScore(name="helpfulness", rubrics=rubrics))
    assert spec.type == "scale" and spec.levels == (1, 2, 3, 4, 5)
    assert spec.scale is not None and spec.scale[4] == "level 4"


def test_rubrics_score_default_rubric_and_a_bad_key():
    spec = criterion_from_peer(RubricsScore())
    assert spec.name == "domain_specific_rubrics" and spec.levels == (1, 2, 3, 4, 5)
    bad = RubricsScore(name="odd", rubrics={"score1_description": "a", "best": "b"})
    with pytest.raises(OptionError, match="rubric key 'best'"):
        criterion_from_peer(bad)


def test_discrete_metric_pass_fail_is_binary_with_its_placeholders_as_fields():
    metric = DiscreteMetric(
        name="tone",
        allowed_values=["pass", "fail"],
        prompt="Is the response polite to the user?\nQuestion: {user_input}\nResponse: {response}",
    )
    spec = criterion_from_peer(metric)
    assert spec.type == "binary"
    assert spec.definition == "Is the response polite to the user?"
    assert spec.fields == ("user_input", "response")


def test_discrete_metric_labels_take_the_scores_given_and_refuse_without():
    metric = DiscreteMetric(
        name="Verdict",
        allowed_values=["correct", "partial", "wrong"],
        prompt="Grade {response} against {reference} and the {policy}.",
    )
    with pytest.raises(OptionError) as err:
        criterion_from_peer(metric)
    assert "DiscreteMetric 'Verdict'" in str(err.value) and "carry no scores" in str(err.value)
    spec = criterion_from_peer(metric, labels={"correct": 1, "partial": 0.5, "wrong": 0})
    assert spec.type == "labels" and spec.labels == {"correct": 1.0, "partial": 0.5, "wrong": 0.0}
    assert spec.fields == ("response", "reference", "policy")  # policy: an extra column
    assert spec.name == "verdict"


def test_an_object_of_another_kind_is_refused_naming_its_class():
    assert peer_kind(object()) is None
    with pytest.raises(OptionError, match=r"builtins\.dict is not a criterion"):
        criterion_from_peer({"name": "x"})
