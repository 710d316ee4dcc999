"""`judgegrid view` as a person uses it: the command serves a real scripted run, headless
Chromium opens the printed URL, sorts the samples by disagreement, opens the top one, sees both
judges' statements and verdicts, opens them side by side, moves with j/k and goes on to label it
with l. A sample holding markup is shown as text, and the console stays clean.

With JUDGEGRID_SCREENSHOTS=DIR the three screenshots are also written to DIR (docs/ holds them).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from urllib.parse import quote

from browser import browser_page, click, console_errors, evaluate, navigate, press, wait_until
from demo_sets import HOSTILE
from judgegrid.store.run_db import RunStore
from servers import command_server
from view_runs import DISPUTED, EXTRA, make_view_run


def shoot(tools, tmp_path: Path, name: str) -> None:
    data = base64.b64decode(tools.send("Page.captureScreenshot", format="png")["data"])
    (tmp_path / name).write_bytes(data)
    folder = os.environ.get("JUDGEGRID_SCREENSHOTS")
    if folder:
        (Path(folder) / name).write_bytes(data)


def test_a_person_finds_why_the_judges_disagree_and_labels_the_sample(tmp_path):
    run_dir = make_view_run(tmp_path)
    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(tmp_path / "profile", width=1280, height=1000) as tools,
    ):
        navigate(tools, url)
        wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
        evaluate(  # choose "disagreement" in the sort menu, as a person would
            tools,
            """(() => { const s = document.getElementById('f-sort'); s.value = 'id';
                s.dispatchEvent(new Event('change')); })()""",
        )
        wait_until(tools, "location.hash.includes('sort=id')")
        evaluate(
            tools,
            """(() => { const s = document.getElementById('f-sort'); s.value = 'disagreement';
                s.dispatchEvent(new Event('change')); })()""",
        )
        wait_until(tools, "location.hash.includes('sort=disagreement')")
        top = wait_until(
            tools,
            "document.querySelector('#grid tr.row') &&"
            " document.querySelector('#grid tr.row').dataset.id",
        )
        assert top == DISPUTED
        shoot(tools, tmp_path, "view-samples.png")

        # the judge filter takes several judges: one ticked, then both, then none (all)
        tick = "document.querySelector('#f-judge input[value=\"{}\"]').click()"
        judges_shown = (
            "[...new Set([...document.querySelectorAll('#grid th.config')]"
            ".map(t => t.textContent.split(' · ')[0]))].sort().join(',')"
        )
        evaluate(tools, tick.format("b"))
        wait_until(tools, f"{judges_shown} === 'b'")
        assert "judge=b" in evaluate(tools, "location.hash")
        evaluate(tools, tick.format("a"))
        wait_until(tools, f"{judges_shown} === 'a,b'")
        hash_ = evaluate(tools, "location.hash")
        assert "judge=b" in hash_ and "judge=a" in hash_, hash_
        evaluate(tools, tick.format("a"))
        evaluate(tools, tick.format("b"))
        wait_until(tools, "!location.hash.includes('judge=')")
        wait_until(tools, f"document.querySelector('#grid tr.row').dataset.id === {DISPUTED!r}")

        click(tools, "#grid tr.row td")
        wait_until(tools, "document.querySelectorAll('.config-box').length >= 2")
        boxes = evaluate(
            tools,
            """[...document.querySelectorAll('.config-box')].map(b => ({
                config: b.dataset.config,
                statements: [...b.querySelectorAll('.item-text')].map(t => t.textContent),
                verdicts: [...b.querySelectorAll('td[class^=verdict-]')].map(t => t.textContent)
            }))""",
        )
        judges = {box["config"].split("|")[0]: box for box in boxes}
        assert set(judges) == {"a", "b"}
        assert EXTRA in judges["b"]["statements"] and EXTRA not in judges["a"]["statements"]
        assert all(v in ("✓ yes", "✗ no") for box in boxes for v in box["verdicts"])
        assert all(box["verdicts"] for box in boxes)
        evaluate(tools, "document.querySelector('details.calls').scrollIntoView()")
        click(tools, "details.calls summary")
        wait_until(tools, "document.querySelectorAll('details.call').length > 0")
        evaluate(tools, "window.scrollTo(0, 0)")
        shoot(tools, tmp_path, "view-sample.png")

        # j and k: to the next sample of the list and back
        press(tools, "j")
        wait_until(tools, f"!location.hash.includes({quote(DISPUTED)!r})")
        press(tools, "k")
        wait_until(tools, f"location.hash.includes({quote(DISPUTED)!r})")
        # its page drawn: until then the compare button on show is the previous sample's
        wait_until(tools, f"document.querySelector('h1').textContent.includes({DISPUTED!r})")
        wait_until(tools, "document.getElementById('compare') !== null")

        click(tools, "#compare")
        wait_until(tools, "document.getElementById('compare-table') !== null")
        marks = evaluate(
            tools,
            "[...document.querySelectorAll('#compare-table td.mark')].map(t => t.textContent)",
        )
        assert "only in B" in marks and "verdicts differ" in marks, marks
        shoot(tools, tmp_path, "view-side-by-side.png")

        press(tools, "l")  # label this sample: the app's label page opens on it
        wait_until(tools, "location.pathname === '/label'")
        wait_until(
            tools,
            "document.getElementById('item') && !document.getElementById('item').hidden",
        )
        title = evaluate(tools, "document.getElementById('metric-title').textContent")
        assert DISPUTED in title
        press(tools, "4")
        wait_until(tools, "document.getElementById('progress').textContent.includes('1 answered')")

        # a sample holding markup is text
        navigate(tools, url + f"#/sample/{quote('hostile<script>', safe='')}")
        wait_until(tools, "document.getElementById('f-user_input') !== null")
        hostile = evaluate(
            tools,
            """({text: document.getElementById('f-user_input').textContent,
                 title: document.querySelector('h1').textContent,
                 scripts: document.querySelectorAll('script').length,
                 bold: document.querySelectorAll('main b').length})""",
        )
        errors = console_errors(tools)
    assert errors == []
    assert hostile["text"] == HOSTILE and "hostile<script>" in hostile["title"]
    assert hostile["scripts"] == 2 and hostile["bold"] == 0  # loopback.js and the page's own
    store = RunStore(run_dir / "run.sqlite")
    labels = store.labels_frame()
    store.close()
    assert list(labels["sample_id"]) == [DISPUTED] and list(labels["value"]) == [0.75]
