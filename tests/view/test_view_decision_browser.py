"""The view's Decision page and its Samples grid at 1280 px, as a person sees them: every
metric's verdict, basis and flags legible without opening anything, the evidence as a picture, the
reason behind a disclosure; 24 configurations in the grid without sideways scrolling, the judges
grouped, every configuration's full name on hover, the question readable."""

from __future__ import annotations

import time

import pandas as pd
import yaml

from judgegrid import run_grid
from judgegrid.outputs.card_short import short_verdict
from support.browser import browser_page, click, console_errors, evaluate, navigate, wait_until
from support.servers import command_server
from support.view_pages import shoot

JUDGES = ["a", "b"]


def _run_of_24_configurations(root, matrix_dict):
    """2 judges x 2 embedding models x 3 dimensions x 2 strictness levels, and every probe."""
    matrix = root / "m.yaml"
    embeddings = [
        {"id": "scripted/bow", "label": "bow", "dimensions": [64, 32, 16]},
        {"id": "scripted/bow2", "label": "bow-two", "dimensions": [64, 32, 16]},
    ]
    spec = matrix_dict(
        metrics=["response_relevancy", "faithfulness"],
        embeddings=embeddings,
        strictness=[1, 2],
        repeats=1,
        probes="all",
    )
    matrix.write_text(yaml.safe_dump(spec))
    return run_grid(matrix, "demo", run_dir=root / "run", limit=6).run_dir


def test_the_decision_page_and_a_wide_grid_fit_1280_pixels(tmp_path, scripted_provider):
    from conftest import matrix_dict

    run_dir = _run_of_24_configurations(tmp_path, matrix_dict)
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv", keep_default_na=False)
    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(tmp_path / "profile", width=1280, height=1000) as tools,
    ):
        navigate(tools, url + "#/samples?metric=response_relevancy")
        wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
        grid = evaluate(
            tools,
            """({
                configs: [...document.querySelectorAll('#grid th.config')].map(t => t.title),
                judges: [...document.querySelectorAll('#grid th.judge')].map(t => t.textContent),
                question: document.querySelector('#grid td.question').getBoundingClientRect().width,
                pageWidth: document.documentElement.scrollWidth,
                gridWidth: document.getElementById('grid').getBoundingClientRect().right,
            })""",
        )
        shoot(tools, tmp_path, "view-samples-24.png")

        click(tools, "header a[href='#/decision']")
        wait_until(tools, "document.querySelectorAll('#card .decision').length > 0")
        wait_until(tools, "[...document.images].every(i => i.complete)")
        blocks = evaluate(
            tools,
            """[...document.querySelectorAll('#card .decision')].map(d => ({
                metric: d.dataset.metric,
                badge: d.querySelector('.badge').textContent,
                chips: [...d.querySelectorAll('.chip')].map(c => c.textContent),
                picture: (d.querySelector('img.forest') || {naturalWidth: 0}).naturalWidth,
                reasonShown: d.querySelector('details p').checkVisibility(),
            }))""",
        )
        page_width = evaluate(tools, "document.documentElement.scrollWidth")
        shoot(tools, tmp_path, "view-decision.png")
        errors = console_errors(tools)

    assert len(grid["configs"]) == 24 and grid["judges"] == JUDGES
    assert all(title.split(" · ")[0] in JUDGES and " · " in title for title in grid["configs"])
    assert grid["pageWidth"] <= 1280 and grid["gridWidth"] <= 1280, grid
    assert grid["question"] >= 180, grid  # a line of words, not one word a line
    assert [b["metric"] for b in blocks] == list(card["metric"])
    for block, record in zip(blocks, card.to_dict("records"), strict=True):
        assert block["badge"] == short_verdict(record)
        assert f"basis: {record['basis']}" in block["chips"]
        flags = [f.strip() for f in str(record["flags"]).split(";") if f.strip()]
        assert set(flags) <= set(block["chips"])
        assert block["picture"] > 0 and not block["reasonShown"]
    assert page_width <= 1280
    assert errors == []


def test_the_decision_page_shows_where_labelling_stands_as_the_report_does(tmp_path, monkeypatch):
    """After labelling and `judgegrid report`, the view's Decision page shows each labelled
    metric's labelling state, the line report.html shows as a "labelling" chip in the same box
    and the card prints under its row (docs/decision-card.md). The view is opened on the run's
    path relative to the folder it is typed in: the command its stale-card note gives must
    name the run's full path, to work from any folder (as the labelling page's end does)."""
    from typer.testing import CliRunner

    from judgegrid.cli import app
    from judgegrid.core.records import Label
    from judgegrid.store.run_db import RunStore
    from support.view_runs import make_view_run

    run_dir = make_view_run(tmp_path)
    store = RunStore(run_dir / "run.sqlite")
    samples = sorted(set(store.scores_frame().query("metric == 'faithfulness'")["sample_id"]))
    store.write_labels(
        [
            Label(s, "faithfulness", "ann", float(k % 2), labelled_at=k + 1.0)
            for k, s in enumerate(samples)
        ]
    )
    store.close()
    assert CliRunner().invoke(app, ["report", str(run_dir)]).exit_code == 0
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv", keep_default_na=False)
    state = card.set_index("metric").loc["faithfulness", "label_state"]
    assert state.startswith(f"{len(samples)} labels · ")
    monkeypatch.chdir(run_dir.parent)
    with (
        command_server("view", run_dir.name, "--annotator", "ann") as url,
        browser_page(tmp_path / "profile") as tools,
    ):
        navigate(tools, url + "#/decision")
        wait_until(tools, "document.querySelectorAll('#card .decision').length > 0")
        chips = evaluate(
            tools,
            """Object.fromEntries([...document.querySelectorAll('#card .decision')].map(d =>
                [d.dataset.metric, [...d.querySelectorAll('.chip')].map(c => c.textContent)]))""",
        )
        fresh = evaluate(tools, "document.getElementById('card-note')")
        # a label given after the report (on the labelling page beside the view): the card
        # shown does not count it, and the page says so and how to make it again
        store = RunStore(run_dir / "run.sqlite")
        late = Label(samples[0], "context_precision", "ann", 1.0, labelled_at=time.time())
        store.write_labels([late])
        store.close()
        tools.events.clear()
        tools.send("Page.reload")
        tools.wait_for("Page.loadEventFired")
        note = "document.getElementById('card-note')"
        stale = wait_until(tools, f"{note} && {note}.textContent")
        errors = console_errors(tools)
    assert errors == []
    assert f"labelling: {state}" in chips["faithfulness"]
    assert not any(c.startswith("labelling") for c in chips["context_precision"])  # unlabelled
    assert fresh is None  # every label older than the card
    assert stale == (
        "labels were given after this card was written: it does not count them yet; "
        f"judgegrid report {run_dir.resolve()} makes it again"
    )
