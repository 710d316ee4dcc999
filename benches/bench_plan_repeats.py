"""``judgegrid plan`` on ``repeats: 1000000`` (one sample, one metric, one judge): at once.

    PYTHONPATH=src python benches/bench_plan_repeats.py [--repeats N] [--runs 5]
        [--baseline OTHER/src]

The plan walks the first repeats cell by cell and counts the later ones from one repeat's
requests (``plan.requests.later_repeats``), so a million repeats costs what three do instead of
building a million cells (issue 31: it printed nothing for a minute). What was left was the
command's start: litellm (3-5 s to import; ``calls.providers.litellm_tables`` now reads its
tables instead), scipy and matplotlib (the card and the report, now imported when used).

Timed as a user runs it: the console script in a fresh process, wall clock. The first process
is "cold" (it may compile judgegrid's bytecode, which this sandbox does not keep, and reads the
libraries from disk); then ``--runs`` "warm" ones, whose median [min-max] is the figure. The
same for ``repeats: 1`` (the start-up and a one-repeat plan: what the million adds is the
difference), and ``api.plan_grid`` in this process once judgegrid is imported (the plan alone).
``--baseline`` times another checkout's ``src`` (e.g. the commit before, from ``git archive``)
on the same matrix, run for run in turn with this one: on a shared machine whose speed drifts
within minutes, the ratio pair by pair is the steadier figure. The load average
(/proc/loadavg) is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from common import ROOT, Row, emit, load_average, timed_judgegrid, verdict

TARGET_S = 2.0  # issue 31: repeats: 1000000 answers in under 2 s
SAMPLE = {
    "id": "s1",
    "user_input": "Who wrote the report?",
    "response": "Ann wrote it. She finished it in 1999.",
    "retrieved_contexts": ["Ann wrote the report in 1999."],
}


def write_inputs(folder: Path, repeats: int) -> Path:
    (folder / "one.jsonl").write_text(json.dumps(SAMPLE) + "\n", encoding="utf-8")
    matrix = folder / f"repeats-{repeats}.yaml"
    matrix.write_text(
        "judges: [{id: openai/gpt-4o-mini}]\n"
        "metrics: [faithfulness]\n"
        f"repeats: {repeats}\n"
        "dataset: one.jsonl\n",
        encoding="utf-8",
    )
    return matrix


def spread(walls: list[float]) -> str:
    return f"{statistics.median(walls):.2f} s [{min(walls):.2f}-{max(walls):.2f}]"


def timed_runs(
    matrix: Path, env: dict[str, str], runs: int, baseline: Path | None
) -> tuple[float, list[float], list[float], str]:
    """(cold wall, warm walls, the baseline's warm walls run in turn, the output)."""
    other = env | {"PYTHONPATH": str(baseline)} if baseline else env
    cold, output = timed_judgegrid(["plan", str(matrix)], env)
    if baseline:
        timed_judgegrid(["plan", str(matrix)], other)  # its cold run, not counted
    warm, theirs = [], []
    for _ in range(runs):
        warm.append(timed_judgegrid(["plan", str(matrix)], env)[0])
        if baseline:
            theirs.append(timed_judgegrid(["plan", str(matrix)], other)[0])
    return cold, warm, theirs, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5, help="warm runs of each command")
    parser.add_argument("--baseline", type=Path, help="another checkout's src, timed in turn")
    args = parser.parse_args()
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-plan-") as tmp:
        folder = Path(tmp)
        env = os.environ | {
            "JUDGEGRID_CACHE_DIR": str(folder / "cache"),  # every call planned
            "PYTHONPATH": str(ROOT / "src"),
        }
        env.pop("OPENAI_API_KEY", None)  # the plan needs none
        many, one = write_inputs(folder, args.repeats), write_inputs(folder, 1)
        cold, warm, theirs, output = timed_runs(many, env, args.runs, args.baseline)
        cold_one, warm_one, theirs_one, _ = timed_runs(one, env, args.runs, args.baseline)
        os.environ["JUDGEGRID_CACHE_DIR"] = env["JUDGEGRID_CACHE_DIR"]
        from judgegrid import api

        api.plan_grid(one)  # imports and tokenizer warmed
        start = time.perf_counter()
        plan = api.plan_grid(many)
        in_process = time.perf_counter() - start
    calls, load_after = plan.total("calls"), load_average()
    print("\n".join(line for line in output.splitlines() if line.startswith(("total", "cells:"))))
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    print(
        f"judgegrid plan, repeats: {args.repeats:,} ({plan.cells:,} cells, {calls:,} calls): "
        f"cold {cold:.2f} s, warm {spread(warm)} over {args.runs} runs"
    )
    print(f"the same on repeats: 1: cold {cold_one:.2f} s, warm {spread(warm_one)}")
    print(f"api.plan_grid in process, repeats: {args.repeats:,}: {in_process:.3f} s")
    rows = [
        Row(
            "plan-repeats",
            f"`judgegrid plan` wall time, repeats: {args.repeats:,} (1 sample, 1 metric), "
            f"median of {args.runs} warm runs",
            round(statistics.median(warm), 2),
            "s",
            f"< {TARGET_S:g}",
            verdict(statistics.median(warm) < TARGET_S),
        ),
        Row("plan-repeats", "the same, slowest warm run", round(max(warm), 2), "s"),
        Row("plan-repeats", "the same, cold (first process)", round(cold, 2), "s"),
        Row(
            "plan-repeats",
            "the same command on repeats: 1 (start-up), median",
            round(statistics.median(warm_one), 2),
            "s",
        ),
        Row(
            "plan-repeats",
            f"api.plan_grid in process, repeats: {args.repeats:,}",
            round(in_process, 3),
            "s",
            f"< {TARGET_S:g}",
            verdict(in_process < TARGET_S),
        ),
        Row("plan-repeats", "calls planned", calls),
        Row("plan-repeats", "load average (1, 5, 15 min) before", load_before),
        Row("plan-repeats", "load average (1, 5, 15 min) after", load_after),
    ]
    if args.baseline:
        ratios = [
            mine / base for mine, base in zip(warm + warm_one, theirs + theirs_one, strict=True)
        ]
        print(
            f"baseline {args.baseline}: repeats {args.repeats:,} warm {spread(theirs)}; "
            f"repeats 1 warm {spread(theirs_one)}; ratio pair by pair, median "
            f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
        )
        rows += [
            Row(
                "plan-repeats",
                "baseline, same command, median",
                round(statistics.median(theirs), 2),
                "s",
            ),
            Row(
                "plan-repeats",
                "ratio to the baseline, pair by pair, median",
                round(statistics.median(ratios), 2),
            ),
        ]
    emit(rows)


if __name__ == "__main__":
    main()
