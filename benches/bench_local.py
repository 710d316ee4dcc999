"""The embedded judge (local/gemma-3-270m via llama.cpp): calls and tokens per second.

    PYTHONPATH=src python benches/bench_local.py [--samples 10] [--budget 60]

Scores Faithfulness on demo samples one after another, two judge calls each (the statements of
the answer, then one NLI verdict per statement), the way a grid sends them, after one warm-up
sample that loads the model. No new sample is started after ``--budget`` seconds: on a busy
2-core machine a call can take half a minute (llama.cpp's threads wait for each other). Prints
calls/s, generated tokens/s, prompt tokens/s, and the load average next to them: the figure
depends on what else the machine runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

from common import Row, emit, load_average

JUDGE = "local/gemma-3-270m"


def main() -> None:
    parser = argparse.ArgumentParser()
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
    from judgegrid.dataset import load_dataset
    from judgegrid.errors import JudgegridError
    from judgegrid.metrics import Faithfulness

    options = {"temperature": 0.0, "max_tokens": 96, "seed": 7}
    samples = list(load_dataset("demo"))
    metric = Faithfulness()
    warm = samples[-1]
    with contextlib.suppress(JudgegridError):  # a weak answer still loaded the model
        metric.score(warm, judge=JUDGE, judge_options=options)
    load_before = load_average()
    calls = tokens_in = tokens_out = failed = 0
    start = time.perf_counter()
    for sample in samples[: args.samples]:
        if time.perf_counter() - start > args.budget:
            break
        try:
            result = metric.score(sample, judge=JUDGE, judge_options=options)
            usage = result.usage
        except JudgegridError as exc:  # a failed step still made its calls
            failed += 1
            usage = exc.usage
            if usage is None:
                continue
        calls += usage.calls
        tokens_in += usage.tokens_in
        tokens_out += usage.tokens_out
    wall = time.perf_counter() - start
    load = f"{load_before} before, {load_average()} after ({os.cpu_count()} CPUs)"
    print(
        f"{calls} calls ({failed} samples failed) in {wall:.1f} s: {calls / wall:.2f} calls/s, "
        f"{tokens_out / wall:.1f} generated tokens/s, {tokens_in / wall:.0f} prompt tokens/s "
        f"({tokens_in} in, {tokens_out} out); load average {load}"
    )
    emit(
        [
            Row(
                "local judge",
                f"calls per second ({calls} Faithfulness calls)",
                round(calls / wall, 2),
                "calls/s",
            ),
            Row("local judge", "generated tokens per second", round(tokens_out / wall, 1), "tok/s"),
            Row("local judge", "prompt tokens per second", round(tokens_in / wall), "tok/s"),
            Row("local judge", "load average (1, 5, 15 min) during the run", load),
        ]
    )


if __name__ == "__main__":
    main()
