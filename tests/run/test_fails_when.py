"""``fails-when`` end to end on scripted judges: a binary criterion's directional probe is credited
to a judge only where its verdict on the probe is fail. A judge that always passes is never
credited; one that always fails is, on every probe (its score cannot fall from a base it fails
already); one that follows the word overlap is, on each probe it fails."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import yaml

from conftest import matrix_dict
from judgegrid import api
from judgegrid.plan.placeholders import criterion_answer, default_answer
from judgegrid.store.run_dir import SAMPLE_INFO

ON_TOPIC = {
    "name": "on_topic",
    "definition": "Does the reply answer the question?",
    "type": "binary",
    "fails-when": ["foreign_response"],
}


def answer(step: str, prompt: str, model: str) -> dict:
    if step != "criterion":
        return default_answer(step, prompt, model)
    if "always-pass" in model:
        return {"verdict": "pass", "reason": "always"}
    if "always-fail" in model:
        return {"verdict": "fail", "reason": "never"}
    return criterion_answer(prompt)  # pass where the reply shares the question's words


def test_a_fails_when_probe_is_credited_by_the_verdict_on_it(tmp_path: Path, scripted_provider):
    scripted_provider.answer = answer
    judges = [
        {"id": "scripted/always-pass", "label": "passes"},
        {"id": "scripted/always-fail", "label": "fails"},
        {"id": "scripted/follows", "label": "follows"},
    ]
    matrix = matrix_dict(
        metrics=[],
        embeddings=[],
        repeats=1,
        judges=judges,
        criteria=[ON_TOPIC],
        probes={"names": ["foreign_response"], "per-metric": 6},
    )
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    run = api.run_grid(path, limit=10, use_cache=False, run_dir=tmp_path / "run")
    assert run.complete
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        (info,) = db.execute(f"SELECT value FROM meta WHERE key = '{SAMPLE_INFO}'").fetchone()
    tags = {sid: i["probe"] for sid, i in json.loads(info).items() if i.get("probe")}
    assert len(tags) == 6 and {t["direction"] for t in tags.values()} == {"fails"}
    scores = run.scores
    probes = scores[scores["sample_id"].isin(tags)]
    fails_on_probe = probes.groupby("judge")["score"].apply(lambda s: int((s == 0).sum()))
    table = pd.read_csv(tmp_path / "run" / "tables" / "probes.csv").set_index("judge")
    assert table.loc["passes", "detected"] == 0
    assert table.loc["fails", "detected"] == table.loc["fails", "pairs"] == 6
    assert table.loc["follows", "detected"] == fails_on_probe["follows"]
    # the follower fails bases too: those probes fell by nothing, and are credited all the same
    bases = scores[scores["sample_id"].isin({t["base"] for t in tags.values()})]
    failed_bases = set(
        bases.loc[(bases["judge"] == "follows") & (bases["score"] == 0), "sample_id"]
    )
    assert failed_bases, "the demo's noncommittal replies fail the word-overlap judge"
    follower = scores[scores["judge"] == "follows"].set_index("sample_id")["score"]
    fell = sum(follower[sid] < follower[tag["base"]] for sid, tag in tags.items())
    assert table.loc["follows", "detected"] > fell  # "the score went down" would miss them
