"""promptfoo's own results file (``tests/fixtures/promptfoo_results``, written by ``promptfoo eval
-o results.json`` offline, see its README) imported and reported: each graded assertion is a
criterion whose mean and count per grader equal what the file holds (llm-rubric and closedqa
by their pass, g-eval by its level of 0..10), ``--repeat``'s runs are repeats of one sample per
test, prompt and provider, the grader is the one the assertion or ``defaultTest`` names, and the
assertions that call no judge are said to be left out."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import api, import_verdicts
from judgegrid.inputs.promptfoo import criteria_from_promptfoo
from judgegrid.inputs.recorded.formats import read_recorded
from support.imports import assert_figures_are, imported

FIXTURE = Path(__file__).parents[1] / "fixtures" / "promptfoo_results" / "results.json"
NAMES = {
    "The answer is factually correct": "the_answer_is_factually_correct",
    "The reply answers the question accurately": "the_reply_answers_the_question_accurately",
    "The answer says 2": "the_answer_says_2",
    "The answer names Paris": "names_paris",  # the assertion's metric
}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    said = (
        "format: promptfoo (detected)",
        "left out: contains (4)",
        "24 cells of 2 judges on 4 samples",
    )
    return imported(tmp_path_factory.mktemp("promptfoo") / "run", [str(FIXTURE)], said)


def _the_file_s_figures() -> dict[tuple[str, str], list[float]]:
    """Each (criterion, grader)'s verdicts as the file holds them, read here on their own."""
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    default = document["config"]["defaultTest"]["options"]["provider"]["label"]
    figures: dict[tuple[str, str], list[float]] = defaultdict(list)
    for result in document["results"]["results"]:
        for component in result["gradingResult"]["componentResults"]:
            assertion = component["assertion"]
            if assertion["type"] == "contains":
                continue
            value = component["score"] * 10 if assertion["type"] == "g-eval" else component["pass"]
            grader = assertion.get("provider", default)
            figures[(NAMES[assertion["value"]], grader)].append(float(value))
    return figures


def test_each_criterion_s_figures_are_the_file_s(run):
    assert_figures_are(run, _the_file_s_figures())
    summary = pd.read_csv(run / "tables" / "config_summary.csv").set_index(["metric", "judge"])
    geval = ("the_reply_answers_the_question_accurately", "local-grader")
    assert summary.loc[geval, "mean_score"] == pytest.approx(6.75)  # levels 8 (x6) and 3 (x2)
    assert summary.loc[geval, "tokens_in"] == 8 * 50  # the grader's tokens, from the file


def test_repeats_samples_and_criteria(run):
    scores, calls = api.load_run(run)
    assert calls.empty and (scores["calls"] == 0).all()
    assert sorted(scores["sample_id"].unique()) == [
        "t0.p0.answerer",
        "t0.p1.echo",
        "t2.p0.answerer",
        "t2.p1.echo",
    ]
    assert sorted(scores["repeat"].unique().tolist()) == [0, 1]
    rubric = scores[scores["metric"] == "the_answer_is_factually_correct"]
    assert rubric.groupby("sample_id")["score"].agg(set).to_dict() == {
        "t0.p0.answerer": {1.0},
        "t0.p1.echo": {1.0},
        "t2.p0.answerer": {0.0},  # Lyon
        "t2.p1.echo": {1.0},
    }
    details = json.loads(rubric.iloc[0]["details"])
    assert details["imported"]["line"].startswith("results.results[")
    wide = api.export_run(run, "wide").set_index("sample_id")
    assert wide.loc["t2.p0.answerer", "response"] == "Lyon"
    assert wide.loc["t2.p0.answerer", "user_input"] == (
        "Answer briefly: What is the capital of France?"
    )


def test_the_criteria_are_those_init_makes_of_the_config(tmp_path):
    result = import_verdicts([FIXTURE], tmp_path / "again", format="promptfoo")
    assert (result.format, result.detected) == ("promptfoo", False)
    recorded, _ = read_recorded([FIXTURE])
    config = FIXTURE.parent / "promptfooconfig.yaml"
    made = {c.name: (c.type, c.fields, c.levels) for c in criteria_from_promptfoo(config)}
    read = {c.name: (c.type, c.fields, c.levels) for c in recorded.criteria}
    assert read == made
    assert {name: kind for name, (kind, _, _) in read.items()} == {
        "the_answer_is_factually_correct": "binary",
        "the_reply_answers_the_question_accurately": "scale",
        "the_answer_says_2": "binary",
        "names_paris": "binary",
    }


def test_a_grading_whose_grader_failed_is_no_verdict(tmp_path):
    """promptfoo fails a grading whose grader's reply it cannot read (metadata.graderError):
    that is no verdict of the grader's, so no cell, and said; not a fail."""
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    component = document["results"]["results"][0]["gradingResult"]["componentResults"][0]
    assert component["assertion"]["type"] == "llm-rubric" and component["pass"] is True
    component["metadata"] = {"graderError": True}
    component["pass"], component["score"] = False, 0
    spoiled = tmp_path / "results.json"
    spoiled.write_text(json.dumps(document), encoding="utf-8")
    recorded, _ = read_recorded([spoiled])
    assert len(recorded.verdicts) == 23  # of the 24 the file's graders gave
    assert any("graderError), left out: 1" in note for note in recorded.notes)
