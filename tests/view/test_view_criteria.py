"""`judgegrid view` on a run with criteria of the user's own (tests/support/view_runs.py's run):
the Samples grid shows each judge's answer (pass or fail, the label, the level) with its score
and the weighting it got, a criterion's wordings are columns the user can pick or fold, a
sample's page and side by side show the answers, votes and probabilities under the wording
asked, the Decision page has each criterion's row, and every new parameter is checked.

Expected values are counted here from the run's scores table with plain loops, not with the
view's SQL."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from judgegrid import load_run
from judgegrid.store.run_db import RunStore
from judgegrid.view.app import criterion_judges, open_view
from support.servers import LoopbackServer, serving
from support.view_runs import CRITERIA_SAMPLES, HELPFUL_P, WORDINGS, make_criteria_view_run

A_DEFINITION, A_WORDING_2 = "a||0|3", "a||0|3|2"  # judge a's polite cells: strictness 3


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    return make_criteria_view_run(tmp_path_factory.mktemp("viewcriteria"))


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(base_run, target)
    return target


@pytest.fixture
def server(run_dir) -> Iterator[LoopbackServer]:
    with serving(open_view(run_dir, "ann")) as running:
        yield running


def get(server: LoopbackServer, path: str) -> dict[str, Any]:
    status, body = server.get(path)
    assert status == 200, body
    return body


def scored_answers(run_dir: Path, metric: str) -> dict[tuple[str, str, int], list[float]]:
    """{(sample, judge, wording): the scored repeats' answers}, from the scores table."""
    scores, _ = load_run(run_dir)
    found: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for row in scores[scores["metric"] == metric].itertuples():
        if row.status == "scored":
            found[(row.sample_id, row.judge, int(row.wording))].append(float(row.answer))
    return found


def test_meta_names_each_criterion_with_its_type_wordings_and_answers(server):
    meta = get(server, "/api/view/meta")
    by_name = {m["name"]: m for m in meta["metrics"]}
    assert list(by_name) == ["faithfulness", "polite", "correctness", "helpful"]
    assert by_name["faithfulness"]["criterion"] is None
    polite = by_name["polite"]["criterion"]
    assert polite["type"] == "binary" and polite["answers"] == ["fail", "pass"]
    assert [w["text"] for w in polite["wordings"]] == ["Is the reply polite?", *WORDINGS]
    assert [w["name"] for w in polite["wordings"]] == ["definition", "wording 1", "wording 2"]
    helpful = by_name["helpful"]["criterion"]
    assert (helpful["low"], helpful["high"], helpful["weighting"]) == (1.0, 3.0, "auto")
    assert by_name["correctness"]["criterion"]["answers"] == ["wrong", "partial", "correct"]


def test_the_grid_shows_each_wording_as_a_column_with_the_judges_answers(server, run_dir):
    page = get(server, "/api/view/samples?metric=polite&sort=id")
    columns = [c["key"] for c in page["columns"]]
    assert columns == [f"{j}||0|3{w}" for j in "ab" for w in ("", "|1", "|2")]
    assert [c["label"] for c in page["columns"][:3]] == [
        "a · s=3 · definition",
        "a · s=3 · wording 1",
        "a · s=3 · wording 2",
    ]
    assert page["total"] == CRITERIA_SAMPLES
    expected = scored_answers(run_dir, "polite")
    for row in page["rows"]:
        for column, cell in zip(page["columns"], row["cells"], strict=True):
            given = expected[(row["id"], column["judge"], column["wording"])]
            counts = Counter("pass" if a == 1.0 else "fail" for a in given)
            assert cell["answers"] == [[name, counts[name]] for name in sorted(counts)]
            assert cell["answer"] == counts.most_common(1)[0][0]
            assert cell["mean"] == pytest.approx(sum(given) / len(given), abs=1e-4)
            assert (cell["logprobs"], cell["missing"]) == (0, 0)  # weighting: none
    # judge a fails the politeness question in its second rewording, and only there
    answers = {(c["judge"], c["wording"]): set() for c in page["columns"]}
    for row in page["rows"]:
        for column, cell in zip(page["columns"], row["cells"], strict=True):
            answers[(column["judge"], column["wording"])].add(cell["answer"])
    assert answers[("a", 2)] == {"fail"}
    assert all(v == {"pass"} for k, v in answers.items() if k != ("a", 2))


def test_wordings_can_be_picked_or_folded_into_one_cell(server):
    picked = get(server, "/api/view/samples?metric=polite&wording=0&wording=2&judge=a")
    assert [c["key"] for c in picked["columns"]] == [A_DEFINITION, A_WORDING_2]
    folded = get(server, "/api/view/samples?metric=polite&fold=wording&sort=id")
    assert [c["label"] for c in folded["columns"]] == [
        "a · s=3 · all wordings",
        "b · s=3 · all wordings",
    ]
    for row in folded["rows"]:
        a, b = row["cells"]
        assert a["n"] == a["scored"] == 6  # 3 wordings x 2 repeats
        assert a["answers"] == [["fail", 2], ["pass", 4]] and a["answer"] == "pass"
        assert a["mean"] == pytest.approx(4 / 6, abs=1e-4) and a["sd"] > 0  # the wordings disagree
        assert b["answers"] == [["pass", 6]] and b["sd"] == 0
        # folded, the judges differ on every sample; on the definition alone they agree
        assert row["disagreement"] == pytest.approx(1 - 4 / 6, abs=1e-4)
    only_two = get(server, "/api/view/samples?metric=polite&fold=wording&wording=0&wording=1")
    assert all(r["cells"][0]["answers"] == [["pass", 4]] for r in only_two["rows"])
    definition = get(server, "/api/view/samples?metric=polite&wording=0")
    assert all(r["disagreement"] == 0 for r in definition["rows"])


def test_samples_sort_by_how_far_an_answer_moves_with_the_wording(server):
    """Judge a's mean goes from 1 (pass) to 0 (fail) between the definition and wording 2 on
    every sample; judge b's never moves; a built-in metric has no wording to move with."""
    moved = get(server, "/api/view/samples?metric=polite&sort=wording")
    assert {r["wording_gap"] for r in moved["rows"]} == {1.0}
    folded = get(server, "/api/view/samples?metric=polite&sort=wording&fold=wording")
    assert {r["wording_gap"] for r in folded["rows"]} == {1.0}  # measured before folding
    steady = get(server, "/api/view/samples?metric=polite&sort=wording&judge=b")
    assert {r["wording_gap"] for r in steady["rows"]} == {0.0}
    one = get(server, "/api/view/samples?metric=polite&sort=wording&judge=a&wording=1")
    assert {r["wording_gap"] for r in one["rows"]} == {None}  # one wording: nothing to move
    plain = get(server, "/api/view/samples?metric=faithfulness&sort=wording")
    assert {r["wording_gap"] for r in plain["rows"]} == {None}
    ids = [r["id"] for r in get(server, "/api/view/samples?metric=faithfulness&sort=id")["rows"]]
    assert [r["id"] for r in plain["rows"]] == ids  # nothing measured: the order of the ids


def test_labels_disagree_between_judges_and_a_scale_says_which_weighting_each_cell_got(server):
    page = get(server, "/api/view/samples?metric=correctness")
    assert [c["label"] for c in page["columns"]] == ["a", "b"]  # one wording: none named
    for row in page["rows"]:
        a, b = row["cells"]
        assert (a["answer"], b["answer"]) == ("correct", "wrong")
        assert row["disagreement"] == 1.0
    helpful = get(server, "/api/view/samples?metric=helpful")
    expected = sum(float(level) * p for level, p in HELPFUL_P.items())
    for row in helpful["rows"]:
        a, b = row["cells"]
        assert a["answer"] == b["answer"] == "2"  # the level the judge wrote
        assert (a["logprobs"], a["missing"]) == (2, 0)
        assert a["mean"] == pytest.approx(expected, abs=1e-4)
        assert (b["logprobs"], b["missing"]) == (0, 2) and b["mean"] == 2.0


def test_a_samples_page_shows_the_answer_votes_wording_and_probabilities(server):
    sample = get(server, "/api/view/samples?metric=polite&sort=id")["rows"][0]["id"]
    detail = get(server, f"/api/view/sample/{sample}?metric=polite")
    assert detail["criterion"]["type"] == "binary" and detail["title"] == "polite"
    cells = {(c["config"], c["repeat"]): c for c in detail["cells"]}
    assert len(cells) == 2 * 3 * 2  # judges x wordings x repeats
    cell = cells[(A_WORDING_2, 0)]
    assert cell["wording"] == 2 and cell["wording_text"] == WORDINGS[1]
    assert cell["answer"] == "fail" and cell["weighting"] == "none"
    rows = {r["text"]: r for r in cell["items"]}
    assert rows["answer"]["answer"] == "fail" and rows["answer"]["verdict"] == 0
    assert rows["answer"]["reason"] == "asked by judge-a"
    assert [rows[f"vote {k}"]["verdict"] for k in (1, 2, 3)] == [0, 0, 0]
    assert rows["answer"]["note"] == "pass share 0.00" and rows["vote 1"]["note"] == ""
    helpful = get(server, f"/api/view/sample/{sample}?metric=helpful")
    weighted = next(c for c in helpful["cells"] if c["judge"] == "a")
    missing = next(c for c in helpful["cells"] if c["judge"] == "b")
    assert (weighted["weighting"], missing["weighting"]) == ("logprobs", "missing")
    shown = {r["text"]: r["note"] for r in weighted["items"]}
    assert shown == {"answer": "", "P(1)": "0.200", "P(2)": "0.500", "P(3)": "0.300"}
    assert [r["text"] for r in missing["items"]] == ["answer"]  # no probabilities came


def test_side_by_side_lines_up_two_wordings_and_marks_the_changed_answer(server):
    sample = get(server, "/api/view/samples?metric=polite&sort=id")["rows"][0]["id"]
    query = f"metric=polite&a={A_DEFINITION}&b={A_WORDING_2.replace('|', '%7C')}&repeat=1"
    both = get(server, f"/api/view/compare/{sample}?{query}")
    assert both["a"]["wording_text"] == "Is the reply polite?"
    assert both["b"]["wording_text"] == WORDINGS[1]
    rows = {r["text"]: r for r in both["rows"]}
    assert rows["answer"]["differs"] and rows["answer"]["a"]["answer"] == "pass"
    assert all(rows[f"vote {k}"]["differs"] for k in (1, 2, 3))
    same = get(server, f"/api/view/compare/{sample}?metric=polite&a=a||0|3|1&b=b||0|3|1")
    assert not any(r["differs"] or r["only"] for r in same["rows"])


def test_the_decision_page_has_each_criterions_row(server, run_dir):
    decision = get(server, "/api/view/decision")
    rows = {r["metric"]: r for r in decision["card"]}
    assert {"faithfulness", "polite", "correctness", "helpful"} <= set(rows)
    polite = rows["polite"]
    assert polite["criterion"]["type"] == "binary" and len(polite["criterion"]["wordings"]) == 3
    assert rows["faithfulness"]["criterion"] is None
    assert all(r["badge"] for r in rows.values())


def test_a_criterion_can_be_sent_to_the_labelling_page_and_labelled_there(server, run_dir):
    """From the view, ``l`` on a criterion's sample: the labelling page mounted in the view
    offers the criterion's own answers and stores the one given, as its score."""
    sample = get(server, "/api/view/samples?metric=correctness")["rows"][0]["id"]
    status, reply = server.request(
        "POST", "/api/view/label", {"sample_id": sample, "metric": "correctness"}
    )
    assert status == 200 and reply["queued"], reply
    state = get(server, "/api/state")
    assert (state["items"][0]["sample_id"], state["items"][0]["metric"]) == (sample, "correctness")
    form = state["metrics"]["correctness"]
    assert form["form"] == "choices" and form["question"].startswith("Compared with the reference")
    assert {c["value"] for c in form["choices"]} == {1.0, 0.5, 0.0}
    body = {"sample_id": sample, "metric": "correctness", "value": 0.5}
    status, reply = server.request("POST", "/api/label", body)
    assert status == 200, reply
    stored = RunStore(run_dir / "run.sqlite")
    try:
        frame = stored.labels_frame()
    finally:
        stored.close()
    assert list(zip(frame["sample_id"], frame["metric"], frame["value"], strict=True)) == [
        (sample, "correctness", 0.5)
    ]


SAMPLES = "/api/view/samples?metric=polite"
BAD_REQUESTS = {
    "wording out of range": (SAMPLES + "&wording=3", "wording: '3' is not a wording of polite"),
    "wording a word": (SAMPLES + "&wording=first", "wording: 'first' is not a wording"),
    "wording negative": (SAMPLES + "&wording=-1", "wording: '-1' is not a wording"),
    "wording with a sign": (SAMPLES + "&wording=%2B1", "wording: '+1' is not a wording"),
    "wording of a built-in metric": (
        "/api/view/samples?metric=faithfulness&wording=1",
        "this built-in metric has 0 (0: its definition)",
    ),
    "fold by something else": (SAMPLES + "&fold=judge", "fold: 'judge' is not in this run"),
    "sort by wordings": (SAMPLES + "&sort=wordings", "sort: 'wordings' is not in this run"),
    "fold twice": (SAMPLES + "&fold=wording&fold=wording", "fold: given 2 times"),
    "unknown wording configuration": (
        "/api/view/compare/{sample}?metric=polite&a=a||0|3|9&b=b||0|3",
        "a: 'a||0|3|9' is not a configuration of polite",
    ),
}


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_bad_criterion_requests_get_a_400_that_says_why(server, name):
    path, words = BAD_REQUESTS[name]
    sample = get(server, SAMPLES)["rows"][0]["id"]
    status, reply = server.get(path.format(sample=sample))
    assert status == 400, reply
    assert words in json.dumps(reply), reply


def test_the_decision_page_flags_a_judge_only_where_the_report_did(tmp_path):
    """wording_flags.csv as the report writes it, read back: a judge whose flag could not be
    measured (empty) is not flagged, and its counts are none rather than numbers."""
    path = tmp_path / "wording_flags.csv"
    pd.DataFrame(
        {
            "metric": ["polite", "polite", "polite", "other"],
            "judge": ["a", "b", "c", "a"],
            "samples": [4, 4, None, 9],
            "changed": [2, 0, None, 9],
            "flagged": [True, False, None, True],
        }
    ).to_csv(path, index=False)
    rows = criterion_judges("polite", pd.read_csv(path), pd.DataFrame())
    got = [(r["judge"], r["changed"], r["samples"], r["flagged"]) for r in rows]
    assert got == [("a", 2, 4, True), ("b", 0, 4, False), ("c", None, None, False)]
