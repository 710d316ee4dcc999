"""End to end on the real embedded models: SmolLM2-135M and Gemma 3 270M (llama.cpp, side by
side), all-MiniLM-L6-v2 and multilingual-e5-small.

No scripted judge here: this is the run a new user makes, cut to two of its samples, one in
English and one in Vietnamese (so the judges are asked to write in Vietnamese, and the report
breaks the scores down by language), and to one repeat: every metric, judge, embedding model,
dimension and strictness of the shipped grid still runs, at half the judge calls. A second
repeat on the real models is tests/view/test_view_local_browser.py's (each repeat's verdicts
shown); what repeats do to the plan and the report is checked on scripted judges.
"""

from __future__ import annotations

import sqlite3

import pytest
import yaml

from conftest import ROOT
from judgegrid import run_grid
from judgegrid.core.sample import Dataset
from judgegrid.inputs.dataset import load_demo

pytestmark = pytest.mark.local_models


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("local")
    matrix = yaml.safe_load((ROOT / "model_matrices" / "local.yaml").read_text())
    # the demo's grid as shipped, without its probes: each probe copies another sample's text
    # into these two, and tests/run/test_probe_runs.py runs probes end to end
    matrix.pop("probes", None)
    matrix["repeats"] = 1  # see the module's docstring
    path = folder / "local.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    demo = load_demo().by_id()
    two = Dataset("demo", (demo["canal-grounded"], demo["vanmieu"]))
    return run_grid(path, two, run_dir=folder / "run")


def test_every_cell_of_the_local_grid_is_written(local_run):
    # ResponseRelevancy: 2 judges × (2 models × 2 dimensions) × 2 strictness × 2 samples = 32;
    # the six judge-only metrics: 6 × 2 judges × 2 samples = 24
    assert local_run.expected_cells == 56
    assert len(local_run.scores) == 56
    assert local_run.scores.groupby("metric").size().to_dict() == {
        "answer_relevancy": 4,
        "context_entity_recall": 4,
        "context_precision": 4,
        "context_recall": 4,
        "faithfulness": 4,
        "noise_sensitivity": 4,
        "response_relevancy": 32,
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
    assert len(rr) >= 12
    assert rr["score"].between(-1.0, 1.0).all()
    assert rr["score"].nunique() > 3  # dimensions and judges really differ
    assert set(rr["dimension"]) == {384, 128}
    assert set(rr["embedding"]) == {"minilm", "e5-small"}


def test_the_local_judge_was_called_through_litellm_with_accounting(local_run):
    calls = local_run.calls
    judge_calls = calls[calls["kind"] == "completion"]
    assert set(judge_calls["model"]) == {"local/gemma-3-270m", "local/smollm2-135m"}
    assert (judge_calls["tokens_in"] > 0).all() and (judge_calls["tokens_out"] > 0).all()
    assert (calls["cost"] == 0).all()  # in-process models cost nothing
    # questions: 2 judges × 2 samples × 2 generations (the largest strictness), shared by every
    # embedding, dimension and smaller strictness
    steps = (
        sqlite3.connect(local_run.run_dir / "run.sqlite")
        .execute("SELECT count(*) FROM steps WHERE step = 'response_relevancy.question'")
        .fetchone()[0]
    )
    assert steps == 8


def test_the_vietnamese_sample_is_asked_for_in_vietnamese(local_run):
    calls = local_run.calls
    asked = calls[(calls["kind"] == "completion") & calls["request"].str.contains("Văn Miếu")]
    written = asked["request"].str.contains("Write the question in Vietnamese")
    assert (
        written.any()
        and not calls.loc[~calls.index.isin(asked.index), "request"]
        .str.contains("in Vietnamese")
        .any()
    )


def test_both_embedding_models_make_384_dimensional_vectors(local_run):
    with sqlite3.connect(local_run.run_dir / "run.sqlite") as con:
        sizes = {len(blob) // 4 for (blob,) in con.execute("SELECT vector FROM embeddings")}
    assert sizes == {384}


def test_the_summary_is_written(local_run):
    summary = (local_run.run_dir / "summary.md").read_text()
    assert "minilm @ 128" in summary and "e5-small @ 128" in summary
    assert "gemma-270m (s=2)" in summary and "smollm2-135m (s=2)" in summary
    assert "## NoiseSensitivity (lower is better)" in summary
    by_language = summary.split("## By language")[1].split("\n## ")[0]
    assert "| en " in by_language or "en |" in by_language
    assert "vi" in by_language and "gemma-270m / e5-small @ 384 (s=1)" in by_language
    assert "## Calls per metric" in summary


def test_every_metric_scores_something_on_the_real_judge(local_run):
    scored = local_run.scores[local_run.scores["status"] == "scored"]
    # a 270M base model fails some cells (loops, cut-offs); each metric must still score some
    assert set(scored["metric"]) >= {"response_relevancy", "context_entity_recall"}
    assert scored["metric"].nunique() >= 5
