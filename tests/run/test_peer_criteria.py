"""The peers' criteria handed to judgegrid where a criterion goes (issue 32, section 5): DeepEval's
GEval and Ragas' AspectCritic objects, made by the installed libraries, beside ``Criterion``s in
``run_grid``, ``plan_grid`` and ``score_sample``, scored end to end on the scripted judge; a name
taken or an object of another kind refused before anything is written, naming the argument."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from deepeval.metrics.g_eval.utils import Rubric
from deepeval.test_case import LLMTestCaseParams
from ragas.metrics import AspectCritic, DiscreteMetric, Faithfulness

from conftest import ENGLISH_DEMO, fault_server_matrix, matrix_dict
from judgegrid import Criterion, api, criterion_from_peer, score_sample
from judgegrid.core.errors import DatasetError, OptionError
from judgegrid.store.run_dir import RESOLVED_MATRIX
from support.peer_objects import geval

P = LLMTestCaseParams
OWN = {"name": "polite", "definition": "Is the reply polite?", "type": "binary"}


def correctness():
    return geval(
        name="Correctness",
        criteria="Is the actual output correct given the expected output?",
        evaluation_params=[P.INPUT, P.ACTUAL_OUTPUT, P.EXPECTED_OUTPUT],
        rubric=[
            Rubric(score_range=(0, 1), expected_outcome="Wrong."),
            Rubric(score_range=(2, 2), expected_outcome="Right."),
        ],
    )


def grounded():
    return AspectCritic(name="grounded", definition="Is the response grounded?", strictness=3)


def criteria_only(**overrides):
    return matrix_dict(metrics=[], embeddings=[], repeats=1, **overrides)


def test_a_geval_and_an_aspect_critic_handed_to_run_grid_give_criterion_rows(tmp_path):
    handed = [correctness(), grounded(), Criterion(**OWN)]
    plan = api.plan_grid(criteria_only(), limit=3, use_cache=False, criteria=handed)
    run = api.run_grid(
        criteria_only(), limit=3, use_cache=False, run_dir=tmp_path / "run", criteria=handed
    )
    scores = run.scores
    assert run.complete and len(scores) == plan.cells == 3 * 2 * 3  # samples x judges x criteria
    assert set(scores["status"]) == {"scored"}
    assert scores.groupby("metric").size().to_dict() == {
        "correctness": 6,
        "grounded": 6,
        "polite": 6,
    }
    # GEval: its rubric's levels, weighted where the judge gives log-probabilities (none here)
    geval_rows = scores[scores["metric"] == "correctness"]
    assert set(geval_rows["answer"]) == {1.0} and set(geval_rows["weighting"]) == {"missing"}
    # AspectCritic: a vote of three verdicts, on the columns the data set has (Ragas' rule)
    assert set(scores.loc[scores["metric"] == "grounded", "strictness"]) == {3}
    resolved = yaml.safe_load((tmp_path / "run" / RESOLVED_MATRIX).read_text())
    by_name = {c["name"]: c for c in resolved["criteria"]}
    assert list(by_name) == ["correctness", "grounded", "polite"]
    assert by_name["grounded"]["fields"] == [
        "user_input",
        "response",
        "retrieved_contexts",
        "reference",
    ]
    assert by_name["correctness"]["scale"] == {"0": "Wrong.", "1": "Wrong.", "2": "Right."}
    asked = "\n".join(run.calls["request"])
    assert "Is the response grounded?" in asked and "Right." in asked
    # the run directory holds them: a resume needs nothing handed again
    assert api.resume_run(tmp_path / "run").complete


def test_handed_criteria_join_the_matrixs_own_and_its_metrics(tmp_path):
    matrix = matrix_dict(metrics=["faithfulness"], embeddings=[], repeats=1, criteria=[OWN])
    plan = api.plan_grid(matrix, limit=2, use_cache=False, criteria=[grounded()])
    assert plan.cells == 2 * 2 * 3
    run = api.run_grid(
        matrix, limit=2, use_cache=False, run_dir=tmp_path / "r", criteria=[grounded()]
    )
    assert set(run.scores["metric"]) == {"faithfulness", "polite", "grounded"}


@pytest.mark.slow  # worker processes start
def test_on_workers_the_handed_criteria_travel_in_the_matrix(tmp_path, server, monkeypatch):
    """The workers reach the fault server on 127.0.0.1 (the scripted provider lives only in
    this process); the peer's object stays in the driver, its criterion goes in the matrix."""
    monkeypatch.setenv("JUDGEGRID_PEER_KEY", "sk-peer-test")
    data = tmp_path / "d.jsonl"
    data.write_text(ENGLISH_DEMO.read_text(encoding="utf-8"), encoding="utf-8")
    judges = {"mini": "openai/gpt-4o-mini", "mini-41": "openai/gpt-4.1-mini"}
    matrix = fault_server_matrix(
        server.url, data, "JUDGEGRID_PEER_KEY", judges, "openai/fake-embed", repeats=1
    )
    matrix.update(metrics=[], embeddings=[])
    handed = [grounded(), Criterion(**OWN)]
    here = api.run_grid(matrix, limit=4, use_cache=False, run_dir=tmp_path / "h", criteria=handed)
    there = api.run_grid(
        matrix, limit=4, use_cache=False, run_dir=tmp_path / "w", criteria=handed, workers=2
    )
    assert there.complete and set(there.scores["status"]) == {"scored"}
    key = ["metric", "judge", "sample_id", "strictness", "repeat"]
    columns = [*key, "score", "answer", "details"]
    first, second = (
        r.scores[columns].sort_values(key).reset_index(drop=True) for r in (here, there)
    )
    pd.testing.assert_frame_equal(first, second)
    assert set(first["metric"]) == {"grounded", "polite"}


def test_a_ragas_metric_sees_only_the_columns_the_data_set_has(tmp_path):
    data = [{"user_input": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet."}]
    run = api.run_grid(
        criteria_only(), data, use_cache=False, run_dir=tmp_path / "run", criteria=[grounded()]
    )
    resolved = yaml.safe_load((tmp_path / "run" / RESOLVED_MATRIX).read_text())
    assert resolved["criteria"][0]["fields"] == ["user_input", "response"]
    assert set(run.scores["status"]) == {"scored"}


def test_a_name_taken_is_refused_naming_the_argument_and_nothing_is_written(tmp_path):
    matrix = criteria_only(criteria=[{**OWN, "name": "grounded"}])
    with pytest.raises(OptionError) as err:
        api.run_grid(matrix, reports_dir=tmp_path / "reports", criteria=[grounded()])
    assert err.value.source == "criteria"
    text = str(err.value)
    assert "[0] AspectCritic 'grounded'.name" in text and "criterion of the matrix" in text
    with pytest.raises(
        OptionError, match=r"\[1\] 'grounded'.name: 'grounded' is the name of \[0\]"
    ):
        api.plan_grid(
            criteria_only(), criteria=[grounded(), Criterion(**{**OWN, "name": "grounded"})]
        )
    with pytest.raises(OptionError, match=r"\[0\] 'faithfulness'.name: .*built-in metric"):
        api.plan_grid(criteria_only(), criteria=[Criterion(**{**OWN, "name": "faithfulness"})])
    assert not (tmp_path / "reports").exists()


def test_what_cannot_be_read_is_refused_before_a_run_starts(tmp_path):
    gappy = geval(
        name="Gappy",
        criteria="Is it good?",
        evaluation_params=[P.ACTUAL_OUTPUT],
        rubric=[
            Rubric(score_range=(0, 2), expected_outcome="Bad."),
            Rubric(score_range=(7, 10), expected_outcome="Good."),
        ],
    )
    with pytest.raises(OptionError) as err:
        api.run_grid(criteria_only(), reports_dir=tmp_path / "r", criteria=[grounded(), gappy])
    assert "criteria: [1] GEval 'Gappy'" in str(err.value) and "[3, 4, 5, 6]" in str(err.value)
    # an object of another kind (a Ragas metric that is no criterion) fails the argument check
    with pytest.raises(OptionError) as err:
        api.run_grid(criteria_only(), reports_dir=tmp_path / "r", criteria=[Faithfulness()])
    assert err.value.source == "run_grid" and err.value.problems[0].where == "criteria"
    with pytest.raises(OptionError, match="criteria"):
        api.plan_grid(criteria_only(), criteria="polite")
    assert not (tmp_path / "r").exists()


def test_discrete_metric_labels_come_through_criterion_from_peer(tmp_path):
    verdict = DiscreteMetric(
        name="verdict",
        allowed_values=["right", "wrong"],
        prompt="Grade {response} for the question {user_input}.",
    )
    with pytest.raises(OptionError, match=r"criterion_from_peer\(metric, labels="):
        api.plan_grid(criteria_only(), criteria=[verdict])
    spec = criterion_from_peer(verdict, labels={"right": 1, "wrong": 0})
    plan = api.plan_grid(criteria_only(), limit=2, criteria=[spec])
    assert plan.cells == 4


def test_score_sample_takes_a_peers_criterion():
    sample = {
        "user_input": "Who wrote Hamlet?",
        "response": "Shakespeare wrote Hamlet.",
        "retrieved_contexts": ["Hamlet is a tragedy by William Shakespeare."],
    }
    result = score_sample(grounded(), sample, judge="scripted/judge-a")
    assert (result.metric, result.answer, result.score) == ("grounded", 1.0, 1.0)
    assert len(result.details["verdicts"]) == 3
    # Ragas' rule for one sample: the contexts it has are shown
    assert "Hamlet is a tragedy" in result.calls[0]["request"]
    g = score_sample(
        correctness(), {**sample, "reference": "Shakespeare."}, judge="scripted/judge-a"
    )
    assert (g.metric, g.answer, g.weighting) == ("correctness", 1.0, "missing")
    with pytest.raises(DatasetError, match="has no reference"):
        score_sample(correctness(), sample, judge="scripted/judge-a")
