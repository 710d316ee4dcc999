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

from judgegrid.cells import Cell
from judgegrid.matrix import Matrix
from judgegrid.options import Concurrency, ModelEntry

# Shards per worker: enough that a fast worker takes over a slow one's share and a lost shard is
# a small part of the run; few enough that each shard keeps its worker's slots busy.
SHARDS_PER_WORKER = 8


@dataclass(frozen=True)
class Shard:
    number: int
    cells: tuple[Cell, ...]

    @property
    def sample_ids(self) -> set[str]:
        return {c.sample_id for c in self.cells}


def split_shards(cells: Iterable[Cell], workers: int) -> list[Shard]:
    """The cells in shards of whole samples, about ``SHARDS_PER_WORKER`` per worker, in order."""
    groups: dict[str, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.sample_id, []).append(cell)
    if not groups:
        return []
    per_shard = math.ceil(len(groups) / (max(1, workers) * SHARDS_PER_WORKER))
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
