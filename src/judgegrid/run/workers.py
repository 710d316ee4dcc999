"""One shard scored in a worker: the grid runner on the shard's cells, its rows sent back.

The worker runs the same asyncio runner a one-process run uses, under its share of the matrix's
limits (``shards.worker_matrix``), into a database of its own in memory, and returns the rows
(scores, calls, steps, step names, vectors) for the driver to write: a worker never touches the
run directory, which may be on another machine. The job holds no secret: the matrix names the
environment variables that hold keys, and the worker reads them from its own environment.
"""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from judgegrid.calls.providers import register_local_models
from judgegrid.calls.providers.gateway import litellm_module
from judgegrid.core.cells import Cell
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.run.runner import GridRunner
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore


@dataclass(frozen=True)
class ShardJob:
    """What a worker needs for one shard; pickled to it, so kept to the shard's own samples."""

    number: int
    matrix: Matrix  # the worker's share of the limits
    samples: tuple[Sample, ...]
    cells: tuple[Cell, ...]
    use_cache: bool
    driver_pid: int | None = None  # a local worker's driver: the worker ends when it does


@dataclass
class ShardRows:
    """A finished shard: its rows by table, and what the cross-run cache supplied."""

    number: int
    tables: dict[str, list[tuple[Any, ...]]]
    cached_answers: int = 0
    cached_vectors: int = 0
    worker_pid: int = field(default_factory=os.getpid)
    cpu_s: float = 0.0  # the worker's CPU time on this shard (litellm's import not included)
    peak_rss_mb: float = 0.0  # the worker's peak memory so far


def run_shard(job: ShardJob) -> ShardRows:
    """Score a shard's cells in this process and hand back every row they made."""
    if job.driver_pid is not None:
        _end_with(job.driver_pid)
    _check_keys(job.matrix)
    register_local_models([j.id for j in job.matrix.judges] + [e.id for e in job.matrix.embeddings])
    litellm_module()  # imported before the clock starts: a second, once per worker
    started = time.process_time()
    store = RunStore(":memory:")
    cache = ResultCache() if job.use_cache else None
    runner = GridRunner(
        job.matrix, Dataset("shard", job.samples), store, cache=cache, full_buckets=False
    )
    try:
        tally = asyncio.run(runner.run(list(job.cells)))
        rows = store.shard_rows()
        return ShardRows(
            job.number,
            rows,
            tally.cached_answers,
            tally.cached_vectors,
            cpu_s=time.process_time() - started,
            peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        )
    finally:
        if cache is not None:
            cache.close()
        store.close()


def _check_keys(matrix: Matrix) -> None:
    """The driver checked its own environment; a worker (another node, a Ray instance started
    before the key was set) must have the keys too, or every call fails with a vaguer error."""
    names = {matrix.judge_options(j).api_key_env for j in matrix.judges}
    names |= {matrix.embedding_options(e).api_key_env for e in matrix.embeddings}
    missing = sorted(n for n in names if n and n not in os.environ)
    if missing:
        where = f"worker on {socket.gethostname()} (pid {os.getpid()})"
        problems = [Problem(where, f"the environment variable {n} is not set") for n in missing]
        raise OptionError("execution", problems)


_watched: set[int] = set()


def _end_with(driver: int) -> None:
    """A local worker whose driver was killed (SIGKILL: it could not stop its workers) ends
    too, at once, instead of finishing a shard nobody will write; checked twice a second."""
    if driver in _watched or os.getppid() != driver:
        return
    _watched.add(driver)

    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="judgegrid-driver-watch", daemon=True).start()
