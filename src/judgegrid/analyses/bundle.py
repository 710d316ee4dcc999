"""Every analysis of a run in one pure call, for the report writers (markdown, CSV, HTML).

``analyse`` takes the scores table and what the run database knows about the samples (labels,
contrasts) and returns named tidy tables plus the recommendation paragraph. Nothing here reads or
writes a file, so the report can be rebuilt from the database at any time without a model call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgegrid.analyses import agreement, recommendation, stability, strictness, validity, variance
from judgegrid.analyses.tables import (
    config_summary,
    metric_failure_rates,
    repeat_spread,
    top_failure_causes,
)


@dataclass
class Analysis:
    tables: dict[str, pd.DataFrame]
    recommendation: str
    notes: list[str] = field(default_factory=list)

    def table(self, name: str) -> pd.DataFrame:
        return self.tables.get(name, pd.DataFrame())


def preference_pairs(sample_info: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Pairs from labels and from contrasts, in one table (``source`` tells them apart)."""
    labels = {sid: info.get("labels") or {} for sid, info in sample_info.items()}
    contrasts = {sid: info.get("contrast") for sid, info in sample_info.items()}
    frames = [validity.pairs_from_labels(labels), validity.pairs_from_contrasts(contrasts)]
    frames = [f for f in frames if not f.empty]
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=validity.PAIR_COLUMNS)
    )


def analyse(
    scores: pd.DataFrame,
    *,
    thresholds: float | Mapping[str, float] | None = None,
    lower_is_better: frozenset[str] = frozenset(),
    sample_info: Mapping[str, Mapping[str, Any]] | None = None,
    metric_titles: dict[str, str] | None = None,
) -> Analysis:
    """All tables of the report, keyed by the CSV name they are written under."""
    info = sample_info or {}
    pairs = preference_pairs(info)
    pairs = pairs[pairs["metric"].isin(set(scores["metric"]))] if not pairs.empty else pairs
    components = variance.variance_components(scores)
    study = variance.decision_study(components) if not components.empty else pd.DataFrame()
    ranking = recommendation.judge_ranking(scores, pairs, lower_is_better)
    labels = {sid: i.get("labels") or {} for sid, i in info.items()}
    judge_pairs = agreement.agreement_pairs(scores, "judge", thresholds)
    embedding_pairs = agreement.agreement_pairs(scores, "embedding", thresholds)
    tables = {
        "config_summary": config_summary(scores),
        "repeat_spread": repeat_spread(scores),
        "stability": stability.stability(scores, thresholds),
        "agreement_judges": agreement.agreement_summary(scores, "judge", thresholds, judge_pairs),
        "agreement_judge_pairs": judge_pairs,
        "judge_offsets": agreement.rater_offsets(scores, "judge"),
        "agreement_embeddings": agreement.agreement_summary(
            scores, "embedding", thresholds, embedding_pairs
        ),
        "agreement_embedding_pairs": embedding_pairs,
        "embedding_offsets": agreement.rater_offsets(scores, "embedding"),
        "variance_components": components,
        "decision_study": study,
        "decision_needed": variance.needed_for_target(study) if not study.empty else study,
        "strictness": strictness.strictness_tradeoff(scores),
        "preference_pairs": pairs,
        "validity_pairs": validity.pair_accuracy(scores, pairs, lower_is_better),
        "validity_labels": validity.label_correlations(scores, labels),
        "judge_ranking": ranking,
        "failures_by_metric": metric_failure_rates(scores),
        "failure_causes": top_failure_causes(scores),
    }
    notes = validity.aspect_notes(info)
    return Analysis(tables, recommendation.recommendation_text(ranking, metric_titles), notes)
