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
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field
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


def children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@dataclass
class Timings:
    """One command's runs: walls in seconds, and the CPU seconds of each warm run, which a
    loaded machine stretches less than the wall."""

    cold: float = 0.0
    warm: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def run(self, matrix: Path, env: dict[str, str]) -> str:
        before = children_cpu()
        wall, output = timed_judgegrid(["plan", str(matrix)], env)
        self.warm.append(wall)
        self.cpu.append(children_cpu() - before)
        return output


def timed_runs(
    matrix: Path, env: dict[str, str], runs: int, baseline: Path | None
) -> tuple[Timings, Timings, str]:
    """This checkout's runs and the baseline's (run for run in turn), and the output."""
    other = env | {"PYTHONPATH": str(baseline)} if baseline else env
    mine, theirs = Timings(), Timings()
    mine.cold, output = timed_judgegrid(["plan", str(matrix)], env)
    if baseline:
        theirs.cold = timed_judgegrid(["plan", str(matrix)], other)[0]
    for _ in range(runs):
        mine.run(matrix, env)
        if baseline:
            theirs.run(matrix, other)
    return mine, theirs, output


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
        mine, theirs, output = timed_runs(many, env, args.runs, args.baseline)
        mine_one, theirs_one, _ = timed_runs(one, env, args.runs, args.baseline)
        cold, warm, warm_one = mine.cold, mine.warm, mine_one.warm
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
        f"cold {cold:.2f} s, warm {spread(warm)} over {args.runs} runs, CPU {spread(mine.cpu)}"
    )
    print(
        f"the same on repeats: 1: cold {mine_one.cold:.2f} s, warm {spread(warm_one)}, "
        f"CPU {spread(mine_one.cpu)}"
    )
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
            "plan-repeats", "the same, CPU time, median", round(statistics.median(mine.cpu), 2), "s"
        ),
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
        pairs = zip(warm + warm_one, theirs.warm + theirs_one.warm, strict=True)
        ratios = [m / b for m, b in pairs]
        print(
            f"baseline {args.baseline}: repeats {args.repeats:,} warm {spread(theirs.warm)}, "
            f"CPU {spread(theirs.cpu)}; repeats 1 warm {spread(theirs_one.warm)}; "
            f"ratio pair by pair, median {statistics.median(ratios):.2f} "
            f"[{min(ratios):.2f}-{max(ratios):.2f}]"
        )
        rows += [
            Row(
                "plan-repeats",
                "baseline, same command, median",
                round(statistics.median(theirs.warm), 2),
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
