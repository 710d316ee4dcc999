"""End to end on the real embedded models: Gemma 3 270M (llama.cpp) and all-MiniLM-L6-v2.

No scripted judge here: this is the run a new user makes, cut to two samples.
"""

from __future__ import annotations

import sqlite3

import pytest

from conftest import ROOT
from judgegrid import run_grid

pytestmark = pytest.mark.local_models


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("local") / "run"
    return run_grid(ROOT / "model_matrices" / "local.yaml", limit=2, run_dir=run_dir)


def test_every_cell_of_the_local_grid_is_written(local_run):
    # ResponseRelevancy: 2 judges × 3 dimensions × 2 strictness × 2 samples × 2 repeats = 48
    # the six judge-only metrics: 6 × 2 judges × 2 samples × 2 repeats = 48
    assert local_run.expected_cells == 96
    assert len(local_run.scores) == 96
    assert local_run.scores.groupby("metric").size().to_dict() == {
        "answer_relevancy": 8,
        "context_entity_recall": 8,
        "context_precision": 8,
        "context_recall": 8,
        "faithfulness": 8,
        "noise_sensitivity": 8,
        "response_relevancy": 48,
    }
    failed = local_run.scores[local_run.scores["status"] == "failed"]
    assert failed["error"].str.len().gt(0).all()  # a failure always carries its cause
    assert failed["score"].isna().all()
    assert set(local_run.scores["status"]) <= {"scored", "failed"}


def test_response_relevancy_scores_are_cosines_from_real_generations(local_run):
    rr = local_run.scores[
        (local_run.scores["metric"] == "response_relevancy")
        & (local_run.scores["status"] == "scored")
    ]
    assert len(rr) >= 24
    assert rr["score"].between(-1.0, 1.0).all()
    assert rr["score"].nunique() > 3  # dimensions and judges really differ
    assert set(rr["dimension"]) == {384, 256, 128}


def test_the_local_judge_was_called_through_litellm_with_accounting(local_run):
    calls = local_run.calls
    judge_calls = calls[calls["kind"] == "completion"]
    assert set(judge_calls["model"]) == {"local/gemma-3-270m"}
    assert (judge_calls["tokens_in"] > 0).all() and (judge_calls["tokens_out"] > 0).all()
    assert (calls["cost"] == 0).all()  # in-process models cost nothing
    # questions: 2 judges × 2 samples × 2 repeats × 2 generations (the largest strictness),
    # shared by every embedding, dimension and smaller strictness
    steps = (
        sqlite3.connect(local_run.run_dir / "run.sqlite")
        .execute("SELECT count(*) FROM steps WHERE step = 'response_relevancy.question'")
        .fetchone()[0]
    )
    assert steps == 16


def test_minilm_vectors_are_384_dimensional(local_run):
    with sqlite3.connect(local_run.run_dir / "run.sqlite") as con:
        sizes = {len(blob) // 4 for (blob,) in con.execute("SELECT vector FROM embeddings")}
    assert sizes == {384}


def test_the_summary_is_written(local_run):
    summary = (local_run.run_dir / "summary.md").read_text()
    assert "minilm @ 128" in summary and "gemma-270m-t0.8 (s=2)" in summary
    assert "## NoiseSensitivity (lower is better)" in summary
    assert "## Calls per metric" in summary


def test_every_metric_scores_something_on_the_real_judge(local_run):
    scored = local_run.scores[local_run.scores["status"] == "scored"]
    # a 270M base model fails some cells (loops, cut-offs); each metric must still score some
    assert set(scored["metric"]) >= {"response_relevancy", "context_entity_recall"}
    assert scored["metric"].nunique() >= 5
