"""Juries: panels of judges scored as virtual judges from the calls already made.

Verga et al. (2024), "Replacing Judges with Juries", found a panel of small judges agreeing with
people better than one large judge, at a fraction of the cost. A jury here costs no call: its
score of a cell (metric, sample, embedding, dimension, strictness, repeat) is the mean of its
members' scores of that cell; its cost, latency, calls and tokens are the sums of its members'
(every member is called). Missing data: a cell the jury has only where every member has a row;
a member whose cell failed is left out of the mean (the others still judge), and the jury's cell
fails only when no member scored it (skipped when every member skipped).

A jury agrees with its own members by construction, so the agreement rung of the decision card
and the consensus ranking leave juries out (``is_jury``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

JURY_PREFIX = "jury("
CELL_KEYS = ["metric", "sample_id", "embedding", "dimension", "strictness", "repeat"]
SUMMED = ["calls", "tokens_in", "tokens_out", "cost", "latency_s"]


def jury_name(members: Sequence[str]) -> str:
    return f"{JURY_PREFIX}{' + '.join(members)})"


def is_jury(judge: object) -> bool:
    """Whether a (pooled) judge name is a jury's: 'jury(a + b)' or 'jury(a + b) / embedding'."""
    return str(judge).startswith(JURY_PREFIX)


def with_juries(scores: pd.DataFrame, panels: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The scores with one more virtual judge per panel (see the module docstring)."""
    frames = [scores] + [_jury_rows(scores, list(panel)) for panel in panels if len(panel) > 1]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else scores


def _jury_rows(scores: pd.DataFrame, members: list[str]) -> pd.DataFrame:
    rows = scores[scores["judge"].isin(members)]
    if rows.empty:
        return rows
    grouped = rows.groupby(CELL_KEYS, dropna=False)
    complete = grouped["judge"].nunique() == len(members)
    status = grouped["status"].agg(_jury_status)
    score = (
        rows["score"]
        .where(rows["status"] == "scored")
        .groupby([rows[k] for k in CELL_KEYS], dropna=False)
        .mean()
    )
    sums = grouped[[c for c in SUMMED if c in rows]].sum(min_count=len(members))
    out = pd.DataFrame({"status": status, "score": score}).join(sums)[complete]
    out = out.reset_index()
    out["judge"] = jury_name(members)
    out["score"] = np.where(out["status"] == "scored", out["score"], np.nan)
    out["reason"] = None
    out["error"] = out["status"].map({"failed": "every member of the jury failed"})
    out["details"] = None
    if "finished_at" in rows:
        out["finished_at"] = grouped["finished_at"].max()[complete].to_numpy()
    return out.reindex(columns=scores.columns)


def _jury_status(statuses: pd.Series) -> str:
    if (statuses == "scored").any():
        return "scored"
    return "skipped" if (statuses == "skipped").all() else "failed"
