"""The counting behind benches/bench_calls.py, on a small grid (the benchmark runs the full one).

Checks that Ragas's call pattern is counted as documented, that judgegrid's calls are read
correctly from a run database, and that judgegrid sends no more calls than that pattern.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from judgegrid.api import run_grid
from judgegrid.store.run_db import DB_NAME, RunStore

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))

import grid as bench_grid  # benches/ is not a package


def test_ragas_pattern_counts_each_metric_as_documented():
    shape = bench_grid.GridShape(
        judges=2, embedding_dimensions=3, strictness=(1, 3), repeats=2, contexts=(4, 2)
    )
    separate = bench_grid.ragas_pattern_calls(shape, n_per_call=False)
    with_n = bench_grid.ragas_pattern_calls(shape, n_per_call=True)
    runs = 2 * 2  # judges x repeats
    assert separate["response_relevancy"] == runs * 2 * 3 * (1 + 3)
    assert with_n["response_relevancy"] == runs * 2 * 3 * 2
    assert separate["faithfulness"] == runs * 2 * 2
    assert separate["context_precision"] == runs * (4 + 2)
    assert separate["context_recall"] == runs * 2
    assert separate["context_entity_recall"] == runs * 2 * 2
    assert separate["noise_sensitivity"] == runs * ((2 * 4 + 3) + (2 * 2 + 3))
    assert separate["answer_relevancy"] == runs * 2 * 3
    assert bench_grid.ragas_embedding_calls(shape) == 2 * runs * 2 * 3 * 2
    assert {k: v for k, v in with_n.items() if k != "response_relevancy"} == {
        k: v for k, v in separate.items() if k != "response_relevancy"
    }


def test_judgegrid_calls_on_a_small_full_grid_stay_within_ragas_pattern(tmp_path: Path):
    samples = bench_grid.synthetic_samples(2, contexts=3)
    dataset = bench_grid.write_jsonl(tmp_path / "samples.jsonl", samples)
    matrix = bench_grid.matrix_dict(
        [{"id": "scripted/judge-a", "label": "a"}],
        [{"id": "scripted/bow", "label": "bow", "dimensions": [64, 16]}],
        str(dataset),
        strictness=[1, 3],
        repeats=1,
        concurrency=8,
    )
    path = tmp_path / "matrix.yaml"
    path.write_text(yaml.safe_dump(matrix))
    result = run_grid(path, reports_dir=tmp_path / "reports")
    assert result.tally.failed == 0
    store = RunStore(result.run_dir / DB_NAME)
    counted = bench_grid.judgegrid_calls(
        store.scores_frame(), store.calls_frame(), store.step_names_frame()
    )
    store.close()

    shape = bench_grid.shape_of(matrix, samples)
    ragas = bench_grid.ragas_pattern_calls(shape, n_per_call=False)
    per_metric = counted["per_metric"]
    assert set(per_metric) == set(bench_grid.ALL_METRICS)
    # questions generated once for the largest strictness, shared by both dimensions
    assert per_metric["response_relevancy"] == 2 * 3
    assert ragas["response_relevancy"] == 2 * 2 * (1 + 3)
    # a judge-only metric alone costs what the pattern says; sharing only shows in the total
    for metric in bench_grid.JUDGE_ONLY:
        assert per_metric[metric] == ragas[metric], metric
    assert counted["total"] == len(result.calls[result.calls["kind"] == "completion"])
    assert counted["total"] < sum(per_metric.values())  # statements and NLI shared
    assert counted["total"] <= sum(ragas.values())  # 0.7x is the full grid's target
    assert sum(counted["by_step"].values()) == counted["total"]
