"""Pairwise criteria through the whole chain on scripted judges: each pair judged in both orders
(the plan's calls are the run's), the per-order verdicts in the cells' details, the pairwise
tables in the report and the card, the pair probes, a killed run resumed to the same cells, and
the WikiEval pairs file read for the bundled pairwise matrix.

The scripted judges: ``judge-first`` always picks answer A (the first shown); ``judge-follow``
picks the answer that says GOOD (the people's choice); ``judge-long`` picks the longer answer.
In every pair the people's answer is the longer one, so the long judge agrees with them until
the verbosity probe pads the worse answer past it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from conftest import ROOT, fault_server_matrix, matrix_dict
from judgegrid import api
from judgegrid.inputs.pairwise import seeded_flip
from support.killed_runs import cells as killed_cells
from support.killed_runs import resume, run_and_kill, run_args, run_whole
from support.pairwise_judges import BETTER, JUDGES, WIKIEVAL, scripted_pairwise

pytestmark = pytest.mark.slow  # a killed run, and runs of 48 to 100 cells


def pair_rows(n: int) -> list[dict[str, Any]]:
    """``n`` pairs: the people's answer says GOOD and is the longer; it is a or b by a seeded
    coin, so the people's labels are a and b about equally."""
    rows = []
    for k in range(n):
        good = f"GOOD answer {k}: Paris is the capital of France, on the Seine, since 508."
        bad = f"Bad answer {k}: Lyon."
        flip = seeded_flip("test", k)
        rows.append(
            {
                "id": f"pair-{k:02d}",
                "user_input": f"What is the capital of France? ({k})",
                "response": bad if flip else good,
                "response_b": good if flip else bad,
                "labels": {"better": "b" if flip else "a"},
            }
        )
    return rows


def write_run(tmp_path: Path, n: int = 12, **overrides: Any) -> Path:
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in pair_rows(n)), encoding="utf-8")
    fields = {
        "metrics": [],
        "embeddings": [],
        "criteria": [BETTER],
        "repeats": 1,
        "judges": JUDGES,
        "dataset": str(data),
    }
    path = tmp_path / "matrix.yaml"
    path.write_text(yaml.safe_dump(matrix_dict(**{**fields, **overrides}), sort_keys=False))
    return path


def table(run_dir: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(run_dir / "tables" / f"{name}.csv")


def by_judge(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(r["judge"]): r for r in frame.to_dict("records")}


@pytest.fixture
def pairwise_judges(scripted_provider):
    scripted_provider.answer = scripted_pairwise
    return scripted_provider


def test_each_pair_is_judged_in_both_orders_and_the_plan_counts_both(tmp_path, pairwise_judges):
    path = write_run(tmp_path, n=6)
    plan = api.plan_grid(path, use_cache=False)
    run = api.run_grid(path, use_cache=False, run_dir=tmp_path / "run")
    assert run.complete and len(run.scores) == plan.cells == 6 * 3
    assert len(run.calls) == plan.total("calls") == 6 * 3 * 2
    planned = Counter({(r.label, r.step): r.calls for r in plan.rows})
    assert planned == Counter({(j["label"], "pairwise"): 12 for j in JUDGES})
    shown = Counter()
    for row in run.scores.to_dict("records"):
        details = json.loads(row["details"])
        assert set(details["orders"]) == {"ab", "ba"}
        assert details["systems"] == ["response", "response_b"]
        for order, verdict in details["orders"].items():
            shown[(row["judge"], order, verdict["position"])] += 1
            assert verdict["winner"] == (
                "tie"
                if verdict["position"] == "tie"
                else order[0]
                if verdict["position"] == "A"
                else order[1]
            )
    # the first-position judge chose A in both orders of every pair
    assert shown[("first", "ab", "A")] == shown[("first", "ba", "A")] == 6
    first = run.scores[run.scores["judge"] == "first"]
    assert set(first["answer"]) == {0.5}  # its two orders disagree on every pair: a tie


def test_the_report_measures_position_bias_validity_and_the_card_flags(tmp_path, pairwise_judges):
    path = write_run(tmp_path, n=16, juries=True, probes={"names": ["injection", "verbosity"]})
    run = api.run_grid(path, use_cache=False, run_dir=tmp_path / "run")
    assert run.complete
    position = by_judge(table(tmp_path / "run", "pairwise_position"))
    assert position["first"]["first_rate"] == 1.0 and position["first"]["consistency"] == 0.0
    assert (
        "position bias" in position["first"]["flag"] and "inconsistent" in position["first"]["flag"]
    )
    assert position["follow"]["consistency"] == 1.0 and position["follow"]["first_rate"] == 0.5
    assert pd.isna(position["follow"]["flag"]) or position["follow"]["flag"] == ""
    validity = by_judge(table(tmp_path / "run", "pairwise_validity"))
    assert validity["follow"]["accuracy_tie_excluded"] == 1.0
    assert validity["follow"]["accuracy_half_credit"] == 1.0 and validity["follow"]["kappa"] == 1.0
    assert validity["first"]["ties"] == 16 and validity["first"]["accuracy_half_credit"] == 0.5
    assert validity["long"]["accuracy_tie_excluded"] == 1.0  # the people's answers are longer
    probes = table(tmp_path / "run", "pairwise_probes")
    moved = {(r["judge"], r["probe"]): r["rate"] for r in probes.to_dict("records")}
    assert moved[("long", "verbosity")] == 1.0  # padded past the better answer, it wins
    assert moved[("follow", "verbosity")] == 0.0 and moved[("follow", "injection")] == 0.0
    wins = table(tmp_path / "run", "pairwise_win_rates")
    follow = wins[wins["judge"] == "follow"].set_index("system")["win_rate_adjusted"]
    assert follow["response"] == pytest.approx(
        sum(r["labels"]["better"] == "a" for r in pair_rows(16)) / 16
    )
    card = table(tmp_path / "run", "decision_card").set_index("metric")
    assert card.loc["better", "basis"] == "people"
    assert "first:" in card.loc["better", "flags"] and "follow:" not in card.loc["better", "flags"]
    # decided on people's preferences: no sentence of the ranking saying nobody was assessed
    assert "no judge could be assessed" not in str(card.loc["better", "detail"])
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "## Pairwise criteria" in summary and "first-position" in summary
    html = (tmp_path / "run" / "report.html").read_text()
    assert "Pairwise criteria" in html and "Position bias at a glance" in html
    # the picture: the always-first judge's dot red (flagged) at 1.00, the follower's grey
    pictured = html[html.index("Position bias at a glance") :].split("</figure>")[0]
    assert "<title>first: 1.00" in pictured and "(flagged)" in pictured
    assert "follow: " in pictured and "(measured)" in pictured


def test_a_killed_pairwise_run_resumes_to_the_same_cells(tmp_path):
    args = run_args(write_run(tmp_path, n=16))
    everything = killed_cells(run_whole(args, tmp_path / "full") / "run.sqlite")
    assert len(everything) == 16 * 3
    db = run_and_kill(args, tmp_path / "killed", lambda done: len(done) >= 10, "--no-cache")
    assert len(killed_cells(db)) < len(everything)
    resumed = resume(db.parent)
    assert resumed.returncode == 0, resumed.stderr
    assert killed_cells(db) == everything


@pytest.mark.skipif(not WIKIEVAL.exists(), reason="the shared WikiEval pairs file is not here")
def test_the_wikieval_pairs_run_with_the_bundled_pairwise_matrix(tmp_path, pairwise_judges):
    matrix = yaml.safe_load((ROOT / "model_matrices" / "pairwise.yaml").read_text())
    matrix["judges"] = JUDGES[1:]
    path = tmp_path / "pairwise.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    plan = api.plan_grid(path, dataset=str(WIKIEVAL), limit=8, use_cache=False)
    run = api.run_grid(
        path, dataset=str(WIKIEVAL), limit=8, use_cache=False, run_dir=tmp_path / "run"
    )
    assert run.complete and len(run.calls) == plan.total("calls")
    own = run.scores[~run.scores["sample_id"].str.contains("~probe~")]
    assert Counter(own["metric"]) == {"more_faithful": 16, "more_relevant": 16}
    systems = {tuple(json.loads(d)["systems"]) for d in own["details"]}
    assert systems == {
        ("answer", "ungrounded_answer"),
        ("ungrounded_answer", "answer"),
        ("answer", "poor_answer"),
        ("poor_answer", "answer"),
    }
    validity = table(tmp_path / "run", "pairwise_validity")
    assert set(validity["metric"]) == {"more_faithful", "more_relevant"}
    assert set(validity["pairs"]) == {8}


def test_on_workers_both_orders_are_judged_as_in_one_process(tmp_path, server, monkeypatch):
    """Worker processes reach the fault server on 127.0.0.1 (the scripted provider lives only
    in this process): the pairwise cells, each order's verdict in their details, equal those of
    a run in one process, and the calls are the plan's."""
    monkeypatch.setenv("JUDGEGRID_PAIR_KEY", "sk-pair-test")
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in pair_rows(6)), encoding="utf-8")
    judges = {"mini": "openai/gpt-4o-mini", "mini-41": "openai/gpt-4.1-mini"}
    matrix = fault_server_matrix(
        server.url, data, "JUDGEGRID_PAIR_KEY", judges, "openai/fake-embed", repeats=1
    )
    matrix.update(metrics=[], embeddings=[], criteria=[BETTER])
    plan = api.plan_grid(matrix, use_cache=False)
    here = api.run_grid(matrix, use_cache=False, run_dir=tmp_path / "h")
    there = api.run_grid(matrix, use_cache=False, run_dir=tmp_path / "w", workers=2)
    assert there.complete and set(there.scores["status"]) == {"scored"}
    assert len(there.calls) == len(here.calls) == plan.total("calls") == 6 * 2 * 2
    key = ["metric", "judge", "sample_id", "repeat"]
    first, second = (
        r.scores[[*key, "score", "answer", "details"]].sort_values(key).reset_index(drop=True)
        for r in (here, there)
    )
    pd.testing.assert_frame_equal(first, second)
