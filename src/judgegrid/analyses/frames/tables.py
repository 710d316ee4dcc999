"""Pure analyses of a scores table (no I/O): per-cell means, run-to-run spread, failures.

Failed and skipped cells are never averaged as if they were scores: means and spreads use the
scored cells only, and every table carries the failure and skip counts next to the mean, so a
reader sees when two judges were averaged over different rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CONFIG_AXES = ["metric", "judge", "embedding", "dimension", "strictness"]


def known_total(values: pd.Series) -> float | int:
    """A count's total, NaN when none of it is known (an imported run whose source recorded
    no tokens): unknown, never 0. Missing-data rule: the known values are summed."""
    total = values.sum(min_count=1)
    return float("nan") if pd.isna(total) else int(total)


def repeat_spread(scores: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and sample: mean, SD (ddof=1) and range of the scored repeats."""
    scored = scores[scores["status"] == "scored"]
    grouped = scored.groupby([*CONFIG_AXES, "sample_id"], dropna=False)["score"]
    spread = grouped.agg(
        mean="mean",
        sd="std",  # ddof=1; NaN for a single repeat (vectorised: no Python call per group)
        low="min",
        high="max",
        repeats="count",
    ).reset_index()
    spread["range"] = spread["high"] - spread["low"]
    return spread


def config_summary(scores: pd.DataFrame, spread: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per configuration: mean score, mean run-to-run SD, counts by status, calls per score.
    ``spread``: ``repeat_spread(scores)`` if already made."""
    spread = repeat_spread(scores) if spread is None else spread
    status_counts = (
        scores.pivot_table(
            index=CONFIG_AXES, columns="status", values="repeat", aggfunc="count", fill_value=0
        )
        .reindex(columns=["scored", "failed", "skipped"], fill_value=0)
        .reset_index()
    )
    scored = scores[scores["status"] == "scored"]
    means = scored.groupby(CONFIG_AXES)["score"].mean().rename("mean_score").reset_index()
    sds = spread.groupby(CONFIG_AXES)["sd"].mean().rename("mean_run_sd").reset_index()
    usage = (
        scores.groupby(CONFIG_AXES)
        .agg(
            calls=("calls", "sum"),
            tokens_in=("tokens_in", known_total),
            tokens_out=("tokens_out", known_total),
            latency_s=("latency_s", "mean"),
        )
        .reset_index()
    )
    table = status_counts.merge(means, on=CONFIG_AXES, how="left")
    table = table.merge(sds, on=CONFIG_AXES, how="left").merge(usage, on=CONFIG_AXES, how="left")
    attempted = table["scored"] + table["failed"]
    table["failure_rate"] = np.where(
        attempted > 0, table["failed"] / attempted.clip(lower=1), np.nan
    )
    table["calls_per_score"] = np.where(
        table["scored"] > 0, table["calls"] / table["scored"].clip(lower=1), np.nan
    )
    return table


def metric_failure_rates(scores: pd.DataFrame) -> pd.DataFrame:
    """Per metric: cells scored, failed, skipped and the failure rate among attempted cells."""
    counts = scores.pivot_table(
        index="metric", columns="status", values="repeat", aggfunc="count", fill_value=0
    ).reindex(columns=["scored", "failed", "skipped"], fill_value=0)
    attempted = counts["scored"] + counts["failed"]
    counts["failure_rate"] = (counts["failed"] / attempted.where(attempted > 0)).round(4)
    return counts.reset_index()


def _frequent_causes(rows: pd.DataFrame, by: str, n: int) -> pd.DataFrame:
    """The most frequent messages (first line, shortened) per value of ``by``, most cells first."""
    if rows.empty:
        return pd.DataFrame(columns=[by, "cause", "cells"])
    rows = rows.assign(cause=rows["error"].fillna("").str.split("\n").str[0].str.slice(0, 160))
    causes = rows.groupby([by, "cause"]).size().rename("cells").reset_index()
    return causes.sort_values([by, "cells"], ascending=[True, False]).groupby(by).head(n)


def cell_causes(scores: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """Why cells were failed or skipped: the most frequent causes of each."""
    return _frequent_causes(scores[scores["status"].isin(["failed", "skipped"])], "status", n)


def top_failure_causes(scores: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The most frequent failure messages per metric."""
    return _frequent_causes(scores[scores["status"] == "failed"], "metric", n)


JUDGE_ONLY = "(judge only)"


def embedding_column(embedding: str, dimension: int) -> str:
    """The one label of an embedding configuration in every table and figure: 'model @ dim',
    'model' at the model's own size (dimension 0), '(judge only)' for a judge-only metric."""
    if not embedding:
        return JUDGE_ONLY
    return f"{embedding} @ {dimension}" if dimension else embedding


def embedding_config(embedding: pd.Series, dimension: pd.Series) -> pd.Series:
    """``embedding_column`` of every row."""
    labels = [embedding_column(str(e), int(d)) for e, d in zip(embedding, dimension, strict=True)]
    return pd.Series(labels, index=embedding.index, dtype=object)


def configuration_labels(rows: pd.DataFrame) -> list[str]:
    """Each row's configuration as every table names it: 'judge / embedding @ dim
    (s=strictness)', or the judge alone for a judge-only metric."""
    embedding = embedding_config(rows["embedding"], rows["dimension"])
    return [
        f"{j}{f' / {e}' if raw else ''}{f' (s={s})' if s else ''}"
        for j, e, raw, s in zip(
            rows["judge"], embedding, rows["embedding"], rows["strictness"], strict=True
        )
    ]


def judge_rows(rows: pd.DataFrame) -> list[str]:
    """Each row's judge as the by-embedding tables and heatmaps name it: 'judge (s=strictness)',
    or the judge alone where a metric has no strictness."""
    return [
        f"{j} (s={s})" if s else j for j, s in zip(rows["judge"], rows["strictness"], strict=True)
    ]


def by_judge_and_embedding(rows: pd.DataFrame) -> pd.DataFrame:
    """Configuration rows with the names a judge (× strictness) by embedding@dimension table
    gives them: ``row`` (``judge_rows``) and ``column`` (``embedding_config``)."""
    return rows.assign(
        column=embedding_config(rows["embedding"], rows["dimension"]), row=judge_rows(rows)
    )


def calls_by_metric(scores: pd.DataFrame) -> pd.DataFrame:
    """Per metric: cells by status, the calls its cells used and calls per scored cell.

    A call shared between cells (the same step asked by several metrics, embeddings or
    strictness values) is counted in every cell that used it: the sum is what a runner that
    shares nothing would have made.
    """
    table = scores.pivot_table(
        index="metric", columns="status", values="repeat", aggfunc="count", fill_value=0
    ).reindex(columns=["scored", "failed", "skipped"], fill_value=0)
    table["calls_used"] = scores.groupby("metric")["calls"].sum()
    table["calls_per_score"] = (
        table["calls_used"] / table["scored"].where(table["scored"] > 0)
    ).round(2)
    return table.reset_index()


def calls_by_step(calls: pd.DataFrame, step_names: pd.DataFrame) -> pd.DataFrame:
    """Calls actually made, by judge step (statements, nli, …) or 'embedding', with retries
    and failed attempts."""
    if calls.empty:
        return pd.DataFrame(columns=["step", "calls", "retries", "failed"])
    names = step_names.set_index("key")["step"] if not step_names.empty else pd.Series(dtype=str)
    step = calls["step_key"].map(names)
    step = step.where(calls["kind"] != "embedding", "embedding").fillna("(unknown)")
    frame = calls.assign(step=step, retry=calls["attempt"] > 1, failed=calls["status"] != "ok")
    return (
        frame.groupby("step")
        .agg(calls=("id", "count"), retries=("retry", "sum"), failed=("failed", "sum"))
        .reset_index()
        .sort_values("calls", ascending=False)
    )
