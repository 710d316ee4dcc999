"""A run's cells split into shards for workers, and the matrix's limits shared among them.

A shard holds whole samples: every cell of one sample, all judges and repeats. So every cell that
can share a judge step (statements, verdicts, generated questions: one judge × sample × repeat)
sits in the same shard, and so do the cells of all judges that embed the same sample texts (the
question's vector is one per sample, whatever the judge): a step or a vector is still asked once
however many workers score the run. (Two samples with identical texts may still meet in two
shards: that coincidence is the only one asked twice.) A shard is also the unit of
resume: the driver writes a shard's rows in one transaction, so a worker lost mid-shard costs that
shard, which is run again, and never half of one.

Each worker runs its shards under its share of every limit, so the provider sees the matrix's
limits, not one set per worker. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from judgegrid.core.cells import Cell
from judgegrid.core.options import Concurrency, ModelEntry
from judgegrid.inputs.matrix import Matrix

# Shards per worker, at most: enough that a fast worker takes over a slow one's share and a lost
# shard is a small part of the run.
SHARDS_PER_WORKER = 8
# Cells a shard holds per request slot of its worker, at least: a shard ends with a drain (its last
# answers, its last dependent steps) that leaves slots idle for a call's latency or two; with 16
# rounds of work behind each slot that drain is a small part of the shard. (A grid of 60 samples at
# 500 ms a call on 2 workers took 1.47x the ideal time in 16 shards, 1.17x in 4, 1.11x in 2.)
CELLS_PER_SLOT = 16


@dataclass(frozen=True)
class Shard:
    number: int
    cells: tuple[Cell, ...]

    @property
    def sample_ids(self) -> set[str]:
        return {c.sample_id for c in self.cells}


def shard_count(cells: int, samples: int, workers: int, slots: int) -> int:
    """How many shards: per worker, as many as keep ``CELLS_PER_SLOT`` cells behind each of its
    ``slots`` request slots, between 1 and ``SHARDS_PER_WORKER``; never more than samples."""
    workers = max(1, workers)
    per_worker = cells // (workers * max(1, slots) * CELLS_PER_SLOT)
    return max(1, min(samples, workers * min(SHARDS_PER_WORKER, max(1, per_worker))))


def split_shards(cells: Iterable[Cell], workers: int, slots: int) -> list[Shard]:
    """The cells in shards of whole samples, in order; ``slots`` is one worker's concurrency."""
    groups: dict[str, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.sample_id, []).append(cell)
    if not groups:
        return []
    count = shard_count(sum(map(len, groups.values())), len(groups), workers, slots)
    per_shard = math.ceil(len(groups) / count)
    ordered = list(groups.values())
    return [
        Shard(n, tuple(c for group in ordered[start : start + per_shard] for c in group))
        for n, start in enumerate(range(0, len(ordered), per_shard))
    ]


def window_safe_share(per_minute: float, workers: int) -> float:
    """One worker's per-minute rate such that all workers together never pass ``per_minute``
    in any 60-second window.

    A worker's token bucket holds at most one second's worth (at least 1 request), so in 60 s
    it lets through its bucket plus 60 s of refill: capacity + rate × 60 ≤ its share. With a
    rate r per second that is max(1, r) + 60 r ≤ share, solved here for r (as a minute rate).
    """
    share = per_minute / workers
    if share >= 61:  # r ≥ 1: 61 r ≤ share
        return share * 60 / 61
    return max(share - 1, share / 2)  # r < 1: 1 + 60 r ≤ share (half a share when below 2)


def worker_matrix(matrix: Matrix, workers: int) -> Matrix:
    """The matrix one of ``workers`` workers runs under: its share of every limit."""
    if workers <= 1:
        return matrix

    def part(n: int) -> int:
        return max(1, n // workers)

    def entry(spec: ModelEntry) -> dict[str, object]:
        return {
            "max_concurrency": part(spec.max_concurrency) if spec.max_concurrency else None,
            "requests_per_minute": (
                window_safe_share(spec.requests_per_minute, workers)
                if spec.requests_per_minute
                else None
            ),
            "tokens_per_minute": (
                window_safe_share(spec.tokens_per_minute, workers)
                if spec.tokens_per_minute
                else None
            ),
        }

    concurrency = Concurrency(
        total=part(matrix.concurrency.total), per_model=part(matrix.concurrency.per_model)
    )
    return matrix.model_copy(
        update={
            "concurrency": concurrency,
            "judges": [j.model_copy(update=entry(j)) for j in matrix.judges],
            "embeddings": [e.model_copy(update=entry(e)) for e in matrix.embeddings],
        }
    )
