"""A pairwise criterion's labelling page in headless Chromium, as people use it: each sees the
pair's answers as A and B side by side in their own order, clicks A or presses b or t, and the
answer is stored in the pair's terms; the criterion's extra column is on the page under its
title; nothing of the judges is in the page. With JUDGEGRID_SCREENSHOTS=DIR the forms are
saved there at 1280 px (how docs/label-pairwise.png and docs/label-criterion.png are made)."""

from __future__ import annotations

import json
import shutil

import yaml
from test_pairwise_labels import CRITERIA, JUDGE_SECRET, judge_rows, lay_out_run, stored

from judgegrid.core.sample import Sample
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.pairwise import person_order
from judgegrid.labels.page import serve
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
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
from support.servers import command_server, in_thread
from support.view_pages import shoot

# Two support replies to each question, the second system's in the response_b column, and the
# store's policy a criterion shows beside them.
POLICY = (
    "Returns: within 30 days of delivery, unused, with the receipt; refunds go to the original "
    "payment method within 5 business days. After 30 days and up to 60, store credit only. "
    "Sale items are final."
)
PAIRS = [
    (
        "I bought a jacket 40 days ago and never wore it. Can I still return it?",
        "Thanks for reaching out! Our 30-day window for refunds has passed, but since the jacket "
        "is unworn you can still return it for store credit, up to 60 days after delivery. Bring "
        "the receipt to any store or start the return online, and the credit reaches your "
        "account as soon as we receive the jacket.",
        "Sorry, returns are only possible within 30 days.",
    ),
    (
        "Can I get my money back for a sale item?",
        "Sale items are final, so we cannot refund them.",
        "Of course! Send it back and we will refund you.",
    ),
    (
        "How long does a refund take?",
        "Within 5 business days after we receive the return, to your original payment method.",
        "A refund usually takes a while; please be patient.",
    ),
    (
        "Do I need the receipt to return something?",
        "Yes, please bring the receipt (or the order email for online orders).",
        "Yes, the receipt is needed for every return.",
    ),
]
RUN_NAME = "20261127-support-replies"  # the run's name in the page's header
# A pair whose answers hold a long unbroken line (a URL), a list and a long paragraph.
LONG = Sample(
    id="return-long",
    user_input="Where do I print the return label?",
    response="Print it from https://shop.example.com/account/orders/2026/11/returns/label"
    "?order=A1B2C3D4E5F6G7H8I9J0&session=" + "x" * 120 + "\n\n1. Sign in.\n2. Open the order."
    "\n3. Choose Print label.",
    extra={"policy": POLICY, "response_b": "In your account, under Orders. " * 30},
)
ITEM = "!document.getElementById('item').hidden"
SHOWN = """({title: document.getElementById('metric-title').textContent,
             a: document.getElementById('answer-1').textContent,
             b: document.getElementById('answer-2').textContent,
             heads: [...document.querySelectorAll('#pair-box h2')].map(h => h.textContent),
             fields: [...document.querySelectorAll('#fields section')].filter(s => !s.hidden)
               .map(s => s.querySelector('h2').textContent + ': '
                         + s.querySelector('.text, ol').textContent),
             buttons: [...document.querySelectorAll('#scale button')].map(b => b.innerText),
             keys: document.getElementById('keys-answer').textContent,
             html: document.documentElement.outerHTML,
             width: document.documentElement.scrollWidth})"""


def answered(count: int) -> str:
    return f"document.getElementById('progress').textContent.includes('{count} answered')"


def boxes_of(selector: str) -> str:
    """Script: [left, top, width] of each element ``selector`` finds."""
    return (
        f"[...document.querySelectorAll({json.dumps(selector)})]"
        ".map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width]; })"
    )


def support_samples() -> list[Sample]:
    return [
        Sample(
            id=f"return-{k + 1}",
            user_input=question,
            response=first,
            extra={"policy": POLICY, "response_b": second},
        )
        for k, (question, first, second) in enumerate(PAIRS)
    ]


def page_of(server: tuple[object, int], token: str) -> str:
    return f"http://127.0.0.1:{server[1]}/?token={token}"


def seen_at(tools: DevTools, position: int) -> dict:
    evaluate(tools, f"show({position})")
    wait_until(
        tools, f"document.getElementById('progress').textContent.startsWith('{position + 1} of')"
    )
    return evaluate(tools, SHOWN)


def test_two_people_compare_pairs_in_their_own_orders(tmp_path):
    """`judgegrid label` as two processes, one per person, over the same pairs (bob's on a
    copy of the run: on one run the queue, one pool for everyone, asks each pair once)."""
    samples = support_samples()
    run = lay_out_run(tmp_path / "run", samples=samples, rows=judge_rows(samples))
    shutil.copytree(run, tmp_path / "copy")
    by_id = {s.id: s for s in samples}
    seen: dict[str, dict[str, str]] = {}
    for person, folder in (("ann", run), ("bob", tmp_path / "copy")):
        options = ["--annotator", person, "--metric", "better_reply", "--n", "10"]
        with (
            command_server("label", str(folder), *options) as url,
            browser_page(tmp_path / f"profile-{person}") as tools,
        ):
            navigate(tools, url)
            wait_until(tools, ITEM)
            queue = evaluate(tools, "state.items.map(i => i.sample_id)")
            views = [seen_at(tools, k) for k in range(len(queue))]
            seen[person] = {pair: v["a"] for pair, v in zip(queue, views, strict=True)}
            for pair, view in zip(queue, views, strict=True):
                sample = by_id[pair]
                a, b = sample.response, (sample.extra or {})["response_b"]
                order = person_order(pair, person)
                assert (view["a"], view["b"]) == ((a, b) if order == "ab" else (b, a))
                assert view["heads"] == ["Answer A", "Answer B"]
                # what the judge reads beside the answers: the question, the policy column
                assert view["fields"] == [f"Question: {sample.user_input}", f"Policy: {POLICY}"]
                assert view["buttons"] == [
                    "A is better\nkey a",
                    "About the same\nkey t",
                    "B is better\nkey b",
                ]
                assert view["keys"] == "a / t / b answer"
                for word in (JUDGE_SECRET, "winner", "response_b", "gives"):
                    assert word not in view["html"], word
                assert view["width"] <= 1280
            if person == "ann":  # a click on A, the keys b and t; then the page again
                given = answer_in_the_page(tools, queue, person)
                navigate(tools, url)
                wait_until(tools, ITEM)
                again = [seen_at(tools, k)["a"] for k in range(len(queue))]
                assert again == [v["a"] for v in views]
            errors = console_errors(tools)
        assert errors == []
    assert seen["ann"].keys() == seen["bob"].keys() == {s.id for s in samples}
    assert any(seen["ann"][pair] != seen["bob"][pair] for pair in seen["ann"])
    labels = stored(run)
    got = {
        pair: (row["value"], json.loads(row["detail"]))
        for (pair, _, who), row in labels.iterrows()
        if who == "ann"
    }
    assert got.keys() == given.keys()
    for pair, shown in given.items():
        order = person_order(pair, "ann")
        expected = {"A": order[0], "B": order[1], "tie": "tie"}[shown]  # in the pair's terms
        value, detail = got[pair]
        assert detail == {"answer": expected, "shown": order}
        assert value == {"a": 1.0, "b": 0.0, "tie": 0.5}[expected]
    assert ("ba", "A") in {(person_order(p, "ann"), shown) for p, shown in given.items()}


def answer_in_the_page(tools: DevTools, queue: list[str], person: str) -> dict[str, str]:
    """A click on A for a pair shown with b first, the key b on the next pair, t on the one
    after; returns pair -> the position answered."""
    flipped = next(k for k, pair in enumerate(queue) if person_order(pair, person) == "ba")
    evaluate(tools, f"show({flipped})")
    click(tools, "#scale button[data-value='A']")
    wait_until(tools, answered(1))
    given = {queue[flipped]: "A"}
    others = [k for k in range(len(queue)) if k != flipped][:2]
    for count, (k, key) in enumerate(zip(others, "bt", strict=True), start=2):
        evaluate(tools, f"show({k})")
        press(tools, key)
        wait_until(tools, answered(count))
        given[queue[k]] = {"b": "B", "t": "tie"}[key]
    return given


def test_the_pairwise_form_at_1280_px(tmp_path):
    """The form a person sees (the picture in docs/pairwise.md): the question, the policy
    column, the two answers side by side, A, tie and B under them."""
    samples = [*support_samples(), LONG]
    run = lay_out_run(tmp_path / RUN_NAME, samples=samples, rows=judge_rows(samples))
    session = open_session(run, "ann", ["better_reply"], SessionAsk(n=10))
    with in_thread(serve, session) as server, browser_page(tmp_path / "profile") as tools:
        navigate(tools, page_of(server, session.token))
        wait_until(tools, ITEM)
        first = next(k for k, i in enumerate(session.queue) if i.sample_id == "return-1")
        seen_at(tools, first)
        shoot(tools, tmp_path, "label-pairwise.png")
        boxes = evaluate(tools, boxes_of("#pair-box .side, #scale button"))
        long = next(k for k, i in enumerate(session.queue) if i.sample_id == LONG.id)
        assert seen_at(tools, long)["width"] <= 1280  # a long line wraps, no sideways scroll
        shoot(tools, tmp_path, "label-pairwise-long.png")
        sides = evaluate(tools, boxes_of("#pair-box .side"))
        errors = console_errors(tools)
    assert errors == []
    assert abs(sides[0][2] - sides[1][2]) < 1  # the long answer does not widen its side
    (a_box, b_box, a_button, tie_button, b_button) = boxes
    assert a_box[1] == b_box[1] and a_box[0] < b_box[0]  # side by side, A on the left
    assert a_button[0] < tie_button[0] < b_button[0]  # A under A, B under B
    assert abs(a_button[0] - a_box[0]) < 1 and abs(a_button[2] - a_box[2]) < 1
    assert abs(b_button[0] - b_box[0]) < 1 and tie_button[1] > a_button[1]  # the tie below


def test_a_criterions_form_with_the_scales_levels_at_1280_px(tmp_path):
    """The helpfulness rubric of the criteria demo (the picture in docs/criteria.md and
    docs/labels.md): five levels in one row at 1280 px, each with its description."""
    from conftest import ROOT

    matrix = yaml.safe_load((ROOT / "model_matrices" / "criteria.yaml").read_text())
    data = load_dataset(ROOT / "src" / "judgegrid" / "inputs" / "criteria_demo.jsonl")
    samples = [s for s in data if s.id.startswith("en-")]
    rows = judge_rows([s for s in samples if s.id == "en-ship-canada"], ("helpfulness",))
    run = lay_out_run(tmp_path / "20261125-criteria", matrix["criteria"], samples, rows)
    session = open_session(run, "ann", ["helpfulness"], SessionAsk(n=1))
    with in_thread(serve, session) as server, browser_page(tmp_path / "profile") as tools:
        navigate(tools, page_of(server, session.token))
        wait_until(tools, ITEM)
        at = next(k for k, i in enumerate(session.queue) if i.sample_id == "en-ship-canada")
        seen_at(tools, at)
        shoot(tools, tmp_path, "label-criterion.png")
        tops = evaluate(
            tools,
            boxes_of("#scale button"),
        )
        errors = console_errors(tools)
    assert errors == []
    assert len(tops) == 5 and len({top for _, top, _ in tops}) == 1  # one row


def test_an_extra_column_is_shown_in_the_criterions_order_under_its_title(tmp_path):
    """A binary criterion that reads the question, the data set's policy column and the reply:
    the page shows the three in that order, the policy titled like the sample's own fields;
    on a pairwise criterion's graded form, level 1 (A much better) clicked where b was shown
    first is stored for b; a pairwise criterion comparing two drafts shows the response it
    names as a field beside them."""
    samples = [
        s.model_copy(
            update={"extra": {**(s.extra or {}), "draft_a": "DRAFT-A", "draft_b": "DRAFT-B"}}
        )
        for s in support_samples()
    ]
    drafts = {
        "name": "better_draft",
        "type": "pairwise",
        "definition": "Which draft would make the reply better?",
        "fields": ["user_input", "response"],
        "compare": ["draft_a", "draft_b"],
    }
    rows = judge_rows(samples, ("follows_policy", "graded_reply"))
    run = lay_out_run(tmp_path / "run", [*CRITERIA, drafts], samples, rows)
    metrics = ["follows_policy", "graded_reply", "better_draft"]
    session = open_session(run, "ann", metrics, SessionAsk(n=12))
    with in_thread(serve, session) as server, browser_page(tmp_path / "profile") as tools:
        navigate(tools, page_of(server, session.token))
        wait_until(tools, ITEM)
        policy = next(k for k, i in enumerate(session.queue) if i.metric == "follows_policy")
        view = seen_at(tools, policy)
        sample = next(s for s in samples if s.id == session.queue[policy].sample_id)
        assert view["fields"] == [
            f"Question: {sample.user_input}",
            f"Policy: {POLICY}",
            f"Response: {sample.response}",
        ]
        assert view["buttons"] == ["1 · yes\nit meets the criterion", "2 · no\nit does not"]
        graded = next(
            k
            for k, item in enumerate(session.queue)
            if item.metric == "graded_reply" and session.order(item.sample_id) == "ba"
        )
        view = seen_at(tools, graded)
        assert view["buttons"][0] == "1\nA is much better" and len(view["buttons"]) == 4
        item = session.queue[graded]
        asked = next(s.user_input for s in samples if s.id == item.sample_id)
        assert view["fields"] == [f"Question: {asked}"]  # a pairwise criterion's default fields
        click(tools, "#scale button[data-value='1']")
        wait_until(tools, answered(1))
        draft = next(k for k, i in enumerate(session.queue) if i.metric == "better_draft")
        view = seen_at(tools, draft)
        shown = next(s for s in samples if s.id == session.queue[draft].sample_id)
        assert view["fields"] == [
            f"Question: {shown.user_input}",
            f"Response: {shown.response}",
        ]
        assert {view["a"], view["b"]} == {"DRAFT-A", "DRAFT-B"}
        errors = console_errors(tools)
    assert errors == []
    row = stored(run).loc[(session.queue[graded].sample_id, "graded_reply", "ann")]
    assert row["value"] == 0.0
    assert json.loads(row["detail"]) == {"answer": "b", "shown": "ba", "level": 4}


def test_once_the_compared_pairs_are_labelled_the_line_says_the_rest_add_no_evidence(tmp_path):
    """Judges compared 6 of the 11 pairs. Once the 6 are labelled the line said "no sample left
    to label" with 5 pairs still on the page to label; it must say what is true: every pair the
    judges compared is labelled, and the others add no evidence until a judge compares them."""
    run = lay_out_run(tmp_path / "run")
    session = open_session(run, "ann", ["better_reply"], SessionAsk(n=20))  # every pair
    compared = sum(item.probability is not None for item in session.queue)
    left = len(session.queue) - compared
    assert (compared, left) == (6, 5)
    with in_thread(serve, session) as server, browser_page(tmp_path / "profile") as tools:
        navigate(tools, page_of(server, session.token))
        wait_until(tools, ITEM)
        for count in range(1, compared + 1):  # the compared pairs come first
            press(tools, "a")
            wait_until(tools, answered(count))
        line = str(evaluate(tools, "document.getElementById('state-line').textContent"))
        errors = console_errors(tools)
    assert errors == []
    assert line == (
        f"Better reply: {compared} labels · no verdict yet · every pair the judges compared is "
        f"labelled; the {left} others add no evidence until a judge compares them"
    )
