"""The report's Probes section in headless Chromium at 1280 px: the heatmap decodes, the tables
are there, the page has no sideways scroll and the console no error. With
``JUDGEGRID_DOCS_SHOT=PATH`` the section's screenshot is also written to PATH (how
docs/report-probes.png is made from a run's report: ``JUDGEGRID_REPORT=RUN_DIR/report.html``)."""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path

import pytest
import yaml

from conftest import matrix_dict
from judgegrid import run_grid
from support.browser import browser_page, console_errors, evaluate, navigate, wait_until


@pytest.fixture
def report_page(tmp_path) -> Path:
    given = os.environ.get("JUDGEGRID_REPORT")
    if given:
        return Path(given)
    data = matrix_dict(
        dataset="demo",
        metrics=["faithfulness", "context_recall", "response_relevancy"],
        strictness=[1],
        repeats=1,
        probes={"per-metric": 3},
    )
    path = tmp_path / "matrix.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return run_grid(path, limit=12, run_dir=tmp_path / "run").run_dir / "report.html"


def test_the_probes_section_at_1280_px(tmp_path, report_page):
    with browser_page(tmp_path / "profile") as tools:
        navigate(tools, report_page.as_uri())
        wait_until(tools, "[...document.images].every(i => i.complete)")
        state = evaluate(
            tools,
            """(() => {
                const s = document.querySelector('#probes');
                const r = s.getBoundingClientRect();
                return {
                    heading: s.querySelector('h2').innerText,
                    images: [...s.querySelectorAll('img')].map(
                        i => i.complete && i.naturalWidth > 0),
                    tables: s.querySelectorAll('table').length,
                    text: s.innerText,
                    box: {x: 0, y: Math.max(0, r.top + window.scrollY - 64),
                          width: window.innerWidth, height: r.height + 64},
                    pageWidth: document.documentElement.scrollWidth,
                    windowWidth: window.innerWidth,
                };
            })()""",
        )
        box = state["box"]
        shot = tools.send(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={**box, "height": min(box["height"], 1400), "scale": 1},
        )
        time.sleep(0.3)
        evaluate(tools, "1")
        errors = console_errors(tools)
    assert state["heading"].startswith("Probes")
    assert state["images"] == [True]  # the judge × probe heatmap
    assert state["tables"] == 3  # per metric and judge; directional; robustness
    assert "injection" in state["text"] and "detection_rate" in state["text"]
    assert "<NA>" not in state["text"] and "rose_share" in state["text"]
    assert state["windowWidth"] == 1280
    assert state["pageWidth"] <= state["windowWidth"], "the report scrolls sideways at 1280 px"
    png = base64.b64decode(shot["data"])
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    target = os.environ.get("JUDGEGRID_DOCS_SHOT")
    (Path(target) if target else tmp_path / "probes.png").write_bytes(png)
    assert errors == []
