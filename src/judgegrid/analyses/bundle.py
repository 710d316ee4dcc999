"""Every analysis of a run in one pure call, for the report writers (markdown, CSV, HTML).

``analyse`` takes the scores table and what the run database knows about the samples (labels,
contrasts, languages) and returns named tidy tables plus the recommendation paragraph. Nothing here
reads or writes a file, so the report can be rebuilt from the database at any time without a model
call. It is two halves that need nothing of each other, ``consistency_tables`` (how far the scores
move) and ``validity_analysis`` (which judge is right, what it costs), so a caller may compute
them apart: the report does, on two cores.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from judgegrid.analyses.consistency import (
    agreement,
    criterion_agreement,
    disagreement,
    languages,
    stability,
    variance,
    weighting,
    wording,
)
from judgegrid.analyses.decision import card as decision
from judgegrid.analyses.decision import recommendation, strictness
from judgegrid.analyses.decision.adaptive import Standing, adaptive_probability, standing_of
from judgegrid.analyses.decision.kinds import QueueDesign, kinds_of
from judgegrid.analyses.decision.label_state import (
    LabelState,
    ScoredOnce,
    state_of,
    uncompared_counts,
)
from judgegrid.analyses.decision.ladder import CardSources
from judgegrid.analyses.decision.sampling import LabelDesign
from judgegrid.analyses.decision.selection import label_queue
from judgegrid.analyses.frames import juries, label_weights
from judgegrid.analyses.frames.criteria import Criteria, definition_rows, with_criteria
from judgegrid.analyses.frames.keys import with_category_keys, with_text_keys
from judgegrid.analyses.frames.ratings import choice_ratings
from judgegrid.analyses.frames.tables import (
    calls_by_metric,
    calls_by_step,
    config_summary,
    metric_failure_rates,
    repeat_spread,
    top_failure_causes,
)
from judgegrid.analyses.frames.usage import run_usage, usage_by_model
from judgegrid.analyses.pairwise import tables as pairwise_tables
from judgegrid.analyses.validity import calibration, probes, true_score
from judgegrid.analyses.validity import criteria as criterion_validity
from judgegrid.analyses.validity import pairs as validity
from judgegrid.analyses.validity import people as human
from judgegrid.core.records import PREFERENCE
from judgegrid.core.scales import PLAIN, Scales

# Every table ``analyse`` can make, by the name it is written under (tables/NAME.csv). Some
# are made only when their inputs are there (``calls_by_step`` with the steps' names), and each
# half of the analysis holds its own: ``Analysis.table`` gives an empty frame for those.
CONSISTENCY_TABLES = (
    "config_summary",
    "repeat_spread",
    "sample_disagreement",
    "stability",
    "agreement_judges",
    "agreement_judge_pairs",
    "judge_offsets",
    "agreement_embeddings",
    "agreement_embedding_pairs",
    "embedding_offsets",
    "variance_components",
    "decision_study",
    "decision_needed",
    "language_means",
    "language_agreement",
    "criterion_agreement",
    "wording_variance",
)
VALIDITY_TABLES = (
    "preference_pairs",
    "validity_pairs",
    "validity_labels",
    "judge_ranking",
    "strictness",
    "failures_by_metric",
    "failure_causes",
    "validity_people",
    "validity_people_by_judge",
    "human_agreement",
    "alt_test",
    "alt_test_annotators",
    "labels_needed",
    "criterion_validity",
    "criterion_recall",
    "calibration",
    "reliability_curve",
    "wording_flags",
    "weighting",
    *pairwise_tables.TABLES,
    "probe_pairs",
    "probes",
    "probes_brief",
    "probes_by_judge",
    "decision_evidence",
    "decision_card",
    "true_score",
)
USAGE_TABLES = ("calls_by_metric", "calls_by_step", "usage_by_model")
TABLE_NAMES = frozenset(CONSISTENCY_TABLES + VALIDITY_TABLES + USAGE_TABLES)


class UnknownTable(KeyError):
    """A table name no analysis makes: a typo would otherwise become an empty report section."""

    def __init__(self, name: str) -> None:
        close = difflib.get_close_matches(name, sorted(TABLE_NAMES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(sorted(TABLE_NAMES))
        super().__init__(f"no analysis makes a table {name!r}{hint}; the tables: {known}")


@dataclass(frozen=True)
class RunOverview:
    """A run at a glance: cells by status, calls made and answered, tokens, cost."""

    rows: int
    scored: int
    failed: int
    skipped: int
    calls: int
    answered: int
    tokens_in: int
    tokens_out: int
    cost: float | None  # None: some call's price is unknown
    batched: int = 0  # calls answered (or failed) in provider batches
    live_cost: float | None = None  # what the calls would have cost live (batch mode)


@dataclass
class Analysis:
    """Every table of a run's report. ``tables`` are written as tables/*.csv; ``usage`` (calls
    per metric and step, usage per model) is shown in summary.md and report.html."""

    tables: dict[str, pd.DataFrame]
    card: pd.DataFrame  # the decision card (``decision.CARD_COLUMNS``)
    overview: RunOverview
    notes: list[str] = field(default_factory=list)
    usage: dict[str, pd.DataFrame] = field(default_factory=dict)

    def table(self, name: str) -> pd.DataFrame:
        """The table ``name``; empty where this analysis did not make it (one half of the
        report, a table whose inputs the run lacks). A name no analysis makes raises
        ``UnknownTable``, naming the tables there are."""
        if name not in TABLE_NAMES:
            raise UnknownTable(name)
        return self.tables.get(name, self.usage.get(name, pd.DataFrame()))


def run_overview(scores: pd.DataFrame, calls: pd.DataFrame) -> RunOverview:
    counts = scores["status"].value_counts()
    totals = run_usage(calls)
    return RunOverview(
        rows=len(scores),
        scored=int(counts.get("scored", 0)),
        failed=int(counts.get("failed", 0)),
        skipped=int(counts.get("skipped", 0)),
        calls=int(totals["requests"] or 0),
        answered=int(totals["answered"] or 0),
        tokens_in=int(totals["tokens_in"] or 0),
        tokens_out=int(totals["tokens_out"] or 0),
        cost=None if totals["cost"] is None else float(totals["cost"]),
        batched=int(totals["batched"] or 0),
        live_cost=None if totals["live_cost"] is None else float(totals["live_cost"]),
    )


def usage_tables(
    scores: pd.DataFrame, calls: pd.DataFrame, step_names: pd.DataFrame | None
) -> dict[str, pd.DataFrame]:
    """Calls per metric (shared calls counted in every cell), calls made by step, and requests,
    tokens and cost per judge and embedding entry."""
    tables = {"calls_by_metric": calls_by_metric(scores), "usage_by_model": usage_by_model(calls)}
    if step_names is not None:
        tables["calls_by_step"] = calls_by_step(calls, step_names)
    return tables


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


def people_tables(
    scores: pd.DataFrame,
    labels: pd.DataFrame | None,
    scales: Scales,
    weights: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    """Validity against people's labels, their own agreement, the alt-test, labels needed;
    ``weights``: each labelled sample's (``frames.label_weights``), so that the figures stand
    for all the run's samples."""
    labels = labels if labels is not None else pd.DataFrame(columns=human.LABEL_COLUMNS)
    by_judge = human.validity_by_judge(scores, labels, scales, weights)
    alt_test, alt_test_annotators = human.alternative_annotator_test(
        scores, labels, weights=weights
    )
    return {
        "validity_people": human.validity_against_people(scores, labels, scales, weights),
        "validity_people_by_judge": by_judge,
        "human_agreement": human.human_agreement(labels),
        "alt_test": alt_test,
        "alt_test_annotators": alt_test_annotators,
        "labels_needed": human.labels_needed(by_judge),
    }


@dataclass(frozen=True)
class RunFacts:
    """What the analyses know of a run besides its scores, as one value: every entry that
    reads a run (``analyse``, the report's ``analyse_run`` and ``write_all``) takes it whole.

    ``sample_info``: each sample's language, labels, contrast and probe; ``jury_panels``: lists of
    judges scored as one more virtual judge (``frames.juries``: in the means, validity, ranking and
    card; not in agreement or variance, where a jury would agree with its own members by
    construction, nor in the counts of cells, calls and failures); ``criteria``: the run's
    criteria by name, whose analyses fit their type; ``margin``: the card's non-inferiority
    margin (``decision: {margin}``); ``run_ref``: how the card's commands name the run;
    ``scales``: each metric's threshold and direction (a criterion's own are added here);
    ``criterion_pairs``: each pairwise criterion's pairs in the data set (the samples holding
    both answers, in its order), among which the card's state line counts those no judge
    compared and no person labelled (``label_state.uncompared_counts``); None where they are
    not known (the run's samples can no longer be read): the line then says so."""

    sample_info: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    jury_panels: Sequence[Sequence[str]] = ()
    criteria: Criteria = field(default_factory=dict)
    margin: float | None = None
    run_ref: str = "RUN_DIR"
    scales: Scales = PLAIN
    criterion_pairs: Mapping[str, Sequence[str]] | None = field(default_factory=dict)


@dataclass(frozen=True)
class RunScores:
    """The scores as the analyses read them: ``every_row`` (the probes' rows too: they count in
    the overview and the calls), ``worded`` (the data set's cells under every wording of a
    criterion, no jury), ``called`` (the data set's cells of wording 0, the criterion as
    defined: every row of a built-in metric; no jury), ``scores`` (those with the juries'
    virtual judges) and ``probe_rows`` (every row of wording 0 with the juries: juries are
    probed too); and the run's ``criteria`` by name (a metric not among them is a built-in
    one): every analysis that needs a criterion's type reads it here."""

    every_row: pd.DataFrame
    called: pd.DataFrame
    scores: pd.DataFrame
    probe_rows: pd.DataFrame
    worded: pd.DataFrame = field(default_factory=pd.DataFrame)
    criteria: Criteria = field(default_factory=dict)
    scales: Scales = PLAIN


def run_scores(scores: pd.DataFrame, facts: RunFacts | None = None) -> RunScores:
    facts = facts or RunFacts()
    worded, _ = probes.split_probe_scores(scores, facts.sample_info)
    called = definition_rows(worded)
    votes = juries.votes_of(facts.criteria)
    panels = [list(p) for p in facts.jury_panels]
    return RunScores(
        every_row=scores,
        called=called,
        scores=juries.with_juries(called, panels, votes),
        probe_rows=juries.with_juries(definition_rows(scores), panels, votes),
        worded=worded,
        criteria=dict(facts.criteria),
        scales=with_criteria(facts.scales, facts.criteria),
    )


def consistency_tables(
    run: RunScores, *, sample_info: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, pd.DataFrame]:
    """How far the scores move and how far their raters agree: the means, repeat to repeat,
    judge to judge, embedding to embedding, and by language. Nothing here needs
    ``validity_analysis``, so the two halves can be computed apart (the report does, on two
    cores). Inside, the key columns are categories (``with_category_keys``); the tables come
    out with them as text."""
    tables = _consistency_tables(_with_category_keys(run), sample_info)
    return {name: with_text_keys(table) for name, table in tables.items()}


def _with_category_keys(run: RunScores) -> RunScores:
    return replace(
        run,
        called=with_category_keys(run.called),
        scores=with_category_keys(run.scores),
        worded=with_category_keys(run.worded),
    )


def _consistency_tables(
    run: RunScores, sample_info: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, pd.DataFrame]:
    called, scores, scales = run.called, run.scores, run.scales
    components = variance.variance_components(run.worded)
    study = variance.decision_study(components) if not components.empty else pd.DataFrame()
    by_judge = agreement.rating_tables(called, "judge")  # once each: every score is pivoted
    by_embedding = agreement.rating_tables(scores, "embedding")
    judge_pairs = agreement.agreement_pairs(called, "judge", scales, by_judge)
    embedding_pairs = agreement.agreement_pairs(scores, "embedding", scales, by_embedding)
    spread = repeat_spread(scores)
    spoken = languages.languages_of(sample_info or {})
    return {
        "config_summary": config_summary(scores, spread),
        "repeat_spread": spread,
        "sample_disagreement": disagreement.sample_disagreement(spread),
        "stability": stability.stability(scores, scales, spread),
        "agreement_judges": agreement.agreement_summary(
            called, "judge", scales, judge_pairs, by_judge
        ),
        "agreement_judge_pairs": judge_pairs,
        "judge_offsets": agreement.rater_offsets(called, "judge", by_judge),
        "agreement_embeddings": agreement.agreement_summary(
            scores, "embedding", scales, embedding_pairs, by_embedding
        ),
        "agreement_embedding_pairs": embedding_pairs,
        "embedding_offsets": agreement.rater_offsets(scores, "embedding", by_embedding),
        "variance_components": components,
        "decision_study": study,
        "decision_needed": variance.needed_for_target(study) if not study.empty else study,
        "language_means": languages.language_means(scores, spoken),
        "language_agreement": languages.language_agreement(scores, spoken, scales),
        "criterion_agreement": criterion_agreement.criterion_agreement(called, run.criteria),
        "wording_variance": wording.wording_variance(run.worded, run.criteria),
    }


@dataclass(frozen=True)
class ValidityInputs:
    """What the validity half reads besides the scores: the calls (usage and cost; none: nothing
    was called), the judge steps' names, and people's labels as ratings (``human_labels``) and
    as preferences (``people_pairs``)."""

    calls: pd.DataFrame | None = None
    step_names: pd.DataFrame | None = None
    human_labels: pd.DataFrame | None = None
    people_pairs: pd.DataFrame | None = None
    # the labelling queues' draws (``records.DRAW_COLUMNS``): the labels' weights
    label_draws: pd.DataFrame | None = None
    # every answer in label order, the skips kept (value None): the labelling state's
    answers: pd.DataFrame | None = None


def validity_analysis(
    run: RunScores,
    inputs: ValidityInputs,
    facts: RunFacts,
    *,
    metric_titles: dict[str, str] | None = None,
) -> Analysis:
    """Which judge is right, and what it costs: validity against people, preference pairs and
    probes, the ranking, what strictness buys for its calls, the decision card, failures and
    usage. An ``Analysis`` without ``consistency_tables``' tables (``with_consistency`` adds
    them)."""
    info = facts.sample_info
    scores, scales = run.scores, run.scales
    human_labels, people_pairs = inputs.human_labels, inputs.people_pairs
    pairs = preference_pairs(info)
    if people_pairs is not None and not people_pairs.empty:
        pairs = pd.concat([pairs, people_pairs], ignore_index=True)
    pairs = pairs[pairs["metric"].isin(scores["metric"].unique())] if not pairs.empty else pairs
    choices = choice_ratings(scores)
    preferred, preference_sampling = preference_weights(inputs, pairs)
    by_pair = recommendation.PairWeights(
        label_weights.metric_weights(preferred, PREFERENCE)["weight"],
        preference_sampling.get(PREFERENCE, ""),
    )
    ranking = recommendation.judge_ranking(scores, pairs, scales, choices, by_pair)
    labels = {sid: i.get("labels") or {} for sid, i in info.items()}
    tables = {
        "preference_pairs": pairs,
        "validity_pairs": validity.pair_accuracy(
            scores, pairs, scales, by_pair.weights, by_pair.words
        ),
        "validity_labels": validity.label_correlations(scores, labels),
        "judge_ranking": ranking,
        "strictness": strictness.strictness_tradeoff(scores),
        "failures_by_metric": metric_failure_rates(run.worded),
        "failure_causes": top_failure_causes(run.worded),
    }
    populations = label_weights.populations(scores, human_labels)
    weights = label_weights.sample_weights(human_labels, inputs.label_draws, populations)
    sampling = label_weights.sampling_words(weights, inputs.label_draws, populations)
    human_labels, weights = label_weights.without_chosen(human_labels, weights)
    metric_labels, criterion_labels = split_labels(human_labels, run.criteria)
    pointwise = pointwise_criteria(run.criteria)
    outcomes = criterion_validity.outcome_table(run.called, criterion_labels, pointwise)
    tables |= people_tables(scores, metric_labels, scales, weights)
    tables |= criterion_tables(run, criterion_labels, outcomes, weights)
    paired, pair_right = pairwise_tables.pairwise_run_tables(
        run.every_row, criterion_labels, run.criteria, info, facts.jury_panels, weights, sampling
    )
    tables |= paired
    probed = pairwise_tables.without_pairwise(run.probe_rows, run.criteria)
    tables["probe_pairs"] = probes.probe_pairs(probed, info, scales)
    tables["probes"] = probes.probe_results(probed, info, scales)
    tables["probes_brief"] = probes.probe_brief(tables["probe_pairs"])
    grid = probes.judge_probe_matrix(tables["probes"])
    tables["probes_by_judge"] = grid.reset_index() if not grid.empty else grid
    answers = inputs.answers if inputs.answers is not None else pd.DataFrame()
    sources = CardSources(
        scores=scores,
        ranking=ranking,
        pairs=pairs,
        labels=metric_labels if metric_labels is not None else pd.DataFrame(),
        people=tables["validity_people_by_judge"],
        aat=tables["alt_test"],
        needed=tables["labels_needed"],
        scales=scales,
        margin=facts.margin,
        probe_pairs=tables["probe_pairs"],
        people_right=criterion_validity.people_right(outcomes, weights) | pair_right,
        label_weights=pd.concat([weights, preferred], ignore_index=True)
        if not preferred.empty
        else weights,
        sampling={**sampling, **preference_sampling},
        draws=inputs.label_draws if inputs.label_draws is not None else pd.DataFrame(),
        answers=answers,
        choices=choices,
        uncompared=_uncompared(facts, run, answers),
    )
    card, tables["decision_evidence"] = decision.decide_every_metric(
        sources, facts.run_ref, metric_titles
    )
    card = with_criterion_flags(
        card, tables["wording_flags"], tables["weighting"], tables["pairwise_position"]
    )
    chosen = chosen_judges(card)
    pointwise_scores = true_score.true_scores(
        scores, human_labels, pairwise_names(run.criteria), weights, sampling
    )
    tables["true_score"] = true_score.with_chosen(pointwise_scores, chosen)
    tables["pairwise_true_score"] = true_score.with_chosen(
        tables.get("pairwise_true_score", pd.DataFrame()), chosen
    )
    card = decision.with_true_score(card, tables["true_score"])
    tables["decision_card"] = card
    calls = inputs.calls if inputs.calls is not None else pd.DataFrame()
    return Analysis(
        tables,
        card,
        run_overview(run.every_row, calls),
        validity.aspect_notes(info),
        usage=usage_tables(run.every_row, calls, inputs.step_names),
    )


def preference_weights(
    inputs: ValidityInputs, pairs: pd.DataFrame
) -> tuple[pd.DataFrame, dict[str, str]]:
    """People's preferences' weights for the card's pairs rung (``label_weights.person_weights``:
    each person's draws of a pair, under metric ``preference``) and what they stand for in
    words; nothing where no one gave a preference. ``N`` of a preference with a probability
    and no draw: the preference queue's design (its draws'), else the data set's pairs
    (``pairs`` of source ``labels``); with neither (no design to say how many pairs it drew
    from) the preference counts as drawn uniformly, weight 1, as a label with no probability."""
    answers = inputs.answers
    given = pd.DataFrame() if answers is None or answers.empty else answers
    if not given.empty:
        given = given[(given["metric"] == PREFERENCE) & given["value"].notna()]
    if given.empty:
        return pd.DataFrame(columns=label_weights.WEIGHT_COLUMNS), {}
    dataset = pairs.loc[pairs["source"] == "labels", "pair"].nunique() if not pairs.empty else 0
    sizes = {PREFERENCE: int(dataset)} if dataset else {}
    if not sizes and not _has_draws(inputs.label_draws, PREFERENCE) and "probability" in given:
        given = given.assign(probability=float("nan"))  # no N: counted as drawn uniformly
    weights = label_weights.person_weights(given, inputs.label_draws, sizes)
    words = label_weights.sampling_words(weights, inputs.label_draws, sizes, unit="pairs")
    return weights, words


def _has_draws(draws: pd.DataFrame | None, metric: str) -> bool:
    """Whether the labelling queue stored draws of ``metric`` (their design gives its N)."""
    return draws is not None and not draws.empty and bool((draws["metric"] == metric).any())


def label_state_of(
    metric: str,
    scores: pd.DataFrame,
    answers: pd.DataFrame,
    draws: pd.DataFrame,
    facts: RunFacts,
    people_pairs: pd.DataFrame | None = None,
) -> LabelState | None:
    """One metric's labelling state as the card gives it (``decision.label_state``), for the
    labelling page, which has only this metric's labels to show (``LabelRun.state``, where it
    is said; a caller asking again over the same scores keeps a ``LabelRun``)."""
    return LabelRun.of(scores, facts).state(metric, answers, draws, people_pairs)


def adaptive_design_of(
    metric: str,
    scores: pd.DataFrame,
    answers: pd.DataFrame,
    draws: pd.DataFrame,
    facts: RunFacts,
    base: LabelDesign,
) -> QueueDesign | None:
    """The labelling queue's design for the next draws of a built-in metric
    (``LabelRun.adaptive_design``, where it is said)."""
    return LabelRun.of(scores, facts).adaptive_design(metric, answers, draws, base)


@dataclass(frozen=True)
class LabelRun:
    """A run's scores as the labelling page's state line and adaptive queue read them, made
    once: the scores read as the analyses read them (``run_scores``), the data set's
    preference pairs, and per metric what its state reads of the scores alone
    (``ScoredOnce``). The page asks after every answer, and none of these changes while it
    serves (its session's scores and facts are fixed when it opens): made again each time,
    they were most of the wait between two answers on a run of thousands of samples. Labels
    and draws, which do change, are read afresh by every call."""

    run: RunScores
    facts: RunFacts
    pairs: pd.DataFrame  # the data set's preference pairs (``preference_pairs``)
    once: ScoredOnce  # over ``run.scores``
    _queues: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, scores: pd.DataFrame, facts: RunFacts) -> LabelRun:
        run = run_scores(scores, facts)
        return cls(run, facts, preference_pairs(facts.sample_info), ScoredOnce(run.scores))

    def state(
        self,
        metric: str,
        answers: pd.DataFrame,
        draws: pd.DataFrame,
        people_pairs: pd.DataFrame | None = None,
    ) -> LabelState | None:
        """One metric's labelling state as the card gives it (``decision.label_state``), for
        the labelling page, which has only this metric's labels to show: the card's
        right/wrong of this metric alone (a criterion's, a pairwise criterion's, a built-in
        metric's, or people's preferences, ``people_pairs``, on a pairs run)."""
        run, facts = self.run, self.facts
        labelled = answers[answers["value"].notna()]
        _, criterion_labels = split_labels(labelled, run.criteria)
        spec = run.criteria.get(metric)
        right: Mapping[str, criterion_validity.PeopleRight] = {}
        if spec is not None and spec.type == "pairwise":
            _, right = pairwise_tables.pairwise_run_tables(
                run.every_row, criterion_labels, {metric: spec}, facts.sample_info
            )
        elif spec is not None:
            mine = {metric: spec}
            outcomes = criterion_validity.outcome_table(run.called, criterion_labels, mine)
            right = criterion_validity.people_right(outcomes)
        pairs = self.pairs
        if people_pairs is not None and not people_pairs.empty:
            pairs = pd.concat([pairs, people_pairs], ignore_index=True)
        sources = CardSources(
            scores=run.scores,
            ranking=pd.DataFrame(),
            pairs=pairs,
            scales=run.scales,
            people_right=right,
            draws=draws,
            answers=answers,
            margin=facts.margin,
        )
        return state_of(metric, sources, self.once)

    def queue_table(self, metric: str) -> pd.DataFrame:
        """The labelling queue's table of ``metric`` over every sample the judges scored
        (``decision.label_queue``: priority and reasons), made once a metric: a page drawing
        ``--batch`` at a time draws each batch from it (a value shared: read it, never change
        it)."""
        if metric not in self._queues:
            self._queues[metric] = label_queue(self.run.every_row, metric)
        return self._queues[metric]

    def adaptive_design(
        self, metric: str, answers: pd.DataFrame, draws: pd.DataFrame, base: LabelDesign
    ) -> QueueDesign | None:
        """The labelling queue's design for the next draws of a built-in metric
        (``decision.adaptive``: ``base``, the fixed design, until the rule has a leader; then
        focused where the leader and its open rivals pass or fail differently), with the
        samples' kinds (``decision.kinds``: stratum and the judges' pass or fail, all the
        design reads). None for a criterion, a preference or a metric fewer than two judges
        rated: the fixed design serves them (``kinds.fixed_queue``)."""
        run = self.run
        if metric in run.criteria or metric == PREFERENCE:
            return None
        judged = self.once.judged(metric, run.scales.threshold(metric))
        if judged.shape[1] < 2:
            return None
        found = self.state(metric, answers, draws)
        judges = found.judges if found is not None else tuple(map(str, judged.columns))
        table = judged.reindex(index=list(base.samples), columns=list(judges)).to_numpy(float)
        standing = standing_of(found.verdict, judges) if found is not None else Standing(None)
        probability = adaptive_probability(base.probability, table, standing)
        design = replace(base, probability=probability)
        return QueueDesign(design, kinds_of(base.stratum, table), judges)


def _uncompared(facts: RunFacts, run: RunScores, answers: pd.DataFrame) -> Mapping[str, int | None]:
    """Per pairwise criterion, its data set's pairs no judge compared and nobody labelled
    (``uncompared_counts``), or None for each where the data set's pairs are not known."""
    if facts.criterion_pairs is None:
        return dict.fromkeys(pairwise_names(run.criteria))
    return uncompared_counts(facts.criterion_pairs, run.every_row, answers)


def split_labels(
    labels: pd.DataFrame | None, criteria: Criteria
) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """(the built-in metrics' labels, the criteria's): a criterion's label is a category's
    score (a scale's level, outside [0, 1]), read by the criterion analyses alone."""
    if labels is None or not criteria:
        return labels, None
    mine = labels["metric"].isin(set(criteria))
    return labels[~mine], labels[mine]


def pointwise_criteria(criteria: Criteria) -> dict[str, Any]:
    """The criteria scored one sample at a time (a pairwise criterion's validity, calibration
    and card evidence are ``pairwise.tables``')."""
    return {name: spec for name, spec in criteria.items() if spec.type != "pairwise"}


def chosen_judges(card: pd.DataFrame) -> dict[str, str]:
    """The judge the card names per metric (none where it gives no verdict)."""
    named = card[card["verdict"] != decision.NO_VERDICT].dropna(subset=["judge"])
    return {str(m): str(j) for m, j in zip(named["metric"], named["judge"], strict=True) if j}


def pairwise_names(criteria: Criteria) -> frozenset[str]:
    """The pairwise criteria's names: scored a pair at a time, never a sample's mean."""
    return frozenset(name for name, spec in criteria.items() if spec.type == "pairwise")


def criterion_tables(
    run: RunScores,
    labels: pd.DataFrame | None,
    outcomes: pd.DataFrame,
    weights: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    """The criteria's own tables of the validity half: validity (from ``outcomes``, each
    judge's answers against the people's labels) and calibration against people, whether the
    verdict survives the wording, and the cells without log-probabilities."""
    found = run.criteria
    pointwise = pointwise_criteria(found)
    brier, curve = calibration.calibration(run.called, labels, pointwise)
    return {
        "criterion_validity": criterion_validity.criterion_validity(outcomes, pointwise, weights),
        "criterion_recall": criterion_validity.criterion_recall(outcomes, pointwise),
        "calibration": brier,
        "reliability_curve": curve,
        "wording_flags": wording.wording_flags(run.worded, found),
        "weighting": weighting.weighting_counts(run.worded, found),
    }


def with_criterion_flags(
    card: pd.DataFrame,
    wording_flags: pd.DataFrame,
    weighted: pd.DataFrame,
    position: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The card with each criterion's flags: a judge whose verdict changes with the wording,
    one with cells whose log-probabilities never came, and a pairwise criterion's judge whose
    verdicts follow the answers' positions (``position``: ``pairwise_position``)."""
    if card.empty:
        return card
    card = card.copy()
    for i, metric in card["metric"].items():
        more = wording.flag_words(wording_flags, str(metric))
        more += weighting.missing_words(weighted, str(metric))
        if position is not None:
            more += pairwise_tables.position_flag_words(position, str(metric))
        if more:
            present = [str(card.at[i, "flags"])] if card.at[i, "flags"] else []
            card.at[i, "flags"] = "; ".join([*present, *more])
    return card


def with_consistency(part: Analysis, consistency: Mapping[str, pd.DataFrame]) -> Analysis:
    """``validity_analysis``' part with ``consistency_tables``' tables."""
    return replace(part, tables={**consistency, **part.tables})


def analyse(
    scores: pd.DataFrame,
    facts: RunFacts | None = None,
    inputs: ValidityInputs | None = None,
    *,
    metric_titles: dict[str, str] | None = None,
) -> Analysis:
    """All tables of the report, keyed by the CSV name they are written under, from the scores
    and what is known of the run (``RunFacts``); with the calls table (``inputs``), also what
    the run cost (``usage``, ``overview``); with people's labels (``sample_id, metric,
    annotator, value``), validity against them and the decision card's first rung; with
    people's preferences (``people_pairs``, as ``validity.PAIR_COLUMNS``), pairs scored beside
    the data set's."""
    facts = facts or RunFacts()
    run = run_scores(scores, facts)
    part = validity_analysis(
        run,
        inputs or ValidityInputs(),
        facts,
        metric_titles=metric_titles,
    )
    consistency = consistency_tables(run, sample_info=facts.sample_info)
    return with_consistency(part, consistency)
