"""`judgegrid view`'s server on a real scripted run: what its endpoints answer, that the
labelling page is one of its pages, and the table of bad requests (the labelling server's,
extended to the view's endpoints): each a 4xx that says why, and nothing written."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pandas as pd
import pytest

from judgegrid.api import rebuild_report
from judgegrid.labels.session import SessionAsk
from judgegrid.store.run_db import RunStore
from judgegrid.view.app import open_label_view, open_view
from judgegrid.view.queries import Filters
from support.servers import LoopbackServer, serving
from support.view_runs import DISPUTED, EXTRA, make_view_run


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    return make_view_run(tmp_path_factory.mktemp("viewrun"))


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(base_run, target)
    return target


@pytest.fixture
def server(run_dir) -> Iterator[LoopbackServer]:
    with serving(open_view(run_dir, "ann")) as running:
        yield running


@pytest.mark.parametrize("show_judges", [False, True], ids=["blind", "judges shown"])
def test_judgegrid_label_serves_the_viewer_only_when_the_judges_are_shown(run_dir, show_judges):
    """A blind annotator must not reach every judge's answers one click away."""
    session = open_label_view(
        run_dir, "ann", ["faithfulness"], SessionAsk(n=3, show_judges=show_judges)
    )
    with serving(session) as server:
        assert server.get("/")[0] == 200  # the labelling page
        expected = 200 if show_judges else 404
        assert server.get("/view")[0] == expected
        assert server.get("/api/view/meta")[0] == expected


def database_digest(run_dir: Path) -> str:
    """What the run database holds, table by table (a view request must change none of it)."""
    store = RunStore(run_dir / "run.sqlite")
    try:
        frames = [store.scores_frame(), store.calls_frame(), store.labels_frame()]
    finally:
        store.close()
    return hashlib.sha256("".join(f.to_csv() for f in frames).encode()).hexdigest()


# -- what the pages read -----------------------------------------------------------------------


def test_the_disputed_sample_comes_first_by_disagreement_and_pages_are_served(server):
    status, page = server.get("/api/view/samples?metric=faithfulness&sort=disagreement")
    assert status == 200, page
    assert page["rows"][0]["id"] == DISPUTED
    assert page["rows"][0]["disagreement"] > 0
    assert {c["judge"] for c in page["columns"]} == {"a", "b"}
    assert page["total"] == 13 and page["pages"] == 1
    status, small = server.get("/api/view/samples?metric=faithfulness&sort=id&per_page=5&page=3")
    assert status == 200 and small["pages"] == 3 and len(small["rows"]) == 3
    ids = sorted(r["id"] for r in page["rows"])
    assert [r["id"] for r in small["rows"]] == ids[10:13]
    # every cell of the grid: a mean of two scored repeats and their SD
    cell = page["rows"][0]["cells"][0]
    assert cell["n"] == 2 and cell["scored"] == 2 and cell["sd"] is not None


def test_filters_and_search_narrow_the_grid(server):
    status, only_b = server.get("/api/view/samples?metric=faithfulness&judge=b")
    assert status == 200 and [c["judge"] for c in only_b["columns"]] == ["b"]
    assert all(r["disagreement"] is None for r in only_b["rows"])  # one judge: no gap
    status, found = server.get("/api/view/samples?metric=faithfulness&q=" + quote("TOKYO"))
    assert status == 200 and [r["id"] for r in found["rows"]] == [DISPUTED]
    status, none = server.get("/api/view/samples?metric=faithfulness&status=failed")
    assert status == 200 and none["total"] == 0


def test_a_sample_shows_each_judges_statements_verdicts_and_calls(server):
    status, sample = server.get(f"/api/view/sample/{DISPUTED}?metric=faithfulness")
    assert status == 200, sample
    by_judge = {c["judge"]: c for c in sample["cells"] if c["repeat"] == 0}
    a, b = by_judge["a"]["items"], by_judge["b"]["items"]
    assert len(b) == len(a) + 1 and all(row["verdict"] in (0, 1) for row in a)
    assert any(row["reason"] == "judge b thinks otherwise" for row in b)
    assert sample["fields"]["response"]
    status, calls = server.get(f"/api/view/calls/{DISPUTED}?judge=a")
    assert status == 200 and calls["total"] >= 2
    steps = {c["step"] for c in calls["calls"]}
    assert {"statements", "nli"} <= steps, steps


def test_response_relevancy_shows_generated_questions_with_cosines(server):
    status, sample = server.get(f"/api/view/sample/{DISPUTED}?metric=response_relevancy")
    assert status == 200
    rows = sample["cells"][0]["items"]
    assert rows and all(row["note"].startswith("cosine ") for row in rows), rows


def test_side_by_side_marks_the_missing_statement_and_the_changed_verdict(server):
    a, b = "a||0|0", "b||0|0"
    status, pair = server.get(
        f"/api/view/compare/{DISPUTED}?metric=faithfulness&a={quote(a)}&b={quote(b)}&repeat=0"
    )
    assert status == 200, pair
    assert [r["text"] for r in pair["rows"] if r["only"] == "b"] == [EXTRA]
    assert not any(r["only"] == "a" for r in pair["rows"])
    assert sum(r["differs"] for r in pair["rows"]) == 1


def test_the_label_page_is_a_page_of_the_app_and_labels_the_chosen_sample(server, run_dir):
    status, reply = server.request(
        "POST", "/api/view/label", {"sample_id": DISPUTED, "metric": "faithfulness"}
    )
    assert status == 200 and reply["queued"]
    status, state = server.get("/api/state")
    assert state["items"][0]["sample_id"] == DISPUTED
    status, saved = server.request(
        "POST", "/api/label", {"sample_id": DISPUTED, "metric": "faithfulness", "value": 0.5}
    )
    assert status == 200 and saved["value"] == 0.5
    store = RunStore(run_dir / "run.sqlite")
    labels = store.labels_frame()
    store.close()
    assert len(labels) == 1
    assert not labels["blind"].astype(bool).iloc[0]  # given after the viewer showed the judges
    # chosen by the person, not drawn: no probability sample (the weighted figures leave it out)
    assert labels["chosen"].iloc[0] == 1 and pd.isna(labels["probability"].iloc[0])


def test_a_sample_the_queue_drew_and_the_viewer_moved_first_keeps_its_draw(run_dir):
    """``judgegrid label --show-judges`` serves the viewer too: sending a sample the queue
    already drew to the front keeps its draw's probability, and its label is not chosen."""
    session = open_label_view(run_dir, "ann", ["faithfulness"], SessionAsk(n=3, show_judges=True))
    with serving(session) as server:
        drawn = session.labels.queue[-1]
        body = {"sample_id": drawn.sample_id, "metric": "faithfulness"}
        assert server.request("POST", "/api/view/label", body)[0] == 200
        assert session.labels.queue[0] is drawn
        assert server.request("POST", "/api/label", body | {"value": 1.0})[0] == 200
    store = RunStore(run_dir / "run.sqlite")
    labels = store.labels_frame().set_index("sample_id")
    store.close()
    assert labels.loc[drawn.sample_id, "chosen"] == 0
    assert labels.loc[drawn.sample_id, "probability"] == pytest.approx(drawn.probability)


def test_the_decision_page_reads_the_card_the_report_wrote(server):
    status, decision = server.get("/api/view/decision")
    assert status == 200 and {r["metric"] for r in decision["card"]} >= {"faithfulness"}
    for row in decision["card"]:
        assert row["badge"] and isinstance(row["flags"], list)
        svg = base64.b64decode(row["forest"].removeprefix("data:image/svg+xml;base64,"))
        assert svg.count(b"<circle") >= 1 and b"<script" not in svg


# -- bad requests ------------------------------------------------------------------------------

SAMPLES = "/api/view/samples?metric=faithfulness"
BAD_REQUESTS: dict[str, tuple[dict[str, Any], str, int, str]] = {
    "no token": (dict(token=None), SAMPLES, 403, "access token"),
    "wrong token": (dict(token="guess"), SAMPLES, 403, "access token"),
    "foreign Host": (dict(host="evil.example:80"), SAMPLES, 403, "Host"),
    "foreign Host on the page": (dict(host="evil.example"), "/", 403, "Host"),
    "foreign Host on the label page": (dict(host="evil.example"), "/label", 403, "Host"),
    "unknown sample": ({}, "/api/view/sample/nope?metric=faithfulness", 404, "unknown sample"),
    "unknown sample's calls": ({}, "/api/view/calls/nope?judge=a", 404, "unknown sample"),
    "unknown sample compared": ({}, "/api/view/compare/nope?a=x&b=y", 404, "unknown sample"),
    "page zero": ({}, SAMPLES + "&page=0", 400, "page: expected a whole number"),
    "page negative": ({}, SAMPLES + "&page=-2", 400, "page: expected a whole number"),
    "page a word": ({}, SAMPLES + "&page=two", 400, "page: expected a whole number"),
    "per_page too large": ({}, SAMPLES + "&per_page=100000", 400, "per_page"),
    "calls page zero": ({}, f"/api/view/calls/{DISPUTED}?judge=a&page=0", 400, "page"),
    "unknown metric": ({}, "/api/view/samples?metric=nosuch", 400, "metric: 'nosuch'"),
    "unknown judge": ({}, SAMPLES + "&judge=zz", 400, "judge: 'zz' is not in this run"),
    "unknown embedding": ({}, SAMPLES + "&embedding=zz", 400, "embedding: 'zz'"),
    "unknown language": ({}, SAMPLES + "&language=xx", 400, "language: 'xx'"),
    "unknown status": ({}, SAMPLES + "&status=great", 400, "status: 'great'"),
    "unknown sort": ({}, SAMPLES + "&sort=luck", 400, "sort: 'luck'"),
    "unknown parameter": ({}, SAMPLES + "&colour=red", 400, "unknown parameter 'colour'"),
    "metric twice": ({}, SAMPLES + "&metric=faithfulness", 400, "given 2 times"),
    "search too long": ({}, SAMPLES + "&q=" + "x" * 300, 400, "q: search text longer"),
    "oversized query": ({}, SAMPLES + "&q=" + "x" * 3000, 414, "query string longer"),
    "unknown configuration": (
        {},
        f"/api/view/compare/{DISPUTED}?metric=faithfulness&a=zz&b=a||0|0",
        400,
        "a: 'zz' is not a configuration",
    ),
    "no such repeat": (
        {},
        f"/api/view/compare/{DISPUTED}?metric=faithfulness&a=a||0|0&b=b||0|0&repeat=7",
        400,
        "repeat: no repeat 7",
    ),
    "calls without a judge": ({}, f"/api/view/calls/{DISPUTED}", 400, "judge: name the judge"),
    # -- files and servers (issue 31 items 4, 6, 9): numbers parsed strictly, pages that exist
    "page beyond SQLite's integers": (
        {},
        SAMPLES + "&page=99999999999999999999999",
        400,
        "page: expected a whole number from 1 to 1000000000",
    ),
    "page past the last": ({}, SAMPLES + "&page=1000000", 400, "page: 1000000 is past the last"),
    "page in Arabic digits": ({}, SAMPLES + "&page=" + quote("١"), 400, "page: expected"),
    "page with a plus sign": ({}, SAMPLES + "&page=%2B1", 400, "page: expected"),
    "page with a space": ({}, SAMPLES + "&page=%201", 400, "page: expected"),
    "page empty": ({}, SAMPLES + "&page=", 400, "page: expected"),
    "page twice": ({}, SAMPLES + "&page=1&page=1", 400, "page: given 2 times"),
    "per_page zero": ({}, SAMPLES + "&per_page=0", 400, "per_page: expected"),
    "calls page past the last": (
        {},
        f"/api/view/calls/{DISPUTED}?judge=a&page=1000000",
        400,
        "page: 1000000 is past the last",
    ),
    "calls page huge": (
        {},
        f"/api/view/calls/{DISPUTED}?judge=a&page=99999999999999999999999",
        400,
        "page: expected",
    ),
    "repeat huge": (
        {},
        f"/api/view/compare/{DISPUTED}?metric=faithfulness&a=a||0|0&b=b||0|0&repeat=" + "9" * 30,
        400,
        "repeat: expected a whole number from 0",
    ),
    "repeat negative": (
        {},
        f"/api/view/compare/{DISPUTED}?metric=faithfulness&a=a||0|0&b=b||0|0&repeat=-1",
        400,
        "repeat: expected",
    ),
    "unknown parameter on meta": ({}, "/api/view/meta?x=1", 400, "unknown parameter 'x'"),
    "unknown parameter on the card": ({}, "/api/view/decision?x=1", 400, "unknown parameter"),
    "oversized query on meta": ({}, "/api/view/meta?x=" + "y" * 3000, 414, "query string longer"),
}


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_bad_requests_get_a_4xx_that_says_why_and_change_nothing(server, run_dir, name):
    options, path, status, words = BAD_REQUESTS[name]
    before = database_digest(run_dir)
    got, reply = server.get(path, **options)
    assert got == status, reply
    assert words in json.dumps(reply), reply
    assert database_digest(run_dir) == before


BAD_POSTS = {
    "label an unknown sample": ({"sample_id": "nope", "metric": "faithfulness"}, "unknown sample"),
    "label an unknown metric": ({"sample_id": DISPUTED, "metric": "x"}, "metric: 'x'"),
    "label with a list": ([1, 2], "expected a JSON object"),
}


@pytest.mark.parametrize("name", list(BAD_POSTS))
def test_bad_label_requests_queue_nothing(server, run_dir, name):
    body, words = BAD_POSTS[name]
    got, reply = server.request("POST", "/api/view/label", body)
    assert got == 400 and words in reply["error"], reply
    assert server.session.labels.queue == []


def test_the_report_sends_each_least_stable_sample_to_the_view(base_run):
    page = (base_run / "report.html").read_text()
    assert f"judgegrid view {base_run}" in page
    assert page.count("#/sample/") >= 13  # a row of the least-stable table per sample


def test_the_report_sends_the_most_disagreed_samples_to_the_view_in_the_views_order(run_dir):
    """The report's "most disagreed" rows are the view's disagreement order: per metric, the
    table's first sample is the Samples page's first, and each row links to the view."""
    rebuild_report(run_dir)  # the run's report predates the disputed verdicts written after it
    page = (run_dir / "report.html").read_text()
    section = page.split('<section id="disagreed">')[1].split("</section>")[0]
    table = pd.read_csv(run_dir / "tables" / "sample_disagreement.csv")
    assert table.iloc[0]["sample_id"] == DISPUTED
    run = open_view(run_dir, "ann").run
    try:
        for metric, rows in table.dropna(subset=["disagreement"]).groupby("metric"):
            top = run.samples_page(Filters(metric=str(metric)))["rows"][0]
            assert top["id"] == rows.iloc[0]["sample_id"]
            assert top["disagreement"] == pytest.approx(rows.iloc[0]["disagreement"])
    finally:
        run.close()
    for row in table.dropna(subset=["disagreement"]).head(20).itertuples():  # the rows shown
        link = f"#/sample/{quote(row.sample_id, safe='')}?metric={row.metric}"
        assert link in section, link
    assert table.loc[table["sample_id"] == DISPUTED, "disagreement"].max() > 0.3
    assert section.count("#/sample/") == min(20, table["disagreement"].notna().sum())


# Bodies shaped to hurt (issue 39): both POST routes of the view share the labelling server's
# one reader (``labels.server.json_body``), which refuses them before Python's parser sees them.
HURTFUL_BODIES = {
    "nested 5,000 deep": (b"[" * 5000 + b"]" * 5000, 400, "nested deeper than 32 levels"),
    "deep inside an object": (
        b'{"sample_id": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5001,
        400,
        "nested deeper than 32",
    ),
    "brackets inside a string are text": (b'{"sample_id": "' + b"[" * 5000 + b'"}', 400, "unknown"),
    "oversized": (b'{"note": "' + b"x" * 2_000_000 + b'"}', 413, "larger than"),
    "not UTF-8": (b'{"sample_id": "\xff"}', 400, "not UTF-8"),
    "an integer of 5,000 digits": (b'{"sample_id": ' + b"9" * 5000 + b"}", 400, "not valid JSON"),
}


@pytest.mark.parametrize("route", ["/api/view/label", "/api/label"])
@pytest.mark.parametrize("name", list(HURTFUL_BODIES))
def test_a_body_shaped_to_hurt_is_a_4xx_that_says_why(server, run_dir, route, name):
    raw, status, words = HURTFUL_BODIES[name]
    before = database_digest(run_dir)
    got, reply = server.request("POST", route, raw=raw)
    assert got == status, reply
    assert words in reply["error"], reply
    assert server.session.labels.queue == [] and database_digest(run_dir) == before
