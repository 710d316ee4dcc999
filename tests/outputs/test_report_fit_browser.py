"""The report of a run shaped like the demo's, at 1280 px in headless Chromium: no table scrolls
sideways in its box or runs past its column, no cell's text is clipped, the rows of *Judges
ranked* stay a few lines tall, and no two judges of a forest plot read the same.

The run: the demo matrix (``model_matrices/local.yaml``: probes, several metrics, strictness,
repeats) on scripted judges that disagree (``support.disagreeing``), named as the demo's
models are (``smollm2-135m``, ``gemma-270m``, ``qwen2.5-0.5b``), two embedding models at two
dimensions each, juries of two and three judges, and people's labels imported.

With ``JUDGEGRID_DOCS_SHOTS=DIR`` the Decision, Judges-ranked and Agreement sections'
screenshots are also written to DIR (``decision-card.png``, ``report-judges-ranked.png``,
``report-agreement.png``), from the report of
``JUDGEGRID_REPORT=RUN_DIR/report.html`` if given (how docs/report.md's pictures are made from
the demo's own run).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT
from judgegrid import rebuild_report, run_grid
from judgegrid.api import import_labels
from support import scripted
from support.browser import DevTools, browser_page, evaluate, navigate, wait_until
from support.demo_sets import DEMO_REPORT_METRICS
from support.disagreeing import disagreeing_answer, people_labels

WIDTH = 1280
JUDGES = {"a": "smollm2-135m", "b": "gemma-270m", "c": "qwen2.5-0.5b"}  # scripted/judge-<key>
EMBEDDINGS = {"e5": "e5-small", "bge": "bge-small"}
JURIES = [
    ["smollm2-135m", "gemma-270m"],
    ["qwen2.5-0.5b", "smollm2-135m"],
    ["smollm2-135m", "gemma-270m", "qwen2.5-0.5b"],
]
MAX_LINES = 4  # of text in any cell of Judges ranked
# the sections pictured, each down to the first element of a selector (the note under the
# decisions, the Pareto plot after the ranking, the offsets after the agreement tables)
SHOTS = {
    "decision": ("decision-card.png", ".decisions + p"),
    "recommendation": ("report-judges-ranked.png", "img"),
    "agreement": ("report-agreement.png", "h3"),
}


def demo_like_matrix(directory: Path) -> Path:
    """The demo matrix on scripted judges named like the demo's models (see the docstring)."""
    spec = yaml.safe_load((ROOT / "model_matrices" / "local.yaml").read_text())
    spec["judges"] = [{"id": f"scripted/judge-{k}", "label": label} for k, label in JUDGES.items()]
    spec["embeddings"] = [
        {"id": f"scripted/{k}", "label": label, "dimensions": [384, 128]}
        for k, label in EMBEDDINGS.items()
    ]
    spec["juries"] = JURIES
    spec["limit"] = 10
    spec["metrics"] = list(DEMO_REPORT_METRICS)
    spec["retry"] = {"initial-interval": "1ms", "max-interval": "5ms", "max-attempts": 2}
    path = directory / "matrix.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("JUDGEGRID_REPORT")
    if given:
        return Path(given)
    directory = tmp_path_factory.mktemp("demo-like")
    scripted.register()
    scripted.SCRIPT.reset()
    scripted.SCRIPT.answer = disagreeing_answer
    try:
        run = run_grid(demo_like_matrix(directory), run_dir=directory / "run", use_cache=False)
    finally:
        scripted.SCRIPT.reset()
    import_labels(run.run_dir, people_labels(run.run_dir, directory))
    rebuild_report(run.run_dir)
    return run.run_dir / "report.html"


@pytest.fixture(scope="module")
def page(report_page: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    """The report open at 1280 × 900, its figures loaded."""
    with browser_page(tmp_path_factory.mktemp("profile"), width=WIDTH, height=900) as tools:
        navigate(tools, report_page.as_uri())
        wait_until(tools, "[...document.images].every(i => i.complete)")
        yield tools


# Every box that could scroll or clip sideways (overflow other than visible), and every table
# wider than its section: each described by its section, its tag and its first row.
OVERFLOWS = """(() => {
    const describe = (e, wide, room) => ({
        section: (e.closest('section') || {}).id, tag: e.tagName, wide, room,
        first: (e.querySelector('tr') || e).innerText.slice(0, 80),
    });
    const boxes = [...document.querySelectorAll('body, body *')].filter(
        e => getComputedStyle(e).overflowX !== 'visible'
            || getComputedStyle(e).textOverflow === 'ellipsis');
    const scrolling = boxes.filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => describe(e, e.scrollWidth, e.clientWidth));
    const past = [...document.querySelectorAll('section table')].filter(t =>
        t.getBoundingClientRect().right > t.closest('section').getBoundingClientRect().right + 1)
        .map(t => describe(t, t.getBoundingClientRect().right,
                           t.closest('section').getBoundingClientRect().right));
    return {scrolling, past, tables: document.querySelectorAll('table').length,
            page: document.documentElement.scrollWidth, window: window.innerWidth};
})()"""


def test_no_table_scrolls_sideways_or_runs_past_its_column(page):
    found = evaluate(page, OVERFLOWS)
    assert found["window"] == WIDTH and found["tables"] >= 20
    assert found["scrolling"] == [], _listed(found["scrolling"], "scroll or clip sideways")
    assert found["past"] == [], _listed(found["past"], "are wider than their section")
    assert found["page"] <= found["window"]


def _listed(boxes: list[dict[str, Any]], what: str) -> str:
    """The boxes found, a line each: where, how wide against the room it has, its first row."""
    lines = [
        f"#{b['section']} {b['tag']} {b['wide']:.0f} > {b['room']:.0f}: {b['first']!r}"
        for b in boxes
    ]
    return f"{len(boxes)} boxes {what} at {WIDTH} px:\n" + "\n".join(lines)


# The lines of text in each cell of a section's tables: the distinct tops of the line boxes
LINES = """((id) => [...document.querySelectorAll('#' + id + ' td, #' + id + ' th')].map(cell => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    return {text: cell.innerText.slice(0, 60), lines: tops.size};
}))"""


def test_judges_ranked_rows_stay_a_few_lines_tall(page):
    cells = evaluate(page, f"{LINES}('recommendation')")
    assert len(cells) > 20  # the ranking has rows
    tall = {c["text"]: c["lines"] for c in cells if c["lines"] > MAX_LINES}
    assert tall == {}, f"cells of Judges ranked over {MAX_LINES} lines"


# Per forest plot, each judge's name as drawn, and how far it starts from the plot's left edge
FOREST_NAMES = """[...document.querySelectorAll('svg.forest')].map(svg =>
    [...svg.querySelectorAll('text[text-anchor="end"]')].map(t => ({
        text: t.textContent, left: t.getBBox().x,
        full: t.parentNode.querySelector('title').textContent.split(': ')[0],
    })))"""


def test_no_two_judges_of_a_forest_plot_read_the_same(page):
    plots: list[list[dict[str, Any]]] = evaluate(page, FOREST_NAMES)
    assert any(any(n["full"].startswith("jury(") for n in names) for names in plots)
    for names in plots:
        shown = [n["text"] for n in names]
        assert len(set(shown)) == len({n["full"] for n in names}), shown
        assert all(n["left"] >= 0 for n in names), names  # none runs past the left edge


def test_screenshots_of_the_decision_judges_ranked_and_agreement(page, tmp_path):
    target = Path(os.environ.get("JUDGEGRID_DOCS_SHOTS") or tmp_path)
    for section, (name, until) in SHOTS.items():
        png = section_png(page, section, until)
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
        (target / name).write_bytes(png)


def section_png(tools: DevTools, section: str, until: str, most: int = 1600) -> bytes:
    """A screenshot of the section at the page's full width, from its heading down to its first
    ``until`` element (or its end), at most ``most`` pixels tall."""
    box = evaluate(
        tools,
        f"""(() => {{
            const s = document.querySelector('#{section}');
            const top = s.getBoundingClientRect().top;
            const end = s.querySelector('{until}') || {{getBoundingClientRect: () => ({{
                top: s.getBoundingClientRect().bottom}})}};
            return {{x: 0, y: top + window.scrollY - 8, width: window.innerWidth,
                     height: Math.min(end.getBoundingClientRect().top - top + 8, {most})}};
        }})()""",
    )
    shot = tools.send(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={**box, "scale": 1},
    )
    return base64.b64decode(shot["data"])
