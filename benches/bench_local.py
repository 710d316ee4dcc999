"""An embedded judge (local/gemma-3-270m or local/smollm2-135m via llama.cpp): calls and tokens
per second.

    PYTHONPATH=src python benches/bench_local.py [--model local/smollm2-135m] [--samples 10]
                                                 [--budget 60]

Scores Faithfulness on demo samples one after another as one-sample grids (two judge calls
each: the statements of the answer, then the NLI verdicts), after a warm-up sample that loads
the model. Calls and tokens come from the calls table, so a failed step counts too; the rates
are over the model's own time (the calls' latency), not the harness around it. No new sample
is started after ``--budget`` seconds: on a busy 2-core machine a call can take half a minute
(llama.cpp's threads wait for each other). The load average is printed next to the figures:
they depend on what else the machine runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from common import Row, emit, load_average

# As model_matrices/local.yaml's first judge; no retry waits, one call at a time.
MATRIX = {
    "name": "bench-local",
    "judges": [
        {
            "id": "local/gemma-3-270m",
            "options": {"temperature": 0.0, "max_tokens": 192, "seed": 7},
        }
    ],
    "metrics": ["faithfulness"],
    "concurrency": {"total": 1, "per_model": 1},
    "retry": {"initial_interval": "1ms", "max_interval": "5ms", "max_attempts": 2},
}


def with_judge(matrix: dict[str, Any], model: str) -> dict[str, Any]:
    """The benchmark's matrix with another local judge in place of Gemma."""
    judge = {**matrix["judges"][0], "id": model}
    return {**matrix, "judges": [judge]}


def run_sample(matrix: Any, sample: Any, work: Path) -> tuple[int, int, int, float]:
    """One sample's Faithfulness cell as a grid runs it: (calls, tokens in, out, model time).

    Read from the run's calls table, so a failed step's calls and tokens count too."""
    from judgegrid.api import run_grid
    from judgegrid.inputs.dataset import Dataset

    result = run_grid(matrix, Dataset("demo", (sample,)), reports_dir=work, use_cache=False)
    calls = result.calls
    return (
        len(calls),
        int(calls["tokens_in"].sum()),
        int(calls["tokens_out"].sum()),
        float(calls["latency_s"].sum()),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="local/gemma-3-270m", help="a local judge's model id")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument(
        "--budget", type=float, default=60.0, help="stop starting samples after this many seconds"
    )
    args = parser.parse_args()
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        print("skipped: llama-cpp-python (the `local` extra) is not installed")
        emit([Row("local judge", "not run: the `local` extra is not installed", "-")])
        return
    from judgegrid.inputs.dataset import load_dataset
    from judgegrid.inputs.matrix import parse_matrix

    matrix = parse_matrix(yaml.safe_dump(with_judge(MATRIX, args.model)))
    samples = list(load_dataset("demo"))
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-local-") as tmp:
        work = Path(tmp)
        run_sample(matrix, samples[-1], work)  # warm-up: loads the model
        load_before = load_average()
        calls = tokens_in = tokens_out = 0
        model_s = 0.0
        start = time.perf_counter()
        for sample in samples[: args.samples]:
            if time.perf_counter() - start > args.budget:
                break
            c, t_in, t_out, seconds = run_sample(matrix, sample, work)
            calls, tokens_in, tokens_out, model_s = (
                calls + c,
                tokens_in + t_in,
                tokens_out + t_out,
                model_s + seconds,
            )
        wall = time.perf_counter() - start
    load = f"{load_before} before, {load_average()} after ({os.cpu_count()} CPUs)"
    print(
        f"{calls} calls in {model_s:.1f} s of model time ({wall:.1f} s wall): "
        f"{calls / model_s:.2f} calls/s, {tokens_out / model_s:.1f} generated tokens/s, "
        f"{tokens_in / model_s:.0f} prompt tokens/s ({tokens_in} in, {tokens_out} out); "
        f"load average {load}"
    )
    emit(
        [
            Row(
                "local judge",
                f"{args.model}: calls per second ({calls} Faithfulness calls)",
                round(calls / model_s, 2),
                "calls/s",
            ),
            Row(
                "local judge",
                "generated tokens per second",
                round(tokens_out / model_s, 1),
                "tok/s",
            ),
            Row("local judge", "prompt tokens per second", round(tokens_in / model_s), "tok/s"),
            Row("local judge", "load average (1, 5, 15 min) during the run", load),
        ]
    )


if __name__ == "__main__":
    main()
