"""``judgegrid report RUN_DIR`` on a synthetic run database of 200,000 score rows.

    PYTHONPATH=src python benches/bench_report_run.py [ROWS]

Builds a run directory as a run leaves it (run.sqlite, matrix.resolved.yaml, the data set it
names) from the synthetic scores of ``bench_report.py`` (4 judges x 2 embedding models x 3
dimensions x 3 strictness x 5 repeats of ResponseRelevancy plus Faithfulness, 2% failed), then
runs the command in a child process, as a user would: wall time includes start-up and reading
the database; peak memory is the child's maximum resident set.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from bench_report import synthetic_scores
from common import Row, emit, load_average, peak_rss_mb, verdict

TARGET_S = 5.0  # issue 24, on an idle machine
COMMAND = "import sys; from judgegrid.cli import main; sys.argv[0] = 'judgegrid'; main()"


def has_report_command() -> bool:
    from judgegrid import cli

    return any(
        c.name == "report" or getattr(c.callback, "__name__", "") == "report"
        for c in cli.app.registered_commands
    )


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


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_400  # whole samples: >= 200,000
    if not has_report_command():
        print("skipped: `judgegrid report` (issue 5) is not on this branch")
        emit([Row("report", "not run: needs `judgegrid report` (issue 5)", "-")])
        return
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-report-") as tmp:
        run_dir = Path(tmp)
        written = write_run_dir(run_dir, rows)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", COMMAND, "report", str(run_dir)],
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-4000:])
            raise SystemExit(f"judgegrid report failed (exit {done.returncode})")
        outputs = sorted(p.name for p in run_dir.iterdir())
    peak = peak_rss_mb(children=True)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = used.ru_utime + used.ru_stime  # the command's own CPU: less swayed by a busy machine
    print(
        f"judgegrid report on {written} score rows: {wall:.2f} s ({cpu:.2f} s CPU), "
        f"peak RSS {peak:.0f} MiB, load {load_average()}"
    )
    print(f"run directory afterwards: {', '.join(outputs)}")
    emit(
        [
            Row(
                "report",
                f"`judgegrid report` wall time, {written} score rows",
                round(wall, 2),
                "s",
                f"< {TARGET_S:g}",
                verdict(wall < TARGET_S),
            ),
            Row("report", "CPU time of the report process", round(cpu, 2), "s"),
            Row("report", "peak memory (RSS) of the report process", round(peak), "MiB"),
            Row("report", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
