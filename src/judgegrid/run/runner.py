"""The grid runner: cells in, one score row per cell out, written to the run database at once.

Data flows one way: matrix + data set → cells (``tasks``) → judge and embedding calls (``judge``,
``embedder``, ``transport``) → scores (``metrics``) → the store. Cells run concurrently under the
matrix's limits; a cell whose sample lacks a field its metric needs is recorded as skipped, a cell
whose judge failed or answered garbage is recorded as failed with the cause. Nothing is lost on
an interrupt: finished cells are in the database and ``resume`` picks up the rest.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from judgegrid.calls.clients import ClientFactory
from judgegrid.calls.embedder import EmbeddingModel
from judgegrid.calls.judge import JudgeModel
from judgegrid.core.cells import Cell
from judgegrid.core.context import ScoreContext
from judgegrid.core.errors import JudgegridError
from judgegrid.core.records import ScoreRow
from judgegrid.core.redaction import redact_text
from judgegrid.core.sample import Dataset
from judgegrid.core.usage import Usage
from judgegrid.inputs.matrix import Matrix
from judgegrid.metrics import Metric
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore


@dataclass
class Tally:
    """Running counts for the progress bar and the closing summary."""

    total: int
    done: int = 0
    scored: int = 0
    failed: int = 0
    skipped: int = 0
    already: int = 0
    calls: int = 0
    cached_answers: int = 0  # judge answers and vectors the cross-run cache supplied
    cached_vectors: int = 0
    shards_rerun: int = 0  # shards lost with a worker and run again (``backends``)
    worker_cpu_s: float = 0.0  # CPU time the workers spent on the shards they sent back
    worker_peak_mb: float = 0.0  # the largest peak memory of one worker


ProgressHook = Callable[[Tally, Cell, str], None]


class GridRunner:
    def __init__(
        self,
        matrix: Matrix,
        dataset: Dataset,
        store: RunStore,
        seed: int = 0,
        cache: ResultCache | None = None,
        full_buckets: bool = True,
    ):
        """``full_buckets`` False: the per-minute limits start empty (a worker's shards)."""
        self.matrix, self.dataset, self.store, self.cache = matrix, dataset, store, cache
        self._samples = dataset.by_id()
        self.clients = clients = ClientFactory(
            store, matrix.retry, matrix.concurrency, cache, seed, full_buckets=full_buckets
        )
        self.judges: dict[str, JudgeModel] = {
            matrix.judge_label(i): clients.judge(
                matrix.judge_label(i), spec, matrix.judge_options(spec), matrix.batch_for(spec)
            )
            for i, spec in enumerate(matrix.judges)
        }
        self.embeddings: dict[str, EmbeddingModel] = {
            matrix.embedding_label(i): clients.embedder(
                matrix.embedding_label(i),
                spec,
                matrix.embedding_options(spec),
                matrix.batch_for(spec),
            )
            for i, spec in enumerate(matrix.embeddings)
        }
        self.metrics: dict[str, Metric[Any]] = matrix.scorers()
        # the most generations of one request a metric's cells want: made together
        self._generations = matrix.generations()

    async def run(self, cells: list[Cell], on_progress: ProgressHook | None = None) -> Tally:
        """Score every cell not already in the database; return the tally."""
        asyncio.get_running_loop().set_exception_handler(_quiet_about_cancellation)
        finished = self.store.finished_cells()
        todo = [c for c in cells if c not in finished]
        tally = Tally(total=len(cells), done=len(cells) - len(todo), already=len(cells) - len(todo))
        queue: asyncio.Queue[Cell] = asyncio.Queue()
        for cell in todo:
            queue.put_nowait(cell)
        # batch mode: every cell at once, so each stage's requests gather into one batch file
        # (the concurrency limits still hold the live calls back)
        lanes = len(todo) if self.matrix.batched else self.matrix.concurrency.total * 4
        workers = [
            asyncio.create_task(self._worker(queue, tally, on_progress))
            for _ in range(min(len(todo), lanes) or 1)
        ]
        with ExitStack() as batches:  # one commit per 50 ms of rows, not one per row
            batches.enter_context(self.store.writes.batched())
            if self.cache is not None:
                batches.enter_context(self.cache.writes.batched())
            ticker = asyncio.create_task(self._commit_on_time())
            try:
                await asyncio.gather(*workers)
            finally:  # on Ctrl-C (asyncio cancels this task) stop the workers before returning
                for w in [*workers, ticker]:
                    w.cancel()
                await asyncio.gather(*workers, ticker, return_exceptions=True)
        if self.cache is not None:
            tally.cached_answers = self.cache.answer_hits
            tally.cached_vectors = self.cache.vector_hits
        return tally

    async def _commit_on_time(self) -> None:
        """Rows wait at most one interval for their commit, also while no new row comes."""
        while True:
            await asyncio.sleep(self.store.writes.interval)
            self.store.writes.flush_due()
            if self.cache is not None:
                self.cache.writes.flush_due()

    async def _worker(
        self, queue: asyncio.Queue[Cell], tally: Tally, on_progress: ProgressHook | None
    ) -> None:
        while True:
            try:
                cell = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            status = await self.score_cell(cell)
            tally.done += 1
            setattr(tally, status, getattr(tally, status) + 1)
            tally.calls = self.store.calls_recorded
            if on_progress:
                on_progress(tally, cell, status)

    async def score_cell(self, cell: Cell) -> str:
        """Compute one cell and write its row; returns 'scored', 'failed' or 'skipped'."""
        sample = self._samples[cell.sample_id]
        metric = self.metrics[cell.metric]
        started = time.perf_counter()
        missing = metric.missing_fields(sample)
        if missing:
            error = f"sample '{sample.id}' has no {', '.join(missing)}, which {metric.title} needs"
            self.store.write_score(
                ScoreRow.of(cell, "skipped", Usage(), 0.0, time.time(), error=error)
            )
            return "skipped"
        judge = self.judges[cell.judge].bind(
            sample.id, cell.repeat, self._generations.get(cell.metric, 0)
        )
        embedder = self.embeddings[cell.embedding].bind(cell.dimension) if cell.embedding else None
        ctx = ScoreContext(judge, embedder, cell.strictness or None, cell.wording)
        try:
            result = await metric.compute(sample, ctx)
        except JudgegridError as exc:
            self._write_failure(cell, exc, judge.usage, embedder, started)
            return "failed"
        except Exception as exc:  # a bug must not sink the other cells; it is recorded loudly
            self._write_failure(cell, exc, judge.usage, embedder, started, unexpected=True)
            return "failed"
        usage = Usage.total(judge.usage, embedder.usage if embedder else None)
        latency = time.perf_counter() - started
        self.store.write_score(
            ScoreRow.of(
                cell,
                "scored",
                usage,
                latency,
                time.time(),
                score=result.score,
                reason=result.reason,
                details=result.details or None,
                answer=result.answer,
                weighting=result.weighting,
            )
        )
        return "scored"

    def _write_failure(
        self,
        cell: Cell,
        exc: BaseException,
        usage: Usage,
        embedder: object,
        started: float,
        unexpected: bool = False,
    ) -> None:
        raw = getattr(exc, "raw", None)
        prefix = "unexpected error (please report it) " if unexpected else ""
        self.store.write_score(
            ScoreRow.of(
                cell,
                "failed",
                Usage.total(usage, getattr(embedder, "usage", None)),
                time.perf_counter() - started,
                time.time(),
                error=redact_text(f"{prefix}{type(exc).__name__}: {exc}"),
                details={"raw": raw[:2000]} if raw else None,
            )
        )


def _quiet_about_cancellation(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """On Ctrl-C or a kill the pending steps are cancelled, or the interrupt lands in one of
    them; that is expected, not worth a traceback (the caller reports the interrupt)."""
    if isinstance(context.get("exception"), asyncio.CancelledError | KeyboardInterrupt):
        return
    loop.default_exception_handler(context)
