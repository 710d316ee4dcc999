"""The grid, unrolled: every (sample, metric, judge, embedding, dimension, strictness, repeat,
wording) cell; a criterion's like a judge-only metric's, once per wording.

A judge-only metric is scored once per judge, not once per embedding model: its cells carry the
empty embedding "" and dimension 0. A metric without a strictness parameter carries strictness 0.
``expected_cell_count`` computes the same number in closed form, so a run can show that the rows
it wrote are exactly the rows its matrix implies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from judgegrid.core.cells import NO_EMBEDDING, Cell
from judgegrid.core.errors import Problem
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.matrix import MAX_CELLS, Matrix
from judgegrid.inputs.pairwise import pairwise_probes
from judgegrid.inputs.probes import (
    BORROWS,
    Target,
    eligible,
    make_probes,
    resolve_probe_names,
    targets,
)
from judgegrid.metrics import METRICS, resolve_metric_name


class Axis(NamedTuple):
    """One metric's share of the grid: the (embedding, dimension) pairs, strictness values and
    wordings (a criterion's definition and its other wordings; a built-in metric has one)."""

    metric: str
    embeddings: list[tuple[str, int]]
    strictness: list[int]
    wordings: int = 1


def metric_axes(matrix: Matrix) -> list[Axis]:
    """The metrics' axes, then the criteria's: every judge, no embedding, the vote's size as
    strictness (0 for labels and scale), each wording."""
    return _builtin_axes(matrix) + [
        Axis(
            c.name,
            [(NO_EMBEDDING, 0)],
            [c.strictness if c.type == "binary" else 0],
            len(c.definitions),
        )
        for c in matrix.criteria
    ]


def _builtin_axes(matrix: Matrix) -> list[Axis]:
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


def user_samples(dataset: Dataset) -> Dataset:
    """The data set without its probes: the user's own samples."""
    return Dataset(dataset.source, tuple(s for s in dataset if s.probe is None), dataset.mapping)


def with_probes(matrix: Matrix, dataset: Dataset) -> Dataset:
    """The user's samples followed by the probes the matrix's ``probes:`` asks for (none
    without it). Deterministic, so a resumed run (or the plan) makes the same probes again."""
    own = user_samples(dataset)
    if matrix.probes is None:
        return own
    metrics = [axis.metric for axis in _builtin_axes(matrix)]
    options = matrix.probes
    probes = make_probes(
        own, metrics, options.names, options.per_metric, options.seed, matrix.criteria
    )
    probes += pairwise_probes(own, matrix.criteria, options.names, options.per_metric, options.seed)
    return Dataset(own.source, own.samples + tuple(probes), own.mapping)


def scored_by(sample: Sample, metric: str) -> bool:
    """Every metric scores the user's samples; a probe is scored by its own metric only."""
    return sample.probe is None or sample.probe.metric == metric


def probe_repeats(matrix: Matrix) -> int:
    """How many repeats each probe cell gets: ``probes.repeats``, else the matrix's."""
    if matrix.probes is None or matrix.probes.repeats is None:
        return matrix.repeats
    return matrix.probes.repeats


def repeats_of(matrix: Matrix, sample: Sample) -> int:
    """The user's samples get the matrix's repeats; a probe gets ``probe_repeats``."""
    return matrix.repeats if sample.probe is None else probe_repeats(matrix)


def expand_cells(matrix: Matrix, dataset: Dataset) -> list[Cell]:
    """All cells, metric by metric, then judge, sample and repeat; a probe (``with_probes``)
    only under its own metric.

    Cells that share judge steps (same metric, judge, sample, repeat) sit together, and a
    metric's prompts, which share a long few-shot prefix, reach a local model one after another,
    so llama.cpp can reuse the evaluated prefix. Judge by judge, not sample by sample: with the
    judges taking turns, which cell first asks for a text's vector (one that needs only the
    question, or one that needs it with generated questions) depended on timing, and so did the
    number of embedding calls, which the plan must predict (the demo ran 35 s faster that way).
    """
    judges = [matrix.judge_label(i) for i in range(len(matrix.judges))]
    return [
        Cell(axis.metric, judge, emb, dim, s, sample.id, repeat, wording)
        for axis in metric_axes(matrix)
        for judge in judges
        for sample in dataset
        if scored_by(sample, axis.metric)
        for repeat in range(repeats_of(matrix, sample))
        for emb, dim in axis.embeddings
        for s in axis.strictness
        for wording in range(axis.wordings)
    ]


def expected_cell_count(matrix: Matrix, n_samples: int, probe_metrics: Sequence[str] = ()) -> int:
    """judges × (repeats × samples × Σ_metric (embedding-dimension pairs × strictness values
    × wordings) + probe repeats × Σ_probe its metric's pairs × values × wordings);
    ``probe_metrics``: each probe's metric."""
    sizes = {
        a.metric: len(a.embeddings) * len(a.strictness) * a.wordings for a in metric_axes(matrix)
    }
    per_probe = sum(sizes.get(metric, 0) for metric in probe_metrics)
    own = matrix.repeats * n_samples * sum(sizes.values())
    return len(matrix.judges) * (own + probe_repeats(matrix) * per_probe)


def grid_cell_count(matrix: Matrix, dataset: Dataset) -> int:
    """The cells of the grid over ``dataset`` with the matrix's probes, counted, not made."""
    return probed_cell_count(matrix, with_probes(matrix, dataset))


def grid_size_problems(matrix: Matrix, dataset: Dataset) -> list[Problem]:
    """A grid of more than MAX_CELLS cells, refused before one is made (the bound is said)."""
    cells = grid_cell_count(matrix, dataset)
    if cells <= MAX_CELLS:
        return []
    message = (
        f"{cells:,} cells, more than the {MAX_CELLS:,} a run may have; lower repeats, the "
        "sample limit, or the judges, embeddings or metrics crossed"
    )
    return [Problem("grid", message)]


def probed_cell_count(matrix: Matrix, probed: Dataset) -> int:
    """The cells of the grid over a data set whose probes are made already (``with_probes``)."""
    probe_metrics = [s.probe.metric for s in probed if s.probe is not None]
    return expected_cell_count(matrix, len(probed) - len(probe_metrics), probe_metrics)


def probe_notes(matrix: Matrix, probed: Dataset) -> list[str]:
    """Why probes the matrix's ``probes:`` asks for were not made (``probed``: the data set
    with its probes, ``with_probes``): one line per metric that lacks some, with the reasons,
    so a grid with fewer probes than asked says so instead of leaving them out silently."""
    if matrix.probes is None:
        return []
    selected = resolve_probe_names(matrix.probes.names)
    own = user_samples(probed)
    made = {(s.probe.metric, s.probe.name) for s in probed if s.probe is not None}
    notes = []
    builtin = [axis.metric for axis in _builtin_axes(matrix)]
    paired = {c.name for c in matrix.criteria if c.type == "pairwise"}
    for target in targets(builtin, matrix.criteria):
        left = [n for n in target.probes if n in selected and (target.name, n) not in made]
        if left and target.name in paired and eligible(target, own):
            why = "no sample's label (labels: in the data set) prefers one answer, a or b"
            notes.append(f"probes not made for {target.name} — {', '.join(left)}: {why}")
        elif left:
            reasons = "; ".join(f"{n}: {_why_not_made(target, n, own, made)}" for n in left)
            notes.append(f"probes not made for {target.name} — {reasons}")
    return notes


def _why_not_made(target: Target, name: str, own: Dataset, made: set[tuple[str, str]]) -> str:
    if not eligible(target, own):
        return f"no sample has every field {target.name} needs"
    if name in BORROWS and len(own) < 2:
        return (
            f"takes its {BORROWS[name]} from another sample, and the data set has {len(own)} sample"
        )
    degrader = target.degraded_by
    if name == "injection" and degrader is not None and (target.name, degrader) not in made:
        return f"is made from the {degrader} probe, which was not made"
    return "none of the samples probed could be changed this way"
