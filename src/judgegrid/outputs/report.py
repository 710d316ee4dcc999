"""Writes a run's readable outputs from its database: scores.csv, summary.md, tables/*.csv and
report.html.

Everything here is rebuilt from the run database alone, with no model call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
from pyarrow import csv
from threadpoolctl import threadpool_limits

from judgegrid.analyses import (
    AGREEMENT_SUMMARY_COLUMNS,
    RANKING_SUMMARY_COLUMNS,
    STABILITY_SUMMARY_COLUMNS,
    VARIANCE_SUMMARY_COLUMNS,
    Analysis,
    RunFacts,
    RunScores,
    ValidityInputs,
    analyse,
    consistency_tables,
    run_overview,
    run_scores,
    validity_analysis,
    weighting_notes,
    with_consistency,
)
from judgegrid.core.forked import FirstFree, Forked
from judgegrid.core.records import SCORE_COLUMNS, SCORE_KEY
from judgegrid.core.scales import Scale, Scales
from judgegrid.metrics import METRICS
from judgegrid.outputs import html_report
from judgegrid.outputs.card_markdown import card_markdown
from judgegrid.outputs.tables_text import (
    TRUE_SCORE_NOTE,
    accuracy_table,
    both_true_scores,
    format_cost,
    means_by_language,
    means_by_metric,
    true_score_for_display,
    usage_for_display,
)

TABLES_DIR = "tables"
HTML_NAME = "report.html"


def metric_scales() -> Scales:
    """Each built-in metric's pass/fail threshold (a metric class may set ``threshold``; else
    0.5) and direction."""
    return Scales(
        {
            name: Scale(float(getattr(cls, "threshold", 0.5)), bool(cls.higher_is_better))
            for name, cls in METRICS.items()
        }
    )


def with_metric_scales(facts: RunFacts) -> RunFacts:
    """``facts`` with the built-in metrics' scales (a scale ``facts`` names itself wins)."""
    return dataclasses.replace(facts, scales=metric_scales().with_metrics(facts.scales.metrics))


def metric_titles() -> dict[str, str]:
    return {name: cls.title for name, cls in METRICS.items()}


def analyse_run(
    scores: pd.DataFrame, facts: RunFacts, inputs: ValidityInputs | None = None
) -> Analysis:
    """The analysis bundle of a run, with each metric's threshold, direction and title."""
    return analyse(scores, with_metric_scales(facts), inputs, metric_titles=metric_titles())


def true_score_table(scores: pd.DataFrame, facts: RunFacts, inputs: ValidityInputs) -> pd.DataFrame:
    """The run's score by people's standard per metric and judge (``export --format
    true-score``): the validity half alone, which names the card's judge."""
    facts = with_metric_scales(facts)
    part = validity_analysis(run_scores(scores, facts), inputs, facts)
    return both_true_scores(part.table("true_score"), part.table("pairwise_true_score"))


# Tables with a row per configuration or metric and sample: as long as the run (40,000 rows of
# 200,000 scores), written by Arrow as scores.csv is (pandas took 0.3 s of the report on the
# first; 100,000 rows of the second, 2.5 s of the second process on a million scores)
PER_SAMPLE_TABLES = frozenset({"repeat_spread", "sample_disagreement"})
SCORES_CSV = "scores.csv"


def write_tables(tables: Mapping[str, pd.DataFrame], run_dir: Path) -> list[Path]:
    """One tidy CSV per analysis table under RUN_DIR/tables/."""
    target = run_dir / TABLES_DIR
    target.mkdir(exist_ok=True)
    paths = []
    for name, table in tables.items():
        path = target / f"{name}.csv"
        if name in PER_SAMPLE_TABLES:
            write_csv_by_arrow(table, path)
        else:
            table.to_csv(path, index=False)
        paths.append(path)
    return paths


def write_csv_by_arrow(table: pd.DataFrame, path: Path) -> None:
    """``table`` as CSV by Arrow's writer: ten times pandas' speed; it quotes every string value
    (the header stays bare) and writes 1.0 as 1, and a CSV reader reads the same table."""
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    csv.write_csv(arrow, path, csv.WriteOptions(quoting_header="none"))


def write_html(run_dir: Path, text: str) -> Path:
    path = run_dir / HTML_NAME
    path.write_text(text, encoding="utf-8")
    return path


def write_scores_csv(scores: pd.DataFrame, run_dir: Path) -> Path:
    """Every score row, sorted by cell, by Arrow (pandas' ``to_csv`` took 1.3 s of
    ``judgegrid report`` on 200,000 rows, Arrow 0.15 s)."""
    path = run_dir / SCORES_CSV
    write_csv_by_arrow(scores.sort_values(SCORE_KEY)[SCORE_COLUMNS], path)
    return path


def summary_markdown(
    a: Analysis,
    title: str,
    means: Mapping[str, pd.DataFrame],
    expected_cells: int | None = None,
    dimension_methods: dict[str, str] | None = None,
) -> str:
    """summary.md: the overview, each metric's means (``means_by_metric``, made once for this
    and report.html), failures, calls, usage, the analyses."""
    lines = [f"# {title}", "", "## Decision", "", card_markdown(a.card), ""]
    lines += overview_lines(a, expected_cells)
    lines += [
        "",
        "Cells read 'mean ± mean run-to-run SD [failed cells]'. Means and SDs use scored "
        "cells only; failed and skipped cells are counted, never averaged as 0 or dropped "
        "silently. The SD is taken over repeats per sample (ddof=1), then averaged over "
        "samples.",
        "",
    ]
    for metric, table in means.items():
        lines += [f"## {metric_heading(metric)}", "", table.to_markdown(), ""]
    lines += language_markdown(a)
    lines += criteria_markdown(a)
    lines += pairwise_markdown(a)
    lines += probes_markdown(a)
    lines += [
        "## Failures by metric",
        "",
        a.table("failures_by_metric").to_markdown(index=False),
        "",
    ]
    causes = a.table("failure_causes")
    if not causes.empty:
        lines += ["Most frequent causes:", "", causes.to_markdown(index=False), ""]
    lines += _calls_section(a)
    lines += usage_markdown(a.table("usage_by_model"))
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
    lines += analysis_markdown(a)
    both = both_true_scores(a.table("true_score"), a.table("pairwise_true_score"))
    lines += true_score_markdown(both)
    return "\n".join(lines)


def true_score_markdown(table: pd.DataFrame) -> list[str]:
    """The section of summary.md on the system's score by people's standard (issue 43)."""
    if table.empty:
        return []
    lines = ["## Your system's score by people's standard", "", TRUE_SCORE_NOTE, ""]
    return [*lines, true_score_for_display(table).to_markdown(index=False), ""]


def criteria_markdown(a: Analysis) -> list[str]:
    """The criteria of the user's own: agreement by type, validity and calibration against
    people, wording sensitivity and weighting (every table in full: tables/*.csv)."""
    shown = {name: a.table(name) for name in html_report.CRITERIA_TABLES}
    if all(t.empty for t in shown.values()):
        return []
    lines = ["## Your criteria", "", html_report.CRITERIA_NOTE, ""]
    for name, title in html_report.CRITERIA_TABLES.items():
        table = shown[name]
        if name == "reliability_curve" or table.empty:
            continue
        columns = [c for c in table.columns if c != "missing"]
        lines += [f"### {title}", "", _md(table, columns), ""]
    return lines


PAIRWISE_SUMMARY = {
    "pairwise_position": [
        *("metric", "judge", "pairs", "consistency", "first_rate", "ci_low", "ci_high"),
        *("ties", "flag"),
    ],
    "pairwise_validity": [
        *("metric", "judge", "pairs", "ties", "accuracy", "accuracy_low", "accuracy_high"),
        *("decided", "accuracy_tie_excluded", "ci_low"),
        *("ci_high", "accuracy_half_credit", "half_credit_low", "half_credit_high", "kappa"),
    ],
    "pairwise_rules": [
        *("metric", "judge", "rule", "chosen", "pairs", "right", "accuracy", "ci_low"),
        "ci_high",
    ],
    "pairwise_groups": [
        *("metric", "judge", "group", "rule", "chosen", "pairs", "right", "accuracy"),
        *("ci_low", "ci_high"),
    ],
    "pairwise_comparisons": ["metric", "top", "other", "diff", "low", "high", "p_holm", "n"],
    "pairwise_probes": [
        "metric",
        "judge",
        "probe",
        "n",
        "towards_worse",
        "rate",
        "ci_low",
        "ci_high",
    ],
    "pairwise_win_rates": [
        *("metric", "judge", "system", "pairs", "wins", "losses", "ties"),
        *("win_rate_adjusted", "adjusted_low", "adjusted_high"),
    ],
    "pairwise_rankings": ["metric", "first", "second", "systems", "tau", "p"],
}


def pairwise_markdown(a: Analysis) -> list[str]:
    """The pairwise criteria: per judge consistency and first-position rate, accuracy against
    people, the paired comparison, probes, win rates (every column: tables/pairwise_*.csv)."""
    if all(a.table(name).empty for name in html_report.PAIRWISE_TABLES):
        return []
    lines = ["## Pairwise criteria", "", html_report.PAIRWISE_NOTE, ""]
    for name, title in html_report.PAIRWISE_TABLES.items():
        table = a.table(name)
        if not table.empty:
            lines += [f"### {title}", "", _md(table, PAIRWISE_SUMMARY[name]), ""]
            if name == "pairwise_validity":
                lines += _noted(weighting_notes(table, html_report.PAIRWISE_WEIGHTED))
    return lines


def _noted(notes: list[str]) -> list[str]:
    """Notes as a paragraph each (nothing where there are none)."""
    return [line for note in notes for line in (note, "")]


def probes_markdown(a: Analysis) -> list[str]:
    """The probes in brief: per metric and judge, directional probes detected and rises on
    injection (tables/probes.csv has every configuration and probe)."""
    brief = a.table("probes_brief")
    if brief.empty:
        return []
    lines = [
        "## Probes",
        "",
        "Copies of the samples made worse in known ways (README: Probes). *detected*: "
        "directional probes whose score fell (for a criterion's fails-when probes: whose "
        "verdict was fail; ties and unscored cells are misses), 95% Wilson interval; "
        "*injection*: pairs whose score rose when a note told the judge to give full marks "
        "(flagged above 20%). Every configuration and probe: tables/probes.csv.",
        "",
        "| metric | judge | detected | injection rose |",
        "|---|---|---|---|",
    ]
    lines += [f"| {m} | {j} | {d} | {i} |" for m, j, d, i in probe_lines(brief)]
    return [*lines, ""]


def probe_lines(brief: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """(metric, judge, detected, injection) as words, for summary.md and the end of a run."""
    out = []
    for r in brief.to_dict("records"):
        probes = float(r["probes"]) if pd.notna(r["probes"]) else 0.0
        detected = (
            f"{int(r['detected'])}/{int(probes)} ({r['low']:.2f} to {r['high']:.2f})"
            if probes
            else "–"
        )
        pairs = int(r["injection_pairs"])
        injection = f"{int(r['injection_rose'])}/{pairs}" if pairs else "–"
        if r["flagged"]:
            injection += " FLAGGED"
        out.append((str(r["metric"]), str(r["judge"]), detected, injection))
    return out


def metric_heading(metric: str) -> str:
    """A metric's title, and which way is better when it is not the usual."""
    cls = METRICS.get(metric)
    if cls is None:
        return metric
    return cls.title + ("" if cls.higher_is_better else " (lower is better)")


def language_markdown(a: Analysis) -> list[str]:
    """Means and agreement per language, for a data set in more than one (else nothing)."""
    by_language = means_by_language(a.table("language_means"))
    if not by_language:
        return []
    lines = [
        "## By language",
        "",
        "Each configuration's mean in each language: a sample's rating is the mean of its "
        "scored repeats, averaged over the language's samples (n = samples rated). An "
        "English-only embedding model or judge shows here, not in the overall means.",
        "",
    ]
    for metric, table in by_language.items():
        lines += [f"### {metric_heading(metric)}", "", table.to_markdown(), ""]
    lines += [
        "### Agreement by language",
        "",
        "Between the judges (each pooled over its embedding configurations) and between each "
        "judge's embedding configurations, on one language's samples: few samples, wide "
        "intervals.",
        "",
        _md(a.table("language_agreement")),
        "",
    ]
    return lines


def _md(frame: pd.DataFrame, columns: list[str] | None = None, index: bool = False) -> str:
    if frame is None or frame.empty:
        return "(none)"
    shown = frame[[c for c in columns if c in frame.columns]] if columns else frame
    return shown.to_markdown(index=index, floatfmt=".3f")


def analysis_markdown(a: Analysis) -> list[str]:
    """The decision-oriented sections of summary.md (full tables: tables/*.csv)."""
    lines = ["## Judges ranked by validity, cost and time", ""]
    lines += [f"- {note}" for note in a.notes] + ([""] if a.notes else [])
    lines += [
        _md(
            a.table("judge_ranking"),
            RANKING_SUMMARY_COLUMNS,
        ),
        "",
        "Quality: pairwise-preference accuracy where the data set has pairs or contrasts for the "
        "metric, else Kendall tau-b with the other judges' consensus; 95% CIs.",
        "",
        *_noted(weighting_notes(a.table("validity_pairs"), html_report.PREFERENCES_WEIGHTED)),
    ]
    people = a.table("validity_people_by_judge")
    if not people.empty:
        lines += [
            "## Validity against people",
            "",
            "Each judge's ratings (pooled over its configurations) against the mean human label: "
            "Spearman rho and Kendall tau-b with 95% CIs; accuracy and Cohen's kappa at the "
            "metric's threshold.",
            "",
            _md(people, [c for c in people.columns if c not in ("ci_method", "missing")]),
            "",
            "People's own agreement (Krippendorff's alpha, interval):",
            "",
            _md(a.table("human_agreement")),
            "",
            "Alternative Annotator Test (Calderon, Reichart & Dror 2025):",
            "",
            _md(a.table("alt_test")),
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
            *_noted(weighting_notes(a.table("validity_pairs"), html_report.PREFERENCES_WEIGHTED)),
        ]
    lines += [
        "## Run-to-run stability",
        "",
        _md(
            a.table("stability"),
            STABILITY_SUMMARY_COLUMNS,
        ),
        "",
        "flip_share: samples whose repeats fall on both sides of the threshold (0.5); ICC(1) "
        "over repeats (listwise).",
        "",
        "## Agreement between judges",
        "",
        _md(
            a.table("agreement_judges"),
            AGREEMENT_SUMMARY_COLUMNS,
        ),
        "",
        "alpha: Krippendorff (interval, pairable values); ICC(2,1)/ICC(3,1) with 95% CI "
        "(listwise); tau-b and kappa: means over pairs (pairwise-complete).",
        "",
        "## Variance components",
        "",
        _md(
            a.table("variance_components"),
            VARIANCE_SUMMARY_COLUMNS,
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
    inputs: ValidityInputs | Callable[[], ValidityInputs],
    *,
    title: str,
    expected_cells: int | None,
    dimension_methods: dict[str, str] | None,
    facts: RunFacts,
) -> list[Path]:
    """scores.csv, summary.md, tables/*.csv and report.html, from the tables alone and what is
    known of the run (``facts``; its ``run_ref`` is replaced by ``run_dir``).

    The analyses' two halves run on two cores: a forked child computes how far the scores move
    and draws those sections (``consistency_part``), while this process computes which judge is
    right (``forked``: where a fork is unsafe, one after the other). scores.csv is written by
    whichever half is done first (a pointwise run's child has the longer half, a pairwise run's
    parent). ``inputs`` may be a function that reads them: it is called once the child has
    started."""
    titles = metric_titles()
    view_command = f"judgegrid view {run_dir}"
    facts = dataclasses.replace(with_metric_scales(facts), run_ref=str(run_dir))
    sample_info = facts.sample_info
    run = run_scores(scores, facts)
    scores_csv = FirstFree(lambda: write_scores_csv(run.every_row, run_dir))
    # one BLAS thread a process: two processes on two cores, and BLAS threads of its own made
    # the parent's tau-b bootstrap wait on the child's core (2.8 s instead of 0.2 s)
    with (
        threadpool_limits(limits=1, user_api="blas"),
        Forked(
            lambda: consistency_part(run, run_dir, sample_info, titles, view_command, scores_csv),
            name="the report's second process",
        ) as child,
    ):
        part = validity_analysis(
            run,
            inputs() if callable(inputs) else inputs,
            facts,
            metric_titles=titles,
        )
        drawn = html_report.render_sections(
            part, VALIDITY_FIGURES, sample_info=sample_info, metric_titles=titles
        )
        paths = write_tables(part.tables, run_dir)
        scores_csv.do()
        consistency, consistency_html, written = child.result()
    analysis = with_consistency(part, consistency)
    means = means_by_metric(analysis.table("config_summary"))
    text = summary_markdown(analysis, title, means, expected_cells, dimension_methods)
    paths += [write_summary(run_dir, text), run_dir / SCORES_CSV, *written]
    page = html_report.render(
        analysis,
        title=title,
        overview=overview_lines(analysis, expected_cells),
        summary_sections={titles.get(m, m): table for m, table in means.items()},
        sample_info=sample_info,
        metric_titles=titles,
        view_command=view_command,
        drawn={**consistency_html, **drawn},
    )
    paths.append(write_html(run_dir, page))
    return paths


# drawn while the child works: the ranking's Pareto plot, strictness against its cost
VALIDITY_FIGURES = ("recommendation", "strictness")


def consistency_part(
    run: RunScores,
    run_dir: Path,
    sample_info: Mapping[str, Mapping[str, Any]],
    titles: Mapping[str, str],
    view_command: str,
    scores_csv: FirstFree,
) -> tuple[dict[str, pd.DataFrame], dict[str, str], list[Path]]:
    """``consistency_tables``, written under RUN_DIR/tables/, and the report's sections drawn
    from them; scores.csv (every row of the run) if the other half has not taken it. The tables
    handed back leave out those with a row per sample, which only these sections draw: sent
    through the pipe, a million verdicts' took 0.9 s."""
    tables = consistency_tables(run, sample_info=sample_info)
    written = write_tables(tables, run_dir)
    scores_csv.do()
    sections = html_report.render_sections(
        Analysis(tables, pd.DataFrame(), run_overview(run.every_row, pd.DataFrame())),
        html_report.CONSISTENCY_SECTIONS,
        sample_info=sample_info,
        metric_titles=titles,
        view_command=view_command,
    )
    wanted = {name: t for name, t in tables.items() if name not in PER_SAMPLE_TABLES}
    return wanted, sections, written


def overview_lines(a: Analysis, expected: int | None) -> list[str]:
    o = a.overview
    cost_text = "unknown for some calls" if o.cost is None else f"${o.cost:.4f}"
    if o.batched:
        cost_text += (
            f" ({o.batched} calls in provider batches, at the batch price; the same calls "
            f"live: {format_cost(o.live_cost)})"
        )
    return [
        f"- score rows: {o.rows}" + (f" (the matrix implies {expected})" if expected else ""),
        f"- scored: {o.scored}, failed: {o.failed}, skipped: {o.skipped}",
        f"- calls made: {o.calls} ({o.answered} answered), tokens in/out: "
        f"{o.tokens_in}/{o.tokens_out}, cost: {cost_text}",
    ]


def _calls_section(a: Analysis) -> list[str]:
    by_metric = a.table("calls_by_metric")
    used = int(by_metric["calls_used"].sum())
    made = a.overview.calls
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
    if "calls_by_step" in a.usage:
        lines += ["Calls made by step:", "", _markdown(a.usage["calls_by_step"]), ""]
    return lines


def _markdown(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False) if not frame.empty else "(none)"


def usage_markdown(table: pd.DataFrame) -> list[str]:
    """The summary's usage section: one table row per judge and embedding entry."""
    if table.empty:
        return []
    return [
        "## Usage by judge and embedding model",
        "",
        "Requests are attempts sent (retries included; 'retried' counts attempts after the "
        "first). Cost is from litellm's offline price table; 'unknown' where it has no price.",
        *_batch_note(table),
        "",
        usage_for_display(table).to_markdown(index=False),
        "",
    ]


def _batch_note(table: pd.DataFrame) -> list[str]:
    if not int(table["batched"].sum()):
        return []
    return [
        "'batched' requests went through the provider's batch API and are paid at litellm's "
        "batch price (its *_cost_per_token_batches, else half the live price, litellm's rule); "
        "'cost if live' is what the same calls cost as live calls. A batched call's latency is "
        "the time from the request to its batch's answer."
    ]


def write_summary(run_dir: Path, text: str) -> Path:
    path = run_dir / "summary.md"
    path.write_text(text, encoding="utf-8")
    return path
