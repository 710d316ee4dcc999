"""The analyses' tables as text for people: a configuration's mean with its spread and
failures, a language's mean with its samples, a pair accuracy with its interval, money and
rounded times. The analyses hand over numbers; summary.md and report.html show these. And a
markdown page such as pairs_summary.md fitted to a terminal's width, nothing cut."""

from __future__ import annotations

import itertools
import math
import re
import textwrap

import pandas as pd

from judgegrid.analyses import by_judge_and_embedding, configuration_labels


def judge_by_embedding(summary: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric as a judge (× strictness) by embedding@dimension table of 'mean ± sd [f]'."""
    rows = by_judge_and_embedding(summary[summary["metric"] == metric])
    rows["text"] = [
        _mean_cell(m, sd, f)
        for m, sd, f in zip(rows["mean_score"], rows["mean_run_sd"], rows["failed"], strict=True)
    ]
    table = rows.pivot(index="row", columns="column", values="text")
    table.index.name = "judge"
    table.columns.name = None
    return table


def _mean_cell(mean: float, sd: float, failed: int) -> str:
    mean_text = "n/a" if pd.isna(mean) else f"{mean:.3f}"
    sd_text = "" if pd.isna(sd) else f" ± {sd:.3f}"
    return f"{mean_text}{sd_text} [{int(failed)} failed]"


def language_table(means: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One metric as configuration (rows) by language (columns) of 'mean (n=samples)'."""
    rows = means[means["metric"] == metric]
    if rows.empty:
        return pd.DataFrame()
    text = [
        _language_cell(m, int(n), int(f))
        for m, n, f in zip(rows["mean"], rows["samples"], rows["failed"], strict=True)
    ]
    table = rows.assign(text=text).pivot(index="configuration", columns="language", values="text")
    table.columns.name = None
    return table.fillna("–")


def _language_cell(mean: float, samples: int, failed: int) -> str:
    lost = f", {failed} failed" if failed else ""
    if samples == 0:
        return f"n/a (0 samples{lost})"
    return f"{mean:.3f} (n={samples}{lost})"


def accuracy_table(pair_accuracy_table: pd.DataFrame) -> pd.DataFrame:
    """Per configuration (rows) x aspect/metric (columns): 'accuracy [low-high] n=pairs'."""
    if pair_accuracy_table.empty:
        return pd.DataFrame()
    t = pair_accuracy_table.copy()
    t["configuration"] = configuration_labels(t)
    t["column"] = t["source"] + ": " + t["aspect"] + " → " + t["metric"]
    t["cell"] = [
        _accuracy_cell(a, lo, hi, int(n), int(u))
        for a, lo, hi, n, u in zip(
            t["accuracy"], t["ci_low"], t["ci_high"], t["pairs"], t["pairs_unscored"], strict=True
        )
    ]
    table = t.pivot_table(index="configuration", columns="column", values="cell", aggfunc="first")
    table.columns.name = None
    table = table.fillna("–")
    return table


def _accuracy_cell(accuracy: float, low: float, high: float, pairs: int, unscored: int) -> str:
    lost = f" ({unscored} unscored)" if unscored else ""
    if pairs == 0:
        return f"no pair scored{lost}"
    return f"{accuracy:.2f} [{low:.2f}–{high:.2f}] n={pairs + unscored}{lost}"


def format_cost(cost: float | None) -> str:
    if cost is None or (isinstance(cost, float) and math.isnan(cost)):
        return "unknown"
    return f"${cost:.4f}"


def usage_for_display(table: pd.DataFrame) -> pd.DataFrame:
    """The usage table as shown: costs as money, rounded times; the batch columns only when
    some entry ran in batch mode."""
    shown = table.assign(
        cost=[format_cost(c) for c in table["cost"]],
        live_cost=[format_cost(c) for c in table["live_cost"]],
        latency_s=table["latency_s"].round(2),
        mean_latency_s=table["mean_latency_s"].round(3),
    )
    if not int(table["batched"].sum()):
        return shown.drop(columns=["live_cost", "batched"])
    return shown.rename(columns={"cost": "cost (paid)", "live_cost": "cost if live"})


def means_by_metric(summary: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per metric, its judge by embedding table of means (``config_summary``)."""
    return {m: judge_by_embedding(summary, m) for m in sorted(summary["metric"].unique())}


def means_by_language(spoken: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per metric, its configuration by language table (``language_means``; none for a data
    set in one language)."""
    return {m: language_table(spoken, m) for m in sorted(set(spoken["metric"]))}


# what leads a markdown line's text, and the indent its later lines take: a list item's
# marker, a quote's
_LEAD = re.compile(r"\s*(?:[-*+] |\d+\. |> )?")
EMPTY_CELLS = ("", "–")  # a table's cell that says nothing: left out when a table is stacked


def markdown_for_terminal(markdown: str, width: int) -> str:
    """A markdown page as a terminal ``width`` columns wide shows it: each paragraph, heading
    or list item wrapped between words (a word, a path say, never cut); each table too wide
    stacked, every row its first cell and then its other cells beneath, one ``column: cell``
    a line."""
    lines: list[str] = []
    for in_table, block in itertools.groupby(markdown.splitlines(), _is_table_line):
        rows = list(block)
        if not in_table:
            lines += [part for line in rows for part in _wrapped_markdown(line, width)]
        elif max(len(row) for row in rows) <= width:
            lines += rows
        else:
            lines += _stacked_table(rows, width)
    return "\n".join(lines) + "\n"


def _is_table_line(line: str) -> bool:
    return line.startswith("|")


def _wrapped_markdown(line: str, width: int, later: str | None = None) -> list[str]:
    """One line of text over lines of ``width``; its later lines under its text, past a list
    item's marker (or at ``later``)."""
    if not line.strip():
        return [""]
    lead = _LEAD.match(line)
    indent = later if later is not None else " " * (lead.end() if lead else 0)
    return textwrap.wrap(
        line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def _stacked_table(rows: list[str], width: int) -> list[str]:
    """A markdown table as each row's first cell, then its other cells beneath it."""
    header, _, *body = [_cells(row) for row in rows]
    lines: list[str] = []
    for row in body:
        lines += _wrapped_markdown(row[0], width, "  ")
        for column, cell in zip(header[1:], row[1:], strict=False):
            if cell not in EMPTY_CELLS:
                lines += _wrapped_markdown(f"  {column}: {cell}", width, "    ")
    return lines


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


TRUE_SCORE_NOTE = (
    "Each judge's mean over every sample it scored carries its bias. Corrected by the samples "
    "people labelled (prediction-powered inference, PPI++), it is the mean by people's "
    "standard, with a 95% interval; 'worth' is how many labels alone would give an interval "
    "that narrow. A judge that does not track people gains nothing: its corrected mean is "
    "people's own. A pairwise criterion's row is a system's win rate (a tie half a win). "
    "Labels count as a uniform draw. See docs/true-score.md."
)


def both_true_scores(pointwise: pd.DataFrame, pairwise: pd.DataFrame) -> pd.DataFrame:
    """The pointwise metrics' true scores and the pairwise criteria's (a row per system, its
    win rate) in one table: ``system`` empty on a pointwise metric's row."""
    pointwise = pointwise.assign(system="")
    frames = [pointwise, pairwise]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pointwise
    both = pd.concat(frames, ignore_index=True)
    first = ["metric", "judge", "system"]
    return both[[*first, *[c for c in both.columns if c not in first]]]


def true_score_for_display(table: pd.DataFrame) -> pd.DataFrame:
    """``both_true_scores`` for people: each mean with its interval in one cell, the card's
    judge marked, the system column only where a pairwise criterion has one."""
    shown = pd.DataFrame(
        {
            "metric": table["metric"],
            "judge": [
                f"{j} (chosen)" if c else j
                for j, c in zip(table["judge"], table["chosen"], strict=True)
            ],
            "system's win rate": table["system"].fillna(""),
            "judge's mean": table["judge_mean"].map("{:.3f}".format),
            "samples": table["scored"],
            "people (labels only)": _with_interval(table, "people_mean", "people"),
            "labels": table["labels"],
            "by people's standard": _with_interval(table, "corrected", "corrected"),
            "worth (labels)": table["effective_labels"].map(_whole),
        }
    )
    if not shown["system's win rate"].astype(bool).any():
        shown = shown.drop(columns="system's win rate")
    return shown


def _with_interval(table: pd.DataFrame, mean: str, stem: str) -> list[str]:
    return [
        "–" if pd.isna(m) else f"{m:.3f}" if pd.isna(lo) else f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
        for m, lo, hi in zip(table[mean], table[f"{stem}_low"], table[f"{stem}_high"], strict=True)
    ]


def _whole(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.0f}"
