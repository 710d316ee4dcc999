"""The plan as the text table `judgegrid plan` and `judgegrid run` print, with what it rests on."""

from __future__ import annotations

from judgegrid.core.options import BATCH_PROVIDERS, provider_of
from judgegrid.plan.estimate import DEFAULT_LATENCY, GridPlan, StepEstimate

HEADER = (
    "model",
    "step",
    "calls",
    "from cache",
    "prompt tok",
    "est. output tok",
    "est. cost",
    "batch cost",
)


def money(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:,.4f}"


def duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _line(row: StepEstimate) -> tuple[str, ...]:
    return (
        row.label,
        row.step,
        f"{row.calls:,}",
        f"{row.cache_hits:,}",
        f"{row.prompt_tokens:,}",
        f"{row.output_tokens:,}" if row.kind == "completion" else "-",
        money(row.cost),
        money(row.batch_cost) if row.batchable else "no batch API",
    )


def render_plan(plan: GridPlan) -> str:
    lines = [_line(r) for r in plan.rows]
    totals = ("total", "", *(f"{plan.total(n):,}" for n in ("calls", "cache_hits")))
    totals += (f"{plan.total('prompt_tokens'):,}", f"{plan.total('output_tokens'):,}")
    lines.append((*totals, money(plan.cost), money(plan.batch_cost)))
    widths = [max(len(x[i]) for x in [HEADER, *lines]) for i in range(len(HEADER))]

    def fmt(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    rule = "  ".join("-" * w for w in widths)
    out = [fmt(HEADER), rule, *(fmt(x) for x in lines[:-1]), rule, fmt(lines[-1]), ""]
    out += _notes(plan)
    return "\n".join(out)


def _notes(plan: GridPlan) -> list[str]:
    batched = plan.batch.batched if plan.batch else []
    when = (
        f"est. time at most {duration(plan.batch.seconds)} (batch mode: {', '.join(batched)}; "
        f"the live calls alone {duration(plan.seconds)})"
        if plan.batch and batched
        else f"est. time {duration(plan.seconds)}"
    )
    out = [f"cells: {plan.cells:,} ({plan.skipped_cells:,} skipped for a missing field); {when}"]
    if plan.probes is not None:
        p = plan.probes
        out.append(
            f"  of which probes: {p.cells:,} cells, {p.calls:,} calls, {p.tokens:,} tokens, "
            f"{money(p.cost)} (the grid with its probes less the grid without them)"
        )
    for t in plan.times:
        out.append(
            f"  {t.label}: {duration(t.seconds)} at {t.latency:.1f} s a call ({t.latency_basis}), "
            f"bound by {t.bound}"
        )
    out.append(
        "prompt tokens: litellm's token_counter with "
        + "; ".join(f"{m}: {name}" for m, name in plan.tokenizers.items())
    )
    out.append(
        "later steps (verdicts per statement, per context) follow the cache's answers where it "
        "has them, else placeholder answers (one statement per sentence of the response); "
        "output tokens: the judge's past answers in the cache, else the placeholder's JSON "
        "(≤ max_tokens); corrective retries and failures are not planned"
    )
    out.append(
        "from cache: answers (judges) or vectors (embedding models) the cross-run cache gives "
        "without a call; generated texts are the placeholders' in every repeat, so a real "
        "judge's repeats may need more embedding calls than planned"
    )
    out += _batch_notes(plan)
    if plan.unpriced:
        out.append(f"cost unknown: litellm's price map lacks {', '.join(plan.unpriced)}")
    defaults = ", ".join(f"{k} {v} s" for k, v in DEFAULT_LATENCY.items())
    out.append(f"default latency a call, where the cache has none: {defaults}")
    for problem in plan.unplanned[:5]:
        out.append(f"not followed: {problem}")
    return out + [f"note: {note}" for note in plan.notes]


def _batch_notes(plan: GridPlan) -> list[str]:
    """The same grid in batch mode: its cost, and its time at the completion window."""
    batch = plan.batch
    if batch is None or not batch.rounds:
        return []
    if plan.rows and len(plan.live_only) == len({r.model for r in plan.rows}):
        providers = sorted({provider_of(m) for m in plan.live_only})
        return [
            f"batch mode: not for these models ({', '.join(providers)} ha"
            f"{'s' if len(providers) == 1 else 've'} no batch API; batch mode is for "
            f"{' and '.join(BATCH_PROVIDERS)} models)"
        ]
    mode = (
        f"entries in batch mode: {', '.join(batch.batched)}"
        if batch.batched
        else "no entry is in batch mode (batch: true on an entry, or in defaults)"
    )
    rounds = "; ".join(
        f"{label}: {n} × {batch.window_hours[label]}h" for label, n in batch.rounds.items()
    )
    live = (
        f"; {', '.join(plan.live_only)} ha{'s' if len(plan.live_only) == 1 else 've'} no batch "
        f"API (batch mode is for {' and '.join(BATCH_PROVIDERS)} models) and count at the "
        "live price"
        if plan.live_only
        else ""
    )
    return [
        f"batch mode: est. cost {money(plan.batch_cost)} (litellm's batch prices: its "
        f"*_cost_per_token_batches, else half the live price{live}); est. time at most "
        f"{duration(batch.seconds)}, the steps each cell asks in sequence being batches one "
        f"after another, each within its completion window ({rounds}); {mode}",
    ]
