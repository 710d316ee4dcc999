"""`judgegrid view` on a real local run: the two tiny judges (SmolLM2-135M and Gemma 3 270M,
llama.cpp) and all-MiniLM-L6-v2 score the demo's `canal-grounded` and a sample holding markup.
Headless Chromium sorts the samples by disagreement, opens the top one, sees both judges'
Faithfulness statements and verdicts (checked against what run.sqlite holds, not against model
output written down here), opens them side by side with the differences marked, goes on to
label it with l, and finds the markup shown as text; the console stays clean.

With JUDGEGRID_SCREENSHOTS=DIR it writes docs/view-samples.png, view-sample.png and
view-side-by-side.png to DIR: the README's screenshots are this run's.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from judgegrid import run_grid
from judgegrid.core.sample import Dataset
from judgegrid.inputs.dataset import load_demo
from judgegrid.store.run_db import RunStore
from support.browser import browser_page, console_errors, evaluate
from support.demo_sets import HOSTILE, HOSTILE_SAMPLE
from support.servers import command_server
from support.view_pages import (
    label_it,
    open_sample,
    open_top_sample,
    samples_sorted_by_disagreement,
    shoot,
    side_by_side,
    wait_for_sample,
)

pytestmark = pytest.mark.local_models

JUDGES = {"smollm2-135m", "gemma-270m"}
# in the reference: on the sample's page, yet in no prompt of Faithfulness or ResponseRelevancy,
# so it does not change what the judges say
IMAGE = "<img src=x onerror=\"document.title = 'ran'\">"
VERDICT_SHOWN = {1: "✓ yes", 0: "✗ no"}


def local_view_run(root: Path) -> Path:
    """The shipped local grid cut to Faithfulness and ResponseRelevancy (MiniLM at 384,
    strictness 1), 2 repeats, on two samples: 16 cells, under a minute on two cores."""
    matrix = yaml.safe_load((ROOT / "model_matrices" / "local.yaml").read_text())
    for key in ("probes", "limit"):
        matrix.pop(key, None)
    matrix.update(
        juries=False,
        embeddings=[{"id": "local/all-minilm-l6-v2", "label": "minilm", "dimensions": [384]}],
        metrics=["faithfulness", "response_relevancy"],
        strictness=[1],
        repeats=2,
    )
    path = root / "local-view.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    demo = load_demo().by_id()
    hostile = HOSTILE_SAMPLE.model_copy(update={"reference": IMAGE})
    data = Dataset("demo", (demo["canal-grounded"], hostile))
    return run_grid(path, data, run_dir=root / "local-view", use_cache=False).run_dir


Said = dict[tuple[str, str], dict[int, list[tuple[str, str]]]]


def faithfulness_verdicts(run_dir: Path) -> Said:
    """(sample, judge) -> repeat -> the statements with their verdict as the page says it, of
    each scored Faithfulness cell, read from run.sqlite's scores.details."""
    found: Said = defaultdict(dict)
    with sqlite3.connect(run_dir / "run.sqlite") as con:
        rows = con.execute(
            "SELECT sample_id, judge, repeat, details FROM scores"
            " WHERE metric = 'faithfulness' AND status = 'scored'"
        ).fetchall()
    for sample_id, judge, repeat, details in rows:
        verdicts = json.loads(details)["verdicts"]
        found[sample_id, judge][repeat] = [
            (v["statement"], VERDICT_SHOWN[int(bool(v["verdict"]))]) for v in verdicts
        ]
    return found


def most_disputed(run_dir: Path) -> tuple[str, float]:
    """The sample whose two judges' mean Faithfulness lie furthest apart (both scored it)."""
    with sqlite3.connect(run_dir / "run.sqlite") as con:
        means = con.execute(
            "SELECT sample_id, judge, avg(score) FROM scores WHERE metric = 'faithfulness'"
            " AND status = 'scored' GROUP BY sample_id, judge"
        ).fetchall()
    by_sample: dict[str, list[float]] = defaultdict(list)
    for sample_id, _, mean in means:
        by_sample[sample_id].append(mean)
    gaps = {s: max(m) - min(m) for s, m in by_sample.items() if len(m) == 2}
    top = max(gaps, key=lambda s: gaps[s])
    return top, gaps[top]


def key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def expected_marks(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> set[str]:
    """How the side-by-side view should mark two statement lists lined up by their text,
    occurrence by occurrence: a statement one side alone has, or the same statement given
    another verdict."""
    waiting: dict[str, list[str]] = defaultdict(list)
    for text, verdict in b:
        waiting[key(text)].append(verdict)
    marks = set()
    for text, verdict in a:
        same = waiting[key(text)]
        if not same:
            marks.add("only in A")
        elif same.pop(0) != verdict:
            marks.add("verdicts differ")
    if any(waiting.values()):
        marks.add("only in B")
    return marks


def test_a_person_sees_why_the_real_judges_disagree_and_labels_the_sample(tmp_path):
    run_dir = local_view_run(tmp_path)
    said = faithfulness_verdicts(run_dir)
    top, gap = most_disputed(run_dir)
    assert gap > 0, "the two judges agree on every sample: nothing to show"
    # both judges' statements are the must-show: a repeat where each judge said some
    both = [r for r in sorted(said[top, "gemma-270m"]) if r in said[top, "smollm2-135m"]]
    both = [r for r in both if all(said[top, judge][r] for judge in JUDGES)]
    assert both, dict(said)
    repeat = both[0]

    with (
        command_server("view", str(run_dir), "--annotator", "ann") as url,
        browser_page(tmp_path / "profile", width=1280, height=1000) as tools,
    ):
        assert samples_sorted_by_disagreement(tools, url, "faithfulness") == top
        shoot(tools, tmp_path, "view-samples.png")

        boxes = open_top_sample(tools)
        shoot(tools, tmp_path, "view-sample.png")
        wait_for_sample(tools, top)
        configs = evaluate(
            tools,
            "[document.getElementById('cmp-a').value, document.getElementById('cmp-b').value]",
        )
        compared = side_by_side(tools, repeat)
        shoot(tools, tmp_path, "view-side-by-side.png")
        title = label_it(tools)

        hostile = open_sample(tools, url, HOSTILE_SAMPLE.id, "faithfulness")
        ran = evaluate(tools, "document.title === 'ran'")
        errors = console_errors(tools)

    assert set(boxes) == JUDGES
    for judge, box in boxes.items():
        every_repeat = [pair for _, pairs in sorted(said[top, judge].items()) for pair in pairs]
        assert list(zip(box["statements"], box["verdicts"], strict=True)) == every_repeat

    a, b = (said[top, config.split("|")[0]][repeat] for config in configs)
    assert {c.split("|")[0] for c in configs} == JUDGES
    assert [(r["text"], r["a"]) for r in compared if r["a"] != "—"] == a
    shown_b = Counter((key(r["text"]), r["b"]) for r in compared if r["b"] != "—")
    assert shown_b == Counter((key(text), verdict) for text, verdict in b)  # none dropped
    marks = {r["mark"] for r in compared} - {""}
    assert marks and marks == expected_marks(a, b), (marks, a, b)

    assert top in title
    store = RunStore(run_dir / "run.sqlite")
    labels = store.labels_frame()
    store.close()
    assert list(labels["sample_id"]) == [top] and list(labels["value"]) == [0.75]

    assert errors == []
    assert hostile["question"] == HOSTILE and hostile["reference"] == IMAGE
    assert HOSTILE_SAMPLE.id in hostile["title"]
    said_on_hostile = [
        text for (s, _), repeats in said.items() if s == HOSTILE_SAMPLE.id
        for pairs in repeats.values() for text, _ in pairs
    ]  # fmt: skip
    assert sorted(hostile["statements"]) == sorted(said_on_hostile)
    assert hostile["scripts"] == 2 and hostile["bold"] == 0 and hostile["images"] == 0
    assert not ran
