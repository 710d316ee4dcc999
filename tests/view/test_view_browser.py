"""`judgegrid view` as a person uses it: the command serves a real scripted run, headless
Chromium opens the printed URL, sorts the samples by disagreement, opens the top one, sees both
judges' statements and verdicts, opens them side by side, moves with j/k and goes on to label it
with l. A sample holding markup is shown as text, and the console stays clean.

This is the fast one, on scripted judges; tests/view/test_view_local_browser.py does the same on a
real local run of the two tiny judges, and writes docs/view-*.png.
"""

from __future__ import annotations

from urllib.parse import quote

from judgegrid.store.run_db import RunStore
from support.browser import browser_page, click, console_errors, evaluate, press, wait_until
from support.demo_sets import HOSTILE
from support.servers import command_server
from support.view_pages import (
    TOP_ROW,
    label_it,
    open_sample,
    open_top_sample,
    samples_sorted_by_disagreement,
    side_by_side,
    tick,
    wait_for_sample,
)
from support.view_runs import DISPUTED, EXTRA, make_view_run


def test_a_person_finds_why_the_judges_disagree_and_labels_the_sample(tmp_path):
    run_dir = make_view_run(tmp_path)
    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(tmp_path / "profile", width=1280, height=1000) as tools,
    ):
        top = samples_sorted_by_disagreement(tools, url, "faithfulness")
        assert top == DISPUTED

        # the judge filter takes several judges: one ticked, then both, then none (all)
        judges_shown = (
            "[...new Set([...document.querySelectorAll('#grid th.config')]"
            ".map(t => t.title.split(' · ')[0]))].sort().join(',')"
        )
        tick(tools, "b")
        assert evaluate(tools, judges_shown) == "b"
        assert "judge=b" in evaluate(tools, "location.hash")
        tick(tools, "a")
        assert evaluate(tools, judges_shown) == "a,b"
        hash_ = evaluate(tools, "location.hash")
        assert "judge=b" in hash_ and "judge=a" in hash_, hash_
        tick(tools, "a")
        tick(tools, "b")
        assert "judge=" not in evaluate(tools, "location.hash")
        assert evaluate(tools, TOP_ROW) == DISPUTED

        judges = open_top_sample(tools)
        assert set(judges) == {"a", "b"}
        assert EXTRA in judges["b"]["statements"] and EXTRA not in judges["a"]["statements"]
        assert all(v in ("✓ yes", "✗ no") for box in judges.values() for v in box["verdicts"])
        assert all(box["verdicts"] for box in judges.values())
        evaluate(tools, "document.querySelector('details.calls').scrollIntoView()")
        click(tools, "details.calls summary")
        wait_until(tools, "document.querySelectorAll('details.call').length > 0")
        evaluate(tools, "window.scrollTo(0, 0)")

        # j and k: to the next sample of the list and back
        press(tools, "j")
        wait_until(tools, f"!location.hash.includes({quote(DISPUTED)!r})")
        press(tools, "k")
        wait_until(tools, f"location.hash.includes({quote(DISPUTED)!r})")
        wait_for_sample(tools, DISPUTED)
        marks = [row["mark"] for row in side_by_side(tools)]
        assert "only in B" in marks and "verdicts differ" in marks, marks

        assert DISPUTED in label_it(tools)  # l: the label page opens on this sample

        # a sample holding markup is text
        hostile = open_sample(tools, url, "hostile<script>")
        errors = console_errors(tools)
    assert errors == []
    assert hostile["question"] == HOSTILE and "hostile<script>" in hostile["title"]
    assert hostile["scripts"] == 2 and hostile["bold"] == 0  # loopback.js and the page's own
    store = RunStore(run_dir / "run.sqlite")
    labels = store.labels_frame()
    store.close()
    assert list(labels["sample_id"]) == [DISPUTED] and list(labels["value"]) == [0.75]
