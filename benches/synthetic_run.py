"""A synthetic run directory as a run leaves it, for the report and view benchmarks.

``write_run_dir``: run.sqlite, matrix.resolved.yaml and the data set it names, from the synthetic
scores of ``bench_report.py`` (4 judges x 2 embedding models x 3 dimensions x 3 strictness x 5
repeats of ResponseRelevancy plus Faithfulness, 2% failed). ``add_details_and_calls``: the
statements and verdicts of every Faithfulness row and judge calls with prompts and replies.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from bench_report import synthetic_scores


def write_run_dir(target: Path, rows: int) -> int:
    """A run directory holding ``rows`` synthetic score rows; returns the row count."""
    from judgegrid.core.records import SCORE_COLUMNS
    from judgegrid.store.run_db import DB_NAME, RunStore

    scores = synthetic_scores(rows)
    samples = sorted(scores["sample_id"].unique())
    dataset = target / "samples.jsonl"
    dataset.write_text(
        "".join(
            json.dumps(
                {
                    "id": s,
                    "user_input": f"question {s}?",
                    "response": f"answer {s}.",
                    "retrieved_contexts": [f"context {s}."],
                    "reference": f"reference {s}.",
                }
            )
            + "\n"
            for s in samples
        )
    )
    matrix = {
        "name": "bench-report",
        "dataset": str(dataset),
        "judges": [{"id": f"openai/judge-{j}", "label": f"judge-{j}"} for j in range(4)],
        "embeddings": [
            {"id": f"openai/emb-{e}", "label": f"emb-{e}", "dimensions": [256, 512, 1024]}
            for e in range(2)
        ],
        "metrics": ["response_relevancy", "faithfulness"],
        "strictness": [1, 3, 5],
        "repeats": 5,
    }
    (target / "matrix.resolved.yaml").write_text(yaml.safe_dump(matrix, sort_keys=False))
    store = RunStore(target / DB_NAME)
    store.set_meta("dataset", str(dataset))
    store.set_meta("limit", None)
    values = scores[SCORE_COLUMNS].astype(object).where(scores.notna(), None)
    placeholders = ", ".join("?" * len(SCORE_COLUMNS))
    store._db.executemany(  # one bulk insert: a run writes these one by one as cells finish
        f"INSERT INTO scores VALUES ({placeholders})", values.itertuples(index=False)
    )
    store.close()
    return len(scores)


def add_details_and_calls(run_dir: Path, calls: int) -> None:
    """Statements and verdicts on each Faithfulness row; ``calls`` judge calls spread over the
    samples and judges, their prompts holding the sample's question as a real run's do."""
    import sqlite3

    db = sqlite3.connect(run_dir / "run.sqlite")
    details = json.dumps(
        {
            "statements": [f"statement {k} of the response." for k in range(5)],
            "verdicts": [
                {"statement": f"statement {k} of the response.", "reason": "said so", "verdict": 1}
                for k in range(5)
            ],
        }
    )
    db.execute("UPDATE scores SET details = ? WHERE metric = 'faithfulness'", (details,))
    samples = [r[0] for r in db.execute("SELECT DISTINCT sample_id FROM scores ORDER BY 1")]
    judges = [r[0] for r in db.execute("SELECT DISTINCT judge FROM scores ORDER BY 1")]
    filler = "Break the answer into short statements. " * 20
    rows = []
    for k in range(calls):
        sample, judge = samples[k % len(samples)], judges[(k // len(samples)) % len(judges)]
        request = json.dumps(
            [
                {"role": "system", "content": filler},
                {"role": "user", "content": f"Question: question {sample}?\nAnswer: answer."},
            ]
        )
        reply = json.dumps({"statements": [f"statement {n}." for n in range(5)]})
        rows.append(
            ("completion", f"openai/{judge}", judge, f"key-{k}", 1, "ok", 200, None, "stop",
             request, reply, 0.0, 0.4, 300, 40, 0.0001, None, None)
        )  # fmt: skip
    db.executemany(
        "INSERT INTO calls (kind, model, label, step_key, attempt, status, http_status, error,"
        " finish_reason, request, response, started_at, latency_s, tokens_in, tokens_out, cost,"
        " batch_id, live_cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany(
        "INSERT OR IGNORE INTO step_names VALUES (?, ?, ?)",
        [(f"key-{k}", "statements", r[2]) for k, r in enumerate(rows)],
    )
    db.commit()
    db.close()
