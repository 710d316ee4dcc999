"""Shards scored by workers: local processes (joblib's loky) or a Ray cluster, one interface.

The driver splits the cells not yet in the run database into shards (``shards.py``), hands them
to at most ``workers`` workers at a time, and writes each finished shard's rows itself, in one
transaction (``RunStore.absorb``): the run database is the driver's alone, and holds a shard whole
or not at all, so a shard is the unit of resume. The progress bar sees every cell of a shard as
it lands.

A worker that dies (SIGKILL, out of memory, a lost node) costs the shards it had in flight, which
are run again; a shard lost ``MAX_SHARD_LOSSES`` times has its cells written as failed with that
cause, so the run still ends with every cell scored, failed or skipped. With loky a dead worker
breaks the whole pool: the shards then in flight on the other workers are lost and rerun too
(each at most one shard per worker). On Ctrl-C or SIGTERM the workers are killed and the finished
shards stay written.

Why Ray tasks, not joblib's Ray backend: a Ray task is retried by Ray itself when its worker or
node dies (``max_retries``), on another node, without failing the rest of the batch, and
``ray.wait`` hands back each shard as it finishes; joblib's Ray backend goes through Ray's
multiprocessing.Pool shim, where a lost worker fails the whole ``Parallel`` call as loky's does,
and adds a layer that neither connects to a cluster nor retries for us. A worker node removed
mid-run on Ray's multi-node test cluster is tested in ``tests/run/test_ray_cluster.py``: its shard
runs again elsewhere, the written shards are not asked again.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from joblib.externals.loky import get_reusable_executor
from joblib.externals.loky.process_executor import TerminatedWorkerError

from judgegrid.core.cells import Cell
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.options import Execution
from judgegrid.core.records import SCORE_COLUMNS, ScoreRow
from judgegrid.core.redaction import redact_text
from judgegrid.core.sample import Dataset
from judgegrid.core.usage import Usage
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.shards import Shard, split_shards, worker_matrix
from judgegrid.run.runner import ProgressHook, Tally
from judgegrid.run.workers import ShardJob, ShardRows, run_shard
from judgegrid.store.run_db import RunStore

STATUS = SCORE_COLUMNS.index("status")  # where a shard's score row says how its cell ended

MAX_SHARD_LOSSES = 3
_POLL_S = 0.25  # how often the driver looks up from waiting (so Ctrl-C is seen at once)


@dataclass
class Outcome:
    """A shard back from a worker: its rows, or why it could not be scored."""

    number: int
    rows: ShardRows | None = None
    error: str | None = None
    rerun: bool = False  # lost with a worker, to be run again (no rows yet)


class Backend(Protocol):
    def results(self, jobs: list[ShardJob]) -> Iterator[Outcome]: ...

    def close(self) -> None: ...


def run_sharded(
    matrix: Matrix,
    data: Dataset,
    store: RunStore,
    cells: list[Cell],
    execution: Execution,
    use_cache: bool,
    on_progress: ProgressHook | None = None,
) -> Tally:
    """Score the cells not yet in ``store`` on the execution's workers; return the tally."""
    finished = store.finished_cells()
    todo = [c for c in cells if c not in finished]
    tally = Tally(total=len(cells), done=len(cells) - len(todo), already=len(cells) - len(todo))
    share = worker_matrix(matrix, execution.workers)
    split = split_shards(todo, execution.workers, slots=share.concurrency.total)
    shards = {s.number: s for s in split}
    driver = os.getpid() if execution.engine == "processes" else None
    jobs = [_job(s, share, data, use_cache, driver) for s in shards.values()]
    backend = open_backend(execution)
    try:
        for outcome in backend.results(jobs):
            if outcome.rerun:
                tally.shards_rerun += 1
                continue
            if outcome.rows is not None:
                store.absorb(outcome.rows.tables)
                tally.cached_answers += outcome.rows.cached_answers
                tally.cached_vectors += outcome.rows.cached_vectors
                tally.worker_cpu_s += outcome.rows.cpu_s
                tally.worker_peak_mb = max(tally.worker_peak_mb, outcome.rows.peak_rss_mb)
                statuses = [row[STATUS] for row in outcome.rows.tables["scores"]]
            else:
                statuses = _write_lost(store, shards[outcome.number], outcome.error or "")
            _count(tally, shards[outcome.number].cells, statuses, store, on_progress)
    finally:
        backend.close()
    return tally


def _job(
    shard: Shard,
    share: Matrix,
    data: Dataset,
    use_cache: bool,
    driver: int | None,
) -> ShardJob:
    """A shard's job: the matrix under one worker's ``share`` of the limits, its own samples."""
    ids = shard.sample_ids
    samples = tuple(s for s in data if s.id in ids)
    return ShardJob(shard.number, share, samples, shard.cells, use_cache, driver)


def _write_lost(store: RunStore, shard: Shard, error: str) -> list[str]:
    """A shard no worker could finish: its cells failed, with the cause."""
    now = time.time()
    for cell in shard.cells:
        store.write_score(ScoreRow.of(cell, "failed", Usage(), 0.0, now, error=error))
    store.writes.flush()
    return ["failed"] * len(shard.cells)


def _count(
    tally: Tally,
    cells: tuple[Cell, ...],
    statuses: list[str],
    store: RunStore,
    on_progress: ProgressHook | None,
) -> None:
    tally.calls = store.calls_recorded
    for cell, status in zip(cells, statuses, strict=False):
        tally.done += 1
        setattr(tally, status, getattr(tally, status) + 1)
        if on_progress:
            on_progress(tally, cell, status)


def open_backend(execution: Execution) -> Backend:
    if execution.engine == "ray":
        return RayBackend(execution.workers, execution.address)
    return ProcessBackend(execution.workers)


def _lost_message(what: str, exc: BaseException) -> str:
    return redact_text(f"{what}: {type(exc).__name__}: {exc}")[:500]


class ProcessBackend:
    """Local worker processes through joblib's loky (the executor joblib itself runs on).

    After a run that finished, the workers stay for loky's idle minute, so the next run of this
    process (``judgegrid pairs`` runs one per aspect) does not import everything again; they are
    replaced when the environment changed (a key set since), and killed after an interrupt.
    """

    def __init__(self, workers: int):
        self.workers = workers
        self._executor: Any = None
        self._finished = False

    def results(self, jobs: list[ShardJob]) -> Iterator[Outcome]:
        queue, losses = list(jobs), dict[int, int]()
        futures: dict[cf.Future[ShardRows], ShardJob] = {}
        while queue or futures:
            # at most one shard per worker: each holds 1/workers of the limits, and a dead
            # worker costs only the shards then running
            self._executor = _executor(self.workers)
            while queue and len(futures) < self.workers:
                job = queue.pop(0)
                futures[self._executor.submit(run_shard, job)] = job
            done, _ = cf.wait(futures, timeout=_POLL_S, return_when=cf.FIRST_COMPLETED)
            lost: list[ShardJob] = []
            for future in done:
                job = futures.pop(future)
                try:
                    yield Outcome(job.number, rows=future.result())
                except (TerminatedWorkerError, cf.process.BrokenProcessPool):
                    lost.append(job)
                except Exception as exc:  # the shard itself raised: a bug, kept as the cause
                    yield Outcome(job.number, error=_lost_message("the shard failed", exc))
            if lost:  # loky's pool is broken: the other workers' shards are gone with it
                lost += futures.values()
                futures.clear()
                yield from _rerun_or_fail(lost, losses, queue)
        self._finished = True

    def close(self) -> None:
        if self._executor is not None and not self._finished:
            self._executor.shutdown(wait=False, kill_workers=True)
        self._executor = None


_pool_environment: list[int] = []  # the environment loky's reusable workers were started with


def _executor(workers: int) -> Any:
    """loky's reusable executor, new if the environment changed since its workers started
    (they read keys from it, and a kept worker would keep an old one)."""
    now = hash(frozenset(os.environ.items()))
    same = _pool_environment == [now]
    _pool_environment[:] = [now]
    return get_reusable_executor(max_workers=workers, timeout=60, reuse="auto" if same else False)


def _rerun_or_fail(
    lost: list[ShardJob], losses: dict[int, int], queue: list[ShardJob]
) -> Iterator[Outcome]:
    """Shards lost with a worker go first in the queue again; one lost too often is failed."""
    for job in reversed(lost):
        losses[job.number] = losses.get(job.number, 0) + 1
        if losses[job.number] < MAX_SHARD_LOSSES:
            queue.insert(0, job)
            yield Outcome(job.number, rerun=True)
        else:
            message = f"a worker died running this shard {MAX_SHARD_LOSSES} times"
            yield Outcome(job.number, error=message)


class RayBackend:
    """Ray tasks on a cluster (``address``) or on a local Ray instance started for the run."""

    def __init__(self, workers: int, address: str | None):
        self.workers, self.address = workers, address
        self._started = False
        self._refs: dict[Any, int] = {}
        self._module: Any = None

    def _ray(self) -> Any:
        # imported here: Ray is an optional dependency (the [ray] extra), large and slow to load,
        # and only a run with backend: ray needs it
        try:
            import ray
        except ImportError:
            raise OptionError(
                "execution.backend",
                [Problem("", "ray is not installed; pip install 'judgegrid[ray]'")],
            ) from None
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
            self._started = True
        self._module = ray
        return ray

    def results(self, jobs: list[ShardJob]) -> Iterator[Outcome]:
        ray = self._ray()
        task = ray.remote(num_cpus=1, max_retries=MAX_SHARD_LOSSES)(run_shard)
        queue = list(jobs)
        while queue or self._refs:
            while queue and len(self._refs) < self.workers:  # the limits were split this many ways
                job = queue.pop(0)
                self._refs[task.remote(job)] = job.number
            done, _ = ray.wait(list(self._refs), num_returns=1, timeout=_POLL_S)
            for ref in done:
                number = self._refs.pop(ref)
                try:
                    yield Outcome(number, rows=ray.get(ref))
                except Exception as exc:  # retried by Ray MAX_SHARD_LOSSES times, or a bug
                    yield Outcome(number, error=_lost_message("the shard failed", exc))

    def close(self) -> None:
        ray = self._module
        if ray is None:
            return
        for ref in self._refs:
            ray.cancel(ref, force=True)
        self._refs.clear()
        if self._started:
            ray.shutdown()
            self._started = False
