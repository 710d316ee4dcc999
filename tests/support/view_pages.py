"""What a person does on `judgegrid view`'s pages, for the browser tests of tests/view/ (the
scripted run's and the real local run's): sort the Samples page, open the top sample, read each
judge's statements and verdicts, open two judges side by side, go on to label, open a sample by
its id. Each step waits until the page has drawn what it leads to, and returns what it shows."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from support.browser import DevTools, click, evaluate, navigate, press, wait_until

TOP_ROW = "(document.querySelector('#grid tr.row') || {dataset: {}}).dataset.id"


def shoot(tools: DevTools, tmp_path: Path, name: str) -> bytes:
    """The page down to the end of its content (up to 1,800 px) at the window's width as a
    PNG, in ``tmp_path`` and, with JUDGEGRID_SCREENSHOTS=DIR, in DIR too (how docs/view-*.png
    are made). A page wider than the window (one that scrolls sideways) fails: the picture
    would cut it off."""
    end = "document.querySelector('main').getBoundingClientRect().bottom + scrollY"
    height = evaluate(tools, f"Math.ceil({end})")
    width = evaluate(tools, "window.innerWidth")
    page_width = evaluate(tools, "document.documentElement.scrollWidth")
    assert page_width <= width, f"{name}: the page is {page_width} px wide in a {width} px window"
    shot = tools.send(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": width, "height": min(height, 1800), "scale": 1},
    )
    data = base64.b64decode(shot["data"])
    (tmp_path / name).write_bytes(data)
    folder = os.environ.get("JUDGEGRID_SCREENSHOTS")
    if folder:
        (Path(folder) / name).write_bytes(data)
    return data


def redraw(tools: DevTools, action: str) -> None:
    """Run ``action`` (script that changes a filter of the Samples page) and wait until the
    grid is drawn anew. Clicking a row of the grid before then could land on the old grid as
    the new one replaces it, and the click would be lost."""
    evaluate(
        tools,
        f"(() => {{ document.getElementById('grid').dataset.before = 'yes'; {action}; }})()",
    )
    wait_until(tools, "!(document.getElementById('grid') || {dataset: {before: 1}}).dataset.before")


def choose(tools: DevTools, select: str, value: str) -> None:
    """Pick ``value`` in the Samples page's menu ``select`` (its id), as a person would."""
    redraw(
        tools,
        f"""const s = document.getElementById({select!r}); s.value = {value!r};
            s.dispatchEvent(new Event('change'))""",
    )


def tick(tools: DevTools, judge: str) -> None:
    """Tick (or untick) ``judge`` in the Samples page's judge filter."""
    redraw(tools, f"document.querySelector('#f-judge input[value=\"{judge}\"]').click()")


def samples_sorted_by_disagreement(tools: DevTools, url: str, metric: str) -> str:
    """The Samples page of ``metric``, sorted by id and then by disagreement in its menu (the
    default sort, chosen again as a person would); the top row's sample id."""
    navigate(tools, url)
    wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
    choose(tools, "f-metric", metric)
    choose(tools, "f-sort", "id")
    choose(tools, "f-sort", "disagreement")
    hash_ = str(evaluate(tools, "location.hash"))
    assert f"metric={metric}" in hash_ and "sort=disagreement" in hash_, hash_
    return str(wait_until(tools, TOP_ROW))


def open_top_sample(tools: DevTools, boxes: int = 2) -> dict[str, dict[str, Any]]:
    """Click the top row; once ``boxes`` configurations are drawn, each configuration's box by
    its judge: the statements (every repeat's, in order) and the verdicts as shown."""
    click(tools, "#grid tr.row td")
    wait_until(tools, f"document.querySelectorAll('.config-box').length >= {boxes}")
    shown = evaluate(
        tools,
        """[...document.querySelectorAll('.config-box')].map(b => ({
            config: b.dataset.config,
            statements: [...b.querySelectorAll('.item-text')].map(t => t.textContent),
            verdicts: [...b.querySelectorAll('td[class^=verdict-]')].map(t => t.textContent)
        }))""",
    )
    return {box["config"].split("|")[0]: box for box in shown}


def wait_for_sample(tools: DevTools, sample_id: str) -> None:
    """Until the page of ``sample_id`` is drawn (until then the buttons on show may be the
    previous page's)."""
    wait_until(tools, f"location.hash.includes({quote(sample_id, safe='')!r})")
    wait_until(tools, f"document.querySelector('h1').textContent.includes({sample_id!r})")
    wait_until(tools, "document.getElementById('compare') !== null")


def side_by_side(tools: DevTools, repeat: int = 0) -> list[dict[str, str]]:
    """Press the sample's 'Side by side' button (its first two judges, at ``repeat``, counted
    from 0); the table's rows: the text, each side's verdict as shown, the difference marked."""
    evaluate(tools, f"document.getElementById('cmp-repeat').value = '{repeat}'")
    click(tools, "#compare")
    wait_until(tools, "document.getElementById('compare-table') !== null")
    return list(
        evaluate(
            tools,
            """[...document.querySelectorAll('#compare-table tr.cmp')].map(r => ({
                text: r.children[0].textContent, a: r.children[1].textContent,
                b: r.children[3].textContent, mark: r.children[5].textContent}))""",
        )
    )


def label_it(tools: DevTools, value_key: str = "4") -> str:
    """``l`` on a sample: the labelling page opens on it; answer with ``value_key``. The label
    page's title (it names the sample)."""
    press(tools, "l")
    wait_until(tools, "location.pathname === '/label'")
    wait_until(tools, "document.getElementById('item') && !document.getElementById('item').hidden")
    title = str(evaluate(tools, "document.getElementById('metric-title').textContent"))
    press(tools, value_key)
    wait_until(tools, "document.getElementById('progress').textContent.includes('1 answered')")
    return title


def open_sample(
    tools: DevTools, url: str, sample_id: str, metric: str | None = None
) -> dict[str, Any]:
    """The page of ``sample_id`` (of ``metric``, else the first), opened by its address; what
    it shows of the sample's and the judges' texts, and what markup the page holds."""
    query = f"?metric={metric}" if metric else ""
    navigate(tools, url + f"#/sample/{quote(sample_id, safe='')}{query}")
    wait_until(tools, "document.getElementById('f-user_input') !== null")
    return dict(
        evaluate(
            tools,
            """({question: document.getElementById('f-user_input').textContent,
                 reference: (document.getElementById('f-reference') || {}).textContent,
                 title: document.querySelector('h1').textContent,
                 statements: [...document.querySelectorAll('.item-text')].map(t => t.textContent),
                 scripts: document.querySelectorAll('script').length,
                 bold: document.querySelectorAll('main b').length,
                 images: document.querySelectorAll('img').length})""",
        )
    )
