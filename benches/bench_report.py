"""How long the full report takes on a large synthetic scores table (no model involved).

    PYTHONPATH=src python benches/bench_report.py [ROWS]

Builds about ROWS score rows (4 judges x 2 embedding models x 3 dimensions x 3 strictness x
5 repeats for ResponseRelevancy, plus Faithfulness; 2% failed cells), then times the analyses
alone and the whole report (summary.md, tables/*.csv, report.html) and prints the figures.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from judgegrid.core.records import SCORE_COLUMNS
from judgegrid.outputs import report


def synthetic_scores(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    judges, embeddings, dims, strictness, repeats = 4, 2, 3, 3, 5
    per_sample = judges * embeddings * dims * strictness * repeats + judges * repeats
    samples = max(2, rows // per_sample)
    grid = []
    rr = itertools.product(
        range(samples),
        range(judges),
        range(embeddings),
        (256, 512, 1024),
        (1, 3, 5),
        range(repeats),
    )
    frame = pd.DataFrame(list(rr), columns=["s", "j", "e", "dimension", "strictness", "repeat"])
    frame["metric"] = "response_relevancy"
    faith = pd.DataFrame(
        list(itertools.product(range(samples), range(judges), range(repeats))),
        columns=["s", "j", "repeat"],
    ).assign(metric="faithfulness", e=-1, dimension=0, strictness=0)
    grid = pd.concat([frame, faith], ignore_index=True)
    sample_effect = rng.normal(0, 0.2, samples)
    judge_effect = rng.normal(0, 0.1, judges)
    grid["score"] = np.clip(
        0.6 + sample_effect[grid["s"]] + judge_effect[grid["j"]] + rng.normal(0, 0.08, len(grid)),
        0,
        1,
    )
    failed = rng.random(len(grid)) < 0.02
    out = pd.DataFrame(
        {
            "sample_id": "s" + grid["s"].astype(str),
            "metric": grid["metric"],
            "judge": "judge-" + grid["j"].astype(str),
            "embedding": np.where(grid["e"] >= 0, "emb-" + grid["e"].astype(str), ""),
            "dimension": grid["dimension"],
            "strictness": grid["strictness"],
            "repeat": grid["repeat"],
            "wording": 0,  # built-in metrics only: no criterion, so no wording, answer or weighting
            "status": np.where(failed, "failed", "scored"),
            "score": np.where(failed, np.nan, grid["score"]),
            "answer": None,
            "weighting": None,
            "reason": None,
            "error": np.where(failed, "judge answer did not fit the schema", None),
            "details": None,
            "calls": 1 + grid["strictness"],
            "tokens_in": 300,
            "tokens_out": 40,
            "cost": 0.0001,
            "latency_s": rng.gamma(2, 0.5, len(grid)),
            "finished_at": 0.0,
        }
    )
    return out[SCORE_COLUMNS]


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    scores = synthetic_scores(rows)
    info = {s: {"user_input": f"question {s}"} for s in scores["sample_id"].unique()}
    calls = pd.DataFrame(columns=["status", "cost", "tokens_in", "tokens_out"])
    start = time.perf_counter()
    report.analyse_run(scores, report.RunFacts(sample_info=info))
    analysed = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report.write_all(
            Path(tmp),
            scores,
            report.ValidityInputs(calls),
            title="bench",
            expected_cells=len(scores),
            dimension_methods=None,
            facts=report.RunFacts(sample_info=info),
        )
        whole = time.perf_counter() - start
    print(f"score rows: {len(scores)}  samples: {len(info)}")
    print(f"analyses only: {analysed:.2f} s")
    print(f"whole report (summary.md, tables/*.csv, report.html): {whole:.2f} s")


if __name__ == "__main__":
    main()
