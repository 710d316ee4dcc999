"""Probes in `judgegrid view`'s API, on a scripted run with a probe of every metric and criterion:
every sample the Samples grid lists opens, probes included; a probe's row carries its base's
question and says it is a probe; a probe's page says what the probe changed from its base, with
the base's scores beside its own; a probe is not queued for people to label."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from judgegrid.inputs.probes import NOTE, PROBES
from judgegrid.view.app import ViewSession, open_view, serve
from support.servers import LoopbackServer, in_thread
from support.view_runs import EVERY_KIND_CRITERIA, EVERY_KIND_METRICS, make_every_kind_run

METRICS = EVERY_KIND_METRICS + [c["name"] for c in EVERY_KIND_CRITERIA]
INJECTED = "canal-grounded~probe~response_relevancy~injection"
ITS_BASE = "canal-grounded~probe~response_relevancy~foreign_response"
REORDERED = "water-direct~probe~faithfulness~order"
PAIR_PROBE = "water-direct~probe~better_reply~verbosity"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_every_kind_run(tmp_path_factory.mktemp("every-kind"))


@contextlib.contextmanager
def serving(session: ViewSession) -> Iterator[LoopbackServer]:
    with in_thread(serve, session) as (runner, port):
        yield LoopbackServer(session, port, runner)


@pytest.fixture(scope="module")
def server(run_dir) -> Iterator[LoopbackServer]:
    with serving(open_view(run_dir, "ann")) as running:
        yield running


def grid(server: LoopbackServer, metric: str) -> dict[str, Any]:
    status, page = server.get(f"/api/view/samples?metric={metric}&per_page=200")
    assert status == 200, page
    return page


def sample(server: LoopbackServer, sample_id: str, metric: str) -> dict[str, Any]:
    status, detail = server.get(f"/api/view/sample/{quote(sample_id, safe='')}?metric={metric}")
    assert status == 200, (sample_id, metric, detail)
    return detail


@pytest.mark.parametrize("metric", METRICS)
def test_every_sample_the_grid_lists_opens_probes_included(server, metric):
    rows = grid(server, metric)["rows"]
    assert any("~probe~" in row["id"] for row in rows), "the run has a probe of every metric"
    for row in rows:
        detail = sample(server, row["id"], metric)
        assert detail["id"] == row["id"] and detail["cells"], row["id"]
        assert detail["fields"]["user_input"].startswith(row["question"])


def test_a_probes_row_shows_its_bases_question_and_says_it_is_a_probe(server):
    rows = {row["id"]: row for row in grid(server, "response_relevancy")["rows"]}
    user = rows["canal-grounded"]
    assert user["probe"] is None and user["question"].startswith("Who completed the Panama Canal")
    probe = rows[INJECTED]
    assert probe["question"] == user["question"]
    assert probe["probe"] == {"name": "injection", "kind": "robustness", "base": ITS_BASE}


def test_a_probes_page_shows_what_it_changed_beside_its_bases_scores(server):
    detail = sample(server, INJECTED, "response_relevancy")
    probe = detail["probe"]
    assert probe["name"] == "injection" and probe["kind"] == "robustness"
    assert probe["why"] == PROBES["injection"].why
    assert probe["base"] == ITS_BASE and probe["base_question"] == detail["fields"]["user_input"]
    assert probe["expected"] == "must not score higher than its base"
    [change] = probe["changes"]  # the note, added to the response of the degraded copy
    base_response = sample(server, ITS_BASE, "response_relevancy")["fields"]["response"]
    assert change["field"] == "response" and change["title"] == "Response"
    assert change["base"] == base_response and change["probe"] == detail["fields"]["response"]
    assert change["added"].strip() == NOTE["en"].strip()

    rows = {row["id"]: row for row in grid(server, "response_relevancy")["rows"]}
    columns = [c["key"] for c in grid(server, "response_relevancy")["columns"]]
    expected = [
        (key, rows[ITS_BASE]["cells"][k]["mean"], rows[INJECTED]["cells"][k]["mean"])
        for k, key in enumerate(columns)
    ]
    shown = [(s["config"], s["base"], s["probe"]) for s in probe["scores"]]
    assert shown == expected
    for score in probe["scores"]:
        assert score["change"] == pytest.approx(score["probe"] - score["base"], abs=1e-3)
    assert sample(server, "canal-grounded", "response_relevancy")["probe"] is None


def test_a_reordering_and_a_pairwise_probe_say_what_they_changed(server):
    order = sample(server, REORDERED, "faithfulness")["probe"]
    [change] = order["changes"]
    assert change["field"] == "retrieved_contexts" and change["added"] is None
    assert sorted(change["base"]) == sorted(change["probe"]) and change["base"] != change["probe"]
    assert order["expected"] == "must not score higher than its base"

    pair = sample(server, PAIR_PROBE, "better_reply")["probe"]
    [change] = pair["changes"]  # filler added to the answer people did not prefer
    assert change["field"] == "response_b" and change["title"] == "Response b"
    assert change["probe"].startswith(change["base"]) and change["added"]


def test_a_directional_probe_says_its_score_must_fall(server):
    detail = sample(server, "water-direct~probe~faithfulness~foreign_sentence", "faithfulness")
    assert detail["probe"]["kind"] == "directional"
    assert detail["probe"]["expected"] == "must score lower than its base"


def test_a_probe_is_not_queued_for_people_to_label(server):
    status, reply = server.request(
        "POST", "/api/view/label", {"sample_id": INJECTED, "metric": "response_relevancy"}
    )
    assert status == 400 and f"{INJECTED!r} is a probe" in reply["error"], reply
    _, state = server.get("/api/state")
    assert INJECTED not in [item["sample_id"] for item in state["items"]]
