"""The requests a grid will make, enumerated without making one: the basis of ``judgegrid plan``.

Every cell's metric runs its real ``compute`` against stand-in clients that keep the runner's
rules: a judge step is one answer per content address (``judge.step_key``), shared by metrics,
embedding models, dimensions and strictness values; the generations of one request are made
together, in one call with the provider's ``n`` where litellm says it takes it; a vector is
fetched once per (model, requested dimension, text), the missing texts of one ``embed`` in one
call. So the requests and their prompts are the ones the run sends.

A later step's requests depend on earlier answers (one NLI call per statement list and context,
one verdict per statement): the stand-in judge answers with the cross-run cache's answer where
the cache has it (that answer is what the run will get), else with the scripted placeholder
answer (``placeholders``: one statement per sentence of the response, a question per
generation), which is what the estimate of those counts rests on. Nothing is asked of any model;
the cache is only read.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from judgegrid.calls.embedder import resolve_dimension_method, vector_cache_model
from judgegrid.calls.judge import output_mode_of, step_key, supports_n
from judgegrid.calls.providers import litellm_tables
from judgegrid.core.cells import Cell
from judgegrid.core.context import ScoreContext, Weighted
from judgegrid.core.errors import JudgegridError
from judgegrid.core.options import ModelOptions
from judgegrid.core.question import Question
from judgegrid.core.sample import Dataset
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.tasks import expand_cells, grid_cell_count, probe_repeats, with_probes
from judgegrid.metrics import Metric
from judgegrid.plan.placeholders import EMBED_DIM, answer_for_messages, bag_of_words
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore


@dataclass(frozen=True)
class Request:
    """One call the grid would make (``cached``: the cross-run cache answers it instead).

    ``texts`` are what its prompt tokens are counted on (the messages' contents, or the texts to
    embed); ``answers`` the answer texts expected back (one per choice; none for vectors)."""

    kind: str  # "completion" or "embedding"
    label: str
    model: str
    step: str
    messages: tuple[tuple[str, str], ...]
    answers: tuple[str, ...]
    cached: bool
    n: int = 1
    times: int = 1  # the same request made in this many repeats (``later_repeats``)


@dataclass
class PlannedGrid:
    """The requests of a grid and what the enumeration could not follow."""

    requests: list[Request]
    cells: int
    skipped_cells: int
    unplanned: list[str]  # cells whose stand-in run failed, with the cause
    # per entry: the most steps one cell asks of it in sequence, each waiting for the one
    # before (statements, then verdicts): in batch mode, one batch after another
    rounds: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the counts rest on, said in the plan


@dataclass
class Known:
    """Where answers and vectors already are: a resumed run's database, the cross-run cache."""

    cache: ResultCache | None = None
    store: RunStore | None = None

    def answer(self, key: str) -> dict[str, Any] | None:
        stored = self.store.load_step(key) if self.store is not None else None
        if stored is not None:
            return stored[0]
        cached = self.cache.get_answer(key) if self.cache is not None else None
        return None if cached is None else cached[0]

    def vectors(self, model: str, cache_model: str, requested: int, texts: list[str]) -> set[str]:
        found = set(self.store.load_vectors(model, requested, texts)) if self.store else set()
        rest = [t for t in texts if t not in found]
        if self.cache is not None and rest:
            found |= set(self.cache.get_vectors(cache_model, requested, rest))
        return found


class _JudgeLedger:
    """One judge of the matrix: the answers it has given so far (the runner's memo), by key."""

    def __init__(self, label: str, model: str, options: ModelOptions, known: Known):
        self.label, self.model, self.options, self.known = label, model, options, known
        tabled = litellm_tables.known_model(model)  # litellm's answers without importing it
        self.output_mode: str = options.output_mode
        if self.output_mode == "auto":
            self.output_mode = tabled.output_mode if tabled is not None else output_mode_of(model)
        self.supports_n = tabled.supports_n if tabled is not None else supports_n(model)
        self.answers: dict[str, dict[str, Any]] = {}
        self.requests: list[Request] = []

    def key(self, q: Question, repeat: int) -> str:
        return step_key(self.label, self.model, self.options, self.output_mode, q, repeat)

    def record(self, q: Question, answers: list[dict[str, Any]], cached: bool) -> None:
        texts = tuple(json.dumps(a, ensure_ascii=False) for a in answers)
        messages = tuple((m["role"], str(m.get("content") or "")) for m in q.messages)
        self.requests.append(
            Request(
                "completion", self.label, self.model, q.step, messages, texts, cached, len(texts)
            )
        )

    def produce(self, questions: list[Question], repeat: int) -> None:
        """Answer the questions nobody has answered yet, as the runner's memo would ask them."""
        missing = []
        for q in questions:
            key = self.key(q, repeat)
            if key in self.answers:
                continue
            cached = self.known.answer(key)
            if cached is not None:
                self.answers[key] = cached
                self.record(q, [cached], cached=True)
            else:
                self.answers[key] = answer_for_messages(q.messages, self.model)
                missing.append(q)
        if self.supports_n and len(missing) > 1:  # one call, n choices
            self.record(missing[0], [self.answers[self.key(q, repeat)] for q in missing], False)
        else:
            for q in missing:
                self.record(q, [self.answers[self.key(q, repeat)]], cached=False)


class _PlanJudge:
    """The ``Judge`` a metric is given in planning: a ledger bound to one sample and repeat."""

    def __init__(self, ledger: _JudgeLedger, repeat: int, generations: int):
        self._ledger, self._repeat, self._generations = ledger, repeat, generations
        self.steps: set[str] = set()  # the cell's step names: each waits for the one before

    async def ask(self, q: Question) -> Any:
        self.steps.add(q.step)
        self._ledger.produce([q], self._repeat)
        return q.schema.model_validate(self._ledger.answers[self._ledger.key(q, self._repeat)])

    async def ask_many(self, q: Question, n: int) -> list[Any]:
        self.steps.add(q.step)
        wanted = [replace(q, index=i) for i in range(max(n, self._generations))]
        self._ledger.produce(wanted, self._repeat)
        keys = [self._ledger.key(x, self._repeat) for x in wanted[:n]]
        return [q.schema.model_validate(self._ledger.answers[k]) for k in keys]

    async def ask_weighted(self, q: Question, n: int = 1) -> list[Weighted]:
        """The same requests as ``ask_many`` (log-probabilities cost no call): the plan has
        none to give, so a cell planned is one whose weighting would be missing."""
        return [Weighted(answer, None) for answer in await self.ask_many(q, n)]


class _VectorLedger:
    """One embedding model: the (requested dimension, text) pairs fetched so far."""

    def __init__(self, label: str, model: str, options: ModelOptions, method: Any, known: Known):
        self.label, self.model, self.known = label, model, known
        self.method = resolve_dimension_method(model, method)
        self.cache_model = vector_cache_model(model, options)
        self.seen: set[tuple[int, str]] = set()
        self.requests: list[Request] = []

    def fetch(self, texts: list[str], dimension: int) -> None:
        requested = dimension if self.method == "native" else 0
        missing = list(dict.fromkeys(t for t in texts if (requested, t) not in self.seen))
        if not missing:
            return
        self.seen.update((requested, t) for t in missing)
        found = self.known.vectors(self.model, self.cache_model, requested, missing)
        asked = [t for t in missing if t not in found]
        for texts_, cached in ((asked, False), ([t for t in missing if t in found], True)):
            if texts_:
                messages = tuple(("input", t) for t in texts_)
                step = f"vectors@{requested or 'full'}"
                self.requests.append(
                    Request("embedding", self.label, self.model, step, messages, (), cached)
                )


class _PlanEmbedder:
    def __init__(self, ledger: _VectorLedger, dimension: int, judge: _PlanJudge):
        self._ledger, self._dimension, self._judge = ledger, dimension, judge
        self.round = 0  # after how many of the cell's judge steps it embeds, plus one

    async def embed(self, texts: list[str]) -> np.ndarray:
        self.round = max(self.round, len(self._judge.steps) + 1)
        self._ledger.fetch(texts, self._dimension)
        return np.array([bag_of_words(t, self._dimension or EMBED_DIM) for t in texts])


# Repeats walked cell by cell; the requests of the repeats after them are counted from one repeat
# (they ask the same questions under another repeat index), so that ``repeats: 1000000`` is
# planned at once instead of building a million cells.
WALKED_REPEATS = 3


def plan_requests(matrix: Matrix, dataset: Dataset, known: Known | None = None) -> PlannedGrid:
    """Every request of the grid over the data set; calls nothing. The first WALKED_REPEATS
    repeats are walked cell by cell, with what is ``known`` (a resumed run's answers, the
    cache's) counted, not asked; any later repeat's requests are those of one repeat, asked."""
    known = known or Known()
    head = with_repeats(matrix, WALKED_REPEATS)
    if head == matrix:
        return walk_requests(matrix, dataset, known)
    grid = walk_requests(head, dataset, known)
    later_repeats(matrix, head, dataset, grid)
    return grid


def with_repeats(matrix: Matrix, most: int) -> Matrix:
    """The matrix with its repeats (and its probes' repeats) cut to at most ``most``."""
    update: dict[str, Any] = {"repeats": min(matrix.repeats, most)}
    if matrix.probes is not None and matrix.probes.repeats is not None:
        probes = matrix.probes.model_copy(update={"repeats": min(matrix.probes.repeats, most)})
        update["probes"] = probes
    return matrix.model_copy(update=update)


def later_repeats(matrix: Matrix, head: Matrix, dataset: Dataset, grid: PlannedGrid) -> None:
    """Adds to ``grid`` (the walk of ``head``'s repeats) the repeats of ``matrix`` after them:
    one repeat's requests, each made that many more times, the samples' under the matrix's
    repeats and the probes' under the probes' repeats; and the cells of the whole grid."""
    one = with_repeats(matrix, 1)
    walked = walk_requests(one, dataset, Known())
    own = walk_requests(one.model_copy(update={"probes": None}), dataset, Known())
    extra_own = matrix.repeats - head.repeats
    extra_probes = probe_repeats(matrix) - probe_repeats(head)
    probe_only = Counter(walked.requests) - Counter(own.requests)
    for requests, extra in ((Counter(own.requests), extra_own), (probe_only, extra_probes)):
        grid.requests += [
            replace(r, times=count * extra)
            for r, count in requests.items()
            if r.kind == "completion" and extra > 0
        ]
    grid.cells = grid_cell_count(matrix, dataset)
    grid.skipped_cells += own.skipped_cells * extra_own
    grid.skipped_cells += (walked.skipped_cells - own.skipped_cells) * extra_probes
    grid.notes.append(
        f"repeats after the first {WALKED_REPEATS} are counted from one repeat's requests, "
        "each asked (the cache is not looked up for them)"
    )


def walk_requests(matrix: Matrix, dataset: Dataset, known: Known) -> PlannedGrid:
    """Every request of the grid, cell by cell in the runner's order, on stand-in clients."""
    judges = {
        matrix.judge_label(i): _JudgeLedger(
            matrix.judge_label(i), spec.id, matrix.judge_options(spec), known
        )
        for i, spec in enumerate(matrix.judges)
    }
    vectors = {
        matrix.embedding_label(i): _VectorLedger(
            matrix.embedding_label(i),
            spec.id,
            matrix.embedding_options(spec),
            spec.dimension_method,
            known,
        )
        for i, spec in enumerate(matrix.embeddings)
    }
    metrics = matrix.scorers()
    generations = matrix.generations()
    dataset = with_probes(matrix, dataset)  # the matrix's probes, as the run makes them
    cells = expand_cells(matrix, dataset)
    rounds: dict[str, int] = {}
    skipped, unplanned = asyncio.run(
        _walk(cells, dataset, metrics, judges, vectors, generations, rounds)
    )
    requests = [r for ledger in judges.values() for r in ledger.requests]
    requests += [r for ledger in vectors.values() for r in ledger.requests]
    return PlannedGrid(requests, len(cells), skipped, unplanned, rounds)


async def _walk(
    cells: list[Cell],
    dataset: Dataset,
    metrics: dict[str, Metric[Any]],
    judges: dict[str, _JudgeLedger],
    vectors: dict[str, _VectorLedger],
    generations: dict[str, int],
    rounds: dict[str, int],
) -> tuple[int, list[str]]:
    """Run every cell's metric on the stand-in clients; (cells skipped, cells not followed).
    ``rounds`` gets each entry's most steps in sequence in one cell."""
    samples = dataset.by_id()
    skipped, unplanned = 0, []
    for cell in cells:
        sample, metric = samples[cell.sample_id], metrics[cell.metric]
        if metric.missing_fields(sample):
            skipped += 1  # the runner records these as skipped, without a call
            continue
        judge = _PlanJudge(judges[cell.judge], cell.repeat, generations.get(cell.metric, 0))
        embedder = (
            _PlanEmbedder(vectors[cell.embedding], cell.dimension, judge)
            if cell.embedding
            else None
        )
        ctx = ScoreContext(judge, embedder, cell.strictness or None, cell.wording)
        try:
            await metric.compute(sample, ctx)
        except (JudgegridError, AssertionError, ValueError) as exc:  # a cached answer it rejects
            unplanned.append(f"{cell.metric}/{cell.judge}/{cell.sample_id}: {exc}")
        rounds[cell.judge] = max(rounds.get(cell.judge, 0), len(judge.steps))
        if embedder is not None:
            rounds[cell.embedding] = max(rounds.get(cell.embedding, 0), embedder.round)
    return skipped, unplanned
