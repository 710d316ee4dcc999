"""Scheduler efficiency: a grid of thousands of calls against a server with a fixed latency.

    PYTHONPATH=src python benches/bench_scheduler.py [--latency 0.05] [--samples 120]
        [--workers 2] [--backend processes|ray] [--floor]

The fault-injection server of ``judgegrid.testing`` (issue 4) runs in a separate process (so its
CPU time is not the harness's) and answers every request after a fixed latency, with no faults.
The runner reaches it through litellm's OpenAI provider, as it would a hosted model, with
concurrency 64 overall and per model. Figures: wall time over the ideal (calls x latency /
concurrency: every slot busy all the time), the harness's CPU time per call (process CPU time /
calls) and its peak memory. With ``--workers N`` the grid runs in shards on N workers
(``--backend`` processes or ray, a local Ray instance), each under 1/N of the limits: the CPU per
call is then the driver's and the workers' together, the memory the largest worker's.
``--floor`` first measures bare ``litellm.acompletion`` on the same server at the same
concurrency: the CPU a call costs before judgegrid does anything.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml
from common import (
    Row,
    bench_environment,
    emit,
    fake_model_options,
    fault_server_available,
    load_average,
    peak_rss_mb,
    start_fault_server,
    verdict,
)
from grid import matrix_dict, synthetic_samples, write_jsonl

TARGET_RATIO = 1.10
CONCURRENCY = 64
# Judge-only metrics: 7 calls per (judge, sample, repeat) whether or not the provider takes n,
# with the dependency of Faithfulness (statements, then verdicts) that a real grid has.
METRICS = ["faithfulness", "context_precision", "context_recall"]


def write_matrix(
    work: Path, url: str, samples: int, repeats: int, provider: str = "openai"
) -> Path:
    options = fake_model_options(url)
    judges = [
        {"id": f"{provider}/fake-judge-{c}", "label": f"judge-{c}", "options": options}
        for c in "abc"
    ]
    data = write_jsonl(work / f"samples-{samples}.jsonl", synthetic_samples(samples))
    matrix = matrix_dict(
        judges,
        [],
        str(data),
        repeats=repeats,
        metrics=METRICS,
        concurrency=CONCURRENCY,
    )
    path = work / f"matrix-{samples}.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


@dataclass
class Measured:
    wall: float
    cpu: float  # the driver's and the workers' CPU seconds
    requests: int
    failed: int
    worker_peak_mb: float = 0.0


def run_once(
    matrix_path: Path, run_dir: Path, workers: int = 1, backend: str | None = None
) -> Measured:
    """One grid run, without the report: in this process, or in shards on workers."""
    from judgegrid.core.options import Execution
    from judgegrid.inputs.matrix import load_matrix
    from judgegrid.inputs.tasks import expand_cells
    from judgegrid.run.backends import run_sharded
    from judgegrid.run.orchestrate import resolve_dataset
    from judgegrid.run.runner import GridRunner
    from judgegrid.store.run_db import DB_NAME, RunStore

    matrix = load_matrix(matrix_path)
    data = resolve_dataset(matrix, matrix_path, None)
    store = RunStore(run_dir / DB_NAME)
    cells = expand_cells(matrix, data)
    execution = Execution(workers=workers, backend=backend)  # type: ignore[arg-type]
    cpu, wall = time.process_time(), time.perf_counter()
    if execution.distributed:
        tally = run_sharded(matrix, data, store, cells, execution, use_cache=False)
    else:
        tally = asyncio.run(GridRunner(matrix, data, store).run(cells))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    requests = len(store.calls_frame())
    store.close()
    return Measured(wall, cpu + tally.worker_cpu_s, requests, tally.failed, tally.worker_peak_mb)


@dataclass
class Floor:
    cpu_ms: float  # CPU a call
    ratio: float  # wall time over the ideal (calls x latency / concurrency)


def litellm_floor(url: str, latency: float, provider: str = "openai", calls: int = 1500) -> Floor:
    """Bare ``litellm.acompletion`` (a judgegrid-sized statements prompt with a JSON schema,
    concurrency 64) on the same server: CPU a call and wall over ideal, the floor under the
    harness."""
    import litellm

    litellm.suppress_debug_info = True
    schema = {
        "type": "object",
        "properties": {"statements": {"type": "array", "items": {"type": "string"}}},
        "required": ["statements"],
    }

    async def one(sem: asyncio.Semaphore, i: int) -> None:
        async with sem:
            await litellm.acompletion(
                model=f"{provider}/fake-floor",
                api_base=url,
                api_key="sk-bench",
                max_retries=0,
                temperature=0.0,
                seed=i,
                messages=[
                    {"role": "system", "content": "You are a careful judge."},
                    {
                        "role": "user",
                        "content": "Break the answer into short statements. " + f"case {i}. " * 80,
                    },
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "S", "schema": schema},
                },
            )

    async def many(n: int) -> None:
        sem = asyncio.Semaphore(CONCURRENCY)
        await asyncio.gather(*(one(sem, i) for i in range(n)))

    asyncio.run(many(100))  # warm-up
    cpu, wall = time.process_time(), time.perf_counter()
    asyncio.run(many(calls))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return Floor(1000 * cpu / calls, wall / (calls * latency / CONCURRENCY))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--samples", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", choices=["processes", "ray"], default=None)
    parser.add_argument("--floor", action="store_true", help="also measure bare litellm")
    parser.add_argument(
        "--provider",
        default="openai",
        choices=["openai", "hosted_vllm"],
        help="litellm's provider for the judges: openai (through the OpenAI SDK) or "
        "hosted_vllm (litellm's own HTTP client, as for a self-hosted vLLM)",
    )
    args = parser.parse_args()
    if not fault_server_available():
        print("skipped: judgegrid.testing.fault_server (issue 4) is not on this branch")
        emit([Row("scheduler", "not run: needs the fault server of issue 4", "-")])
        return
    bench_environment()  # before any worker starts: workers read the key from their environment
    server, url = start_fault_server(args.latency)
    floor = None
    try:
        with tempfile.TemporaryDirectory(prefix="judgegrid-bench-") as tmp:
            work = Path(tmp)
            if args.backend == "ray":  # started here, so both runs share it (and its start-up)
                import ray

                ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            # warm-up: litellm's lazy imports, HTTP clients and the workers' start-up, outside
            # the measurement (the workers stay for the next run)
            warm = write_matrix(work, url, 2 * args.workers, 1, args.provider)
            run_once(warm, work / "warmup", args.workers, args.backend)
            floor = litellm_floor(url, args.latency, args.provider) if args.floor else None
            rss_before = peak_rss_mb()
            m = run_once(
                write_matrix(work, url, args.samples, args.repeats, args.provider),
                work / "run",
                args.workers,
                args.backend,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    wall, cpu, requests, failed = m.wall, m.cpu, m.requests, m.failed
    ideal = requests * args.latency / CONCURRENCY
    ratio = wall / ideal
    cpu_ms = 1000 * cpu / requests
    peak = m.worker_peak_mb or peak_rss_mb()
    where = (
        f"{args.workers} {args.backend or 'processes'} workers"
        if args.workers > 1 or args.backend
        else "1 worker (in process)"
    ) + ("" if args.provider == "openai" else f", {args.provider}/")
    server_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{where}: {requests} requests ({failed} failed cells) at {args.latency * 1000:.0f} ms, "
        f"concurrency {CONCURRENCY}: wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {ratio:.2f}"
    )
    if floor is not None:
        print(
            f"bare litellm.acompletion on the same server: {floor.cpu_ms:.2f} ms CPU per call, "
            f"wall {floor.ratio:.2f}x the ideal"
        )
    print(
        f"harness CPU {cpu:.2f} s = {cpu_ms:.2f} ms/call, {100 * cpu / wall:.0f}% of one core "
        f"over the wall time (the ideal needs <= "
        f"{1000 * args.latency / CONCURRENCY:.2f} ms/call on one core); server CPU "
        f"{server_cpu.ru_utime + server_cpu.ru_stime:.2f} s; peak RSS {peak:.0f} MiB "
        f"({rss_before:.0f} MiB after imports and warm-up); load average {load_average()}"
    )
    emit(
        [
            Row(
                "scheduler",
                f"wall / ideal, {requests} calls at {args.latency * 1000:.0f} ms, "
                f"concurrency {CONCURRENCY}, {where} ({wall:.1f} s / {ideal:.1f} s)",
                round(ratio, 2),
                "x",
                f"<= {TARGET_RATIO}",
                verdict(ratio <= TARGET_RATIO),
            ),
            Row(
                "scheduler",
                f"harness CPU time per call, {where}",
                round(cpu_ms, 2),
                "ms",
                "<= 1.5",
                verdict(cpu_ms <= 1.5),
            ),
            *(
                [
                    Row(
                        "scheduler",
                        f"bare litellm.acompletion CPU per call, {args.provider}/",
                        round(floor.cpu_ms, 2),
                        "ms",
                    ),
                    Row(
                        "scheduler",
                        f"bare litellm.acompletion wall / ideal at "
                        f"{args.latency * 1000:.0f} ms, {args.provider}/",
                        round(floor.ratio, 2),
                        "x",
                    ),
                ]
                if floor is not None
                else []
            ),
            Row("scheduler", f"peak memory (RSS) per worker, {where}", round(peak), "MiB"),
            Row("scheduler", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
