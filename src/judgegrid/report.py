"""Writes a run's readable outputs from its database: scores.csv and summary.md.

Everything here is rebuilt from the run database alone, with no model call.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judgegrid import accounting, analyses
from judgegrid.metrics import METRICS


def write_scores_csv(scores: pd.DataFrame, run_dir: Path) -> Path:
    path = run_dir / "scores.csv"
    scores.sort_values(
        ["metric", "judge", "embedding", "dimension", "strictness", "sample_id", "repeat"]
    ).to_csv(path, index=False)
    return path


def summary_markdown(
    scores: pd.DataFrame,
    calls: pd.DataFrame,
    title: str,
    expected_cells: int | None = None,
    dimension_methods: dict[str, str] | None = None,
) -> str:
    summary = analyses.config_summary(scores)
    lines = [f"# {title}", ""]
    lines += _overview(scores, calls, expected_cells)
    lines += [
        "",
        "Cells read 'mean ± mean run-to-run SD [failed cells]'. Means and SDs use scored "
        "cells only; failed and skipped cells are counted, never averaged as 0 or dropped "
        "silently. The SD is taken over repeats per sample (ddof=1), then averaged over "
        "samples.",
        "",
    ]
    for metric in sorted(summary["metric"].unique()):
        cls = METRICS.get(metric)
        heading = cls.title if cls else metric
        direction = "" if not cls or cls.higher_is_better else " (lower is better)"
        lines += [f"## {heading}{direction}", ""]
        lines += [analyses.judge_by_embedding(summary, metric).to_markdown(), ""]
    lines += [
        "## Failures by metric",
        "",
        analyses.metric_failure_rates(scores).to_markdown(index=False),
        "",
    ]
    causes = analyses.top_failure_causes(scores)
    if not causes.empty:
        lines += ["Most frequent causes:", "", causes.to_markdown(index=False), ""]
    lines += accounting.usage_markdown(calls)
    if dimension_methods:
        lines += ["## Embedding dimensions", ""]
        for label, method in dimension_methods.items():
            how = (
                "asked of the provider (native dimensions)"
                if method == "native"
                else "first d components, L2-renormalised (exact only for Matryoshka-trained "
                "models; an approximation otherwise)"
            )
            lines.append(f"- {label}: {how}")
        lines.append("")
    return "\n".join(lines)


def _overview(scores: pd.DataFrame, calls: pd.DataFrame, expected: int | None) -> list[str]:
    counts = scores["status"].value_counts()
    ok_calls = calls[calls["status"] == "ok"] if not calls.empty else calls
    cost = calls["cost"] if not calls.empty else pd.Series(dtype=float)
    cost_text = "unknown for some calls" if cost.isna().any() else f"${cost.sum():.4f}"
    rows = [
        f"- score rows: {len(scores)}" + (f" (the matrix implies {expected})" if expected else ""),
        f"- scored: {counts.get('scored', 0)}, failed: {counts.get('failed', 0)}, "
        f"skipped: {counts.get('skipped', 0)}",
        f"- calls made: {len(calls)} ({len(ok_calls)} answered), tokens in/out: "
        f"{int(calls['tokens_in'].sum()) if not calls.empty else 0}/"
        f"{int(calls['tokens_out'].sum()) if not calls.empty else 0}, cost: {cost_text}",
    ]
    return rows


def write_summary(run_dir: Path, text: str) -> Path:
    path = run_dir / "summary.md"
    path.write_text(text, encoding="utf-8")
    return path
