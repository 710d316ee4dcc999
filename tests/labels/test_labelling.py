"""The labelling server and labels files: what a person's answers go through before an analysis
reads them. The server runs for real on 127.0.0.1 (in a thread, or as the `judgegrid label`
process for the kill test); requests are plain HTTP."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from judgegrid import run_grid
from judgegrid.analyses import metric_design
from judgegrid.core.errors import DatasetError, OptionError, RunDirError, RunLockedError
from judgegrid.core.records import ScoreRow
from judgegrid.labels import page
from judgegrid.labels.files import export_labels, import_labels, read_label_file
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import LabelSession, SessionAsk
from judgegrid.labels.views import metric_view
from judgegrid.metrics import METRICS
from judgegrid.store.lock import lock_run
from judgegrid.store.run_db import RunStore
from support.servers import LabelServer as Server
from support.servers import command_server, in_thread

# a state line that names a judge (the run's judges are labelled a and b)
NAMED = re.compile(r"\b(a|b) (leads|is better|and (a|b) are level)")
DISAGREED = ("tokyo-noisy", "water-off-topic")  # the samples the judges are made to disagree on


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """A finished scripted run (12 demo samples, two judges), then judge b made to disagree with
    judge a on DISAGREED for faithfulness: the samples a label would teach most about."""
    import yaml

    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    root = tmp_path_factory.mktemp("labelrun")
    matrix = root / "m.yaml"
    matrix.write_text(
        yaml.safe_dump(
            matrix_dict(
                metrics=["faithfulness", "context_precision"],
                embeddings=[],
                strictness=[1],
                repeats=1,
            )
        )
    )
    run = run_grid(matrix, run_dir=root / "run")
    store = RunStore(run.run_dir / "run.sqlite")
    scores = store.scores_frame()
    for row in scores.itertuples(index=False):
        if row.metric == "faithfulness" and row.judge == "b" and row.sample_id in DISAGREED:
            values = row._asdict()
            values["score"] = 1.0 - float(values["score"] or 0.0)
            store.write_score(ScoreRow(**values), replace=True)
    store.close()
    return run.run_dir


@pytest.fixture
def run_dir(base_run, tmp_path) -> Path:
    """A fresh copy of the run for one test (labels written by one test never reach another)."""
    import shutil

    target = tmp_path / "run"
    shutil.copytree(base_run, target)
    return target


@pytest.fixture
def server(run_dir) -> Iterator[Server]:
    # every sample of both metrics: all drawn
    session = open_session(run_dir, "ann", ask=SessionAsk(n=24))
    yield from _running(session)


def _running(session: LabelSession) -> Iterator[Server]:
    with in_thread(serve, session) as (runner, port):
        yield Server(session, port, runner)


def stored_draws(run_dir: Path) -> pd.DataFrame:
    return _stored(run_dir, RunStore.draws_frame)


def stored_labels(run_dir: Path) -> pd.DataFrame:
    return _stored(run_dir, RunStore.labels_frame)


def _stored(run_dir: Path, read: Callable[[RunStore], pd.DataFrame]) -> pd.DataFrame:
    store = RunStore(run_dir / "run.sqlite")
    try:
        return read(store)
    finally:
        store.close()


# -- which samples come first ------------------------------------------------------------------


def test_the_sessions_draws_go_through_the_serving_store_under_the_runs_lock(run_dir, monkeypatch):
    """The page's new draws are written by the store the server holds, not by a second one
    opened beside it; under the run's lock, let go after (a report can run), and refused whole
    while another process holds it."""
    opened: list[Path] = []

    class Counted(RunStore):
        def __init__(self, path: Any, *args: Any, **kwargs: Any) -> None:
            opened.append(Path(path))
            super().__init__(path, *args, **kwargs)

    monkeypatch.setattr(page, "RunStore", Counted)
    store = RunStore(run_dir / "run.sqlite")  # the server's own
    try:
        with lock_run(run_dir), pytest.raises(RunLockedError):  # a report at work on the run
            page.make_app(open_session(run_dir, "ann", ask=SessionAsk(n=4)), store)
        assert store.draws_frame().empty  # nothing of the session's draws was written
        session = open_session(run_dir, "ann", ask=SessionAsk(n=4))
        drawn = sorted((d.metric, d.draw, d.sample_id) for d in session.unrecorded)
        assert drawn
        opened.clear()
        page.make_app(session, store)
        assert opened == []  # no store opened but the server's
        stored = store.draws_frame()
    finally:
        store.close()
    columns = (stored["metric"], stored["draw"], stored["sample_id"])
    assert sorted(zip(*columns, strict=True)) == drawn
    lock_run(run_dir).release()  # the lock was let go once the draws were written


def test_the_queue_draws_where_the_judges_disagree_more_often_and_stores_every_draw(run_dir):
    session = open_session(run_dir, "ann", ask=SessionAsk(n=6))
    faithfulness = [i for i in session.queue if i.metric == "faithfulness"]
    # metrics take turns, so each gets its share of the labels
    assert [i.metric for i in session.queue[:4]] == [
        "faithfulness",
        "context_precision",
        "faithfulness",
        "context_precision",
    ]
    assert stored_draws(run_dir).empty  # nothing written before the page's port is bound
    for _ in _running(session):  # the page made: every draw stored before it shows one
        draws = stored_draws(run_dir)
    mine = draws[draws["metric"] == "faithfulness"]
    # numbered from 1, every queue item among them, each with the probability it was drawn with
    assert list(mine["draw"]) == list(range(1, len(mine) + 1))
    assert len(mine) >= len(faithfulness) == 3
    q = dict(zip(mine["sample_id"], mine["probability"], strict=False))
    for item in faithfulness:
        assert item.probability == pytest.approx(q[item.sample_id])
    assert (mine["population"] == 12).all()
    design = metric_design(_stored(run_dir, RunStore.scores_frame), "faithfulness")
    chance = dict(zip(design.samples, design.probability, strict=True))
    assert sum(chance.values()) == pytest.approx(1.0)
    others = [p for s, p in chance.items() if s not in DISAGREED]
    assert min(chance[s] for s in DISAGREED) > max(others) > 0
    assert min(others) >= 0.4 / 12 - 1e-12  # the uniform share: no sample left out


def test_an_annotators_sequence_goes_on_across_sessions_and_a_skip_stays_drawn(run_dir):
    first = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=2))
    again = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=2))  # nothing answered yet
    assert [i.sample_id for i in again.queue] == [i.sample_id for i in first.queue]
    drawn = len(stored_draws(run_dir))
    for server in _running(again):
        server.label(again.queue[0].sample_id, "faithfulness", value=0.5)
        server.label(again.queue[1].sample_id, "faithfulness", skip=True)
    labels = stored_labels(run_dir).set_index("sample_id")
    assert labels.loc[again.queue[0].sample_id, "probability"] == pytest.approx(
        again.queue[0].probability
    )
    later = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=2))
    asked = {i.sample_id for i in again.queue}
    assert not asked & {i.sample_id for i in later.queue}  # neither the label nor the skip
    draws = stored_draws(run_dir)
    assert draws["draw"].min() == 1 and list(draws["draw"]) == list(range(1, len(draws) + 1))
    assert len(draws) > drawn  # the new session's draws numbered on from the stored ones


def test_a_skip_before_any_label_shows_on_the_state_line(server):
    """A person who has only skipped saw "0 labels · no verdict yet", as if the skip had not
    been taken; the line counts it, as it does once labels come."""
    first = server.session.queue[0]
    _, state = server.label(first.sample_id, first.metric, skip=True)
    assert state["state"] == "0 labels · no verdict yet · 1 skipped (left out)", state


def test_the_page_is_blind_unless_the_judges_are_asked_for(server, run_dir, base_run, tmp_path):
    """No judge's name or score reaches the page (not even its JSON) before the answer. The
    sighted person labels a copy of the run: ann's queue drew every sample here, and the pool
    is one for everyone."""
    _, state = server.request("GET", "/api/state")
    assert state["blind"] is True
    reasons = " | ".join(i["reason"] for i in state["items"])
    assert "the judges disagree on this one" in reasons
    assert not re.search(r"\b(a|b) gives|\d\.\d\d|prefers", reasons), reasons
    _, blind = server.label(DISAGREED[0], "faithfulness", value=0.5)
    # where labelling stands, naming no judge and no score
    assert blind["state"].startswith("1 label · no verdict yet"), blind
    assert not NAMED.search(blind["state"])
    assert not NAMED.search(json.dumps(server.request("GET", "/api/state")[1]["states"]))
    seen_dir = tmp_path / "seen"
    shutil.copytree(base_run, seen_dir)
    sighted = open_session(seen_dir, "seer", ask=SessionAsk(n=12, show_judges=True))
    for server_seen in _running(sighted):
        _, seen = server_seen.request("GET", "/api/state")
        assert seen["blind"] is False
        first = next(i for i in seen["items"] if i["sample_id"] == DISAGREED[0])
        assert re.search(r"the judges disagree: (a|b) gives \d\.\d\d", first["reason"])
        server_seen.label(DISAGREED[0], "faithfulness", value=0.75)
        # the first draw answered: the rule reads it, and --show-judges names the judges (a
        # label answered out of the draws' order waits for the draws before it)
        first = next(i for i in sighted.queue if i.metric == "faithfulness")
        _, named = server_seen.label(first.sample_id, "faithfulness", value=1.0)
        assert NAMED.search(named["state"]), named
    labels = stored_labels(run_dir).set_index("annotator")
    seen = stored_labels(seen_dir).set_index("annotator")
    assert labels.loc["ann", "blind"] == 1 and (seen.loc["seer", "blind"] == 0).all()


def test_a_report_can_leave_out_the_labels_given_with_the_judges_shown(run_dir):
    from typer.testing import CliRunner

    from judgegrid.cli import app
    from judgegrid.core.records import Label
    from judgegrid.labels.files import without_sighted

    store = RunStore(run_dir / "run.sqlite")
    samples = sorted(set(store.scores_frame()["sample_id"]))[:8]
    store.write_labels(
        [Label(s, "faithfulness", "blind", 0.5, blind=True) for s in samples]
        + [Label(s, "faithfulness", "seer", 0.5, blind=False) for s in samples]
        + [Label(s, "faithfulness", "imported", 0.5, source="import") for s in samples]
    )
    stored = store.labels_frame()
    store.close()
    kept = without_sighted(stored)
    assert set(kept["annotator"]) == {"blind", "imported"}  # unknown blindness stays
    runner = CliRunner()
    assert runner.invoke(app, ["report", str(run_dir)]).exit_code == 0
    agreement = pd.read_csv(run_dir / "tables" / "human_agreement.csv").iloc[0]
    assert agreement["annotators"] == 3
    assert runner.invoke(app, ["report", str(run_dir), "--blind-only"]).exit_code == 0
    agreement = pd.read_csv(run_dir / "tables" / "human_agreement.csv").iloc[0]
    assert agreement["annotators"] == 2


def test_what_the_annotator_answered_is_not_offered_again(run_dir):
    """Nor to anyone else: the queue's pool is one for everyone, so that everyone's draws
    merged are one sequence without replacement, each sample read once."""
    from judgegrid.core.records import Label

    store = RunStore(run_dir / "run.sqlite")
    store.write_labels([Label(DISAGREED[0], "faithfulness", "ann", 0.5, labelled_at=1.0)])
    store.close()
    again = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=11))
    other = open_session(run_dir, "someone-else", ["faithfulness"], SessionAsk(n=12))
    assert DISAGREED[0] not in [i.sample_id for i in again.queue]
    assert len(again.queue) == 11  # every other sample, drawn
    assert DISAGREED[0] not in [i.sample_id for i in other.queue]
    assert len(other.queue) == 11  # ann's session not served: her draws are not stored


# -- answers are saved at once ----------------------------------------------------------------


def test_a_scale_answer_and_a_context_ticking_are_saved(server, run_dir):
    status, reply = server.label(DISAGREED[0], "faithfulness", value=0.75, note="two of four")
    assert (status, reply["value"]) == (200, 0.75)
    cp = next(i for i in server.session.queue if i.metric == "context_precision")
    contexts = server.session.samples[cp.sample_id].retrieved_contexts or []
    ticks = [1 if k % 2 else 0 for k in range(len(contexts))]
    status, reply = server.label(cp.sample_id, "context_precision", useful=ticks)
    assert status == 200
    from judgegrid.metrics.context_precision import average_precision

    assert reply["value"] == pytest.approx(average_precision(ticks))
    labels = stored_labels(run_dir).set_index("metric")
    assert labels.loc["faithfulness", "note"] == "two of four"
    assert json.loads(labels.loc["context_precision", "detail"]) == {"useful": ticks}
    status, reply = server.label(DISAGREED[1], "faithfulness", skip=True)
    assert status == 200 and reply["value"] is None
    status, state = server.request("GET", "/api/state")
    assert sum(i["done"] for i in state["items"]) == 3


def test_the_server_listens_on_loopback_only(server):
    addresses = server.runner.addresses
    assert addresses and all(address[0] == "127.0.0.1" for address in addresses)


BAD_REQUESTS = {
    "no token": (dict(token=None), "GET", "/api/state", None, 403, "access token"),
    "wrong token": (dict(token="guess"), "GET", "/api/state", None, 403, "access token"),
    "foreign Host header": (dict(host="evil.example:80"), "GET", "/api/state", None, 403, "Host"),
    "foreign Host on the page": (dict(host="evil.example"), "GET", "/", None, 403, "Host"),
    "unknown sample": (
        {},
        "POST",
        "/api/label",
        {"sample_id": "nope", "metric": "faithfulness", "value": 1},
        400,
        "unknown sample 'nope'",
    ),
    "unknown metric": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "nosuch", "value": 1},
        400,
        "unknown metric 'nosuch'",
    ),
    "value above 1": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": 1.5},
        400,
        "value: expected a number from 0 to 1",
    ),
    "value negative": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": -0.1},
        400,
        "from 0 to 1",
    ),
    "value a word": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": "high"},
        400,
        "from 0 to 1",
    ),
    "value true": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": True},
        400,
        "from 0 to 1",
    ),
    "no value": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness"},
        400,
        "value",
    ),
    "body not an object": ({}, "POST", "/api/label", [1, 2], 400, "expected a JSON object"),
    "note too long": (
        {},
        "POST",
        "/api/label",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": 1, "note": "x" * 5000},
        400,
        "note",
    ),
    "a key in the note": (
        {},
        "POST",
        "/api/label",
        {
            "sample_id": DISAGREED[0],
            "metric": "faithfulness",
            "value": 1,
            "note": "mine: sk-proj-NoteKey0123456789abcdefXYZ",
        },
        400,
        "note: looks like an API key",
    ),
    "ticks of the wrong length": (
        {},
        "POST",
        "/api/label",
        "ticks",
        400,
        "useful: expected",
    ),
    "a sample outside the queue": (
        {},
        "POST",
        "/api/label",
        "outside",
        400,
        "not in this page's queue",
    ),
    "unknown sample page": ({}, "GET", "/api/sample/nope", None, 404, "unknown sample"),
    "malformed JSON": (
        dict(raw=b'{"sample_id": '),
        "POST",
        "/api/label",
        None,
        400,
        "not valid JSON",
    ),
    "not JSON at all": (
        dict(content_type="text/plain", raw=b"value=1"),
        "POST",
        "/api/label",
        None,
        415,
        "application/json",
    ),
    "oversized body": (
        dict(raw=b'{"note": "' + b"x" * 100_000 + b'"}'),
        "POST",
        "/api/label",
        None,
        413,
        "larger than",
    ),
    # -- bodies shaped to hurt (issue 39): Python's parser would recurse or refuse past a limit
    "a body nested 5,000 deep": (
        dict(raw=b"[" * 5000 + b"]" * 5000),
        "POST",
        "/api/label",
        None,
        400,
        "nested deeper than 32 levels",
    ),
    "a note nested 5,000 deep": (
        dict(raw=b'{"sample_id": "s", "note": ' + b"{" * 5000 + b"}" * 5000 + b"}"),
        "POST",
        "/api/label",
        None,
        400,
        "nested deeper than 32",
    ),
    "an integer of 5,000 digits": (
        dict(raw=b'{"value": ' + b"9" * 5000 + b"}"),
        "POST",
        "/api/label",
        None,
        400,
        "not valid JSON",
    ),
    "a body that is not UTF-8": (
        dict(raw=b'{"note": "\xff\xfe"}'),
        "POST",
        "/api/label",
        None,
        400,
        "not UTF-8",
    ),
    # -- files and servers (issue 31 items 4, 6, 9): every query and path number parsed strictly
    "unknown parameter on the state": (
        {},
        "GET",
        "/api/state?page=2",
        None,
        400,
        "unknown parameter",
    ),
    "a label posted with a query": (
        {},
        "POST",
        "/api/label?x=1",
        {"sample_id": DISAGREED[0], "metric": "faithfulness", "value": 1},
        400,
        "unknown parameter 'x'",
    ),
    "pair position negative": ({}, "GET", "/api/pair/-1/0", None, 400, "position: expected"),
    "pair position in Arabic digits": ({}, "GET", "/api/pair/%D9%A1/0", None, 400, "position"),
    "pair position huge": ({}, "GET", "/api/pair/" + "9" * 30 + "/0", None, 400, "position"),
    "pair member a word": ({}, "GET", "/api/pair/0/one", None, 400, "member: expected"),
    "oversized query on the state": (
        {},
        "GET",
        "/api/state?x=" + "y" * 3000,
        None,
        414,
        "query string longer",
    ),
}


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_bad_requests_get_a_4xx_that_says_why_and_write_nothing(server, run_dir, name):
    options, method, path, body, status, words = BAD_REQUESTS[name]
    if body == "outside":  # a real sample of the run that this page was not asked to show
        server.session.queue = server.session.queue[:4]
        queued = {i.sample_id for i in server.session.queue if i.metric == "faithfulness"}
        outside = sorted(set(server.session.samples) - queued)[0]
        body = {"sample_id": outside, "metric": "faithfulness", "value": 1}
    if body == "ticks":  # one tick for a sample with several contexts
        first = next(i for i in server.session.queue if i.metric == "context_precision")
        body = {"sample_id": first.sample_id, "metric": "context_precision", "useful": [1] * 9}
    got, reply = server.request(method, path, body, **options)
    assert got == status, reply
    assert words in json.dumps(reply), reply
    assert stored_labels(run_dir).empty


# -- nothing lost ------------------------------------------------------------------------------


def test_two_annotators_labelling_at_once_lose_nothing(run_dir):
    """Two pages at once, six of the twelve samples each: the pool is one for everyone, so
    bob's session, opened once ann's page has stored her draws, draws the other six."""
    servers = []
    started = []
    for name in ("ann", "bob"):
        servers.append(_running(open_session(run_dir, name, ["faithfulness"], SessionAsk(n=6))))
        started.append(next(servers[-1]))
    first, second = started
    try:
        jobs = [
            (server, item.sample_id, value)
            for server, value in ((first, 0.25), (second, 0.75))
            for item in server.session.queue
        ]
        with ThreadPoolExecutor(max_workers=8) as pool:
            replies = list(pool.map(lambda j: j[0].label(j[1], "faithfulness", value=j[2]), jobs))
    finally:
        for running in servers:
            next(running, None)
    assert {status for status, _ in replies} == {200}
    labels = stored_labels(run_dir)
    assert len(labels) == len(jobs) == 12 and labels["sample_id"].is_unique
    assert labels.groupby("annotator")["value"].agg(set).to_dict() == {"ann": {0.25}, "bob": {0.75}}


def test_a_server_killed_with_sigkill_keeps_every_acknowledged_label(run_dir):
    options = ["--annotator", "kim", "--metric", "faithfulness", "--n", "6"]
    with command_server("label", str(run_dir), *options) as url:  # SIGKILLed as the block ends
        port = int(url.split(":")[2].split("/")[0])
        token = url.split("token=")[1]
        session = open_session(run_dir, "kim", ["faithfulness"], SessionAsk(n=6))
        session.token = token
        server = Server(session, port, None)
        acknowledged = [
            item.sample_id
            for item in session.queue
            if server.label(item.sample_id, "faithfulness", value=0.5)[0] == 200
        ]
    assert len(acknowledged) == 6
    labels = stored_labels(run_dir)
    assert sorted(labels["sample_id"]) == sorted(acknowledged)


# -- labels files ------------------------------------------------------------------------------

GOOD_ROWS = [
    {"sample_id": DISAGREED[0], "metric": "faithfulness", "annotator": "ann", "value": 0.0},
    {"sample_id": DISAGREED[1], "metric": "Faithfulness", "annotator": "bob", "value": "1"},
]


def write_rows(path: Path, rows: list[Any]) -> Path:
    if path.suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_labels_import_and_export_round_trip(run_dir, tmp_path, suffix):
    count = import_labels(run_dir, write_rows(tmp_path / f"l{suffix}", GOOD_ROWS))
    assert count == 2
    exported = export_labels(run_dir)
    mine = exported[exported["source"] == "import"].sort_values("annotator")
    assert list(mine["value"]) == [0.0, 1.0] and list(mine["metric"]) == ["faithfulness"] * 2


def labels_given_three_ways(server: Server, run_dir: Path, tmp_path: Path) -> None:
    """A scale answer with a note, a context ticking (its detail), a skip, all from the blind
    page, and a label with no blindness known, from a file."""
    assert server.label(DISAGREED[0], "faithfulness", value=0.75, note='two, of "four"')[0] == 200
    cp = next(i for i in server.session.queue if i.metric == "context_precision")
    count = len(server.session.samples[cp.sample_id].retrieved_contexts or [])
    ticks = [k % 2 for k in range(count)]
    assert server.label(cp.sample_id, "context_precision", useful=ticks)[0] == 200
    assert server.label(DISAGREED[1], "faithfulness", skip=True)[0] == 200
    import_labels(
        run_dir, write_rows(tmp_path / "first.csv", [{**GOOD_ROWS[1], "annotator": "cy"}])
    )


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_what_labels_export_writes_labels_import_reads_back(
    server, base_run, run_dir, tmp_path, suffix
):
    """Files out are files in: each format ``labels export`` writes is imported into a fresh copy
    of the run whole (values, skips, notes, details, blindness, times); only the source says
    the labels came from a file."""
    from typer.testing import CliRunner

    from judgegrid.cli import app

    labels_given_three_ways(server, run_dir, tmp_path)
    out = tmp_path / "new folder" / f"labels{suffix}"
    result = CliRunner().invoke(app, ["labels", "export", str(run_dir), "-o", str(out)])
    assert result.exit_code == 0, result.output
    expected = export_labels(run_dir)
    assert len(expected) == 4
    copy = tmp_path / "copy"
    shutil.copytree(base_run, copy)
    result = CliRunner().invoke(app, ["labels", "import", str(copy), str(out)])
    assert result.exit_code == 0, result.output
    assert "4 labels imported" in result.output
    again = export_labels(copy)
    assert set(again["source"]) <= {"import", "dataset"}
    key = ["sample_id", "metric", "annotator"]
    left = expected.drop(columns="source").sort_values(key).reset_index(drop=True)
    right = again.drop(columns="source").sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(left, right, check_dtype=False)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_labels_export_writes_the_format_its_extension_names(server, run_dir, tmp_path, suffix):
    labels_given_three_ways(server, run_dir, tmp_path)
    path = tmp_path / f"out{suffix}"
    from typer.testing import CliRunner

    from judgegrid.cli import app

    assert (
        CliRunner().invoke(app, ["labels", "export", str(run_dir), "-o", str(path)]).exit_code == 0
    )
    read = {".csv": pd.read_csv, ".parquet": pd.read_parquet}.get(
        suffix, lambda p: pd.read_json(p, lines=True)
    )
    assert len(read(path)) == 4


def test_the_data_sets_own_labels_in_an_export_are_not_imported_twice(tmp_path):
    """An export holds the data set's labels (source dataset); the run's data set has them
    already, so they are left out, unless this run's data set lacks them."""
    given = {**GOOD_ROWS[0], "annotator": "dataset", "source": "dataset"}
    path = write_rows(tmp_path / "l.jsonl", [given, GOOD_ROWS[1]])
    samples, metrics = set(DISAGREED), {"faithfulness"}
    carried = {(DISAGREED[0], "faithfulness")}
    assert [x.annotator for x in read_label_file(path, samples, metrics, None, carried)] == ["bob"]
    assert len(read_label_file(path, samples, metrics)) == 2


def test_an_annotator_option_that_contradicts_the_file_is_refused(run_dir, tmp_path):
    with pytest.raises(OptionError, match="names its annotators \\(ann, bob\\)"):
        import_labels(run_dir, write_rows(tmp_path / "l.csv", GOOD_ROWS), "other")
    with pytest.raises(OptionError, match="a name is needed"):
        import_labels(run_dir, write_rows(tmp_path / "l.csv", GOOD_ROWS), "  ")
    no_column = [{k: v for k, v in r.items() if k != "annotator"} for r in GOOD_ROWS]
    assert import_labels(run_dir, write_rows(tmp_path / "n.jsonl", no_column), "dee") == 2
    assert set(stored_labels(run_dir)["annotator"]) == {"dee"}


BAD_LABEL_FILES: dict[str, tuple[str, Any, str]] = {
    "unknown sample": (".csv", [{**GOOD_ROWS[0], "sample_id": "zzz"}], "row 3: sample_id 'zzz'"),
    "unknown metric": (
        ".jsonl",
        [{**GOOD_ROWS[0], "metric": "faithfullness"}],
        "line 2: unknown metric",
    ),
    "metric not in the run": (
        ".csv",
        [{**GOOD_ROWS[0], "metric": "context_recall"}],
        "not in this run",
    ),
    "value above 1": (
        ".csv",
        [{**GOOD_ROWS[0], "value": 4}],
        "value: expected a number from 0 to 1",
    ),
    "value not a number": (".jsonl", [{**GOOD_ROWS[0], "value": "good"}], "got 'good'"),
    "probability 0": (
        ".csv",
        [{**GOOD_ROWS[0], "probability": 0}],
        "row 3: probability: expected a number in (0, 1], got '0.0'",
    ),
    "probability above 1": (
        ".jsonl",
        [{**GOOD_ROWS[0], "probability": 1.5}],
        "line 2: probability: expected a number in (0, 1], got 1.5",
    ),
    "value missing": (".jsonl", [{k: v for k, v in GOOD_ROWS[0].items() if k != "value"}], "value"),
    "no annotator": (".csv", [{**GOOD_ROWS[0], "annotator": ""}], "annotator is missing"),
    "unknown column": (".csv", [{**GOOD_ROWS[0], "score": 1}], "unknown field score"),
    "a row twice": (".csv", [GOOD_ROWS[0], GOOD_ROWS[0]], "row 3: repeats row 2"),
    "malformed JSON": (".jsonl", "{oops\n", "line 1: not valid JSON"),
    "a line not an object": (".jsonl", "[1, 2]\n", "line 1: expected an object"),
    "not UTF-8": (".csv", b"sample_id,metric\n\xff,x\n", "line 2: byte 0xff is not UTF-8"),
    "empty": (".jsonl", "\n", "the file holds only blank lines"),
    "unknown format": (".xlsx", "x", "unknown format '.xlsx'"),
    "missing file": (".csv", None, "file not found"),
}


@pytest.mark.parametrize("name", list(BAD_LABEL_FILES))
def test_a_bad_labels_file_is_refused_whole_naming_the_row(run_dir, tmp_path, name):
    suffix, content, words = BAD_LABEL_FILES[name]
    path = tmp_path / f"labels{suffix}"
    if isinstance(content, list):
        write_rows(path, [GOOD_ROWS[1], *content] if name != "a row twice" else content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(DatasetError) as raised:
        import_labels(run_dir, path)
    assert words in str(raised.value), str(raised.value)
    assert stored_labels(run_dir).empty  # the good row beside the bad one was not written


def test_rows_of_samples_the_run_does_not_hold_say_what_to_do(run_dir, tmp_path):
    """docs/examples/demo-labels.csv on a run made with --limit: each row is named, then one
    line says why such rows come and what to do, counted once whatever the metric."""
    strangers = [
        {**GOOD_ROWS[0], "sample_id": "vanmieu"},
        {**GOOD_ROWS[0], "sample_id": "vanmieu", "metric": "response_relevancy"},
    ]
    path = write_rows(tmp_path / "l.csv", [GOOD_ROWS[1], *strangers])
    with pytest.raises(DatasetError) as raised:
        import_labels(run_dir, path)
    lines = str(raised.value).splitlines()
    assert lines[:2] == [
        f"{path}: row 3: sample_id 'vanmieu' is not a sample of this run",
        f"{path}: row 4: sample_id 'vanmieu' is not a sample of this run",
    ]
    assert lines[2:] == [
        f"{path}: 2 rows name samples this run does not hold (a run made with --limit holds "
        "only the data set's first samples): leave those rows out, or import into a run of "
        "the whole data set"
    ]


def test_labels_on_something_that_is_not_a_run(tmp_path):
    with pytest.raises(RunDirError):
        import_labels(tmp_path, tmp_path / "x.csv")
    with pytest.raises(RunDirError):
        open_session(tmp_path / "nowhere", "ann")


def test_label_with_nothing_left_to_ask_says_why_and_serves_no_page(run_dir, monkeypatch):
    """A person who has answered (or skipped) every sample of a metric runs `judgegrid label`
    again, as the card's footer suggests: it must say that nothing is left for them and what
    would give them a question, not print a URL to a page that only says "nothing to label"."""
    from typer.testing import CliRunner

    from judgegrid.cli import app, labels

    served: list[object] = []
    monkeypatch.setattr(labels, "serve_app", lambda *args: served.append(args))
    session = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=12))
    for server in _running(session):
        for k, item in enumerate(session.queue):
            answer = {"skip": True} if k == 0 else {"value": 1.0}
            assert server.label(item.sample_id, "faithfulness", **answer)[0] == 200
    runner = CliRunner()
    args = ["label", str(run_dir), "--metric", "faithfulness", "--annotator", "ann"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    assert served == [] and "http://" not in done.output
    assert done.output.startswith(
        "nothing to label: 'ann' has answered or skipped every sample of faithfulness"
    )
    assert "judgegrid label --again" in done.output  # a second label of a sample, on purpose
    assert f"judgegrid report {run_dir}" in done.output
    other = runner.invoke(app, [*args[:-1], "bea", "--n", "2"])  # another person: one pool
    assert other.exit_code == 0 and served == [], other.output
    assert other.output.startswith(
        "nothing to label: every sample of faithfulness the judges scored is answered, skipped "
        "or drawn, 12 of them by other people"
    )
    failed = session.scores.assign(status="failed")  # every cell failed (or none run yet)
    for scores in (failed, session.scores.iloc[0:0]):
        assert replace(session, scores=scores).nothing_to_ask("R") == (
            "nothing to label: no judge scored a sample of faithfulness (its cells were not run "
            "yet, or skipped or failed: judgegrid report R says which)"
        )


def test_label_options_are_checked(run_dir):
    with pytest.raises(OptionError, match="context_recall is not in this run"):
        open_session(run_dir, "ann", ["context_recall"])
    with pytest.raises(OptionError, match="a name is needed"):
        open_session(run_dir, "  ")


# -- a judgegrid pairs run: the page asks for a preference --------------------------------------


def test_a_pairs_run_asks_which_answer_is_better_and_the_report_scores_it(tmp_path, write_matrix):
    from typer.testing import CliRunner

    from judgegrid import run_pairs
    from judgegrid.cli import app
    from support.demo_sets import PAIR_RECORDS

    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in PAIR_RECORDS))
    parent = run_pairs(
        write_matrix(repeats=1, strictness=[1]), pairs_file, reports_dir=tmp_path / "r"
    ).run_dir
    refused = CliRunner().invoke(app, ["label", str(parent)])
    assert refused.exit_code == 2 and "a judgegrid pairs directory" in refused.output
    assert f"read one aspect's run: {parent / 'answer_relevance'} or" in refused.output
    session = open_session(parent / "faithfulness", "ann", ask=SessionAsk(n=10))
    assert {i.metric for i in session.queue} == {"preference"}
    assert len(session.queue) == len(PAIR_RECORDS)
    firsts = [i.members[0].endswith(":preferred") for i in session.queue if i.members]
    assert True in firsts and False in firsts  # the preferred answer is not always shown first
    running = _running(session)
    server = next(running)
    try:
        status, state = server.request("GET", "/api/state")
        assert status == 200 and state["metrics"]["preference"]["form"] == "preference"
        assert ":preferred" not in json.dumps(state) and ":other" not in json.dumps(state)
        status, answer = server.request("GET", "/api/pair/0/1")
        assert status == 200 and "id" not in answer and answer["response"]
        assert server.request("GET", "/api/pair/0/2")[0] == 404
        assert server.request("GET", "/api/pair/99/0")[0] == 404
        lines = []
        for item in session.queue:  # this person prefers the data set's preferred answer
            assert item.members is not None
            choice = 0 if item.members[0].endswith(":preferred") else 1
            status, reply = server.label(item.sample_id, "preference", choice=choice)
            assert status == 200
            lines.append(reply["state"])
        # the state line moved with each preference, blind until the last (the queue done)
        assert lines[0].startswith("faithfulness: 1 label · ")
        assert not any(NAMED.search(line) for line in lines[:-1]), lines
        final = lines[-1].removeprefix("faithfulness: ")
        assert server.label(session.queue[0].sample_id, "preference", choice=2)[0] == 400
        assert server.label("nope", "preference", choice=0)[0] == 400
    finally:
        next(running, None)
    result = CliRunner().invoke(app, ["report", str(parent)])
    assert result.exit_code == 0, result.output
    pairs = pd.read_csv(parent / "faithfulness" / "tables" / "validity_pairs.csv")
    people = pairs[pairs["source"] == "people"]
    assert len(people) and (people["pairs"] == len(PAIR_RECORDS)).all()
    # a preference is no label on a metric's scale: it must not reach validity against people
    agreement = pd.read_csv(parent / "faithfulness" / "tables" / "human_agreement.csv")
    assert "preference" not in set(agreement["metric"])
    card = pd.read_csv(parent / "faithfulness" / "tables" / "decision_card.csv")
    assert card.set_index("metric").loc["faithfulness", "label_state"] == final
    assert final.startswith(f"{len(PAIR_RECORDS)} labels · ") and NAMED.search(final)
    exported = export_labels(parent / "faithfulness")
    details = [json.loads(d) for d in exported["detail"].dropna()]
    assert all(d["preferred"].endswith(":preferred") for d in details)


SCALED = sorted(name for name, cls in METRICS.items() if cls.human_form == "scale")


@pytest.mark.parametrize("name", SCALED)
def test_the_scales_words_are_the_ends_its_question_names(name):
    """The page writes the metric's anchors under its scale's 0, 0.5 and 1: they must be the
    ends its question gives ("(0: not at all … 1: fully)"), not one set for every metric
    (ResponseRelevancy's buttons once said "none … all" of how well a response answers)."""
    cls = METRICS[name]
    view = metric_view(name)
    assert view["anchors"] == list(cls.human_anchors)
    ends = re.search(r"\(0: (.+) … 1: (.+)\)$", cls.human_question)
    assert ends is not None, cls.human_question
    low, _, high = cls.human_anchors
    assert ends.group(1).startswith(low.split(":")[0]), (low, ends.group(1))
    assert ends.group(2).startswith(high.split(":")[0]), (high, ends.group(2))
