"""Scores and agreement by the samples' language, for a data set written in more than one.

An English-only embedding model or judge silently scores other languages worse; averaged over a
mixed data set that never shows. So, per language:

- **means**: a configuration's mean in a language is the mean of its ratings (a sample's rating:
  the mean of its scored repeats) over that language's samples. Failed and skipped cells never
  enter it; ``samples`` counts the samples rated, ``failed`` the failed cells beside them.
- **agreement**: the run's own agreement statistics (``agreement.agreement_summary``: alpha,
  ICC, tau-b) on that language's samples only, between the judges (each judge's ratings pooled
  over its embedding, dimension and strictness configurations) and between the embedding
  configurations of each judge (pooled over strictness). A language has few samples, so its
  intervals are wide; ``samples`` stands beside every figure.

A sample without a ``language`` is counted under ``UNSET``. With one language (or none) there is
nothing to break down and every table is empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from judgegrid.analyses.consistency.agreement import agreement_summary
from judgegrid.analyses.frames.ratings import pooled_by_judge, ratings
from judgegrid.analyses.frames.tables import CONFIG_AXES, configuration_labels
from judgegrid.core.scales import PLAIN, Scales

UNSET = "unset"
MEANS_MISSING = "scored cells only: a sample's rating is the mean of its scored repeats"
AGREEMENT_COLUMNS = [
    "language",
    "metric",
    "between",
    "raters",
    "samples",
    "alpha",
    "icc2",
    "mean_tau_b",
    "note",
]


def languages_of(sample_info: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Each sample's language tag, ``UNSET`` where the data set gives none."""
    return {sid: str(info.get("language") or UNSET) for sid, info in sample_info.items()}


def is_multilingual(languages: Mapping[str, str]) -> bool:
    return len(set(languages.values())) > 1


def language_means(scores: pd.DataFrame, languages: Mapping[str, str]) -> pd.DataFrame:
    """One row per configuration and language: mean rating, samples rated, failed cells."""
    columns = [*CONFIG_AXES, "configuration", "language", "mean", "samples", "failed", "missing"]
    if scores.empty or not is_multilingual(languages):
        return pd.DataFrame(columns=columns)
    rated = _with_language(ratings(scores), languages)
    means = (
        rated.groupby([*CONFIG_AXES, "language"], dropna=False)["rating"]
        .agg(mean="mean", samples="count")
        .reset_index()
    )
    cells = _with_language(scores, languages).assign(failed=scores["status"] == "failed")
    failed = cells.groupby([*CONFIG_AXES, "language"], dropna=False)["failed"].sum().reset_index()
    table = failed.merge(means, on=[*CONFIG_AXES, "language"], how="left")
    table["samples"] = table["samples"].fillna(0).astype(int)
    table["configuration"] = configuration_labels(table)
    table["missing"] = MEANS_MISSING
    return table.reindex(columns=columns)


def language_agreement(
    scores: pd.DataFrame,
    languages: Mapping[str, str],
    scales: Scales = PLAIN,
) -> pd.DataFrame:
    """Per language and metric: agreement between the judges, and between each judge's
    embedding configurations (metrics that use embeddings)."""
    if scores.empty or not is_multilingual(languages):
        return pd.DataFrame(columns=AGREEMENT_COLUMNS)
    cells = _with_language(scores, languages)
    frames = []
    for language, block in cells.groupby("language"):
        judges = agreement_summary(pooled_by_judge(block), "judge", scales)
        if not judges.empty:
            frames.append(judges.assign(language=language, between="judges"))
        embedded = block[block["embedding"] != ""].assign(strictness=0)
        embeddings = agreement_summary(embedded, "embedding", scales)
        if not embeddings.empty:
            between = "embeddings of " + embeddings["judge"].astype(str)
            frames.append(embeddings.assign(language=language, between=between))
    if not frames:
        return pd.DataFrame(columns=AGREEMENT_COLUMNS)
    table = pd.concat(frames, ignore_index=True)
    table = table[table["raters"] >= 2]
    return table.reindex(columns=AGREEMENT_COLUMNS).reset_index(drop=True)


def _with_language(frame: pd.DataFrame, languages: Mapping[str, str]) -> pd.DataFrame:
    return frame.assign(language=frame["sample_id"].map(languages).fillna(UNSET))
