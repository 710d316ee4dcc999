"""Shared vocabulary of the analyses: ratings per sample and the missing-data notes.

A "rating" is one configuration's score of one sample: the mean of its scored repeats. Failed
and skipped cells never enter a rating. Each statistic says in its ``missing`` column how
samples that some rater did not score were handled.
"""

from __future__ import annotations

import pandas as pd

from judgegrid.analyses.frames.tables import CONFIG_AXES, repeat_spread

LISTWISE = "listwise: only samples scored by every rater"
PAIRWISE = "pairwise-complete: each pair of raters on the samples both scored"
PAIRABLE = "pairable values: every sample with at least two ratings"
REPEATS_LISTWISE = "listwise: only samples with every repeat scored"
AVAILABLE = "available-case: samples this rater and at least one other scored"


def scored(scores: pd.DataFrame) -> pd.DataFrame:
    return scores[scores["status"] == "scored"]


def pooled_by_judge(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores with embedding, dimension and strictness pooled: one configuration a judge."""
    return scores.assign(embedding="", dimension=0, strictness=0)


def pooled_by_choice(scores: pd.DataFrame) -> pd.DataFrame:
    """The scores as a user chooses among them: for a judge-only metric, one configuration a
    judge; for a metric that uses embeddings, one a judge *and* embedding model, named
    'judge / embedding' (the embedding model can decide such a metric's validity on its own: an
    English-only one on other languages), with dimensions and strictness pooled."""
    judge = scores["judge"].astype(str)
    embedding = scores["embedding"].astype(str)
    chosen = judge.where(embedding == "", judge + " / " + embedding)
    return pooled_by_judge(scores).assign(judge=chosen)


def choice_ratings(scores: pd.DataFrame) -> pd.DataFrame:
    """Per metric, choice (``pooled_by_choice``) and sample: the rating, and the scored
    repeats' count and spread (``repeat_spread``'s columns, its mean named ``rating``). The
    ranking and the card's rungs each read it: made once, not four times (a million scores:
    0.5 s a time)."""
    return repeat_spread(pooled_by_choice(scores)).rename(columns={"mean": "rating"})


def ratings(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration and sample: the mean of the scored repeats (and their count)."""
    grouped = scored(scores).groupby([*CONFIG_AXES, "sample_id"], dropna=False)["score"]
    return grouped.agg(rating="mean", repeats="count").reset_index()
