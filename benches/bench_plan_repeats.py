"""``judgegrid plan`` on ``repeats: 1000000`` (one sample, one metric, one judge): at once.

    PYTHONPATH=src python benches/bench_plan_repeats.py [REPEATS]

The plan walks the first repeats cell by cell and counts the later ones from one repeat's
requests (``plan.requests.later_repeats``), so a million repeats costs what three do instead of
building a million cells (issue 31: it printed nothing for a minute). Timed three ways: the
command in a child process as a user runs it (wall, start-up included), the same command on
``repeats: 1`` (the start-up and a one-repeat plan: what the million adds is the difference),
and ``api.plan_grid`` in this process once judgegrid is imported (the plan alone). Each child
runs twice and the second is the figure: the first compiles bytecode.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from common import Row, emit, load_average, timed_judgegrid, verdict

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


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-plan-") as tmp:
        folder = Path(tmp)
        env = os.environ | {"JUDGEGRID_CACHE_DIR": str(folder / "cache")}  # every call planned
        many, one = write_inputs(folder, repeats), write_inputs(folder, 1)
        timed_judgegrid(["plan", str(many)], env)  # compiles the bytecode
        wall, output = timed_judgegrid(["plan", str(many)], env)
        wall_one, _ = timed_judgegrid(["plan", str(one)], env)
        os.environ["JUDGEGRID_CACHE_DIR"] = env["JUDGEGRID_CACHE_DIR"]
        from judgegrid import api

        api.plan_grid(one)  # imports and tokenizers warmed
        start = time.perf_counter()
        plan = api.plan_grid(many)
        in_process = time.perf_counter() - start
    calls = plan.total("calls")
    print("\n".join(line for line in output.splitlines() if line.startswith(("total", "cells:"))))
    print(
        f"judgegrid plan, repeats: {repeats:,}: {wall:.2f} s wall ({plan.cells:,} cells, "
        f"{calls:,} calls); repeats: 1: {wall_one:.2f} s; plan_grid in process: "
        f"{in_process:.3f} s; load {load_average()}"
    )
    emit(
        [
            Row(
                "plan-repeats",
                f"`judgegrid plan` wall time, repeats: {repeats:,} (1 sample, 1 metric)",
                round(wall, 2),
                "s",
                f"< {TARGET_S:g}",
                verdict(wall < TARGET_S),
            ),
            Row(
                "plan-repeats", "the same command on repeats: 1 (start-up)", round(wall_one, 2), "s"
            ),
            Row(
                "plan-repeats",
                f"api.plan_grid in process, repeats: {repeats:,}",
                round(in_process, 3),
                "s",
                f"< {TARGET_S:g}",
                verdict(in_process < TARGET_S),
            ),
            Row("plan-repeats", "calls planned", calls),
            Row("plan-repeats", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
