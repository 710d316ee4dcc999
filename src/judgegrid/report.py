"""Writes a run's readable outputs from its database: scores.csv, summary.md, tables/*.csv and
report.html.

Everything here is rebuilt from the run database alone, with no model call.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid import accounting, analyses
from judgegrid.analyses.bundle import Analysis, analyse
from judgegrid.analyses.validity import accuracy_table
from judgegrid.metrics import METRICS
from judgegrid.records import SCORE_COLUMNS, SCORE_KEY

TABLES_DIR = "tables"
HTML_NAME = "report.html"


def metric_thresholds() -> dict[str, float]:
    """Each metric's pass/fail threshold (a metric class may set ``threshold``; else 0.5)."""
    return {name: float(getattr(cls, "threshold", 0.5)) for name, cls in METRICS.items()}


def lower_is_better() -> frozenset[str]:
    return frozenset(name for name, cls in METRICS.items() if not cls.higher_is_better)


def metric_titles() -> dict[str, str]:
    return {name: cls.title for name, cls in METRICS.items()}


def analyse_run(scores: pd.DataFrame, sample_info: Mapping[str, Mapping[str, Any]]) -> Analysis:
    return analyse(
        scores,
        thresholds=metric_thresholds(),
        lower_is_better=lower_is_better(),
        sample_info=sample_info,
        metric_titles=metric_titles(),
    )


def write_tables(analysis: Analysis, run_dir: Path) -> list[Path]:
    """One tidy CSV per analysis table under RUN_DIR/tables/."""
    target = run_dir / TABLES_DIR
    target.mkdir(exist_ok=True)
    paths = []
    for name, table in analysis.tables.items():
        path = target / f"{name}.csv"
        table.to_csv(path, index=False)
        paths.append(path)
    return paths


def write_html(run_dir: Path, text: str) -> Path:
    path = run_dir / HTML_NAME
    path.write_text(text, encoding="utf-8")
    return path


def write_scores_csv(scores: pd.DataFrame, run_dir: Path) -> Path:
    path = run_dir / "scores.csv"
    scores.sort_values(SCORE_KEY).to_csv(path, index=False, columns=SCORE_COLUMNS)
    return path


def summary_markdown(
    scores: pd.DataFrame,
    calls: pd.DataFrame,
    title: str,
    expected_cells: int | None = None,
    dimension_methods: dict[str, str] | None = None,
    step_names: pd.DataFrame | None = None,
    analysis: Analysis | None = None,
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
    lines += _calls_section(scores, calls, step_names)
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
    if analysis is not None:
        lines += analysis_markdown(analysis)
    return "\n".join(lines)


def _md(frame: pd.DataFrame, columns: list[str] | None = None, index: bool = False) -> str:
    if frame is None or frame.empty:
        return "(none)"
    shown = frame[[c for c in columns if c in frame.columns]] if columns else frame
    return shown.to_markdown(index=index, floatfmt=".3f")


def analysis_markdown(a: Analysis) -> list[str]:
    """The decision-oriented sections of summary.md (full tables: tables/*.csv)."""
    lines = ["## Which judge to pick", "", a.recommendation, ""]
    lines += [f"- {note}" for note in a.notes] + ([""] if a.notes else [])
    lines += [
        _md(
            a.table("judge_ranking"),
            [
                "metric",
                "judge",
                "quality",
                "ci_low",
                "ci_high",
                "n",
                "cost_per_score",
                "latency_per_score_s",
                "failure_rate",
                "pareto",
                "rank",
            ],
        ),
        "",
        "Quality: pairwise-preference accuracy where the data set has pairs or contrasts for the "
        "metric, else Kendall tau-b with the other judges' consensus; 95% CIs.",
        "",
    ]
    validity = accuracy_table(a.table("validity_pairs"))
    if not validity.empty:
        lines += [
            "## Validity: pairwise-preference accuracy",
            "",
            "Share of pairs where the preferred member scores strictly higher (ties count "
            "as disagreement), [95% Wilson interval], pairs with both members scored.",
            "",
            validity.to_markdown(),
            "",
        ]
    lines += [
        "## Run-to-run stability",
        "",
        _md(
            a.table("stability"),
            [
                "metric",
                "judge",
                "embedding",
                "dimension",
                "strictness",
                "mean_run_sd",
                "flip_share",
                "icc1",
                "icc1_low",
                "icc1_high",
                "repeats_for_0.8",
            ],
        ),
        "",
        "flip_share: samples whose repeats fall on both sides of the threshold (0.5); ICC(1) "
        "over repeats (listwise).",
        "",
        "## Agreement between judges",
        "",
        _md(
            a.table("agreement_judges"),
            [
                "metric",
                "embedding",
                "dimension",
                "strictness",
                "raters",
                "samples",
                "alpha",
                "icc2",
                "icc2_low",
                "icc2_high",
                "icc3",
                "mean_tau_b",
                "mean_kappa",
                "note",
            ],
        ),
        "",
        "alpha: Krippendorff (interval, pairable values); ICC(2,1)/ICC(3,1) with 95% CI "
        "(listwise); tau-b and kappa: means over pairs (pairwise-complete).",
        "",
        "## Variance components",
        "",
        _md(
            a.table("variance_components"),
            ["metric", "strictness", "component", "variance", "share", "samples"],
        ),
        "",
        _md(a.table("decision_needed")),
        "",
    ]
    strictness = a.table("strictness")
    if not strictness.empty:
        lines += ["## Strictness trade-off", "", _md(strictness.drop(columns="missing")), ""]
    return lines


def write_all(
    run_dir: Path,
    scores: pd.DataFrame,
    calls: pd.DataFrame,
    *,
    title: str,
    expected_cells: int | None,
    dimension_methods: dict[str, str] | None,
    sample_info: Mapping[str, Mapping[str, Any]],
    step_names: pd.DataFrame | None = None,
) -> list[Path]:
    """scores.csv, summary.md, tables/*.csv and report.html, from the tables alone."""
    from judgegrid import html_report

    paths = [write_scores_csv(scores, run_dir)]
    analysis = analyse_run(scores, sample_info)
    text = summary_markdown(
        scores,
        calls,
        title,
        expected_cells,
        dimension_methods,
        step_names=step_names,
        analysis=analysis,
    )
    paths.append(write_summary(run_dir, text))
    paths += write_tables(analysis, run_dir)
    summary = analyses.config_summary(scores)
    titles = metric_titles()
    sections = {
        titles.get(m, m): analyses.judge_by_embedding(summary, m)
        for m in sorted(summary["metric"].unique())
    }
    page = html_report.render(
        analysis,
        title=title,
        overview=_overview(scores, calls, expected_cells),
        summary_sections=sections,
        sample_info=sample_info,
        metric_titles=titles,
    )
    paths.append(write_html(run_dir, page))
    return paths


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


def _calls_section(
    scores: pd.DataFrame, calls: pd.DataFrame, step_names: pd.DataFrame | None
) -> list[str]:
    by_metric = analyses.calls_by_metric(scores)
    used, made = int(by_metric["calls_used"].sum()), len(calls)
    lines = [
        "## Calls per metric",
        "",
        by_metric.to_markdown(index=False),
        "",
        f"The cells used {used} calls, counting a shared call once in every cell that used it "
        f"(what a runner that shares nothing would make); {made} calls were made. Steps "
        "shared between metrics (statements, NLI verdicts), embedding models, dimensions and "
        "strictness values are asked once per judge, sample and repeat.",
        "",
    ]
    if step_names is not None:
        by_step = analyses.calls_by_step(calls, step_names)
        lines += ["Calls made by step:", "", _markdown(by_step), ""]
    return lines


def _markdown(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False) if not frame.empty else "(none)"


def write_summary(run_dir: Path, text: str) -> Path:
    path = run_dir / "summary.md"
    path.write_text(text, encoding="utf-8")
    return path
