"""Every page of `judgegrid view` and every kind of item on its labelling page, in headless
Chromium at 1280 px, on a scripted run with a page of every kind (three metrics, three criteria, a
pairwise criterion, probes of each): no page shows `null`, `undefined` or `NaN`, and no heading
stands over nothing; every sample the grid lists opens, probes included, each showing its
question; a probe's page says what it changed beside its base's scores; the grid's headers show
each judge's name whole, and its upright configuration names stay inside their cells, below
their judge's.

With JUDGEGRID_SCREENSHOTS=DIR the Samples page with its probes and a probe's page are written to
DIR (how docs/view-probe.png is made)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from judgegrid.inputs.probes import NOTE
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
from support.servers import command_server
from support.view_pages import shoot
from support.view_runs import EVERY_KIND_CRITERIA, EVERY_KIND_METRICS, make_every_kind_run

METRICS = EVERY_KIND_METRICS + [c["name"] for c in EVERY_KIND_CRITERIA]
WORDED = "polite"  # the criterion asked in three wordings: its grid may fold them
INJECTED = "canal-grounded~probe~response_relevancy~injection"
VIEW_PAGES = [
    ("decision", ""),
    ("folded", WORDED),
    *[(kind, metric) for kind in ("samples", "sample", "probe", "compare") for metric in METRICS],
]

# What the page shows that it should not: the words a script prints for a value it lacks, and
# each visible heading with no visible text under it before the next heading.
SHOWN_WRONG = """(() => {
    const seen = (e) => e.checkVisibility();
    const heading = (e) => /^H[1-3]$/.test(e.tagName);
    const bare = (h) => {
        let text = "";
        for (let e = h.nextElementSibling; e && !heading(e); e = e.nextElementSibling)
            if (seen(e)) text += e.innerText;
        return !text.trim();
    };
    return {
        words: document.body.innerText.match(/\\b(null|undefined|NaN)\\b/g) || [],
        bare: [...document.querySelectorAll("h1, h2, h3")].filter(seen).filter(bare)
            .map((h) => h.innerText),
    };
})()"""
DRAWN = "document.querySelector('main h1') !== null || $('status').textContent"
ITEM_SHOWN = "!document.getElementById('item').hidden"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[tuple[str, DevTools]]:
    """The run served by `judgegrid view`, and one browser for the module's pages."""
    root = tmp_path_factory.mktemp("every-kind-browser")
    run_dir = make_every_kind_run(root)
    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(root / "profile", width=1280, height=1000) as tools,
    ):
        yield url, tools


def fetched(tools: DevTools, path: str, body: dict[str, Any] | None = None) -> Any:
    """The app's API answer to ``path``, asked from the open page as its script asks."""
    sent = "" if body is None else f", {json.dumps(body)}"
    return evaluate(tools, f"api({json.dumps(path)}{sent})")


def opened(tools: DevTools, url: str) -> None:
    """``url`` loaded afresh (a page of the app differing from the last only in its hash would
    not load again)."""
    navigate(tools, "about:blank")
    navigate(tools, url)


def grid(tools: DevTools, metric: str) -> dict[str, Any]:
    return dict(fetched(tools, f"/api/view/samples?metric={metric}&per_page=200"))


def route_of(tools: DevTools, kind: str, metric: str) -> str:
    """The address (hash) of one page of the view: ``kind`` of page, of ``metric``."""
    if kind == "decision":
        return "#/decision"
    if kind in ("samples", "folded"):
        fold = "&fold=wording" if kind == "folded" else ""
        return f"#/samples?metric={metric}{fold}"
    page = grid(tools, metric)
    rows = [r for r in page["rows"] if (r["probe"] is not None) == (kind == "probe")]
    sample = quote(rows[0]["id"], safe="")
    if kind != "compare":
        return f"#/sample/{sample}?metric={metric}"
    first = page["columns"][0]
    other = next(c for c in page["columns"] if c["judge"] != first["judge"])
    query = urlencode({"metric": metric, "a": first["key"], "b": other["key"], "repeat": 0})
    return f"#/compare/{sample}?{query}"


@pytest.mark.parametrize(("kind", "metric"), VIEW_PAGES, ids=[f"{k}-{m}" for k, m in VIEW_PAGES])
def test_no_page_of_the_view_shows_null_undefined_nan_or_a_bare_heading(app, kind, metric):
    url, tools = app
    opened(tools, url)
    route = route_of(tools, kind, metric)
    opened(tools, url + route)
    wait_until(tools, DRAWN)
    status = evaluate(tools, "document.getElementById('status').textContent")
    wrong = evaluate(tools, SHOWN_WRONG)
    assert status == "", (route, status)
    assert wrong == {"words": [], "bare": []}, route


@pytest.mark.parametrize("metric", METRICS)
def test_no_item_of_the_labelling_page_shows_null_undefined_nan_or_a_bare_heading(app, metric):
    """Each of the metric's own samples, put first in the queue from the viewer (a metric
    whose samples have no contexts, a criterion, a pairwise criterion's two answers)."""
    url, tools = app
    opened(tools, url)
    samples = [r["id"] for r in grid(tools, metric)["rows"] if r["probe"] is None]
    for sample in samples:
        fetched(tools, "/api/view/label", {"sample_id": sample, "metric": metric})
        opened(tools, url.replace("/?token=", "/label?token="))
        wait_until(tools, ITEM_SHOWN)
        wait_until(tools, f"$('metric-title').textContent.includes({sample!r})")
        assert evaluate(tools, SHOWN_WRONG) == {"words": [], "bare": []}, (metric, sample)
        opened(tools, url)
    assert len(samples) == 4


def shown_sample(tools: DevTools, sample_id: str) -> dict[str, Any]:
    """Once the page of ``sample_id`` is drawn: its title, question, and probe box."""
    wait_until(tools, f"location.hash.includes({quote(sample_id, safe='')!r})")
    wait_until(
        tools,
        f"(document.querySelector('main h1') || {{textContent: ''}}).textContent"
        f".includes({sample_id!r}) || document.getElementById('status').textContent",
    )
    return dict(
        evaluate(
            tools,
            """({title: document.querySelector('main h1').textContent,
                 status: document.getElementById('status').textContent,
                 question: (document.getElementById('f-user_input') || {}).textContent,
                 probe: (document.getElementById('probe') || {}).innerText || null})""",
        )
    )


@pytest.mark.parametrize("metric", METRICS)
def test_every_sample_the_grid_lists_opens_with_its_question(app, metric):
    """The grid's rows, probes marked as such with their base's question; the first opened with
    a click, the rest with j, as a person goes through them."""
    url, tools = app
    opened(tools, url + f"#/samples?metric={metric}")
    wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
    rows = evaluate(
        tools,
        """[...document.querySelectorAll('#grid tr.row')].map(r => ({
            id: r.dataset.id,
            question: r.querySelector('td.question .question-text').textContent,
            tag: (r.querySelector('.probe-tag') || {}).textContent || null}))""",
    )
    probes = [row for row in rows if "~probe~" in row["id"]]
    assert probes and len(probes) < len(rows)
    for row in rows:
        assert row["question"], row
        name = row["id"].rsplit("~", 1)[1] if row in probes else None
        assert row["tag"] == (f"probe · {name}" if name else None), row
    click(tools, "#grid tr.row td")
    for k, row in enumerate(rows):
        if k:
            press(tools, "j")
        shown = shown_sample(tools, row["id"])
        assert shown["status"] == "" and shown["question"] == row["question"], shown
        assert (shown["probe"] is not None) == (row in probes), shown


def test_a_probes_page_shows_what_it_changed_beside_its_bases_scores(app, tmp_path):
    url, tools = app
    opened(tools, url + "#/samples?metric=response_relevancy")
    wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
    shoot(tools, tmp_path, "view-samples-probes.png")
    opened(tools, url + f"#/sample/{quote(INJECTED, safe='')}?metric=response_relevancy")
    wait_until(tools, "document.getElementById('probe-scores') !== null")
    page = evaluate(
        tools,
        """({probe: document.getElementById('probe').innerText,
             base: document.querySelector('#probe a.base').getAttribute('href'),
             added: [...document.querySelectorAll('#probe .added')].map(e => e.textContent),
             scores: [...document.querySelectorAll('#probe-scores tbody tr')].map(
                 r => [...r.children].map(c => c.textContent)),
             label: document.getElementById('label-this')})""",
    )
    shoot(tools, tmp_path, "view-probe.png")
    errors = console_errors(tools)
    assert "must not score higher than its base" in page["probe"]
    assert "Who completed the Panama Canal" in page["probe"]  # its base's question
    assert page["base"].startswith("#/sample/canal-grounded~probe~response_relevancy~foreign")
    assert [text.strip() for text in page["added"]] == [NOTE["en"]]
    assert len(page["scores"]) == 2 and all(len(row) == 4 for row in page["scores"])
    assert all(row[1] != "–" and row[2] != "–" for row in page["scores"]), page["scores"]
    assert page["label"] is None  # a probe is not labelled
    assert errors == []


def test_the_upright_configuration_names_stay_under_their_judge(app):
    url, tools = app
    opened(tools, url + "#/samples?metric=response_relevancy")
    wait_until(tools, "document.querySelectorAll('#grid th.config').length > 0")
    boxes = evaluate(
        tools,
        """(() => {
            const box = (r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
            const text = (e) => { const r = document.createRange(); r.selectNodeContents(e);
                                  return box(r.getBoundingClientRect()); };
            return {
                names: [...document.querySelectorAll('#grid th.config')].map(
                    e => ({text: text(e), cell: box(e.getBoundingClientRect())})),
                judges: [...document.querySelectorAll('#grid th.judge')].map(
                    e => box(e.getBoundingClientRect())),
            };
        })()""",
    )
    assert boxes["names"] and boxes["judges"]
    for name in boxes["names"]:
        text, cell = name["text"], name["cell"]
        assert text["bottom"] - text["top"] > 60, name  # the whole name: 'bag-of-words@64 · s=1'
        assert cell["top"] - 0.5 <= text["top"] and text["bottom"] <= cell["bottom"] + 0.5, name
        for judge in boxes["judges"]:
            apart = (
                text["right"] <= judge["left"]
                or judge["right"] <= text["left"]
                or text["bottom"] <= judge["top"]
                or judge["bottom"] <= text["top"] + 0.5
            )
            assert apart, (name, judge)


@pytest.mark.parametrize("metric", ["faithfulness", "response_relevancy", WORDED])
def test_every_judges_name_is_shown_whole_over_its_columns(app, metric):
    """Over one column (a judge alone, or one embedding model) as over several."""
    url, tools = app
    opened(tools, url + f"#/samples?metric={metric}")
    wait_until(tools, "document.querySelectorAll('#grid th.judge').length > 0")
    judges = evaluate(
        tools,
        """[...document.querySelectorAll('#grid th.judge')].map(e => ({
            text: e.innerText, wide: e.scrollWidth, shown: e.clientWidth}))""",
    )
    assert [judge["text"] for judge in judges] == ["scripted-a", "scripted-b"]
    for judge in judges:
        assert judge["wide"] <= judge["shown"], judge  # nothing cut off
