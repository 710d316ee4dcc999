"""A real pairwise run (scripted judges through ``run_grid``, both orders per pair) labelled by a
person on the page: the person's A/B answers, given in their own order, reach the report as
the people's preferences in the pair's terms, so the judge that follows the people is valid
and the card rests on people."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from conftest import ROOT, matrix_dict
from judgegrid import api
from judgegrid.cli import app
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.inputs.pairwise import person_order, seeded_flip
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.run.orchestrate import dataset_pairs
from judgegrid.store.run_db import RunStore
from support.pairwise_judges import BETTER, JUDGES, WIKIEVAL, scripted_pairwise
from support.servers import LabelServer, in_thread

PAIRS = 12


def pair_rows() -> list[dict]:
    """Pairs whose good answer says GOOD, in column a or b by a seeded coin; no labels: the
    people's preferences come from the page."""
    rows = []
    for k in range(PAIRS):
        good, bad = f"GOOD answer {k}: Paris, on the Seine.", f"Bad answer {k}: Lyon."
        flip = seeded_flip("labels", k)
        rows.append(
            {
                "id": f"pair-{k:02d}",
                "user_input": f"What is the capital of France? ({k})",
                "response": bad if flip else good,
                "response_b": good if flip else bad,
            }
        )
    return rows


@pytest.fixture
def pair_run(tmp_path, scripted_provider) -> Path:
    scripted_provider.answer = scripted_pairwise
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in pair_rows()), encoding="utf-8")
    fields = {"metrics": [], "embeddings": [], "criteria": [BETTER], "repeats": 1,
              "judges": JUDGES[:2], "dataset": str(data)}  # fmt: skip
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text(yaml.safe_dump(matrix_dict(**fields), sort_keys=False))
    run = api.run_grid(matrix, use_cache=False, run_dir=tmp_path / "run")
    assert run.complete
    return run.run_dir


def test_a_persons_answers_on_the_page_are_the_peoples_preferences_in_the_report(pair_run):
    session = open_session(pair_run, "ann", ["better"], SessionAsk(n=PAIRS))
    assert {item.sample_id for item in session.queue} == {f"pair-{k:02d}" for k in range(PAIRS)}
    with in_thread(serve, session) as (runner, port):
        server = LabelServer(session, port, runner)
        _, state = server.request("GET", "/api/state")
        assert "first" not in json.dumps(state) and "follow" not in json.dumps(state)
        for k, item in enumerate(session.queue):
            shown = [server.request("GET", f"/api/pair/{k}/{m}")[1]["answer"] for m in (0, 1)]
            assert (
                shown[0]
                == next(r for r in pair_rows() if r["id"] == item.sample_id)[
                    "response" if person_order(item.sample_id, "ann") == "ab" else "response_b"
                ]
            )
            position = "A" if "GOOD" in shown[0] else "B"  # the person picks the good answer
            assert server.label(item.sample_id, "better", value=position)[0] == 200
    result = CliRunner().invoke(app, ["report", str(pair_run)])
    assert result.exit_code == 0, result.output
    validity = pd.read_csv(pair_run / "tables" / "pairwise_validity.csv").set_index("judge")
    assert validity.loc["follow", "accuracy_half_credit"] == 1.0
    assert validity.loc["first", "accuracy_half_credit"] == 0.5  # every pair a tie
    card = pd.read_csv(pair_run / "tables" / "decision_card.csv").set_index("metric")
    assert card.loc["better", "basis"] == "people"


def test_the_wikieval_pairs_matrix_labelled_blind_to_the_systems(tmp_path, scripted_provider):
    """model_matrices/pairwise.yaml on the WikiEval pairs file: each line's pairs (answer
    against ungrounded answer, with the context) on the page with the context shown, and
    neither the compared columns' nor the systems' names in what the page reads."""
    wikieval = WIKIEVAL if WIKIEVAL.exists() else None
    if wikieval is None:
        pytest.skip("the shared WikiEval pairs file is not here")
    scripted_provider.answer = scripted_pairwise
    matrix = yaml.safe_load((ROOT / "model_matrices" / "pairwise.yaml").read_text())
    matrix["judges"] = JUDGES[:2]
    matrix.pop("probes", None)
    path = tmp_path / "pairwise.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    run = api.run_grid(
        path, dataset=str(wikieval), limit=4, use_cache=False, run_dir=tmp_path / "r"
    )
    assert run.complete
    session = open_session(run.run_dir, "ann", ["more_faithful"], SessionAsk(n=10))
    assert len(session.queue) == 4
    with in_thread(serve, session) as (runner, port):
        server = LabelServer(session, port, runner)
        read = [json.dumps(server.request("GET", "/api/state")[1])]
        for k in range(len(session.queue)):
            for member in (0, 1):
                status, view = server.request("GET", f"/api/pair/{k}/{member}")
                assert status == 200 and view["answer"] and view["retrieved_contexts"]
                read.append(json.dumps(view))
    text = " ".join(read)
    for word in ("ungrounded_answer", "more_faithful_a", "_system", "scripted"):
        assert word not in text, word


UNJUDGED = "NOT-YET"  # in a pair's question: the scripted judges' answer can't be read there


def judged_but_marked(step: str, prompt: str, model: str) -> dict[str, Any] | str:
    """``scripted_pairwise``, but no verdict on a pair whose question says ``UNJUDGED``: its
    cells fail, so no judge compared it (as in a run still under way)."""
    if step == "pairwise" and UNJUDGED in prompt:
        return "I would rather not say."
    return scripted_pairwise(step, prompt, model)


def test_the_report_names_the_pairs_no_judge_compared_and_nobody_labelled(
    tmp_path, scripted_provider
):
    """A run of 12 pairs whose judges could not compare the last four (their cells failed).
    ann labels every compared pair on the page, and one of the four: the page says the other
    three add no evidence until a judge compares them. The report's card said "no sample
    left to label" there, untrue while three pairs of the data set can still be labelled: it
    must say what the page says."""
    scripted_provider.answer = judged_but_marked
    rows = pair_rows()
    for row in rows[-4:]:
        row["user_input"] += f" {UNJUDGED}"
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    fields = {"metrics": [], "embeddings": [], "criteria": [BETTER], "repeats": 1,
              "judges": JUDGES[:2], "dataset": str(data)}  # fmt: skip
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text(yaml.safe_dump(matrix_dict(**fields), sort_keys=False))
    run_dir = api.run_grid(matrix, use_cache=False, run_dir=tmp_path / "run").run_dir
    session = open_session(run_dir, "ann", ["better"], SessionAsk(n=PAIRS))
    unjudged = [item.sample_id for item in session.queue if item.probability is None]
    assert sorted(unjudged) == [f"pair-{k:02d}" for k in range(PAIRS - 4, PAIRS)]
    with in_thread(serve, session) as (runner, port):
        server = LabelServer(session, port, runner)
        for k, item in enumerate(session.queue[: PAIRS - 3]):
            first = server.request("GET", f"/api/pair/{k}/0")[1]["answer"]
            sure = k % 3 != 2  # the person picks the good answer, bar every third pair
            position = "A" if ("GOOD" in first) == sure else "B"
            status, reply = server.label(item.sample_id, "better", value=position)
            assert status == 200, reply
    words = (
        "every pair the judges compared is labelled; the 3 others add no evidence until a "
        "judge compares them"
    )
    assert reply["state"].endswith(f" · {words}"), reply["state"]
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    line = str(card.loc["better", "label_state"])
    assert line == f"8 labels · follow leads first, not yet separated · {words}"
    assert f"**better** labelling: {line}" in (run_dir / "summary.md").read_text("utf-8")
    # the report speaks for everyone: a pair bob labelled is left to label no more
    bob = tmp_path / "bob.csv"
    bob.write_text("sample_id,metric,annotator,value\npair-11,better,bob,a\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["labels", "import", str(run_dir), str(bob)]).exit_code == 0
    assert CliRunner().invoke(app, ["report", str(run_dir)]).exit_code == 0
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    assert str(card.loc["better", "label_state"]).endswith(
        " · every pair the judges compared is labelled; the 2 others add no evidence until a "
        "judge compares them"
    )


def test_a_run_whose_samples_cannot_be_read_has_no_known_pairs_not_none(tmp_path):
    """``dataset_pairs`` of a run made before its samples were kept, its data set file gone:
    None (not known), which the card words as such; with its samples kept, their pairs."""
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in pair_rows()), encoding="utf-8")
    fields = {"metrics": [], "embeddings": [], "criteria": [BETTER], "repeats": 1,
              "judges": JUDGES[:2], "dataset": str(data)}  # fmt: skip
    matrix = parse_matrix(yaml.safe_dump(matrix_dict(**fields), sort_keys=False))
    old, kept = RunStore(tmp_path / "old.sqlite"), RunStore(tmp_path / "kept.sqlite")
    try:
        for store in (old, kept):
            store.set_meta("dataset", str(tmp_path / "gone.jsonl"))
        kept.save_samples(load_dataset(data, extra=("response_b",)).samples)
        assert dataset_pairs(old, matrix) is None
        pairs = dataset_pairs(kept, matrix)
        assert pairs is not None and len(pairs["better"]) == PAIRS
    finally:
        old.close()
        kept.close()
