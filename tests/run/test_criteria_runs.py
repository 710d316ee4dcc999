"""Criteria of the user's own through the whole chain on the scripted judge: every judge and
wording makes its cells, a binary criterion's vote is asked as one request's generations, the
plan's calls are the run's, the cache, workers, a resume and an export carry the wording, and a
run killed with SIGKILL resumes to the cells of a run that was not."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pandas as pd
import yaml
from typer.testing import CliRunner

from conftest import CELL_KEY, matrix_dict
from judgegrid import Criterion, api, score_sample
from judgegrid.cli import app
from support.fault_matrices import KEY_ENV, PLANTED, fault_matrix
from support.killed_runs import cells as killed_cells
from support.killed_runs import resume, run_and_kill, run_args, run_whole

CRITERIA = [
    {"name": "polite", "definition": "Is the reply polite?", "type": "binary", "strictness": 3},
    {
        "name": "correctness",
        "definition": "Is the reply correct?",
        "type": "labels",
        "labels": {"correct": 1, "partial-credit": 0.5, "wrong": 0},
        "fields": ["user_input", "response", "reference"],
    },
    {
        "name": "helpful",
        "definition": "How helpful is the reply?",
        "type": "scale",
        "scale": {1: "no help", 2: "some help", 3: "helpful"},
        "wordings": ["Does the reply help?", "Would a user be helped by it?"],
        "higher-is-better": True,
    },
]


def criteria_matrix(**overrides) -> dict:
    fields = {"metrics": ["faithfulness"], "embeddings": [], "criteria": CRITERIA, "repeats": 1}
    return matrix_dict(**{**fields, **overrides})


def write(tmp_path: Path, data: dict, name: str = "matrix.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def cells(frame: pd.DataFrame) -> set[tuple]:
    return set(map(tuple, frame[CELL_KEY].to_numpy().tolist()))


def test_every_judge_and_wording_makes_cells_with_their_answers(tmp_path):
    path = write(tmp_path, criteria_matrix())
    plan = api.plan_grid(path, limit=4, use_cache=False)
    run = api.run_grid(path, limit=4, use_cache=False, run_dir=tmp_path / "run")
    scores = run.scores
    assert run.complete and len(scores) == run.expected_cells == plan.cells
    per = scores.groupby("metric").size().to_dict()
    # 4 samples x 2 judges; the scale criterion once per wording (its definition and two more)
    assert per == {"faithfulness": 8, "polite": 8, "correctness": 8, "helpful": 24}
    helpful = scores[scores["metric"] == "helpful"]
    assert sorted(set(helpful["wording"])) == [0, 1, 2]
    assert set(scores.loc[scores["metric"] != "helpful", "wording"]) == {0}
    assert set(scores.loc[scores["metric"] == "polite", "strictness"]) == {3}
    assert set(scores.loc[scores["metric"].isin(["correctness", "helpful"]), "strictness"]) == {0}
    assert set(scores.loc[scores["metric"] == "faithfulness", "weighting"].isna()) == {True}
    criteria = scores[scores["metric"] != "faithfulness"]
    assert set(criteria["status"]) == {"scored"} and set(criteria["weighting"]) == {"none"}
    assert (criteria["score"] == criteria["answer"]).all()
    assert set(scores.loc[scores["metric"] == "correctness", "answer"]) == {1.0}  # first label
    assert set(helpful["answer"]) == {2.0}  # the scripted judge's middle level
    polite = scores[scores["metric"] == "polite"]
    for _, row in polite.iterrows():
        details = json.loads(row["details"])
        assert len(details["verdicts"]) == 3
        assert details["answer"] == ("pass" if row["answer"] == 1.0 else "fail")
        assert details["pass_share"] == sum(details["verdicts"]) / 3
    # each wording is its own request: its text is in the prompt, so in the step's key
    asked = [json.loads(r)["messages"][1]["content"] for r in run.calls["request"]]
    assert sum("Would a user be helped by it?" in text for text in asked) == 4 * 2
    assert sum("partial-credit" in text for text in asked) == 4 * 2  # the label, as written


def test_the_plans_calls_equal_the_runs_on_a_server_that_takes_n(server, tmp_path, monkeypatch):
    """The fault server returns n choices (the scripted provider one, so a vote of 3 is one
    call there and three on the scripted judge): the plan's calls per judge and step are the
    run's, the binary vote one call with n = 3."""
    monkeypatch.setenv(KEY_ENV, PLANTED)
    server.reset_counts()
    matrix = fault_matrix(
        server.url, timeout="30s", metrics=["faithfulness"], embeddings=[], criteria=CRITERIA
    )
    path = write(tmp_path, matrix)
    plan = api.plan_grid(path, limit=4)
    assert server.requests == 0
    run = api.run_grid(path, limit=4, run_dir=tmp_path / "run")
    assert run.complete and set(run.scores["status"]) == {"scored"}
    planned = Counter({(r.label, r.step): r.calls for r in plan.rows})
    made = Counter(zip(run.calls["label"], _steps(tmp_path / "run", run.calls), strict=True))
    assert planned == made
    assert server.requests == len(run.calls) == plan.total("calls")
    # 4 samples x 2 judges: one call per polite vote, one per label, three wordings per scale
    assert planned[("fake-a", "criterion")] == 4 + 4 + 12


def _steps(run_dir: Path, calls: pd.DataFrame) -> list[str]:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        names = dict(db.execute("SELECT key, step FROM step_names"))
    return [names[key] for key in calls["step_key"]]


def test_the_cache_workers_and_export_carry_the_wording(tmp_path):
    path = write(tmp_path, criteria_matrix(metrics=[], juries=True))
    first = api.run_grid(path, limit=3, run_dir=tmp_path / "first")
    again = api.run_grid(path, limit=3, run_dir=tmp_path / "again")
    assert len(again.calls) == 0 and again.tally.cached_answers > 0
    columns = [*CELL_KEY, "score", "answer", "weighting"]
    key = [c for c in CELL_KEY]
    same = first.scores[columns].sort_values(key).reset_index(drop=True)
    assert same.equals(again.scores[columns].sort_values(key).reset_index(drop=True))
    there = api.run_grid(path, limit=3, run_dir=tmp_path / "there", use_cache=False, workers=2)
    assert cells(there.scores) == cells(first.scores) and there.complete
    exported = api.export_run(tmp_path / "first")
    assert {"polite", "correctness", "helpful"} <= set(exported.columns)
    assert (tmp_path / "first" / "report.html").exists()
    means = pd.read_csv(tmp_path / "first" / "tables" / "config_summary.csv")
    assert "jury(a + b)" in set(means["judge"])  # the report's step made the jury's rows


def test_a_resumed_run_scores_only_the_cells_it_lacks(tmp_path):
    path = write(tmp_path, criteria_matrix(metrics=[]))
    run = api.run_grid(path, limit=3, run_dir=tmp_path / "run", use_cache=False)
    everything = cells(run.scores)
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        db.execute("DELETE FROM scores WHERE metric = 'helpful' AND wording = 2")
    resumed = api.resume_run(tmp_path / "run")
    assert cells(resumed.scores) == everything
    assert resumed.tally.already == len(everything) - 6  # 3 samples x 2 judges


def test_a_judges_answer_is_read_from_an_extra_column_a_criterion_names(tmp_path):
    data = tmp_path / "data.csv"
    pd.DataFrame(
        [
            {"user_input": "Where is it?", "response": "In Paris.", "tone": "curt"},
            {"user_input": "When?", "response": "In 1999.", "tone": "warm"},
        ]
    ).to_csv(data, index=False)
    tone = {
        "name": "fits_tone",
        "definition": "Does the reply match the tone asked for?",
        "type": "binary",
        "fields": ["response", "tone"],
    }
    path = write(tmp_path, criteria_matrix(metrics=[], criteria=[tone], dataset=str(data)))
    run = api.run_grid(path, run_dir=tmp_path / "run", use_cache=False)
    assert set(run.scores["status"]) == {"scored"}
    asked = [json.loads(r)["messages"][1]["content"] for r in run.calls["request"]]
    assert any("Tone: curt" in text for text in asked)
    assert any("Tone: warm" in text for text in asked)


def test_score_sample_takes_a_criterion_and_its_wording():
    criterion = Criterion(
        name="helpful",
        definition="How helpful is the reply?",
        type="scale",
        scale={1: "no help", 2: "some", 3: "helpful"},
        wordings=("Would a user be helped?",),
    )
    sample = {"user_input": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet."}
    first = score_sample(criterion, sample, judge="scripted/judge-a")
    other = score_sample(criterion, sample, judge="scripted/judge-a", wording=1)
    assert (first.metric, first.score, first.answer, first.weighting) == (
        "helpful",
        2.0,
        2.0,
        "none",
    )
    assert "Would a user be helped?" in other.calls[0]["request"]
    assert "Would a user be helped?" not in first.calls[0]["request"]


def test_a_killed_criteria_run_resumes_to_the_same_cells(tmp_path):
    args = run_args(write(tmp_path, criteria_matrix()), "--limit", "6")
    everything = killed_cells(run_whole(args, tmp_path / "full") / "run.sqlite")
    assert {c[-1] for c in everything} == {0, 1, 2}  # the wordings were there to lose
    db = run_and_kill(args, tmp_path / "killed", lambda done: len(done) >= 20, "--no-cache")
    assert len(killed_cells(db)) < len(everything)
    resumed = resume(db.parent)
    assert resumed.returncode == 0, resumed.stderr
    assert killed_cells(db) == everything


def test_probes_that_need_no_knowledge_of_a_criterion_and_its_fails_when_are_scored(tmp_path):
    on_topic = {
        "name": "on_topic",
        "definition": "Does the reply answer the question?",
        "type": "binary",
        "fails-when": ["foreign_response"],
    }
    tone = {**CRITERIA[2], "fields": ["user_input", "retrieved_contexts"]}  # no response shown
    matrix = criteria_matrix(
        metrics=[],
        criteria=[on_topic, tone],
        probes={"per-metric": 2},
        judges=[{"id": "scripted/judge-a", "label": "a"}],
    )
    path = write(tmp_path, matrix)
    plan = api.plan_grid(path, limit=6, use_cache=False)
    run = api.run_grid(path, limit=6, use_cache=False, run_dir=tmp_path / "run")
    assert run.complete
    probe_rows = run.scores[run.scores["sample_id"].str.contains("~probe~")]
    made = {tuple(s.split("~")[2:]) for s in probe_rows["sample_id"]}
    assert made == {
        ("on_topic", "foreign_response"),
        ("on_topic", "injection"),
        ("on_topic", "verbosity"),
        ("helpful", "injection"),  # the note goes into the top context it shows
        ("helpful", "order"),
    }
    assert plan.probes is not None and plan.probes.cells == len(probe_rows)
    # the helpful probes are scored under each of its three wordings
    assert set(probe_rows.loc[probe_rows["metric"] == "helpful", "wording"]) == {0, 1, 2}
    probes = pd.read_csv(tmp_path / "run" / "tables" / "probes.csv")
    assert {"on_topic", "helpful"} <= set(probes["metric"])


def test_validate_counts_the_criteria_and_their_cells(tmp_path):
    path = write(tmp_path, criteria_matrix(limit=4))
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 metric, 3 criteria, 1 repeat" in result.output
    assert ": 48 cells" in result.output  # as the run makes them (the first test)
