"""`judgegrid view` on a run with criteria of the user's own, as a person sees it in headless
Chromium at 1280 px: the Samples grid shows each judge's answer (pass or fail, the label, the
level) with its score, a criterion's wordings as columns to pick or fold, the weighting a scale's
cells got; a sample's page says which wording each answer was asked under; side by side marks
the answer that changed with the wording; the Decision page has the criteria's rows with the
judge whose verdict moves with the wording flagged. Writes docs/view-criteria.png,
view-criteria-sample.png and view-criteria-decision.png (with JUDGEGRID_SCREENSHOTS=docs)."""

from __future__ import annotations

from support.browser import browser_page, click, console_errors, evaluate, navigate, wait_until
from support.servers import command_server
from support.view_pages import redraw, shoot
from support.view_runs import WORDINGS, make_criteria_view_run

SORTS = "[...document.querySelectorAll('#f-sort option')].map(o => o.value)"
HEADERS = "[...document.querySelectorAll('#grid th.config')].map(t => t.title)"
ANSWERS = (
    "[...document.querySelectorAll('#grid tr.row')].map(r =>"
    " [...r.querySelectorAll('td.answer-cell .answer')].map(a => a.textContent))"
)


def tick_wording(tools, wording: int) -> None:
    redraw(tools, f"document.querySelector('#f-wording input[value=\"{wording}\"]').click()")


def test_a_person_reads_the_answers_per_wording_and_sees_which_judge_moves(tmp_path):
    run_dir = make_criteria_view_run(tmp_path)
    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(tmp_path / "profile", width=1280, height=1000) as tools,
    ):
        navigate(tools, url + "#/samples?metric=polite&sort=id")
        wait_until(tools, "document.querySelectorAll('#grid tr.row').length > 0")
        headers = evaluate(tools, HEADERS)
        answers = evaluate(tools, ANSWERS)
        wordings = evaluate(
            tools, "[...document.querySelectorAll('#criterion li.wording')].map(l => l.textContent)"
        )
        sorts = evaluate(tools, SORTS)
        gaps = evaluate(
            tools, "[...document.querySelectorAll('#grid td.wording-gap')].map(t => t.textContent)"
        )
        shoot(tools, tmp_path, "view-criteria.png")

        tick_wording(tools, 0)
        tick_wording(tools, 2)
        picked = evaluate(tools, HEADERS)
        redraw(
            tools,
            """const s = document.getElementById('f-fold'); s.value = 'wording';
               s.dispatchEvent(new Event('change'))""",
        )
        folded = evaluate(tools, HEADERS)
        folded_answers = evaluate(tools, ANSWERS)
        folded_hash = evaluate(tools, "location.hash")

        # a scale weighted where the judge returned log-probabilities
        redraw(
            tools,
            """const s = document.getElementById('f-metric'); s.value = 'helpful';
               s.dispatchEvent(new Event('change'))""",
        )
        helpful_hash = evaluate(tools, "location.hash")
        helpful_sorts = evaluate(tools, SORTS)
        helpful = evaluate(
            tools,
            """[...document.querySelector('#grid tr.row').querySelectorAll('td.answer-cell')]
               .map(td => ({text: td.textContent, title: td.title}))""",
        )

        # a sample: each answer under the wording asked; then two wordings side by side
        redraw(tools, "location.hash = '#/samples?metric=polite&sort=id'")
        click(tools, "#grid tr.row td")
        wait_until(tools, "document.querySelectorAll('.config-box').length >= 6")
        boxes = evaluate(
            tools,
            """[...document.querySelectorAll('.config-box')].map(b => ({
                config: b.dataset.config,
                asked: b.querySelector('.wording-text').textContent,
                answers: [...b.querySelectorAll('.repeat > .answer')].map(a => a.textContent),
                verdicts: [...b.querySelectorAll('td[class^=verdict-]')].map(t => t.textContent)
            }))""",
        )
        shoot(tools, tmp_path, "view-criteria-sample.png")
        evaluate(
            tools,
            """(() => { document.getElementById('cmp-a').value = 'a||0|3';
                document.getElementById('cmp-b').value = 'a||0|3|2'; })()""",
        )
        click(tools, "#compare")
        wait_until(tools, "document.getElementById('compare-table') !== null")
        compared = evaluate(
            tools,
            """({asked: [...document.querySelectorAll('.sides .wording-text')]
                        .map(p => p.textContent),
                 marks: [...document.querySelectorAll('#compare-table tr.cmp')]
                        .map(r => [r.children[0].textContent, r.children[1].textContent,
                                   r.children[3].textContent, r.children[5].textContent])})""",
        )

        click(tools, "header a[href='#/decision']")
        wait_until(tools, "document.querySelectorAll('#card .decision').length > 0")
        decisions = evaluate(
            tools,
            """[...document.querySelectorAll('#card .decision')].map(d => ({
                metric: d.dataset.metric,
                chips: [...d.querySelectorAll('.chip')].map(c => c.textContent),
                judges: [...d.querySelectorAll('table.criterion-judges tr[data-judge]')]
                        .map(r => [...r.children].map(c => c.textContent))
            }))""",
        )
        shoot(tools, tmp_path, "view-criteria-decision.png")
        errors = console_errors(tools)

    assert errors == []
    assert headers[:3] == ["a · s=3 · definition", "a · s=3 · wording 1", "a · s=3 · wording 2"]
    assert len(headers) == 6 and len(answers) == 5
    # judge a fails politeness in its second rewording only; judge b passes in every wording
    assert all(row == ["pass", "pass", "fail", "pass", "pass", "pass"] for row in answers)
    assert [w.split(": ", 1)[1] for w in wordings] == ["Is the reply polite?", *WORDINGS]
    assert sorts == ["disagreement", "instability", "wording", "id"] and gaps == ["1.00"] * 5
    assert helpful_sorts == ["disagreement", "instability", "id"]  # one wording: no such sort
    assert picked == [f"{j} · s=3 · {w}" for j in "ab" for w in ("definition", "wording 2")]
    assert folded == ["a · s=3 · all wordings", "b · s=3 · all wordings"]
    assert all(row == ["fail/pass", "pass"] for row in folded_answers), folded_answers
    assert "fold=wording" in folded_hash and "wording=2" in folded_hash
    assert "wording=" not in helpful_hash and "fold=" not in helpful_hash  # one criterion's
    a, b = helpful
    assert a["text"].startswith("2≈2.10") and "2 weighted by log-probabilities" in a["title"]
    assert "⚠2" in b["text"] and "2 asked for log-probabilities and got none" in b["title"]
    by_config = {box["config"]: box for box in boxes}
    assert by_config["a||0|3|2"]["asked"] == f"asked: {WORDINGS[1]}"
    assert by_config["a||0|3|2"]["answers"] == ["fail · ", "fail · "]
    assert by_config["a||0|3"]["answers"] == ["pass · ", "pass · "]
    assert "fail" in by_config["a||0|3|2"]["verdicts"]
    assert compared["asked"] == ["asked: Is the reply polite?", f"asked: {WORDINGS[1]}"]
    assert ["answer", "pass", "fail", "answers differ"] in compared["marks"]
    blocks = {d["metric"]: d for d in decisions}
    assert {"faithfulness", "polite", "correctness", "helpful"} <= set(blocks)
    assert "criterion · binary · 3 wordings · weighting none" in blocks["polite"]["chips"]
    polite_judges = dict((row[0], row[1]) for row in blocks["polite"]["judges"])
    assert polite_judges == {"a": "5 of 5 samples ⚑ flagged", "b": "0 of 5 samples"}
    helpful_judges = dict((row[0], row[1]) for row in blocks["helpful"]["judges"])
    assert helpful_judges == {"a": "10 of 10", "b": "0 of 10 (10 without)"}
    assert not any(c.startswith("criterion") for c in blocks["faithfulness"]["chips"])
