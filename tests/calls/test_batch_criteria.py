"""A matrix of criteria in batch mode (``execution: batch``), end to end on the fault server's
files and batches endpoints: every criterion's request goes into a provider batch (the binary
vote as one line asking n verdicts, the scale's log-probabilities asked for in the line), and the
cells are those of the same grid run live: scores, answers, weighting and details alike."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import clean_fault_server, fault_server_matrix, save_matrix
from judgegrid import run_grid
from judgegrid.api import plan_grid
from judgegrid.testing.fault_batches import BatchPlan
from judgegrid.testing.fault_server import FaultPlan

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import grid as bench_grid  # benches/ is not a package

pytestmark = pytest.mark.slow  # two grids live and two in batch mode (SLOW_MODULES)

KEY_ENV = "JUDGEGRID_BATCH_KEY"
FAST = {"poll_interval": "20ms", "max_poll_interval": "100ms", "gather": "400ms"}
CRITERIA = [
    {"name": "polite", "definition": "Is the reply polite?", "type": "binary", "strictness": 3},
    {
        "name": "graded",
        "definition": "Is the reply right?",
        "type": "labels",
        "labels": {"right": 1, "partly": 0.5, "wrong": 0},
    },
    {
        "name": "helpful",
        "definition": "How helpful is the reply?",
        "type": "scale",
        "scale": {1: "no help", 2: "some help", 3: "helpful"},
        "wordings": ["Does the reply help?"],
        "weighting": "logprobs",
    },
]
CELL = ["metric", "judge", "sample_id", "wording", "strictness", "repeat"]
SAME = [*CELL, "status", "score", "answer", "weighting", "details"]


@pytest.fixture(autouse=True)
def fresh(monkeypatch, request):
    monkeypatch.setenv(KEY_ENV, "sk-batch-test")
    clean_fault_server(request)


def alternatives(model: str, text: str) -> dict[str, float] | None:
    """The scale's score token: its three levels, the one chosen the likeliest."""
    if '"level"' not in text:
        return None
    return {"1": -2.0, "2": -0.3, "3": -1.6}


def cells(scores: pd.DataFrame) -> pd.DataFrame:
    return scores[SAME].sort_values(CELL).reset_index(drop=True)


@pytest.mark.parametrize("failed_lines", [0.0, 0.1])
def test_a_criteria_matrix_in_batch_mode_gets_the_live_runs_cells(tmp_path, server, failed_lines):
    """Also when a tenth of the lines fail: each is sent again in a later batch."""
    batches = BatchPlan(delay_s=0.05, failed_lines=failed_lines)
    server.set_plan(FaultPlan(batch=batches, alternatives=alternatives))
    data = bench_grid.write_jsonl(tmp_path / "s.jsonl", bench_grid.synthetic_samples(5))
    judges = {"mini": "openai/gpt-4o-mini", "mini-41": "openai/gpt-4.1-mini"}
    matrix: dict[str, Any] = fault_server_matrix(
        server.url, data, KEY_ENV, judges, "openai/text-embedding-3-small", name="criteria"
    )
    matrix.update(metrics=["faithfulness"], embeddings=[], criteria=CRITERIA, repeats=1)
    matrix["retry"]["max_attempts"] = 4
    live = run_grid(save_matrix(tmp_path, "live", matrix), use_cache=False)
    matrix["defaults"]["batch"] = FAST
    path = save_matrix(tmp_path, "batch", matrix)
    plan = plan_grid(path, use_cache=False)
    batch = run_grid(path, use_cache=False)
    assert batch.complete and set(batch.scores["status"]) == {"scored"}
    # 5 samples x 2 judges: faithfulness, polite, graded, helpful under two wordings
    assert len(batch.scores) == len(live.scores) == 5 * 2 * 5
    pd.testing.assert_frame_equal(cells(batch.scores), cells(live.scores))
    scores = batch.scores
    assert set(scores.loc[scores["metric"] == "helpful", "weighting"]) == {"logprobs"}
    # the expected level over the log-probabilities, not the level answered
    assert not (scores.loc[scores["metric"] == "helpful", "score"] == 2.0).all()
    db = sqlite3.connect(batch.run_dir / "run.sqlite")
    try:
        unbatched = db.execute("SELECT count(*) FROM calls WHERE batch_id IS NULL").fetchone()
        per_step = dict(
            db.execute(
                "SELECT n.step, count(*) FROM calls c JOIN step_names n ON n.key = c.step_key "
                "GROUP BY n.step"
            ).fetchall()
        )
    finally:
        db.close()
    assert unbatched == (0,)
    if failed_lines:
        assert "batch" in " ".join(batch.calls["error"].dropna())  # lines did fail
        return
    # one line per cell of a criterion: the vote of three is one request asking n = 3
    assert per_step["criterion"] == 5 * 2 * 4
    assert per_step == pd.Series(_live_steps(live.run_dir)).value_counts().to_dict()
    assert plan.total("calls") == len(batch.calls)


def _live_steps(run_dir: Path) -> list[str]:
    db = sqlite3.connect(run_dir / "run.sqlite")
    try:
        return [
            step
            for (step,) in db.execute(
                "SELECT n.step FROM calls c JOIN step_names n ON n.key = c.step_key"
            )
        ]
    finally:
        db.close()
