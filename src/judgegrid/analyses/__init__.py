"""Pure analyses of a run's scores and calls tables (no I/O): how far scores move, whether
judges agree with people, which judge to trust. Sub-packages by the question each answers,
from the bottom up:

- ``stats``: the statistics themselves, on arrays, each written once: intervals (Wilson,
  Fisher's z, bootstrap), Cohen's, Fleiss' and weighted kappa, Krippendorff's alpha, Gwet's
  AC1, ICC, rank correlations, paired tests, and the paired rule that names a best candidate;
- ``frames``: the scores table as the analyses read it: the grid's axes, ratings, a
  criterion's answers and people's labels, juries, usage, the summary tables;
- ``consistency``: does a judge agree with itself and with other judges? (variance, stability,
  agreement, disagreement, languages, wording, a criterion's agreement, weighting);
- ``validity``: does a judge agree with people, and does it catch what it should? (preference
  pairs, people's labels, a criterion's validity, calibration, probes);
- ``pairwise``: does an A-against-B judge prefer the better answer, in both orders?;
- ``decision``: which judge to trust, how sure, and what to label next (the evidence ladder,
  the card, the ranking, the labelling queue, strictness);
- ``bundle``: every table of a run in one pure call, for the report writers.

Each analysis states its missing-data rule. Inside, a sub-package imports only those below it
(import-linter holds the order); none imports this module, which is the public face: other
layers import the names below from ``judgegrid.analyses``, never from a module path. Names are
loaded when first asked for, so reading one constant does not import scipy.

May import: ``core`` (value types such as ``CriterionSpec``) and nothing else of judgegrid
(numpy, pandas and scipy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgegrid.core.lazy import lazy_exports

if TYPE_CHECKING:
    from judgegrid.analyses.bundle import (
        TABLE_NAMES,
        Analysis,
        LabelRun,
        RunFacts,
        RunOverview,
        RunScores,
        UnknownTable,
        ValidityInputs,
        adaptive_design_of,
        analyse,
        consistency_tables,
        label_state_of,
        preference_pairs,
        run_overview,
        run_scores,
        validity_analysis,
        with_consistency,
    )
    from judgegrid.analyses.consistency.agreement import AGREEMENT_SUMMARY_COLUMNS
    from judgegrid.analyses.consistency.stability import STABILITY_SUMMARY_COLUMNS
    from judgegrid.analyses.consistency.variance import VARIANCE_SUMMARY_COLUMNS
    from judgegrid.analyses.decision.adaptive import (
        ADAPTIVE_SHARE,
        Standing,
        adaptive_probability,
        draw_bounds,
        standing_of,
    )
    from judgegrid.analyses.decision.anytime import (
        AnytimeVerdict,
        anytime_verdict,
        first_named,
        first_rejections,
        hypotheses_of,
        labels_to_come,
        state_words,
    )
    from judgegrid.analyses.decision.card import (
        CARD_COLUMNS,
        NO_VERDICT,
        NOT_ABOVE_CHANCE,
        decide_every_metric,
    )
    from judgegrid.analyses.decision.kinds import (
        DrawBounds,
        Kinds,
        QueueDesign,
        bounds_of,
        bounds_text,
        draw_without_replacement,
        kind_chances,
        kinds_of,
        shifts_of,
    )
    from judgegrid.analyses.decision.label_state import LabelState, skipped_words
    from judgegrid.analyses.decision.ladder import CardSources, first_evidence
    from judgegrid.analyses.decision.outcome import Outcome, outcome, usage_of
    from judgegrid.analyses.decision.recommendation import RANKING_SUMMARY_COLUMNS
    from judgegrid.analyses.decision.sampling import (
        UNIFORM_SHARE,
        LabelDesign,
        draw_labels,
        label_design,
        metric_design,
        preference_design,
    )
    from judgegrid.analyses.decision.selection import (
        label_queue,
        preference_queue,
        uncompared_pairs,
    )
    from judgegrid.analyses.frames.criteria import (
        Criteria,
        categories,
        category_names,
        criterion_rows,
        modal_codes,
        wordings,
    )
    from judgegrid.analyses.frames.keys import person_item
    from judgegrid.analyses.frames.tables import (
        CONFIG_AXES,
        by_judge_and_embedding,
        cell_causes,
        configuration_labels,
        embedding_column,
        embedding_config,
    )
    from judgegrid.analyses.stats.betting import draws_to_reject, lower_confidence_sequence
    from judgegrid.analyses.stats.ppi import (
        Corrected,
        MeanInterval,
        classical_mean,
        draw_weights,
        power_tuning,
        ppi_mean,
    )
    from judgegrid.analyses.stats.ruling import Ruling, best_words, binary_evidence, rule
    from judgegrid.analyses.stats.weighted import (
        Estimate,
        hajek,
        hansen_hurwitz,
        uniform_probability,
    )
    from judgegrid.analyses.validity.pairs import (
        ASPECT_METRICS,
        NO_METRIC_NOTE,
        PAIR_COLUMNS,
        pair_accuracy,
        pair_outcomes,
        weighting_notes,
    )
    from judgegrid.analyses.validity.people import LABEL_COLUMNS

_HOMES = {
    "bundle": (
        "TABLE_NAMES",
        "Analysis",
        "RunFacts",
        "RunOverview",
        "RunScores",
        "UnknownTable",
        "ValidityInputs",
        "LabelRun",
        "adaptive_design_of",
        "analyse",
        "consistency_tables",
        "label_state_of",
        "preference_pairs",
        "run_overview",
        "run_scores",
        "validity_analysis",
        "with_consistency",
    ),
    "consistency.agreement": ("AGREEMENT_SUMMARY_COLUMNS",),
    "consistency.stability": ("STABILITY_SUMMARY_COLUMNS",),
    "consistency.variance": ("VARIANCE_SUMMARY_COLUMNS",),
    "decision.adaptive": (
        "ADAPTIVE_SHARE",
        "Standing",
        "adaptive_probability",
        "draw_bounds",
        "standing_of",
    ),
    "decision.kinds": (
        "DrawBounds",
        "Kinds",
        "QueueDesign",
        "bounds_of",
        "bounds_text",
        "draw_without_replacement",
        "kind_chances",
        "fixed_queue",
        "kinds_of",
        "queue_draw",
        "shifts_of",
    ),
    "decision.anytime": (
        "AnytimeVerdict",
        "anytime_verdict",
        "labels_to_come",
        "first_named",
        "first_rejections",
        "hypotheses_of",
        "state_words",
    ),
    "decision.card": ("CARD_COLUMNS", "NO_VERDICT", "NOT_ABOVE_CHANCE", "decide_every_metric"),
    "decision.label_state": ("LabelState", "skipped_words"),
    "decision.ladder": ("CardSources", "first_evidence"),
    "decision.outcome": ("Outcome", "outcome", "usage_of"),
    "decision.recommendation": ("RANKING_SUMMARY_COLUMNS",),
    "decision.sampling": (
        "UNIFORM_SHARE",
        "LabelDesign",
        "draw_labels",
        "label_design",
        "metric_design",
        "preference_design",
    ),
    "decision.selection": ("label_queue", "preference_queue", "uncompared_pairs"),
    "frames.criteria": (
        "Criteria",
        "categories",
        "category_names",
        "criterion_rows",
        "modal_codes",
        "wordings",
    ),
    "frames.keys": ("person_item",),
    "frames.tables": (
        "CONFIG_AXES",
        "by_judge_and_embedding",
        "cell_causes",
        "configuration_labels",
        "embedding_column",
        "embedding_config",
    ),
    "stats.betting": ("draws_to_reject", "lower_confidence_sequence"),
    "stats.weighted": ("Estimate", "hajek", "hansen_hurwitz", "uniform_probability"),
    "stats.ppi": (
        "Corrected",
        "MeanInterval",
        "classical_mean",
        "draw_weights",
        "power_tuning",
        "ppi_mean",
    ),
    "stats.ruling": ("Ruling", "best_words", "binary_evidence", "rule"),
    "validity.pairs": (
        "ASPECT_METRICS",
        "NO_METRIC_NOTE",
        "PAIR_COLUMNS",
        "pair_accuracy",
        "pair_outcomes",
        "weighting_notes",
    ),
    "validity.people": ("LABEL_COLUMNS",),
}
_HOME_OF = {name: f"{__name__}.{module}" for module, names in _HOMES.items() for name in names}

# the same names, spelled out for the type checker and linters (a test holds them equal)
__all__ = [
    "ADAPTIVE_SHARE",
    "AGREEMENT_SUMMARY_COLUMNS",
    "ASPECT_METRICS",
    "CARD_COLUMNS",
    "CONFIG_AXES",
    "LABEL_COLUMNS",
    "NOT_ABOVE_CHANCE",
    "NO_METRIC_NOTE",
    "NO_VERDICT",
    "PAIR_COLUMNS",
    "RANKING_SUMMARY_COLUMNS",
    "STABILITY_SUMMARY_COLUMNS",
    "TABLE_NAMES",
    "UNIFORM_SHARE",
    "VARIANCE_SUMMARY_COLUMNS",
    "Analysis",
    "AnytimeVerdict",
    "CardSources",
    "Corrected",
    "Criteria",
    "DrawBounds",
    "Estimate",
    "Kinds",
    "LabelDesign",
    "LabelRun",
    "LabelState",
    "MeanInterval",
    "Outcome",
    "QueueDesign",
    "Ruling",
    "RunFacts",
    "RunOverview",
    "RunScores",
    "Standing",
    "UnknownTable",
    "ValidityInputs",
    "adaptive_design_of",
    "adaptive_probability",
    "analyse",
    "anytime_verdict",
    "best_words",
    "binary_evidence",
    "bounds_of",
    "bounds_text",
    "by_judge_and_embedding",
    "categories",
    "category_names",
    "cell_causes",
    "classical_mean",
    "configuration_labels",
    "consistency_tables",
    "criterion_rows",
    "decide_every_metric",
    "draw_bounds",
    "draw_labels",
    "draw_weights",
    "draw_without_replacement",
    "draws_to_reject",
    "embedding_column",
    "embedding_config",
    "first_evidence",
    "first_named",
    "first_rejections",
    "fixed_queue",
    "hajek",
    "hansen_hurwitz",
    "hypotheses_of",
    "kind_chances",
    "kinds_of",
    "label_design",
    "label_queue",
    "label_state_of",
    "labels_to_come",
    "lower_confidence_sequence",
    "metric_design",
    "modal_codes",
    "outcome",
    "pair_accuracy",
    "pair_outcomes",
    "person_item",
    "power_tuning",
    "ppi_mean",
    "preference_design",
    "preference_pairs",
    "preference_queue",
    "queue_draw",
    "rule",
    "run_overview",
    "run_scores",
    "shifts_of",
    "skipped_words",
    "standing_of",
    "state_words",
    "uncompared_pairs",
    "uniform_probability",
    "usage_of",
    "validity_analysis",
    "weighting_notes",
    "with_consistency",
    "wordings",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME_OF)
