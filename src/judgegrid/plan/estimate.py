"""What the planned requests will use: tokens, money and time, per judge (or embedding) and step.

Prompt tokens are counted on the rendered prompts with litellm's ``token_counter`` and the
model's tokenizer where litellm knows it (else tiktoken's cl100k_base, which is said). Output
tokens: the mean of that model's past answers to the step in the cross-run cache when it has
some, else the placeholder answer's JSON (the shape the step asks for), at most max_tokens. Cost
is litellm's price map; a model it does not price stays unknown (None), never 0. Time assumes
each call takes the model's mean latency in the cache, else a stated default, at the matrix's
concurrency and rate limits, and ignores that verdicts wait for statements.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judgegrid.calls.providers import litellm_tables
from judgegrid.calls.providers.gateway import batch_token_price, litellm_module, token_price
from judgegrid.core.options import BatchMode, ModelEntry, has_batch_api
from judgegrid.core.sample import Dataset
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.tasks import probe_notes, with_probes
from judgegrid.plan.requests import Known, PlannedGrid, Request, plan_requests
from judgegrid.store.cache import ResultCache, default_cache_path
from judgegrid.store.run_db import RunStore

# Per-call latency when the cache has no past call of the model, in seconds.
DEFAULT_LATENCY = {"completion": 3.0, "embedding": 0.5}


@dataclass
class StepEstimate:
    """One row of the plan: a model's step."""

    kind: str
    label: str
    model: str
    step: str
    calls: int = 0
    cache_hits: int = 0  # answers or vectors the cross-run cache gives, no call
    prompt_tokens: int = 0
    output_tokens: int = 0
    output_basis: str = "answer shape"
    cost: float | None = 0.0
    batch_cost: float | None = 0.0  # the same tokens at litellm's batch price
    batchable: bool = True  # False: the provider has no batch API; in batch mode it runs live


@dataclass
class ModelTime:
    label: str
    seconds: float
    latency: float
    latency_basis: str
    bound: str  # what limits it: concurrency, requests/min, tokens/min


@dataclass
class BatchTime:
    """The grid in batch mode: each entry's steps in sequence are batches one after another,
    each answered within the completion window (at most; providers are often faster)."""

    rounds: dict[str, int]  # label: batches in sequence
    window_hours: dict[str, int]  # label: its completion window
    batched: list[str]  # the entries the matrix runs in batch mode (empty: none yet)

    @property
    def seconds(self) -> float:
        return max(
            [n * self.window_hours[label] * 3600.0 for label, n in self.rounds.items()] + [0.0]
        )


def _known_total(costs: list[float | None]) -> float | None:
    return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


@dataclass
class ProbeShare:
    """What the probes add to a grid: the grid with them less the grid without them."""

    cells: int
    calls: int
    tokens: int
    cost: float | None


@dataclass
class GridPlan:
    """The plan shown before a run: rows, totals, time, and what each figure rests on."""

    rows: list[StepEstimate]
    times: list[ModelTime]
    seconds: float
    tokenizers: dict[str, str]
    cells: int
    skipped_cells: int
    unplanned: list[str] = field(default_factory=list)
    batch: BatchTime | None = None  # the whole grid in batch mode
    probes: ProbeShare | None = None  # the probes' share of the totals (``probes:``)
    notes: list[str] = field(default_factory=list)  # what the counts rest on or leave out

    @property
    def cost(self) -> float | None:
        return _known_total([r.cost for r in self.rows])

    @property
    def batch_cost(self) -> float | None:
        """The grid with batch mode wherever a provider has a batch API, live elsewhere."""
        return _known_total([r.batch_cost if r.batchable else r.cost for r in self.rows])

    @property
    def live_only(self) -> list[str]:
        """Models whose provider has no batch API."""
        return sorted({r.model for r in self.rows if not r.batchable})

    @property
    def unpriced(self) -> list[str]:
        return sorted({r.model for r in self.rows if r.cost is None})

    def total(self, name: str) -> int:
        return sum(int(getattr(r, name)) for r in self.rows)


@functools.cache
def tokenizer_of(model: str) -> dict[str, Any]:
    """litellm's tokenizer for the model (chosen once: it may look for a Hugging Face file)."""
    from litellm.utils import _select_tokenizer

    try:
        return dict(_select_tokenizer(model=model))
    except Exception:  # litellm's choice failed: its default
        return dict(_select_tokenizer(model="gpt-4"))


def tokenizer_name(model: str) -> str:
    if litellm_tables.counts_with_default_encoding(model):
        return f"tiktoken {litellm_tables.DEFAULT_ENCODING}"
    chosen = tokenizer_of(model)
    if chosen.get("type") == "huggingface_tokenizer":
        return f"{model}'s own (Hugging Face)"
    name = getattr(chosen.get("tokenizer"), "name", "cl100k_base")
    return f"tiktoken {name}"


def count_tokens(model: str, request: Request) -> tuple[int, list[int]]:
    """(prompt tokens, tokens of each expected answer) of one request: read from litellm's
    tokenizer files where its counter's default rules apply, else by litellm itself."""
    counted = _count_without_litellm(model, request)
    if counted is not None:
        return counted
    counter = litellm_module().token_counter
    custom = tokenizer_of(model)
    if request.kind == "embedding":
        texts = [text for _, text in request.messages]
        return sum(counter(model=model, custom_tokenizer=custom, text=t) for t in texts), []
    messages = [{"role": role, "content": text} for role, text in request.messages]
    prompt = counter(model=model, custom_tokenizer=custom, messages=messages)
    outputs = [counter(model=model, custom_tokenizer=custom, text=a) for a in request.answers]
    return prompt, outputs


def counted_once() -> Callable[[Request], tuple[int, list[int]]]:
    """``count_tokens``, once per distinct prompt and answers: the repeats of a cell, and the
    metrics that share a step, ask the same (a quarter as many counts on the demo set)."""
    counts: dict[tuple[Any, ...], tuple[int, list[int]]] = {}

    def tokens_of(request: Request) -> tuple[int, list[int]]:
        same = (request.model, request.kind, request.messages, request.answers)
        if same not in counts:
            counts[same] = count_tokens(request.model, request)
        return counts[same]

    return tokens_of


def _count_without_litellm(model: str, request: Request) -> tuple[int, list[int]] | None:
    """``count_tokens`` by ``litellm_tables`` (litellm's import is most of a plan's time), or
    None where litellm's counter would not use its default encoding."""
    if not litellm_tables.counts_with_default_encoding(model):
        return None
    if request.kind == "embedding":
        counts = [litellm_tables.count_text(text) for _, text in request.messages]
        return None if None in counts else (sum(c or 0 for c in counts), [])
    messages = [{"role": role, "content": text} for role, text in request.messages]
    prompt = litellm_tables.count_messages(messages)
    outputs = [litellm_tables.count_text(a) for a in request.answers]
    if prompt is None or None in outputs:
        return None
    return prompt, [o or 0 for o in outputs]


def row_prices(
    model: str, kind: str, prompt: int, output: int
) -> tuple[float | None, float | None]:
    """(live, batch) price of a row's tokens: from litellm's price map read directly for the
    models ``litellm_tables`` knows, else litellm's own (gateway)."""
    known = litellm_tables.known_model(model)
    if known is not None and known.kind == kind and (prompt or output):
        return known.price(prompt, output), known.batch_price(prompt, output)
    return token_price(model, kind, prompt, output), batch_token_price(model, prompt, output)


def past_usage(cache: ResultCache | None, model: str) -> dict[str, list[dict[str, Any]]]:
    """The usage of the model's cached answers, by step (empty without a cache)."""
    return cache.usage_by_step(model) if cache is not None else {}


def estimate(matrix: Matrix, grid: PlannedGrid, cache: ResultCache | None = None) -> GridPlan:
    caps = _output_caps(matrix)
    past = {r.model: past_usage(cache, r.model) for r in grid.requests if r.kind == "completion"}
    tokens_of = counted_once()
    rows: dict[tuple[str, str, str], StepEstimate] = {}
    for request in grid.requests:
        row = rows.setdefault(
            (request.kind, request.label, request.step),
            StepEstimate(request.kind, request.label, request.model, request.step),
        )
        made = request.times
        if request.cached:  # counted as answers (or vectors) the cache gives
            row.cache_hits += len(request.answers or request.messages) * made
            continue
        row.calls += made
        prompt, outputs = tokens_of(request)
        row.prompt_tokens += prompt * made
        history = [
            u.get("tokens_out", 0) for u in past.get(request.model, {}).get(request.step, [])
        ]
        if history:
            row.output_basis = f"{len(history)} past answers"
            row.output_tokens += round(sum(history) / len(history)) * len(outputs) * made
        else:
            cap = caps.get(request.label)
            row.output_tokens += sum(min(o, cap) if cap else o for o in outputs) * made
    for row in rows.values():
        row.cost, row.batch_cost = row_prices(
            row.model, row.kind, row.prompt_tokens, row.output_tokens
        )
        row.batchable = has_batch_api(row.model)
    times = _times(matrix, list(rows.values()), cache)
    seconds = max([t.seconds for t in times] + [_shared_bound(matrix, times, rows)])
    tokenizers = {r.model: tokenizer_name(r.model) for r in grid.requests}
    return GridPlan(
        list(rows.values()),
        times,
        seconds,
        tokenizers,
        grid.cells,
        grid.skipped_cells,
        grid.unplanned,
        _batch_time(matrix, grid),
        notes=grid.notes,
    )


def probe_share(whole: GridPlan, without: GridPlan) -> ProbeShare:
    """The probes' cells, calls, tokens and cost: what they add to the grid without them
    (a call a probe shares with a sample of the data set is the sample's)."""
    tokens = sum(whole.total(n) - without.total(n) for n in ("prompt_tokens", "output_tokens"))
    cost = None if whole.cost is None or without.cost is None else whole.cost - without.cost
    calls = whole.total("calls") - without.total("calls")
    return ProbeShare(whole.cells - without.cells, calls, tokens, cost)


def _batch_time(matrix: Matrix, grid: PlannedGrid) -> BatchTime:
    """Batches in sequence per entry, at its completion window (24h where it runs live)."""
    entries = _entries(matrix)
    modes = {label: matrix.batch_for(entry) for label, entry in entries.items()}
    hours = {
        label: int((mode or BatchMode()).completion_window.rstrip("h"))
        for label, mode in modes.items()
    }
    rounds = {label: n for label, n in grid.rounds.items() if label in entries}
    return BatchTime(rounds, hours, [label for label, mode in modes.items() if mode])


def _output_caps(matrix: Matrix) -> dict[str, int | None]:
    return {
        matrix.judge_label(i): matrix.judge_options(spec).max_tokens
        for i, spec in enumerate(matrix.judges)
    }


def _entries(matrix: Matrix) -> dict[str, ModelEntry]:
    judges = {matrix.judge_label(i): s for i, s in enumerate(matrix.judges)}
    return judges | {matrix.embedding_label(i): s for i, s in enumerate(matrix.embeddings)}


def _latency(cache: ResultCache | None, model: str, kind: str) -> tuple[float, str]:
    seen = [
        u.get("latency_s", 0.0)
        for usages in past_usage(cache, model).values()
        for u in usages
        if u.get("latency_s")
    ]
    if kind == "completion" and seen:
        return sum(seen) / len(seen), f"mean of {len(seen)} past calls"
    return DEFAULT_LATENCY[kind], "default"


def _times(matrix: Matrix, rows: list[StepEstimate], cache: ResultCache | None) -> list[ModelTime]:
    """Each model's calls at its concurrency, requests per minute and tokens per minute."""
    entries, out = _entries(matrix), []
    for label in dict.fromkeys(r.label for r in rows):
        mine = [r for r in rows if r.label == label]
        calls = sum(r.calls for r in mine)
        tokens = sum(r.prompt_tokens + r.output_tokens for r in mine)
        entry = entries[label]
        latency, basis = _latency(cache, entry.id, mine[0].kind)
        lanes = min(entry.max_concurrency or matrix.concurrency.per_model, matrix.concurrency.total)
        bounds = {"concurrency": calls * latency / lanes}
        if entry.requests_per_minute:
            bounds["requests/min"] = calls / entry.requests_per_minute * 60
        if entry.tokens_per_minute:
            bounds["tokens/min"] = tokens / entry.tokens_per_minute * 60
        bound = max(bounds, key=lambda b: bounds[b])
        out.append(ModelTime(label, bounds[bound], latency, basis, bound))
    return out


def _shared_bound(
    matrix: Matrix, times: list[ModelTime], rows: dict[tuple[str, str, str], StepEstimate]
) -> float:
    """All models' calls through the matrix's total concurrency."""
    busy = sum(t.latency * sum(r.calls for r in rows.values() if r.label == t.label) for t in times)
    return busy / matrix.concurrency.total


def make_plan(
    matrix: Matrix, dataset: Dataset, use_cache: bool = True, store: RunStore | None = None
) -> GridPlan:
    """The plan of a grid over a data set, reading the cross-run cache if there is one (never
    making one: planning writes nothing) and, for a resumed run, its database."""
    path = default_cache_path()
    cache = ResultCache(path) if use_cache and path.exists() else None
    try:
        plan = estimate(matrix, plan_requests(matrix, dataset, Known(cache, store)), cache)
        plan.notes += probe_notes(matrix, with_probes(matrix, dataset))
        if matrix.probes is not None:
            bare = matrix.model_copy(update={"probes": None})
            without = estimate(bare, plan_requests(bare, dataset, Known(cache, store)), cache)
            plan.probes = probe_share(plan, without)
        return plan
    finally:
        if cache is not None:
            cache.close()
