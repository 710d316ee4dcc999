"""Pure accounting over a run's calls table (no I/O): requests, retries, tokens, cost, latency.

Per model entry (judge or embedding label) and for the whole run. The calls table has one row
per attempt, so these sums are what was really sent, shared steps counted once; the scores table
holds the same figures per cell (where a shared step counts in every cell that used it).
A cost is unknown when litellm's price table lacks the model: it is then shown as "unknown",
never added up as 0. In batch mode ``cost`` is what was paid (the batch price) and ``live_cost``
what the same calls would have cost live; for live calls the two are the same.
"""

from __future__ import annotations

import pandas as pd

USAGE_COLUMNS = [
    "kind",
    "label",
    "model",
    "requests",
    "answered",
    "errors",
    "retried",
    "tokens_in",
    "tokens_out",
    "cost",
    "live_cost",
    "batched",
    "latency_s",
    "mean_latency_s",
]


def live_costs(calls: pd.DataFrame) -> pd.Series:
    """What each call would have cost live: its own cost, or for an answered batch line the
    live price recorded beside its batch price (a failed line is paid neither way)."""
    if "batch_id" not in calls or "live_cost" not in calls:
        return calls["cost"]
    answered_in_batch = calls["batch_id"].notna() & (calls["status"] == "ok")
    return calls["cost"].where(~answered_in_batch, calls["live_cost"])


def batched_calls(calls: pd.DataFrame) -> pd.Series:
    """Whether each call went through a provider batch."""
    if "batch_id" not in calls:
        return pd.Series(False, index=calls.index)
    return calls["batch_id"].notna()


def known_sum(costs: pd.Series) -> float | None:
    """The sum, or None when any cost is unknown (NaN/None): a partial sum would mislead."""
    if costs.isna().any():
        return None
    return float(costs.sum())


def usage_by_model(calls: pd.DataFrame) -> pd.DataFrame:
    """One row per (kind, label): requests sent, answered, failed attempts, requests retried
    (attempts after the first), tokens, cost (None = unknown), what it would have cost live,
    requests sent in provider batches, and latency."""
    if calls.empty:
        return pd.DataFrame(columns=USAGE_COLUMNS)
    calls = calls.assign(live_cost=live_costs(calls), batched=batched_calls(calls))
    rows = []
    for (kind, label), group in calls.groupby(["kind", "label"], sort=True):
        rows.append(
            {
                "kind": kind,
                "label": label,
                "model": group["model"].iloc[0],
                "requests": len(group),
                "answered": int((group["status"] == "ok").sum()),
                "errors": int((group["status"] != "ok").sum()),
                "retried": int((group["attempt"] > 1).sum()),
                "tokens_in": int(group["tokens_in"].sum()),
                "tokens_out": int(group["tokens_out"].sum()),
                "cost": known_sum(group["cost"]),
                "live_cost": known_sum(group["live_cost"]),
                "batched": int(group["batched"].sum()),
                "latency_s": float(group["latency_s"].sum()),
                "mean_latency_s": float(group["latency_s"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=USAGE_COLUMNS)


def run_usage(calls: pd.DataFrame) -> dict[str, float | int | None]:
    """The whole run's requests, tokens, cost (None = unknown), live cost, requests sent in
    batches and summed call latency."""
    return {
        "live_cost": known_sum(live_costs(calls)) if len(calls) else 0.0,
        "batched": int(batched_calls(calls).sum()) if len(calls) else 0,
        "requests": len(calls),
        "answered": int((calls["status"] == "ok").sum()) if len(calls) else 0,
        "tokens_in": int(calls["tokens_in"].sum()) if len(calls) else 0,
        "tokens_out": int(calls["tokens_out"].sum()) if len(calls) else 0,
        "cost": known_sum(calls["cost"]) if len(calls) else 0.0,
        "latency_s": float(calls["latency_s"].sum()) if len(calls) else 0.0,
    }
