"""JudgeBench's files in small: a data set file and two judges' files in its format, for the
labelling person's replay and the bench's smoke runs (tests/testing), and the bench run on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _pair(i: int, truth: str) -> dict:
    return {
        "pair_id": f"p{i:03d}",
        "original_id": i,
        "source": "mmlu-pro-law" if i % 2 else "livebench-math",
        "question": f"question {i}",
        "response_A": f"answer A {i}",
        "response_B": f"answer B {i}",
        "label": truth,
    }


def judgebench_files(folder: Path, n: int = 60) -> dict[str, np.ndarray]:
    """A data set file and two judges' files in JudgeBench's format: ``good`` right on 5 pairs
    of 6, ``bad`` on every other pair; ``bad``'s second trial (order swapped) ties throughout,
    so its sum rule rests on the first trial alone; the reward model's judgments a Python
    literal, as JudgeBench writes them."""
    rng = np.random.default_rng(0)
    truth = np.where(rng.random(n) < 0.5, "A>B", "B>A")
    flip = {"A>B": "B>A", "B>A": "A>B"}
    right = {"good": np.arange(n) % 6 != 0, "bad": np.arange(n) % 2 == 0}
    truth = [str(t) for t in truth]
    lines = {"data": [json.dumps(_pair(i, t)) for i, t in enumerate(truth)]}
    for judge, correct in right.items():
        rows = []
        for i, t in enumerate(truth):
            first = str(t) if correct[i] else flip[str(t)]
            second = flip[first] if judge == "good" else "A=B"  # in the swapped order's terms
            trials = [
                {"judgment": {"judge_model": judge, "response": "..."}, "decision": first},
                {"judgment": {"judge_model": judge, "response": "..."}, "decision": second},
            ]
            record = _pair(i, t) | {"judge_name": "arena_hard" if judge == "good" else "rm"}
            record["judgments"] = trials if judge == "good" else repr(trials)
            rows.append(json.dumps(record))
        lines[judge] = rows
    (folder / "dataset=judgebench,response_model=x.jsonl").write_text("\n".join(lines["data"]))
    for judge in right:
        name = f"dataset=judgebench,response_model=x,judge_name=j,judge_model={judge}.jsonl"
        (folder / name).write_text("\n".join(lines[judge]))
    return right


def run_bench_labels(folder: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``benches/bench_labels.py --quick`` with ``flags`` on JudgeBench's files in small
    (written into ``folder``), this checkout's source first on the path."""
    judgebench_files(folder)
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    script = str(ROOT / "benches/bench_labels.py")
    return subprocess.run(
        [sys.executable, script, "--quick", *flags, "--judgebench", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
