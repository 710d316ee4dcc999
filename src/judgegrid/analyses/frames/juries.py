"""Juries: panels of judges scored as virtual judges from the calls already made.

Verga et al. (2024), "Replacing Judges with Juries", found a panel of small judges agreeing with
people better than one large judge, at a fraction of the cost. A jury here costs no call: its
score of a cell (metric, sample, embedding, dimension, strictness, repeat, wording) is the mean
of its members' scores of that cell (a criterion's is their vote: ``votes``, the majority of
their answers for a binary or labels criterion, a tie going to the lower category, so a split
jury does not pass; the median for a scale; its score is their mean score where every member's
is weighted by log-probabilities, else the vote); its cost, latency, calls and tokens are the
sums of its members' (every member is called). Missing data: a cell the jury has only where
every member has a row; a member whose cell failed is left out of the mean (the others still
judge), and the jury's cell fails only when no member scored it (skipped when every member
skipped).

A jury agrees with its own members by construction, so the agreement rung of the decision card
and the consensus ranking leave juries out (``is_jury``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from judgegrid.core.criterion import CriterionSpec

JURY_PREFIX = "jury("
CELL_KEYS = ["metric", "sample_id", "embedding", "dimension", "strictness", "repeat", "wording"]
Vote = Literal["majority", "median"]
SUMMED = ["calls", "tokens_in", "tokens_out", "cost", "latency_s"]


def jury_name(members: Sequence[str]) -> str:
    return f"{JURY_PREFIX}{' + '.join(members)})"


def is_jury(judge: object) -> bool:
    """Whether a (pooled) judge name is a jury's: 'jury(a + b)' or 'jury(a + b) / embedding'."""
    return str(judge).startswith(JURY_PREFIX)


def jury_rows(judges: pd.Series) -> np.ndarray:
    """``is_jury`` of each row's judge, as a mask: asked once per distinct judge (a million
    rows hold a handful), not once per row."""
    juries = [judge for judge in judges.unique() if is_jury(judge)]
    return judges.isin(juries).to_numpy(dtype=bool)


def votes_of(criteria: Mapping[str, CriterionSpec]) -> dict[str, Vote]:
    """How a jury answers each criterion: the majority of a binary or labels criterion's
    answers, the median level of a scale (a level between two is no level of the scale)."""
    return {
        name: "median" if spec.type == "scale" else "majority" for name, spec in criteria.items()
    }


def with_juries(
    scores: pd.DataFrame,
    panels: Sequence[Sequence[str]],
    votes: Mapping[str, Vote] | None = None,
) -> pd.DataFrame:
    """The scores with one more virtual judge per panel (see the module docstring); ``votes``:
    how a jury answers each criterion (by name)."""
    frames = [scores] + [
        _voted(_jury_rows(scores, list(panel)), scores, list(panel), votes or {})
        for panel in panels
        if len(panel) > 1
    ]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else scores


def _keys(frame: pd.DataFrame) -> list[str]:
    """The cell's coordinates the frame has (a frame from before the criteria has no wording)."""
    return [k for k in CELL_KEYS if k in frame]


def _jury_rows(scores: pd.DataFrame, members: list[str]) -> pd.DataFrame:
    rows = scores[scores["judge"].isin(members)]
    if rows.empty:
        return rows
    keys = _keys(rows)
    grouped = rows.groupby(keys, dropna=False)
    complete = grouped["judge"].nunique() == len(members)
    status = grouped["status"].agg(_jury_status)
    score = (
        rows["score"]
        .where(rows["status"] == "scored")
        .groupby([rows[k] for k in keys], dropna=False)
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


def _voted(
    jury: pd.DataFrame, scores: pd.DataFrame, members: list[str], votes: Mapping[str, Vote]
) -> pd.DataFrame:
    """The jury's rows with each criterion's cell answered by the members' vote."""
    voted = [m for m in votes if m in set(jury.get("metric", []))]
    if jury.empty or not voted or "answer" not in scores:
        return jury
    rows = scores[scores["judge"].isin(members) & scores["metric"].isin(voted)]
    rows = rows[rows["status"] == "scored"]
    keys = _keys(rows)
    outcome = {
        key: _vote(cell, votes[str(cell["metric"].iloc[0])])
        for key, cell in rows.groupby(keys, dropna=False)
    }
    if not outcome:
        return jury
    index = pd.MultiIndex.from_tuples(list(outcome), names=keys)
    found = pd.DataFrame(list(outcome.values()), index=index, columns=["_a", "_s", "_w"])
    merged = jury.join(found, on=keys)
    hit = merged["_a"].notna()
    jury = jury.astype({"answer": float, "weighting": object})
    jury.loc[hit, "answer"] = merged.loc[hit, "_a"]
    jury.loc[hit, "score"] = merged.loc[hit, "_s"]
    jury.loc[hit, "weighting"] = merged.loc[hit, "_w"]
    return jury


def _vote(cell: pd.DataFrame, vote: Vote) -> tuple[float, float, str]:
    """(answer, score, weighting) of a jury's criterion cell from its members' rows."""
    answers = cell["answer"].astype(float)
    if vote == "median":
        answer = float(np.median(answers))
    else:
        counts = answers.value_counts()
        answer = float(min(counts.index[counts == counts.max()]))
    if (cell["weighting"] == "logprobs").all():
        return answer, float(cell["score"].mean()), "logprobs"
    return answer, answer, "none"


def _jury_status(statuses: pd.Series) -> str:
    if (statuses == "scored").any():
        return "scored"
    return "skipped" if (statuses == "skipped").all() else "failed"
