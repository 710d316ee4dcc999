"""A person's labels of a criterion of the user's own: the page's form per type (yes/no, the
labels, the scale's levels with their descriptions), blind; the data set's labels and a label
file's rows read as the category's score (a label's name as its score)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.errors import DatasetError
from judgegrid.core.sample import Sample
from judgegrid.labels.files import dataset_labels, read_label_file
from judgegrid.labels.page import serve
from judgegrid.labels.session import LabelSession, QueueItem
from judgegrid.store.run_db import RunStore
from support.servers import LabelServer as Server
from support.servers import in_thread

POLITE = CriterionSpec(name="polite", type="binary", definition="Is the reply polite?")
CORRECT = CriterionSpec(
    name="correctness",
    type="labels",
    labels={"wrong": 0, "correct": 1, "partial": 0.5},
    definition="Is the reply correct against the reference?",
    steps=("Find the reference's facts.", "Check each in the reply."),
    fields=("user_input", "response", "reference"),
)
HELPFUL = CriterionSpec(
    name="helpfulness",
    type="scale",
    scale={1: "no help", 2: "some help", 3: "full help"},
    definition="How much does the reply help?",
)
CRITERIA = {c.name: c for c in (POLITE, CORRECT, HELPFUL)}
SAMPLES = {
    sid: Sample(id=sid, user_input=f"question {sid}", response=f"reply {sid}", reference="ref")
    for sid in ("s1", "s2", "s3")
}


# -- the category's score -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "given", "score"),
    [
        (POLITE, 1, 1.0),
        (POLITE, "fail", 0.0),
        (POLITE, "Pass", 1.0),
        (POLITE, "0", 0.0),
        (CORRECT, "partial", 0.5),
        (CORRECT, 1, 1.0),
        (CORRECT, "0.5", 0.5),
        (HELPFUL, 3, 3.0),
        (HELPFUL, "2", 2.0),
        (HELPFUL, 1.0, 1.0),
    ],
)
def test_a_persons_answer_reads_as_the_categorys_score(spec, given, score):
    assert criterion_label(spec, given) == score


@pytest.mark.parametrize(
    ("spec", "given", "says"),
    [
        (POLITE, 0.5, "1 or 0"),
        (POLITE, True, "1 or 0"),
        (POLITE, "yes", "1 or 0 (pass or fail)"),
        (CORRECT, "half", "wrong (0), correct (1), partial (0.5)"),
        (CORRECT, 0.7, "a label or its score"),
        (HELPFUL, 4, "a level of 1..3"),
        (HELPFUL, 2.5, "a level of 1..3"),
        (HELPFUL, None, "a level of 1..3"),
    ],
)
def test_an_answer_the_criterion_does_not_allow_is_refused_saying_what_it_allows(spec, given, says):
    with pytest.raises(ValueError, match=None) as err:
        criterion_label(spec, given)
    assert says in str(err.value)


# -- the data set's labels and a label file -------------------------------------------------------


def test_the_data_sets_labels_of_a_criterion_are_read_as_scores():
    info = {
        "s1": {"labels": {"polite": 1, "correctness": "partial", "helpfulness": 3}},
        "s2": {"labels": {"polite": "fail", "correctness": "nonsense", "faithfulness": 0.5}},
        "s3": {"labels": {"unknown_thing": 1}},
    }
    frame = dataset_labels(info, CRITERIA.values())
    got = {(r.sample_id, r.metric): r.value for r in frame.itertuples()}
    assert got == {
        ("s1", "polite"): 1.0,
        ("s1", "correctness"): 0.5,
        ("s1", "helpfulness"): 3.0,
        ("s2", "polite"): 0.0,
        ("s2", "faithfulness"): 0.5,
    }
    assert set(frame["annotator"]) == {"dataset"}
    # without the run's criteria, a criterion's label is none of the run's
    assert set(dataset_labels(info)["metric"]) == {"faithfulness"}


def test_the_bundled_demo_labels_all_read_under_the_demo_matrix():
    import yaml

    from conftest import ROOT
    from judgegrid.core.validation import snake_keys
    from judgegrid.inputs.dataset import load_dataset

    matrix = yaml.safe_load((ROOT / "model_matrices" / "criteria.yaml").read_text())
    specs = [CriterionSpec(**snake_keys(c)) for c in matrix["criteria"]]
    data = load_dataset(ROOT / "src" / "judgegrid" / "inputs" / "criteria_demo.jsonl")
    info = {s.id: {"labels": s.labels} for s in data}
    frame = dataset_labels(info, specs)
    assert len(frame) == len(data) * len(specs)  # none dropped as unreadable
    by_name = frame.groupby("metric")["value"].apply(lambda v: sorted(set(v)))
    assert by_name["polite"] == [0.0, 1.0]
    assert by_name["answer_correctness"] == [0.0, 0.5, 1.0]
    assert by_name["helpfulness"] == [1.0, 2.0, 3.0, 4.0, 5.0]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_a_label_file_gives_a_criterion_by_label_name_level_or_pass(tmp_path):
    rows = [
        {"sample_id": "s1", "metric": "correctness", "annotator": "ann", "value": "partial"},
        {"sample_id": "s1", "metric": "helpfulness", "annotator": "ann", "value": 3},
        {"sample_id": "s2", "metric": "polite", "annotator": "ann", "value": "pass"},
        {"sample_id": "s3", "metric": "polite", "annotator": "ann", "value": ""},  # a skip
    ]
    labels = read_label_file(
        write_csv(tmp_path / "l.csv", rows), set(SAMPLES), set(), criteria=CRITERIA
    )
    assert [(lb.sample_id, lb.metric, lb.value) for lb in labels] == [
        ("s1", "correctness", 0.5),
        ("s1", "helpfulness", 3.0),
        ("s2", "polite", 1.0),
        ("s3", "polite", None),
    ]


def test_a_label_file_with_a_level_off_the_scale_is_refused_naming_the_row(tmp_path):
    rows = [
        {"sample_id": "s1", "metric": "helpfulness", "annotator": "ann", "value": 2},
        {"sample_id": "s2", "metric": "helpfulness", "annotator": "ann", "value": 7},
    ]
    with pytest.raises(DatasetError) as err:
        read_label_file(
            write_csv(tmp_path / "l.csv", rows), set(SAMPLES), set(), None, None, CRITERIA
        )
    [problem] = err.value.problems
    assert problem.where == "row 3" and "helpfulness" in problem.message  # row 1: the header
    assert "a level of 1..3" in problem.message


# -- the page ----------------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    RunStore(tmp_path / "run.sqlite").close()
    queue = [
        QueueItem(
            sid,
            name,
            "the judges disagree: a gives 1.00, b gives 0.00",
            blind_reason="the judges disagree",
        )
        for name in CRITERIA
        for sid in SAMPLES
    ]
    session = LabelSession(tmp_path, dict(SAMPLES), "ann", queue, criteria=dict(CRITERIA))
    with in_thread(serve, session) as (runner, port):
        yield Server(session, port, runner)


def stored(run_dir: Path) -> dict[tuple[str, str], float | None]:
    store = RunStore(run_dir / "run.sqlite")
    try:
        frame = store.labels_frame()
    finally:
        store.close()
    return {
        (r.sample_id, r.metric): None if pd.isna(r.value) else r.value for r in frame.itertuples()
    }


def test_the_form_follows_the_type_and_stays_blind(server):
    status, state = server.request("GET", "/api/state")
    assert status == 200 and state["blind"] is True
    forms = state["metrics"]
    assert {m["form"] for m in forms.values()} == {"choices"}
    polite, correct, helpful = forms["polite"], forms["correctness"], forms["helpfulness"]
    assert [(c["text"], c["value"]) for c in polite["choices"]] == [("yes", 1.0), ("no", 0.0)]
    assert [(c["text"], c["value"]) for c in correct["choices"]] == [
        ("correct", 1.0),
        ("partial", 0.5),
        ("wrong", 0.0),
    ]
    assert [(c["text"], c["description"]) for c in helpful["choices"]] == [
        ("1", "no help"),
        ("2", "some help"),
        ("3", "full help"),
    ]
    assert correct["question"] == CORRECT.definition and correct["steps"] == list(CORRECT.steps)
    assert correct["fields"] == ["user_input", "response", "reference"]
    assert helpful["kind"] == "scale" and polite["kind"] == "binary"
    text = json.dumps(state)
    assert "a gives" not in text and "1.00" not in text  # no judge's answer before the person's


def test_each_types_answer_is_saved_as_its_score(server, tmp_path):
    status, reply = server.label("s1", "polite", value=0)
    assert (status, reply["saved"], reply["value"]) == (200, True, 0.0)
    assert server.label("s1", "correctness", value=0.5)[1]["value"] == 0.5
    assert server.label("s2", "helpfulness", value=3, note="clear")[1]["value"] == 3.0
    assert server.label("s3", "helpfulness", skip=True)[1]["value"] is None
    assert stored(tmp_path) == {
        ("s1", "polite"): 0.0,
        ("s1", "correctness"): 0.5,
        ("s2", "helpfulness"): 3.0,
        ("s3", "helpfulness"): None,
    }


@pytest.mark.parametrize(
    ("metric", "answer"),
    [
        ("polite", {"value": 0.5}),
        ("polite", {"value": True}),
        ("correctness", {"value": "partial"}),  # the page sends the score its button carries
        ("helpfulness", {"value": 4}),
        ("helpfulness", {}),
        ("tone", {"value": 1}),
    ],
)
def test_an_answer_off_the_form_gets_a_400_and_writes_nothing(server, tmp_path, metric, answer):
    status, reply = server.label("s1", metric, **answer)
    assert status == 400 and reply["error"]
    assert stored(tmp_path) == {}


def test_a_person_answers_each_type_in_the_browser_by_key_and_click(server, tmp_path):
    """The page in headless Chromium: the form of each type as buttons (a level with its
    description), answered with a key or a click, each saved as its score; blind throughout."""
    from support.browser import (
        browser_page,
        click,
        console_errors,
        evaluate,
        navigate,
        press,
        wait_until,
    )

    url = f"http://127.0.0.1:{server.port}/?token={server.session.token}"
    seen = []
    with browser_page(tmp_path / "profile") as tools:
        navigate(tools, url)
        wait_until(tools, "!document.getElementById('item').hidden")
        for k in range(len(server.session.queue)):
            seen.append(
                evaluate(
                    tools,
                    """({title: document.getElementById('metric-title').textContent,
                         buttons: [...document.querySelectorAll('#scale button')]
                           .map(b => b.innerText.replace(/\\s*\\n\\s*/g, ' | ')),
                         steps: document.getElementById('steps').innerText,
                         keys: document.getElementById('keys-answer').textContent,
                         reference: !document.getElementById('reference-box').hidden,
                         contexts: !document.getElementById('retrieved_contexts-box').hidden,
                         page: document.body.innerText})""",
                )
            )
            if k % 2:
                press(tools, "1")  # the first answer: yes, correct, level 1
            else:
                click(tools, "#scale button:nth-child(2)")  # the second: no, partial, level 2
            wait_until(
                tools,
                f"document.getElementById('progress').textContent.includes('{k + 1} answered')",
            )
        errors = console_errors(tools)
    assert errors == []
    by_title = {s["title"].split(" · ")[0]: s for s in seen}
    assert by_title["Polite"]["buttons"] == [
        "1 · yes | it meets the criterion",
        "2 · no | it does not",
    ]
    assert by_title["Correctness"]["buttons"] == ["1 · correct", "2 · partial", "3 · wrong"]
    assert "Find the reference's facts." in by_title["Correctness"]["steps"]
    assert by_title["Helpfulness"]["buttons"][0] == "1 | no help"  # key 1 is level 1
    assert by_title["Helpfulness"]["keys"] == "1–3 answer"
    assert not any("a gives" in s["page"] for s in seen)  # blind
    # the person sees what the judge sees: the reference only where the criterion names it
    assert (by_title["Correctness"]["reference"], by_title["Polite"]["reference"]) == (True, False)
    assert not any(s["contexts"] for s in seen)
    values = stored(tmp_path)
    assert len(values) == len(server.session.queue)
    assert set(values.values()) == {1.0, 0.0, 0.5, 2.0}
    first = server.session.queue[0]  # answered by a click on the second button
    assert values[(first.sample_id, first.metric)] == 0.0  # polite: no
