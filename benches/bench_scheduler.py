"""Scheduler efficiency: a grid of thousands of calls against a server with a fixed latency.

    PYTHONPATH=src python benches/bench_scheduler.py [--latency 0.05] [--samples 120]

The fault-injection server of ``judgegrid.testing`` (issue 4) runs in a separate process (so its
CPU time is not the harness's) and answers every request after a fixed latency, with no faults.
The runner reaches it through litellm's OpenAI provider, as it would a hosted model, with
concurrency 64 overall and per model. Figures: wall time over the ideal (calls x latency /
concurrency: every slot busy all the time), the harness's CPU time per call (process CPU time /
calls) and its peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import tempfile
import time
from pathlib import Path

import yaml
from common import (
    Row,
    emit,
    fake_model_options,
    fault_server_available,
    load_average,
    peak_rss_mb,
    start_fault_server,
    verdict,
)
from grid import matrix_dict, synthetic_samples, write_jsonl

TARGET_RATIO = 1.10
CONCURRENCY = 64
# Judge-only metrics: 7 calls per (judge, sample, repeat) whether or not the provider takes n,
# with the dependency of Faithfulness (statements, then verdicts) that a real grid has.
METRICS = ["faithfulness", "context_precision", "context_recall"]


def write_matrix(work: Path, url: str, samples: int, repeats: int) -> Path:
    options = fake_model_options(url)
    judges = [
        {"id": f"openai/fake-judge-{c}", "label": f"judge-{c}", "options": options} for c in "abc"
    ]
    data = write_jsonl(work / f"samples-{samples}.jsonl", synthetic_samples(samples))
    matrix = matrix_dict(
        judges,
        [],
        str(data),
        repeats=repeats,
        metrics=METRICS,
        concurrency=CONCURRENCY,
    )
    path = work / f"matrix-{samples}.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


def run_once(matrix_path: Path, run_dir: Path) -> tuple[float, float, int, int]:
    """(wall s, CPU s, requests sent, failed cells) of one grid run, without the report."""
    from judgegrid.matrix import load_matrix
    from judgegrid.orchestrate import resolve_dataset
    from judgegrid.runner import GridRunner
    from judgegrid.store import DB_NAME, RunStore
    from judgegrid.tasks import expand_cells

    matrix = load_matrix(matrix_path)
    data = resolve_dataset(matrix, matrix_path, None)
    store = RunStore(run_dir / DB_NAME)
    runner = GridRunner(matrix, data, store)
    cells = expand_cells(matrix, data)
    cpu, wall = time.process_time(), time.perf_counter()
    tally = asyncio.run(runner.run(cells))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    requests = len(store.calls_frame())
    store.close()
    return wall, cpu, requests, tally.failed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--samples", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if not fault_server_available():
        print("skipped: judgegrid.testing.fault_server (issue 4) is not on this branch")
        emit([Row("scheduler", "not run: needs the fault server of issue 4", "-")])
        return
    os.environ["JUDGEGRID_CACHE_DIR"] = tempfile.mkdtemp(prefix="judgegrid-bench-cache-")
    server, url = start_fault_server(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="judgegrid-bench-") as tmp:
            work = Path(tmp)
            # warm-up: litellm's lazy imports and HTTP clients, outside the measurement
            run_once(write_matrix(work, url, 2, 1), work / "warmup")
            rss_before = peak_rss_mb()
            wall, cpu, requests, failed = run_once(
                write_matrix(work, url, args.samples, args.repeats), work / "run"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    ideal = requests * args.latency / CONCURRENCY
    ratio = wall / ideal
    cpu_ms = 1000 * cpu / requests
    peak = peak_rss_mb()
    server_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{requests} requests ({failed} failed cells) at {args.latency * 1000:.0f} ms, "
        f"concurrency {CONCURRENCY}: wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {ratio:.2f}"
    )
    print(
        f"harness CPU {cpu:.2f} s = {cpu_ms:.2f} ms/call, {100 * cpu / wall:.0f}% of one core "
        f"over the wall time (the ideal needs <= "
        f"{1000 * args.latency / CONCURRENCY:.2f} ms/call on one core); server CPU "
        f"{server_cpu.ru_utime + server_cpu.ru_stime:.2f} s; peak RSS {peak:.0f} MiB "
        f"({rss_before:.0f} MiB after imports and warm-up); load average {load_average()}"
    )
    emit(
        [
            Row(
                "scheduler",
                f"wall / ideal, {requests} calls at {args.latency * 1000:.0f} ms, "
                f"concurrency {CONCURRENCY} ({wall:.1f} s / {ideal:.1f} s)",
                round(ratio, 2),
                "x",
                f"<= {TARGET_RATIO}",
                verdict(ratio <= TARGET_RATIO),
            ),
            Row("scheduler", "harness CPU time per call", round(cpu_ms, 2), "ms"),
            Row("scheduler", "peak memory (RSS) of the harness", round(peak), "MiB"),
            Row("scheduler", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
