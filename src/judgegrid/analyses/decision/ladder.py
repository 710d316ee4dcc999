"""The card's evidence ladder: per metric, the highest rung with data, one function a rung
(``LADDER``; another kind of evidence is one more function in the list):

1. **people**: Spearman's rho of each judge's ratings with the mean human label; for a
   criterion of the user's own, each judge's answer right or wrong against the people's label
   (``validity.criteria``), exact McNemar, chance the no-information rate;
2. **preference pairs** or designed contrasts: pairwise accuracy, an unscored pair (a failed
   cell) counted as wrong, like a tie; pairs too few to exclude chance give way to probes;
3. **probes**: the share of directional probes (copies of the user's samples made worse in a
   known way, ``validity.probes``) whose score fell (a criterion's ``fails-when`` probe: whose
   verdict was fail), each probe right or wrong per judge (a tie or a failed cell is a miss),
   compared on the same probes like pairs;
4. **other judges**: tau-b with the leave-one-out consensus. It needs three judges or more
   (with two, each agrees with "the others" by the same number), and a judge named on it is
   named "by agreement only", since agreeing with a wrong majority is not validity. Juries are
   left out of this rung: a jury agrees with its own members by construction.

Each rung is an ``Evidence`` (``stats.ruling``): every judge's values on the same items, the
statistic, chance and the interval; the paired rule is the same on every rung.

The people rung stands for all the run's samples: where a queue drew the labels with unequal
probabilities (``frames.label_weights``: weights not all 1), each judge's rho or accuracy is
the weighted one, its interval read at its effective number of samples, and each paired
comparison (and the margin's bound) the weighted paired bootstrap (``stats.weighted``); where
every label counts as drawn uniformly, the figures are the unweighted ones. Either way the
evidence says which (``sampling``) and how many labels each item rests on. People's
preferences on the pairs rung (a pairs run's, one item a person and pair) and a pairwise
criterion's are weighted the same way, by their queue's draws of each pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from judgegrid.analyses.decision.outcome import outcome, usage_of
from judgegrid.analyses.frames.juries import is_jury
from judgegrid.analyses.frames.label_weights import UNIFORM_WORDS, is_uniform, metric_weights
from judgegrid.analyses.frames.ratings import choice_ratings, pooled_by_choice
from judgegrid.analyses.stats.intervals import accuracy_interval, rho_interval, tau_interval
from judgegrid.analyses.stats.paired import (
    consensus_tau_jackknife,
    consensus_tau_statistic,
    mean_statistic,
    spearman_statistic,
)
from judgegrid.analyses.stats.ruling import Evidence, binary_evidence
from judgegrid.analyses.stats.weighted import rho_weighting, share_weighting
from judgegrid.analyses.validity.criteria import PeopleRight
from judgegrid.analyses.validity.pairs import pair_outcomes
from judgegrid.analyses.validity.people import by_rho, mean_labels
from judgegrid.analyses.validity.probes import probe_outcomes
from judgegrid.core.records import PREFERENCE
from judgegrid.core.scales import PLAIN, Scales

MIN_AGREEMENT_JUDGES = 3


@dataclass(frozen=True)
class CardSources:
    """What the card reads: the scores (pooled here as the user chooses), the ranking (cost,
    latency, failures per judge), preference pairs, people's labels and what ``validity.people``
    made of them."""

    scores: pd.DataFrame
    ranking: pd.DataFrame
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    labels: pd.DataFrame = field(default_factory=pd.DataFrame)
    people: pd.DataFrame = field(default_factory=pd.DataFrame)
    aat: pd.DataFrame = field(default_factory=pd.DataFrame)
    needed: pd.DataFrame = field(default_factory=pd.DataFrame)
    scales: Scales = PLAIN  # each metric's direction (a pair's better member)
    margin: float | None = None
    # each probe against its sample, per judge (``validity.probes.probe_pairs``)
    probe_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    # per criterion: its answers right or wrong against people (``validity.criteria``)
    people_right: Mapping[str, PeopleRight] = field(default_factory=dict)
    # each labelled sample's weight (``frames.label_weights.sample_weights``) and, per metric,
    # what the people rung's figures stand for in words ("labels drawn uniformly"); people's
    # preferences under metric ``preference``, one item a person and pair (``person_weights``)
    label_weights: pd.DataFrame = field(default_factory=pd.DataFrame)
    sampling: Mapping[str, str] = field(default_factory=dict)
    # the labelling queue's stored draws (``records.DRAW_COLUMNS``) and every answer in label
    # order, skips with no value (``sample_id, metric, annotator, value``): the state line's
    draws: pd.DataFrame = field(default_factory=pd.DataFrame)
    answers: pd.DataFrame = field(default_factory=pd.DataFrame)
    # ``frames.ratings.choice_ratings(scores)`` if already made (else made for each metric)
    choices: pd.DataFrame | None = None
    # per pairwise criterion, its pairs of the data set no judge compared and no person
    # labelled (``label_state.uncompared_counts``): the state line names them
    uncompared: Mapping[str, int | None] = field(default_factory=dict)  # None: not known


def first_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """The highest rung of the ladder with data for ``metric``; pairs or contrasts too few to
    exclude chance give way to probes, where there are any."""
    for rung in LADDER:
        evidence = rung(metric, sources)
        if evidence is None:
            continue
        if rung is pair_evidence and _gives_way_to_probes(evidence, metric, sources):
            continue
        return evidence
    return None


def _gives_way_to_probes(pairs: Evidence, metric: str, sources: CardSources) -> bool:
    if probe_evidence(metric, sources) is None:
        return False
    return outcome(pairs, usage_of(sources.ranking, metric), sources.margin).kind == "chance"


def people_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 1: each judge's ratings against people's mean label, on the labelled samples."""
    if sources.labels.empty or sources.people.empty:
        return None
    measured = by_rho(sources.people[sources.people["metric"] == metric])
    if measured.empty:
        return None
    labelled = mean_labels(sources.labels)
    mine = labelled[labelled["metric"] == metric].set_index("sample_id")
    human = mine["label"]
    wide = _wide_ratings(sources, metric).reindex(human.index)
    judges = tuple(str(j) for j in measured["judge"] if j in wide.columns)
    weights = _weights_of(sources, metric, human.index)
    return Evidence(
        basis="people",
        measure="rho",
        unit="samples people labelled",
        chance=0.0,
        judges=judges,
        values=wide[list(judges)].to_numpy(float),
        target=human.to_numpy(float),
        statistic=spearman_statistic,
        binary=False,
        interval=rho_interval,
        next_if_named="none needed: the interval excludes chance",
        words=lambda judge: _aat_words(sources.aat, metric, judge),
        weighting=None if weights is None else rho_weighting(weights),
        sampling=sources.sampling.get(metric, UNIFORM_WORDS),
        label_counts=mine["annotators"].to_numpy(int),
    )


def _weights_of(sources: CardSources, metric: str, samples: pd.Index) -> np.ndarray | None:
    """The labelled ``samples``' weights for ``metric``, or None where all are 1."""
    if sources.label_weights.empty:
        return None
    found = metric_weights(sources.label_weights, metric)["weight"].astype(float)
    weights = found.reindex(samples.astype(str)).fillna(1.0).to_numpy(float)
    return None if is_uniform(weights) else weights


def criterion_people_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 1 for a criterion: each judge's answer right or wrong against the people's label
    (``validity.criteria``); chance is the no-information rate, not one half."""
    found = sources.people_right.get(metric)
    if found is None or found.right.empty:
        return None
    weights = found.weights
    counts = found.labels
    return Evidence(
        basis="people",
        measure="accuracy",
        unit="samples people labelled",
        chance=found.chance,
        judges=tuple(str(j) for j in found.right.columns),
        values=found.right.to_numpy(float),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=accuracy_interval,
        next_if_named="none needed: the interval excludes chance",
        weighting=None if weights is None else share_weighting(weights.to_numpy(float)),
        sampling=sources.sampling.get(metric, UNIFORM_WORDS),
        label_counts=None if counts is None else counts.to_numpy(int),
    )


def pair_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 2: right or wrong on each preference pair (or designed contrast); a pair a judge
    did not score (a failed cell) is wrong, as a tie is. People's preferences (source
    ``people``, one item a person and pair) stand for all the pairs, as the people rung's
    labels for all the samples: each weighs its person's draws of the pair
    (``label_weights.person_weights``, in ``label_weights`` under metric ``preference``), a
    data set's pair or a preference no draw stands behind weight 1; the figures say so
    (``sampling``)."""
    pairs = sources.pairs
    pairs = pairs[pairs["metric"] == metric] if not pairs.empty else pairs
    if pairs.empty:
        return None
    right = pair_right(sources.scores, pairs, sources.scales)
    if right is None:
        return None
    preferred = pairs["source"].isin(["labels", "people"]).any()
    evidence = binary_evidence(
        right, "pairs", "preference pairs" if preferred else "designed contrasts"
    )
    if not (pairs["source"] == "people").any():
        return evidence  # the data set's pairs (or contrasts) alone: every one counts once
    weights = _weights_of(sources, PREFERENCE, right.index)
    return replace(
        evidence,
        weighting=None if weights is None else share_weighting(weights),
        sampling=sources.sampling.get(PREFERENCE, UNIFORM_WORDS),
    )


def pair_right(scores: pd.DataFrame, pairs: pd.DataFrame, scales: Scales) -> pd.DataFrame | None:
    """Per preference pair and judge: whether the judge rates the preferred member better (an
    unscored pair or a tie: wrong); None where no judge scored a pair."""
    outcomes = pair_outcomes(pooled_by_choice(scores), pairs, scales)
    if outcomes.empty or not outcomes["scored"].any():
        return None
    return outcomes.pivot_table(index="pair", columns="judge", values="agree", aggfunc="max")


def probe_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 3: each directional probe of ``metric`` detected (its score fell; for a
    criterion's ``fails-when`` probe, its verdict was fail) or missed, per
    judge; a probe a judge did not score, or scored the same, is a miss."""
    detected = probe_outcomes(sources.probe_pairs, metric)
    if detected.empty:
        return None
    return binary_evidence(detected, "probes", "probes", "detection")


def agreement_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 3: tau-b with the other judges' mean, on the samples every judge scored."""
    wide = _wide_ratings(sources, metric)
    wide = wide[[c for c in wide.columns if not is_jury(c)]].dropna()  # a jury agrees with its own
    if wide.shape[1] < 2 or len(wide) < 5 or (wide.nunique() > 1).sum() < 2:
        return None  # no two judges whose scores vary on the same samples
    return Evidence(
        basis="other judges",
        measure="tau-b",
        unit="samples every judge scored",
        chance=0.0,
        judges=tuple(str(j) for j in wide.columns),
        values=wide.to_numpy(float),
        target=None,
        statistic=consensus_tau_statistic,
        binary=False,
        interval=tau_interval,
        named_suffix=" (by agreement only)",
        min_judges=MIN_AGREEMENT_JUDGES,
        joint=True,
        jackknife=consensus_tau_jackknife,
    )


# people > pairs/contrasts > probes > other judges; a new kind of evidence is one more function
LADDER: Sequence[Callable[[str, CardSources], Evidence | None]] = (
    criterion_people_evidence,
    people_evidence,
    pair_evidence,
    probe_evidence,
    agreement_evidence,
)


def _wide_ratings(sources: CardSources, metric: str) -> pd.DataFrame:
    scores, pooled = sources.scores, sources.choices
    if pooled is None:
        pooled = choice_ratings(scores[scores["metric"] == metric])
    pooled = pooled[pooled["metric"] == metric]
    if pooled.empty:
        return pd.DataFrame()
    return pooled.pivot_table(index="sample_id", columns="judge", values="rating")


def _aat_words(aat: pd.DataFrame, metric: str, judge: str) -> str:
    if aat.empty:
        return ""
    row = aat[(aat["metric"] == metric) & (aat["judge"] == judge)]
    if row.empty or pd.isna(row.iloc[0]["passed"]):
        return "; alt-test not run (needs 3 annotators on 30+ shared samples)"
    r = row.iloc[0]
    outcome = "passes" if bool(r["passed"]) else "fails"
    return f"; it {outcome} the alt-test (winning rate {r['winning_rate']:.2f})"
