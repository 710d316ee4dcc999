"""The HTML report opened in headless Chromium: it renders, every section is there (the samples
are given two languages, so *By language* has its heatmaps and tables), the console stays free of
errors, every figure decodes, a sample holding ``<script>`` is shown as text, not run, and the
page fits a 1280-pixel window without sideways scrolling."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import run_grid
from judgegrid.core.sample import Dataset
from judgegrid.outputs.card_short import short_verdict
from judgegrid.outputs.html_report import SECTIONS
from support.browser import browser_page, console_errors, evaluate, navigate
from support.demo_sets import HOSTILE, demo_with_hostile_sample


@pytest.fixture
def report_page(tmp_path, write_matrix) -> Path:
    samples = demo_with_hostile_sample().samples
    two_languages = tuple(
        s.model_copy(update={"language": "vi" if i % 2 else "en"}) for i, s in enumerate(samples)
    )
    result = run_grid(write_matrix(), Dataset("mem", two_languages), run_dir=tmp_path / "run")
    return result.run_dir / "report.html"


def test_report_renders_in_headless_chromium(tmp_path, report_page):
    with browser_page(tmp_path / "profile") as tools:
        navigate(tools, report_page.as_uri())
        state = evaluate(
            tools,
            """({
                sections: [...document.querySelectorAll('section')].map(s => s.id),
                scripts: document.querySelectorAll('script').length,
                text: document.body.innerText,
                images: [...document.images].map(i => i.complete && i.naturalWidth > 0),
                hostileCells: [...document.querySelectorAll('td')]
                    .filter(td => td.textContent.includes("<script>alert")).length,
                languageFigures: document.querySelectorAll('#languages img').length,
                languageTables: document.querySelectorAll('#languages table').length,
                languageText: document.querySelector('#languages').innerText,
                pageWidth: document.documentElement.scrollWidth,
                windowWidth: window.innerWidth,
            })""",
        )
        shot = tools.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        time.sleep(0.3)  # let late console messages arrive
        evaluate(tools, "1")
        errors = console_errors(tools)
    assert state["sections"] == list(SECTIONS)
    assert state["scripts"] == 0  # the hostile sample's <script> did not become an element
    assert HOSTILE in state["text"]  # ... it is shown as text
    assert state["hostileCells"] >= 1
    assert state["images"] and all(state["images"])
    assert state["languageFigures"] >= 2 and state["languageTables"] == 2  # means, agreement
    assert "a / bow @ 64 (s=1)" in state["languageText"] and "vi" in state["languageText"]
    assert state["windowWidth"] == 1280
    assert state["pageWidth"] <= state["windowWidth"], "the report scrolls sideways at 1280 px"
    png = base64.b64decode(shot["data"])
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    (tmp_path / "report.png").write_bytes(png)
    assert errors == []


def test_the_decision_is_a_picture_with_the_reason_one_click_away(tmp_path, report_page):
    """Per metric: the badge says the card's verdict in short, the forest plot draws one dot per
    judge of decision_evidence.csv, and the reason waits behind a closed disclosure."""
    tables = report_page.parent / "tables"
    card = pd.read_csv(tables / "decision_card.csv", keep_default_na=False)
    evidence = pd.read_csv(tables / "decision_evidence.csv")
    with browser_page(tmp_path / "profile") as tools:
        navigate(tools, report_page.as_uri())
        blocks = evaluate(
            tools,
            """[...document.querySelectorAll('#decision .decision')].map(d => ({
                metric: d.querySelector('h3').firstChild.textContent.trim(),
                badge: d.querySelector('.badge').textContent,
                chips: [...d.querySelectorAll('.chip')].map(c => c.textContent),
                dots: d.querySelectorAll('svg circle').length,
                open: d.querySelector('details').open,
                hidden: !d.querySelector('details p').checkVisibility(),
                width: d.getBoundingClientRect().width,
                svgWidth: d.querySelector('svg') ? d.querySelector('svg')
                    .getBoundingClientRect().width : 0,
            }))""",
        )
    assert [b["metric"] for b in blocks] == list(card["metric"])
    for block, record in zip(blocks, card.to_dict("records"), strict=True):
        assert block["badge"] == short_verdict(record)
        assert f"basis: {record['basis']}" in block["chips"]
        assert block["dots"] == int((evidence["metric"] == record["metric"]).sum())
        assert not block["open"] and block["hidden"]
        assert block["svgWidth"] <= block["width"]
