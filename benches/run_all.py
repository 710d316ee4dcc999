"""Run every benchmark and print one table of their figures.

    python benches/run_all.py            # all of them (the labels bench alone: 15-30 minutes)
    python benches/run_all.py --only calls,report

Each benchmark runs in a process of its own (clean memory figures, no state shared through
litellm), prints its own lines, and hands its figures back as a ``RESULT`` line; this script
collects them into one table. Figures are printed, never asserted: a missed target is marked
MISSED, and benches/README.md says why and what would close it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
ROOT = BENCHES.parent
RESULT_PREFIX = "RESULT "

# name -> the script and its arguments
SUITE: dict[str, list[str]] = {
    "calls": ["bench_calls.py"],  # calls per grid against Ragas, then the warm rerun
    "scheduler": ["bench_scheduler.py", "--floor"],  # 50 ms, >= 5,000 calls, concurrency 64
    "scheduler-2-workers": ["bench_scheduler.py", "--workers", "2"],  # the same on 2 processes
    # litellm's own HTTP client instead of the OpenAI SDK, as for a self-hosted vLLM
    "scheduler-vllm": ["bench_scheduler.py", "--provider", "hosted_vllm", "--floor"],
    "scheduler-ray": ["bench_scheduler.py", "--workers", "2", "--backend", "ray"],
    # the same at 500 ms, closer to a hosted model: is the gap the scheduler or the CPU?
    # (with the floor: bare litellm's own wall / ideal at 500 ms)
    "scheduler-500ms": ["bench_scheduler.py", "--latency", "0.5", "--samples", "60", "--floor"],
    "scheduler-500ms-2-workers": [
        "bench_scheduler.py",
        *("--latency", "0.5", "--samples", "60", "--workers", "2"),
    ],
    # a requests-per-minute limit across 2 workers, on the server's request log (~2 minutes)
    "rate-limit": ["bench_rate_limit.py"],
    # Ragas 0.4.3 evaluate() and judgegrid, alternating, at 200 ms a call
    "vs-ragas": ["bench_vs_ragas.py"],
    # issue 4's: throughput at a 20% fault rate, then a cached rerun (prints, no RESULT line)
    "faults": ["fault_grid.py", "--repeats", "2"],
    "report": ["bench_report_run.py"],  # judgegrid report on 200,000 score rows
    # judgegrid import of 1,000,000 long-table rows, then report on them (issue 41)
    "import": ["bench_import.py"],
    "plan-repeats": ["bench_plan_repeats.py"],  # judgegrid plan on repeats: 1000000
    "yaml-bomb": ["bench_yaml_bomb.py"],  # judgegrid validate on a 9^9 alias bomb: refused at once
    "local": ["bench_local.py"],  # the embedded Gemma judge
    # the decision card's own error rates on synthetic judges (prints, no RESULT line)
    "decision": ["bench_decision.py"],
    # labels to a verdict on the people rung, three queue orders, the JudgeBench replay (issue 42)
    "labels": ["bench_labels.py"],
    # what a person waits for after each answer on the labelling page (about 2 minutes; its
    # 5,000-sample case, a 4-minute build, is the bench's own default, not the suite's)
    "label-answer": ["bench_label_answer.py", "--sizes", "500,2000"],
    # the judge's mean corrected by a few labels (PPI++): simulation and JudgeBench (issue 43)
    "true-score": ["bench_true_score.py"],
}


def run_one(name: str, argv: list[str]) -> list[dict]:
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "HF_HUB_OFFLINE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    print(f"\n== {name}: {' '.join(argv)}", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(BENCHES / argv[0]), *argv[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    rows: list[dict] = []
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            rows = json.loads(line[len(RESULT_PREFIX) :])
        else:
            print("  " + line)
    print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)
    if proc.returncode == 0 and not rows:
        rows = [row(name, "figures printed above (no table rows)", "-")]
    if proc.returncode != 0 or not rows:
        print(proc.stderr[-3000:])
        rows = [row(name, f"FAILED (exit {proc.returncode}); see the output above", "-", "MISSED")]
    return rows


def row(benchmark: str, figure: str, value: str, verdict: str = "") -> dict:
    return {
        "benchmark": benchmark,
        "figure": figure,
        "value": value,
        "unit": "",
        "target": "",
        "verdict": verdict,
    }


def _value(row: dict) -> str:
    return f"{row['value']} {row['unit']}".strip()


def table(rows: list[dict]) -> str:
    """A Markdown table, so that it can be pasted into benches/README.md as it is."""
    header = ["benchmark", "figure", "value", "target", "verdict"]
    lines = [[r["benchmark"], r["figure"], _value(r), r["target"], r["verdict"]] for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *lines, strict=False)]

    def fmt(cells: list) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join(
        [fmt(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(fmt, lines)]
    )


def machine() -> str:
    free = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout.splitlines()
    memory = free[1].split()[1] if len(free) > 1 else "?"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs "
        f"({platform.processor() or platform.machine()}), {memory} RAM, Python "
        f"{platform.python_version()}, load average {load}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help=f"comma-separated subset of: {', '.join(SUITE)}")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(SUITE)
    unknown = set(chosen) - set(SUITE)
    if unknown:
        parser.error(f"unknown benchmark(s) {sorted(unknown)}; known: {', '.join(SUITE)}")
    print("machine at the start:", machine())
    start = time.perf_counter()
    rows = [row for name in chosen for row in run_one(name, SUITE[name])]
    print(f"\nall benchmarks: {time.perf_counter() - start:.0f} s; at the end: {machine()}\n")
    print(table(rows))


if __name__ == "__main__":
    main()
