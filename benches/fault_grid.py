"""The grid against the fault-injection server: throughput under faults, and a cached rerun.

    PYTHONPATH=src python benches/fault_grid.py [--fault-rate 0.2] [--latency-ms 0] [--repeats 8]

Prints requests, wall time and requests per second for the first run, then the same for an
identical rerun (served by the cross-run cache). Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import yaml

KEY_ENV = "JUDGEGRID_BENCH_KEY"


def matrix(url: str, repeats: int, judges: int, total: int, per_model: int) -> dict:
    options = {"api_base": url, "api_key_env": KEY_ENV, "timeout": "300ms"}
    return {
        "name": "fault-bench",
        "dataset": "demo",
        "defaults": {"judge": {"temperature": 0.0, "seed": 1, **options}, "embedding": options},
        "retry": {"initial_interval": "1ms", "max_interval": "10ms", "max_attempts": 4},
        "concurrency": {"total": total, "per_model": per_model},
        "judges": [{"id": f"openai/fake-{i}", "label": f"fake-{i}"} for i in range(judges)],
        "embeddings": [{"id": "openai/fake-embed", "label": "embed", "dimensions": [64, 16]}],
        "metrics": ["response_relevancy", "faithfulness", "context_precision", "context_recall"],
        "strictness": [1, 3],
        "repeats": repeats,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--judges", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--per-model", type=int, default=8)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="judgegrid-bench-"))
    os.environ["JUDGEGRID_CACHE_DIR"] = str(work / "cache")  # never the user's cache
    os.environ[KEY_ENV] = "sk-bench-dummy"
    from judgegrid import run_grid
    from judgegrid.testing.fault_server import FaultPlan, start_fault_server

    share = args.fault_rate / 5
    plan = FaultPlan(
        mix={k: share for k in ("429", "500", "slow", "malformed", "truncated")},
        latency_s=args.latency_ms / 1000,
        slow_s=0.6,
        retry_after_s=0.002,
    )
    server = start_fault_server(plan)
    try:
        path = work / "matrix.yaml"
        grid = matrix(server.url, args.repeats, args.judges, args.concurrency, args.per_model)
        path.write_text(yaml.safe_dump(grid))
        for name in ("first run", "identical rerun"):
            started = time.perf_counter()
            result = run_grid(path, run_dir=work / name.replace(" ", "-"))
            wall = time.perf_counter() - started
            counts = result.scores["status"].value_counts().to_dict()
            rate = len(result.calls) / wall if wall else float("nan")
            print(
                f"{name}: {len(result.scores)} cells {counts}; requests {len(result.calls)} "
                f"(server saw {server.requests}); {wall:.1f} s; {rate:.0f} requests/s; "
                f"cache reused {result.tally.cached_answers} answers, "
                f"{result.tally.cached_vectors} vectors"
            )
            server.reset_counts()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
