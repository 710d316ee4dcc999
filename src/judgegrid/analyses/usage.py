"""Pure accounting over a run's calls table (no I/O): requests, retries, tokens, cost, latency.

Per model entry (judge or embedding label) and for the whole run. The calls table has one row
per attempt, so these sums are what was really sent, shared steps counted once; the scores table
holds the same figures per cell (where a shared step counts in every cell that used it).
A cost is unknown when litellm's price table lacks the model: it is then shown as "unknown",
never added up as 0.
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
    "latency_s",
    "mean_latency_s",
]


def known_sum(costs: pd.Series) -> float | None:
    """The sum, or None when any cost is unknown (NaN/None): a partial sum would mislead."""
    if costs.isna().any():
        return None
    return float(costs.sum())


def usage_by_model(calls: pd.DataFrame) -> pd.DataFrame:
    """One row per (kind, label): requests sent, answered, failed attempts, requests retried
    (attempts after the first), tokens, cost (None = unknown) and latency."""
    if calls.empty:
        return pd.DataFrame(columns=USAGE_COLUMNS)
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
                "latency_s": float(group["latency_s"].sum()),
                "mean_latency_s": float(group["latency_s"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=USAGE_COLUMNS)


def run_usage(calls: pd.DataFrame) -> dict[str, float | int | None]:
    """The whole run's requests, tokens, cost (None = unknown) and summed call latency."""
    return {
        "requests": len(calls),
        "answered": int((calls["status"] == "ok").sum()) if len(calls) else 0,
        "tokens_in": int(calls["tokens_in"].sum()) if len(calls) else 0,
        "tokens_out": int(calls["tokens_out"].sum()) if len(calls) else 0,
        "cost": known_sum(calls["cost"]) if len(calls) else 0.0,
        "latency_s": float(calls["latency_s"].sum()) if len(calls) else 0.0,
    }
