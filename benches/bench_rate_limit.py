"""A requests-per-minute limit held across workers, measured on the server's request log.

    PYTHONPATH=src python benches/bench_rate_limit.py [--rpm 120] [--workers 2] [--samples 40]

One judge with ``requests-per-minute`` set, scored on N process workers against the
fault-injection server (in this process: its ``arrivals`` are the log). Each worker runs under its
share of the limit; the figure is the most requests the server saw in any 60-second window,
against the limit. The run lasts well over a minute, so the first window is not the only one.
"""

from __future__ import annotations

import argparse
import bisect
import tempfile
from pathlib import Path

import yaml
from common import KEY_ENV, Row, bench_environment, emit, load_average, verdict
from grid import synthetic_samples, write_jsonl

from judgegrid.testing.fault_server import FaultPlan, start_fault_server


def busiest_window(arrivals: list[float], seconds: float = 60.0) -> int:
    """The most arrivals in any window of ``seconds`` (each window starting at an arrival)."""
    times = sorted(arrivals)
    return max((bisect.bisect_left(times, t + seconds) - i for i, t in enumerate(times)), default=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpm", type=float, default=120)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    bench_environment()
    from judgegrid import run_grid

    server = start_fault_server(FaultPlan(latency_s=0.02))
    try:
        with tempfile.TemporaryDirectory(prefix="judgegrid-bench-") as tmp:
            work = Path(tmp)
            data = write_jsonl(work / "s.jsonl", synthetic_samples(args.samples, contexts=2))
            options = {"api_base": server.url, "api_key_env": KEY_ENV}
            matrix = {
                "dataset": str(data),
                "defaults": {"judge": options},
                "concurrency": {"total": 16, "per_model": 16},
                "judges": [{"id": "openai/fake-limited", "requests_per_minute": args.rpm}],
                "metrics": ["faithfulness", "context_precision", "context_recall"],
                "execution": {"workers": args.workers},
            }
            path = work / "m.yaml"
            path.write_text(yaml.safe_dump(matrix))
            result = run_grid(path, run_dir=work / "run", use_cache=False)
    finally:
        server.stop()
    arrivals = list(server.arrivals)
    span = max(arrivals) - min(arrivals)
    busiest = busiest_window(arrivals)
    print(
        f"{len(arrivals)} requests over {span:.0f} s on {args.workers} workers, limit "
        f"{args.rpm:.0f}/min: busiest 60-s window {busiest} requests; "
        f"{len(result.scores)} cells; load average {load_average()}"
    )
    emit(
        [
            Row(
                "rate limit",
                f"busiest 60-s window, {args.workers} workers, limit {args.rpm:.0f} requests/min "
                f"({len(arrivals)} requests over {span:.0f} s)",
                busiest,
                "requests",
                f"<= {args.rpm:.0f}",
                verdict(busiest <= args.rpm),
            ),
            Row("rate limit", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
