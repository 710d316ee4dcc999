"""``judgegrid validate`` on an alias bomb: refused at once, in little memory.

    PYTHONPATH=src python benches/bench_yaml_bomb.py [--depth 9] [--runs 5]

A matrix of nested anchors (nine lists of nine aliases, ``--depth`` deep: 9^9 values once
expanded) loads in no time with PyYAML's safe loader, which keeps an alias as a reference; what
walked it next (validation) ran past 60 s and grew 600 MB every 5 s (issue 39). The bounded
loader (``inputs/yaml_text.py``) measures the document before anything walks it. Timed as a user
runs it: the console script in a fresh process, wall clock (median and range of ``--runs``),
beside the same command on a small valid matrix (the start-up alone); memory: the child's peak
resident size less the valid matrix's. Targets (issue 39): refused in under 1 s of its own, and
under 50 MB more memory.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import JUDGEGRID, Row, emit, load_average, verdict

TARGET_S = 1.0
TARGET_MB = 50.0
VALID = "judges: [{id: openai/gpt-4o-mini}]\nmetrics: [faithfulness]\ndataset: demo\n"


def bomb(depth: int) -> str:
    """A matrix whose ``judges`` stand for 9^depth values."""
    names = [f"l{i}" for i in range(depth)]
    lines = [f'{names[0]}: &{names[0]} ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for below, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [{', '.join([f'*{below}'] * 9)}]")
    lines.append(f"judges: *{names[-1]}")
    return "\n".join(lines) + "\nmetrics: [faithfulness]\ndataset: demo\n"


def validate(matrix: Path) -> tuple[float, float, int, str]:
    """Wall seconds, the child's peak resident MiB, its exit code and its last words."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", JUDGEGRID, "validate", str(matrix)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    wall = time.perf_counter() - start
    peak = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    return wall, peak, done.returncode, (done.stdout + done.stderr).strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="judgegrid-bench-yaml-"))
    (folder / "bomb.yaml").write_text(bomb(args.depth), encoding="utf-8")
    (folder / "valid.yaml").write_text(VALID, encoding="utf-8")
    print(f"load average before: {load_average()}")
    valid = [validate(folder / "valid.yaml") for _ in range(args.runs)]
    bombs = [validate(folder / "bomb.yaml") for _ in range(args.runs)]
    print(f"alias bomb of 9^{args.depth} values: exit {bombs[0][2]}: {bombs[0][3]}")
    start_s = statistics.median(w for w, *_ in valid)
    bomb_s = statistics.median(w for w, *_ in bombs)
    own_s = bomb_s - start_s
    # peak RSS of all children so far is a running maximum: the valid runs came first
    extra_mb = max(0.0, max(p for _, p, *_ in bombs) - max(p for _, p, *_ in valid))
    walls = [w for w, *_ in bombs]
    print(f"validate, valid matrix: {start_s:.2f} s (median of {args.runs})")
    print(f"validate, alias bomb:   {bomb_s:.2f} s [{min(walls):.2f}-{max(walls):.2f}]")
    print(f"the bomb's own time: {own_s:.3f} s; its extra peak memory: {extra_mb:.1f} MiB")
    print(f"load average after: {load_average()}")
    refused = all(code == 2 for _, _, code, _ in bombs)
    emit(
        [
            Row("yaml-bomb", "refused with exit 2", str(refused), "", "True", verdict(refused)),
            Row(
                "yaml-bomb",
                "own time",
                round(own_s, 3),
                "s",
                f"< {TARGET_S}",
                verdict(own_s < TARGET_S),
            ),
            Row(
                "yaml-bomb",
                "extra peak memory",
                round(extra_mb, 1),
                "MiB",
                f"< {TARGET_MB}",
                verdict(extra_mb < TARGET_MB),
            ),
        ]
    )


if __name__ == "__main__":
    main()
