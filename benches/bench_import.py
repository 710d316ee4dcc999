"""``judgegrid import`` of a long table of 1,000,000 verdicts, then ``judgegrid report`` on it.

    PYTHONPATH=src python benches/bench_import.py [--rows 1000000] [--judges 5]

The table is JSON Lines (the slowest of the long table's formats to read: one ``json.loads`` a
line), one verdict a row. ``--shape pairwise`` (the default): JudgeBench's shape at scale, a
pairwise criterion whose pairs each judge saw in both orders, and a person's label a pair (its
truth), so the card rests on people; ``--shape pointwise``: ``--judges`` judges × samples × two
metrics (faithfulness, a score, and a binary criterion ``polite``, an answer), cost and tokens
on half the samples (the other half unknown), so the card rests on the judges' consensus.
Timed as a user runs it: the console script in a fresh process, wall clock, with its peak
memory (RSS) read in that process at its end. Targets (issue 41): the import within 60 s and
the report within 15 s on 2 cores. The load average is printed before and after: the machine
may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import tempfile
from dataclasses import dataclass
from pathlib import Path

from common import Row, emit, load_average, timed_judgegrid, verdict

IMPORT_TARGET_S = 60.0
REPORT_TARGET_S = 15.0
# the console script, then its own peak memory (KiB on Linux) as its output's last line
PEAK = "PEAK_KIB "
MEASURED = (
    "import resource, sys\n"
    "from judgegrid.entry import main\n"
    "sys.argv[0] = 'judgegrid'\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    f"    print({PEAK!r} + str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
)


def write_pointwise(path: Path, rows: int, judges: int, seed: int = 0) -> int:
    """``rows`` verdicts (rounded down to whole samples) of faithfulness and a binary criterion;
    the number of samples."""
    rng = random.Random(seed)
    samples = rows // (judges * 2)
    with path.open("w", encoding="utf-8") as out:
        for s in range(samples):
            texts = {"user_input": f"Question {s}?", "response": f"Answer {s}."}
            paid = {"cost": 0.0004, "tokens_in": 310, "tokens_out": 42} if s % 2 else {}
            for j in range(judges):
                base = {"sample_id": f"s{s}", "judge": f"judge-{j}", **paid}
                score = {"metric": "faithfulness", "score": round(rng.random(), 3)}
                out.write(json.dumps({**base, **score, **(texts if j == 0 else {})}) + "\n")
                answer = "pass" if rng.random() < 0.7 else "fail"
                out.write(json.dumps({**base, "metric": "polite", "answer": answer}) + "\n")
    return samples


def write_pairwise(path: Path, rows: int, judges: int, seed: int = 0) -> int:
    """``rows`` verdicts of a pairwise criterion, each pair in both orders under every judge
    (JudgeBench's shape at scale), and a person's label a pair (its truth); the pairs."""
    rng = random.Random(seed)
    pairs = rows // (judges * 2)
    with path.open("w", encoding="utf-8") as out:
        for p in range(pairs):
            texts = {"user_input": f"Question {p}?", "response_a": "x", "response_b": "y"}
            truth = rng.choice("ab")
            for j in range(judges):
                skill = 0.55 + 0.05 * j
                for order in ("ab", "ba"):
                    right = rng.random() < skill
                    winner = truth if right else ("b" if truth == "a" else "a")
                    answer = "A" if winner == order[0] else "B"
                    base = {"sample_id": f"p{p}", "judge": f"judge-{j}", "metric": "better"}
                    row = {**base, "order": order, "answer": answer, "cost": 0.0002}
                    if j == 0 and order == "ab":
                        row |= texts
                    out.write(json.dumps(row) + "\n")
            person = {"sample_id": f"p{p}", "judge": "truth", "metric": "better"}
            out.write(json.dumps({**person, "answer": truth, "source": "people"}) + "\n")
    return pairs


@dataclass(frozen=True)
class Timed:
    """One command: wall and CPU seconds (on a shared machine CPU is the steadier figure: wall
    grows with the load, CPU barely), peak MiB, and what it printed."""

    wall: float
    cpu: float
    peak_mib: float
    printed: str

    def __str__(self) -> str:
        return f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU, peak {self.peak_mib:.0f} MiB"


def timed(args: list[str]) -> Timed:
    """One ``judgegrid ARGS`` in a fresh process, measured."""
    before = _children_cpu()
    wall, said = timed_judgegrid(args, code=MEASURED)
    printed, _, peak = said.rstrip("\n").rpartition(PEAK)
    return Timed(wall, _children_cpu() - before, int(peak) / 1024, printed)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--shape", choices=("pairwise", "pointwise"), default="pairwise")
    parser.add_argument("--no-report", action="store_true", help="Time the import alone.")
    args = parser.parse_args()
    print(f"load average before: {load_average()} on {os.cpu_count()} cores")
    write = write_pairwise if args.shape == "pairwise" else write_pointwise
    results = []
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-import-") as folder:
        table = Path(folder) / "verdicts.jsonl"
        samples = write(table, args.rows, args.judges)
        rows = samples * args.judges * 2
        size = table.stat().st_size / 2**20
        shape = f"{args.judges} judges, {samples:,} samples"
        print(f"{rows:,} {args.shape} rows ({shape}), {size:.0f} MiB")
        out = Path(folder) / "run"
        done = timed(["import", str(table), "--out", str(out)])
        print(done.printed.strip())
        print(f"import: {done}")
        what = f"{rows:,} {args.shape} long-table rows (JSONL)"
        results += _rows(f"judgegrid import, {what}", "import", done, IMPORT_TARGET_S)
        if not args.no_report:
            done = timed(["report", str(out)])
            print(f"report: {done}")
            what = f"judgegrid report on them ({args.shape})"
            results += _rows(what, "report", done, REPORT_TARGET_S)
    print(f"load average after: {load_average()}")
    emit(results)


def _rows(what: str, process: str, done: Timed, target: float) -> list[Row]:
    return [
        Row("import", what, round(done.wall, 1), "s", f"< {target:.0f}",
            verdict(done.wall < target)),
        Row("import", f"CPU time of the {process} process", round(done.cpu, 1), "s"),
        Row("import", f"peak memory (RSS) of the {process} process", round(done.peak_mib), "MiB"),
    ]  # fmt: skip


if __name__ == "__main__":
    main()
