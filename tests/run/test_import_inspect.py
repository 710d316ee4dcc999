"""Inspect AI's own logs, made here offline by ``inspect_ai.eval`` with its ``mockllm`` model (a
model-graded scorer with a grader of its own, ``match``, and a numeric scorer named as a
judgegrid metric, over two epochs), imported as ``.eval`` and ``.json`` and reported: each
scorer's mean and count per judge equal what the log holds, the epoch is the repeat, the grader
model is the model-graded scorer's judge, and the sample's texts come from the log."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import api, import_verdicts, rebuild_report
from judgegrid.cli import app
from judgegrid.inputs.recorded.formats import read_recorded

inspect_ai = pytest.importorskip("inspect_ai")

QUESTIONS = {"q1": ("What is 1+1?", "2", "2"), "q2": ("Capital of France?", "Paris", "Lyon")}
FAITHFULNESS = {"q1": 0.8, "q2": 0.3}


def _reply(messages, tools, choice, config):
    """The mock model's answer, and the mock grader's grade (C unless the answer is Lyon); usage
    given so that the mock counts no tokens (its counter would fetch tiktoken's tables)."""
    from inspect_ai.model import ModelOutput, ModelUsage

    text = messages[-1].text
    if "GRADE" in text:
        reply = "GRADE: I" if "Lyon" in text else "GRADE: C"
    else:
        reply = next(answer for q, _, answer in QUESTIONS.values() if q in text)
    output = ModelOutput.from_content(model="mockllm/model", content=reply)
    output.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return output


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    """One log in each of Inspect's two formats, of the same task."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, match, mean, model_graded_fact, scorer
    from inspect_ai.solver import generate

    @scorer(metrics=[mean()])
    def faithfulness():
        async def score(state, target):
            return Score(value=FAITHFULNESS[str(state.sample_id)])

        return score

    folder = tmp_path_factory.mktemp("inspect")
    dataset = [Sample(input=q, target=t, id=i) for i, (q, t, _) in QUESTIONS.items()]
    grader = get_model("mockllm/grader", custom_outputs=_reply)
    task = Task(
        dataset=dataset,
        solver=generate(),
        scorer=[model_graded_fact(model=grader), match(), faithfulness()],
        epochs=2,
    )
    made = {}
    for fmt in ("eval", "json"):
        model = get_model("mockllm/model", custom_outputs=_reply)
        done = eval(task, model=model, display="none", log_dir=str(folder / fmt), log_format=fmt)
        assert done[0].status == "success", done[0].error
        made[fmt] = Path(done[0].location)
    return made


@pytest.fixture(scope="module")
def run(logs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "run"
    done = CliRunner().invoke(app, ["import", str(logs["eval"]), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "format: inspect (detected)" in done.output
    assert "12 cells of 2 judges on 2 samples" in done.output
    rebuild_report(out)
    return out


def test_each_scorer_s_figures_are_the_log_s(run, logs):
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(logs["eval"]))
    expected = {}
    for name in ("model_graded_fact", "match", "faithfulness"):
        values = [s.scores[name].value for s in log.samples]
        numbers = [{"C": 1.0, "I": 0.0}.get(v, v) for v in values]
        expected[name] = (len(numbers), sum(numbers) / len(numbers))
    summary = pd.read_csv(run / "tables" / "config_summary.csv").set_index("metric")
    for name, (n, mean) in expected.items():
        assert summary.loc[name, "scored"] == n == 4
        assert summary.loc[name, "mean_score"] == pytest.approx(mean)
    assert summary.loc["faithfulness", "mean_score"] == pytest.approx(0.55)
    assert summary.loc["model_graded_fact", "judge"] == "mockllm/grader"  # the scorer's grader
    assert summary.loc["match", "judge"] == "mockllm/model"  # the model evaluated


def test_epochs_are_repeats_and_the_texts_are_the_log_s(run):
    scores, calls = api.load_run(run)
    assert calls.empty and (scores["calls"] == 0).all()
    graded = scores[scores["metric"] == "model_graded_fact"]
    assert sorted(graded["repeat"].unique().tolist()) == [0, 1]
    by_sample = graded.groupby("sample_id")["score"].agg(set).to_dict()
    assert by_sample == {"q1": {1.0}, "q2": {0.0}}
    details = json.loads(graded.iloc[0]["details"])
    assert details["imported"]["file"].endswith(".eval")
    wide = api.export_run(run, "wide").set_index("sample_id")
    for sample_id, (question, target, answer) in QUESTIONS.items():
        assert wide.loc[sample_id, "user_input"] == question
        assert wide.loc[sample_id, "reference"] == target
        assert wide.loc[sample_id, "response"] == answer


def test_a_json_log_is_read_as_the_eval_one(logs, tmp_path, run):
    result = import_verdicts([logs["json"]], tmp_path / "json")
    assert (result.format, result.detected) == ("inspect", True)
    ours = api.load_run(tmp_path / "json")[0]
    theirs = api.load_run(run)[0]
    keys = ["judge", "metric", "sample_id", "repeat"]
    assert ours.sort_values(keys)["score"].tolist() == theirs.sort_values(keys)["score"].tolist()


def test_partial_credit_levels_and_no_answer(tmp_path):
    """A scorer's P makes a labels criterion (correct 1, partial 0.5, incorrect 0), whole
    numbers a scale of their range, and N (no answer) no verdict: no cell, said."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, mean, scorer
    from inspect_ai.solver import generate

    given = {"partial": {"q1": "C", "q2": "P"}, "stars": {"q1": 4, "q2": 2}}
    given["answered"] = {"q1": "I", "q2": "N"}

    def made(name):
        @scorer(metrics=[mean()], name=name)
        def one():
            async def score(state, target):
                return Score(value=given[name][str(state.sample_id)])

            return score

        return one()

    dataset = [Sample(input=q, target=t, id=i) for i, (q, t, _) in QUESTIONS.items()]
    task = Task(dataset=dataset, solver=generate(), scorer=[made(n) for n in given])
    model = get_model("mockllm/model", custom_outputs=_reply)
    done = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert done[0].status == "success", done[0].error
    recorded, detected = read_recorded([Path(done[0].location)])
    assert detected == "inspect"
    kinds = {c.name: (c.type, c.labels, c.levels) for c in recorded.criteria}
    assert kinds == {
        "partial": ("labels", {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}, ()),
        "stars": ("scale", None, (2, 3, 4)),
        "answered": ("binary", None, ()),
    }
    scores = recorded.verdicts.set_index(["metric", "sample_id"])["score"]
    assert scores[("partial", "q2")] == 0.5 and scores[("stars", "q1")] == 4.0
    assert scores[("answered", "q1")] == 0.0 and ("answered", "q2") not in scores.index
    assert any("1 scores N (no answer) left out" in note for note in recorded.notes)
