"""A real pairwise run (scripted judges through ``run_grid``, both orders per pair) labelled by a
person on the page: the person's A/B answers, given in their own order, reach the report as
the people's preferences in the pair's terms, so the judge that follows the people is valid
and the card rests on people."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from conftest import ROOT, matrix_dict
from judgegrid import api
from judgegrid.cli import app
from judgegrid.inputs.pairwise import person_order, seeded_flip
from judgegrid.labels.page import open_session, serve
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
    session = open_session(pair_run, "ann", ["better"], n=PAIRS)
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
    session = open_session(run.run_dir, "ann", ["more_faithful"], n=10)
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
