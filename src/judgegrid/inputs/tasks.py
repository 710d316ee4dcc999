"""The grid, unrolled: every (sample, metric, judge, embedding, dimension, strictness, repeat) cell.

A judge-only metric is scored once per judge, not once per embedding model: its cells carry the
empty embedding "" and dimension 0. A metric without a strictness parameter carries strictness 0.
``expected_cell_count`` computes the same number in closed form, so a run can show that the rows
it wrote are exactly the rows its matrix implies.
"""

from __future__ import annotations

from typing import NamedTuple

from judgegrid.core.cells import NO_EMBEDDING, Cell
from judgegrid.core.sample import Dataset
from judgegrid.inputs.matrix import Matrix
from judgegrid.metrics import METRICS, resolve_metric_name


class Axis(NamedTuple):
    """One metric's share of the grid: the (embedding, dimension) pairs and strictness values."""

    metric: str
    embeddings: list[tuple[str, int]]
    strictness: list[int]


def metric_axes(matrix: Matrix) -> list[Axis]:
    axes = []
    for spec in matrix.metrics:
        name = resolve_metric_name(spec.name)
        metric = METRICS[name]
        embeddings = [(NO_EMBEDDING, 0)]
        if metric.uses_embeddings:
            embeddings = [
                (matrix.embedding_label(i), d)
                for i, emb in enumerate(matrix.embeddings)
                for d in matrix.embedding_dimensions(emb)
            ]
        strictness = matrix.strictness_for(spec) if metric.uses_strictness else [0]
        axes.append(Axis(name, embeddings, strictness))
    return axes


def expand_cells(matrix: Matrix, dataset: Dataset) -> list[Cell]:
    """All cells, metric by metric, then judge, sample and repeat.

    Cells that share judge steps (same metric, judge, sample, repeat) sit together, and a
    metric's prompts, which share a long few-shot prefix, reach a local model one after another,
    so llama.cpp can reuse the evaluated prefix.
    """
    judges = [matrix.judge_label(i) for i in range(len(matrix.judges))]
    return [
        Cell(axis.metric, judge, emb, dim, s, sample.id, repeat)
        for axis in metric_axes(matrix)
        for judge in judges
        for sample in dataset
        for repeat in range(matrix.repeats)
        for emb, dim in axis.embeddings
        for s in axis.strictness
    ]


def expected_cell_count(matrix: Matrix, n_samples: int) -> int:
    """judges × samples × repeats × Σ_metric (embedding-dimension pairs × strictness values)."""
    per_sample = sum(len(a.embeddings) * len(a.strictness) for a in metric_axes(matrix))
    return len(matrix.judges) * n_samples * matrix.repeats * per_sample
