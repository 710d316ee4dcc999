"""The labelling page as a person uses it: `judgegrid label` serves a real run, headless Chromium
opens the printed URL, a dozen samples are labelled with clicks and keys, and `judgegrid report`
then shows validity against those labels and a decision card that changed because of them. A
sample holding markup is shown as text, never run."""

from __future__ import annotations

import base64
import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from typer.testing import CliRunner

from conftest import matrix_dict
from judgegrid import run_grid, run_pairs
from judgegrid.cli import app
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import LabelSession, SessionAsk
from judgegrid.metrics import METRICS
from support.browser import (
    DevTools,
    browser_page,
    click,
    console_errors,
    evaluate,
    navigate,
    press,
    wait_until,
)
from support.demo_sets import HOSTILE, PAIR_RECORDS, demo_with_hostile_sample
from support.servers import command_server, in_thread

LABELS = 12


def make_run(tmp_path: Path) -> Path:
    """A scripted run over the demo set plus a hostile sample, given in Python: the run keeps
    its samples, so the page needs no data set file."""
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        yaml.safe_dump(
            matrix_dict(
                metrics=["faithfulness", "context_precision"],
                embeddings=[],
                repeats=1,
                strictness=[1],
            )
        )
    )
    return run_grid(matrix, demo_with_hostile_sample(), run_dir=tmp_path / "run").run_dir


# What a blind page must not show: a judge's name with its score or preference ("a gives 0.58",
# "b prefers answer 1") or the judges' ids. The judges of the run are labelled 'a' and 'b'.
JUDGE_NUMBERS = re.compile(r"\b(a|b) (gives \d|prefers)")
BLIND_REASONS = (
    "the judges disagree on this one",
    "a judge's own repeats differ on this one",
    "the judges agree on this one; a label here checks this part of the range",
    "one judge scored this one; a label here checks this part of the range",
)


def assert_blind(page_text: str, reason: str) -> None:
    assert not JUDGE_NUMBERS.search(page_text), page_text
    assert "scripted/judge-" not in page_text
    assert reason.removeprefix("Why this sample: ") in BLIND_REASONS, reason


def shown_judges(tmp_path: Path, run_dir: Path) -> str:
    """The page's 'why this sample' with --show-judges (for an annotator with nothing done)."""
    options = ["--annotator", "seer", "--n", "3", "--show-judges"]
    with (
        command_server("label", str(run_dir), *options) as url,
        browser_page(tmp_path / "profile-seer") as tools,
    ):
        navigate(tools, url)
        wait_until(tools, "!document.getElementById('item').hidden")
        return str(evaluate(tools, "document.getElementById('reason').textContent"))


def card(run_dir: Path) -> pd.DataFrame:
    return pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")


def test_a_person_labels_twelve_samples_and_the_card_changes(tmp_path):
    run_dir = make_run(tmp_path)
    # the sighted person's run: ann's queue draws every sample, and the pool is one for everyone
    unlabelled = tmp_path / "unlabelled"
    shutil.copytree(run_dir, unlabelled)
    before = card(run_dir)
    assert (before["basis"] != "people").all()
    with (
        command_server("label", str(run_dir), "--annotator", "ann", "--n", "26") as url,
        browser_page(tmp_path / "profile") as tools,
    ):
        navigate(tools, url)
        wait_until(tools, "!document.getElementById('item').hidden")
        anchors_seen: dict[str, list[str]] = {}
        for k in range(LABELS):
            state = evaluate(
                tools,
                """({progress: document.getElementById('progress').textContent,
                     ticks: !document.getElementById('ticks-hint').hidden,
                     contexts: document.querySelectorAll('#contexts li').length,
                     text: document.getElementById('item').innerText,
                     page: document.body.innerText,
                     reason: document.getElementById('reason').textContent,
                     scripts: document.querySelectorAll('script').length,
                     title: document.getElementById('metric-title').textContent,
                     anchors: [...document.querySelectorAll('#scale small')]
                       .map((s) => s.textContent),
                     width: document.documentElement.scrollWidth})""",
            )
            anchors_seen[state["title"].split(" · ")[0]] = state["anchors"]
            assert state["scripts"] == 2  # loopback.js and label.js only: no markup is run
            assert state["width"] <= 1280
            assert_blind(state["page"], state["reason"])
            if state["ticks"]:  # ContextPrecision: tick the first context, save with Enter
                click(tools, "#tick-0")
                press(tools, "Enter")
            elif k % 2:
                press(tools, "12345"[k % 5])  # a key ...
            else:
                click(tools, f"#scale button:nth-child({1 + (k * 2) % 5})")  # ... or a click
            wait_until(
                tools,
                f"document.getElementById('progress').textContent.includes('{k + 1} answered')",
            )
        shot = tools.send("Page.captureScreenshot", format="png")
        hostile = evaluate(
            tools,
            """(async () => {
                await show(state.items.findIndex(i => i.sample_id.startsWith('hostile')));
                return {text: document.getElementById('item').innerText,
                        title: document.getElementById('metric-title').textContent,
                        scripts: document.querySelectorAll('script').length,
                        bold: document.querySelectorAll('#item b').length};
            })()""",
        )
        errors = console_errors(tools)
    (tmp_path / "label-page.png").write_bytes(base64.b64decode(shot["data"]))
    shown = shown_judges(tmp_path, unlabelled)  # the judges' figures are back
    assert re.search(r"\d\.\d\d", shown) and shown not in BLIND_REASONS, shown
    assert errors == []
    # the hostile sample's markup is on the page as text: no <script>, no <b> element made
    assert HOSTILE in hostile["text"] and "hostile<script>" in hostile["title"]
    assert hostile["scripts"] == 2 and hostile["bold"] == 0  # loopback.js and the page's own
    # under the scale, the question's own ends: "not at all … fully" of a relevancy
    by_title = {cls.title: cls for cls in METRICS.values()}
    scaled = {t: a for t, a in anchors_seen.items() if by_title[t].human_form == "scale"}
    assert scaled, anchors_seen
    for title, anchors in scaled.items():
        assert anchors == list(by_title[title].human_anchors), (title, anchors)

    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    people = pd.read_csv(run_dir / "tables" / "validity_people_by_judge.csv")
    assert set(people["judge"]) == {"a", "b"} and (people["n"] > 0).all()
    after = card(run_dir)
    assert (after["basis"] == "people").any(), after
    assert not after.equals(before)
    assert "samples people labelled" in " ".join(after["reason"])
    summary = (run_dir / "summary.md").read_text()
    assert "## Validity against people" in summary and "| people |" in summary


def preference_session(tmp_path: Path, write_matrix: Any, n: int) -> LabelSession:
    """ann's labelling session over a pairs run of PAIR_RECORDS (its faithfulness aspect),
    asking ``n`` pairs."""
    pairs_file = tmp_path / "pairs.jsonl"
    pairs_file.write_text("".join(json.dumps(r) + "\n" for r in PAIR_RECORDS))
    matrix = write_matrix(repeats=1, strictness=[1])
    parent = run_pairs(matrix, pairs_file, reports_dir=tmp_path / "r").run_dir
    return open_session(parent / "faithfulness", "ann", ask=SessionAsk(n=n))


@contextmanager
def page_open(session: LabelSession, profile: Path) -> Iterator[DevTools]:
    """``session``'s page served in a thread and open in headless Chromium at its first
    question."""
    with in_thread(serve, session) as (_, port), browser_page(profile) as tools:
        navigate(tools, f"http://127.0.0.1:{port}/?token={session.token}")
        wait_until(tools, "!document.getElementById('item').hidden")
        yield tools


def test_a_pairs_run_is_labelled_by_preference_in_the_page(tmp_path, write_matrix):
    from test_labelling import stored_labels

    session = preference_session(tmp_path, write_matrix, n=10)
    with page_open(session, tmp_path / "profile") as tools:
        for k in range(len(PAIR_RECORDS)):
            shown = evaluate(
                tools,
                """({title: document.getElementById('metric-title').textContent,
                     one: document.getElementById('answer-1').textContent,
                     two: document.getElementById('answer-2').textContent,
                     pairBox: !document.getElementById('pair-box').hidden})""",
            )
            assert shown["pairBox"] and shown["one"] and shown["two"]
            assert ":preferred" not in shown["title"] and "pair" in shown["title"]
            press(tools, "1" if k % 2 else "2")
            wait_until(
                tools,
                f"document.getElementById('progress').textContent.includes('{k + 1} answered')",
            )
        errors = console_errors(tools)
    assert errors == []
    labels = stored_labels(session.run_dir)
    assert len(labels) == len(PAIR_RECORDS) and set(labels["metric"]) == {"preference"}


STATE_LINE = "document.getElementById('state-line')"


def shown_state_line(tools: DevTools, after: str) -> str:
    """The state line once it holds ``after``; "" if it never does (the caller's assert says
    what it held)."""
    try:
        return str(
            wait_until(
                tools,
                f"{STATE_LINE}.textContent.includes({after!r}) && {STATE_LINE}.textContent",
                timeout=10,
            )
        )
    except AssertionError:
        return str(evaluate(tools, f"{STATE_LINE}.textContent"))


def test_a_skipped_pair_of_a_pairs_run_shows_on_the_state_line(tmp_path, write_matrix):
    """A person who skips a pair of a pairs run before stating any preference saw "0 labels ·
    no verdict yet", as if the skip had not been taken, where a metric's line counts it."""
    session = preference_session(tmp_path, write_matrix, n=3)
    with page_open(session, tmp_path / "profile") as tools:
        press(tools, "s")
        line = shown_state_line(tools, "skipped")
        errors = console_errors(tools)
    assert errors == []
    assert line.endswith(": 0 labels · no verdict yet · 1 skipped (left out)"), line


def test_an_imported_skip_is_counted_on_the_state_line(tmp_path):
    """A skip brought in by `judgegrid labels import` has no draw behind it: the line counted
    the page's skips (drawn) and not this one, so a person saw fewer skips than were given."""
    from judgegrid.labels.files import import_labels
    from judgegrid.store.run_db import RunStore

    run_dir = make_run(tmp_path)
    store = RunStore(run_dir / "run.sqlite")
    scored = store.scores_frame()
    store.close()
    first, second = sorted(set(scored.loc[scored["metric"] == "faithfulness", "sample_id"]))[:2]
    rows = pd.DataFrame(
        {
            "sample_id": [first, second],
            "metric": "faithfulness",
            "annotator": "cy",
            "value": [1.0, None],  # a label and a skip
        }
    )
    rows.to_csv(tmp_path / "labels.csv", index=False)
    assert import_labels(run_dir, tmp_path / "labels.csv") == 2
    session = open_session(run_dir, "ann", ["faithfulness"], SessionAsk(n=2))
    with page_open(session, tmp_path / "profile") as tools:
        line = shown_state_line(tools, "skipped")
        errors = console_errors(tools)
    assert errors == []
    assert line.startswith("Faithfulness: 1 label · no verdict yet"), line
    assert line.endswith(" · 1 skipped (left out)"), line


def test_the_state_line_moves_with_each_answer_blind_and_the_report_names_the_same(tmp_path):
    """After each answer the page says where labelling stands, naming no judge while blind;
    once the queue is done it names them, and the report's card gives the same line."""
    matrix = tmp_path / "m.yaml"
    judges = [
        {"id": "scripted/judge-a", "label": "judge-alpha"},
        {"id": "scripted/judge-b", "label": "judge-beta"},
    ]
    matrix.write_text(
        yaml.safe_dump(
            matrix_dict(
                metrics=["faithfulness"],
                judges=judges,
                embeddings=[],
                repeats=1,
                strictness=[1],
            )
        )
    )
    run_dir = run_grid(matrix, run_dir=tmp_path / "run").run_dir
    options = ["--annotator", "ann", "--metric", "faithfulness", "--n", "12"]
    lines = []
    with (
        command_server("label", str(run_dir), *options) as url,
        browser_page(tmp_path / "profile") as tools,
    ):
        navigate(tools, url)
        wait_until(tools, "!document.getElementById('item').hidden")
        total = evaluate(tools, "state.items.length")
        for k in range(total):
            press(tools, "15"[k % 2])  # 0 or 1 in turn
            done = f"'{k + 1} answered'" if k + 1 < total else "'all done'"
            wait_until(tools, f"document.getElementById('progress').textContent.includes({done})")
            if k + 1 < total:
                wait_until(
                    tools,
                    f"document.getElementById('state-line').textContent.includes('{k + 1} label')",
                )
                page = str(evaluate(tools, "document.body.innerText"))
                assert "judge-alpha" not in page and "judge-beta" not in page, page
                lines.append(
                    str(evaluate(tools, "document.getElementById('state-line').textContent"))
                )
        final = wait_until(
            tools,
            "document.getElementById('state-line').textContent.includes('judge-')"
            " && document.getElementById('state-line').textContent",
        )
        finished = str(evaluate(tools, "document.getElementById('finished-text').textContent"))
        errors = console_errors(tools)
    assert errors == []
    # the command it ends with reports this run from any folder, not a run named 'run' in it
    assert finished.endswith(f"Close this page and run: judgegrid report {run_dir.resolve()}")
    assert len(set(lines)) == len(lines) == total - 1  # it moved with every answer
    assert lines[0].startswith("Faithfulness: 1 label · ")
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    stated = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    assert str(final).removeprefix("Faithfulness: ") == stated.loc["faithfulness", "label_state"]


def test_an_answer_the_stopped_server_cannot_take_says_why_and_what_to_do(tmp_path):
    """Ctrl-C on `judgegrid label` with the page still open: the next answer cannot be saved.
    The page must say the server is gone and how to go on (its answers so far are kept), not
    the browser's "Failed to fetch"."""
    session = open_session(make_run(tmp_path), "ann", ["faithfulness"], SessionAsk(n=3))
    with browser_page(tmp_path / "profile") as tools:
        with in_thread(serve, session) as (_, port):
            navigate(tools, f"http://127.0.0.1:{port}/?token={session.token}")
            wait_until(tools, "!document.getElementById('item').hidden")
        press(tools, "3")  # the server has stopped
        status = wait_until(
            tools,
            "document.getElementById('status').textContent.startsWith('not saved')"
            " && document.getElementById('status').textContent",
        )
    assert status == (
        "not saved: the judgegrid server does not answer (was it stopped?); start it again and "
        "open the address it prints: every answer saved so far is kept"
    )
