"""The card's people rung weighted by the queue's draws, through ``analyse`` as the report calls
it: uniform draws leave the card as it is without them; a queue's unequal draws make each
judge's figure the weighted one (its interval at the effective n), every paired comparison the
weighted paired bootstrap, and the card says on how many labels and weighted by what."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.decision.ladder import CardSources, criterion_people_evidence
from judgegrid.analyses.frames.label_weights import sample_weights
from judgegrid.analyses.stats.ruling import WEIGHTED_TEST, excludes_chance, rule, standings
from judgegrid.analyses.stats.weighted import share_size, weighted_share
from judgegrid.analyses.validity.criteria import PeopleRight, outcome_table, people_right
from support.criterion_frames import BINARY, criterion_scores, follows, people_labels, truths
from support.frames import scores_frame


def _scores_and_labels(n: int = 40, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    ids = [f"s{i:02d}" for i in range(n)]
    scores = scores_frame(
        {
            ("m", judge, "", 0, 0, sid, 0): float(np.clip(t + rng.normal(0, noise), 0, 1))
            for judge, noise in (("a", 0.1), ("b", 0.5))
            for sid, t in zip(ids, truth, strict=True)
        }
    )
    labels = pd.DataFrame(
        {"sample_id": ids, "metric": "m", "annotator": "p", "value": truth, "probability": np.nan}
    )
    return scores, labels


def _draws(ids: list[str], probabilities: list[float], population: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": "m",
            "annotator": "p",
            "draw": np.arange(1, len(ids) + 1),
            "sample_id": ids,
            "probability": probabilities,
            "population": population,
        }
    )


def _card_row(scores, labels, draws=None) -> pd.Series:
    found = analyse(scores, RunFacts(), ValidityInputs(human_labels=labels, label_draws=draws))
    return found.card.set_index("metric").loc["m"]


def test_uniform_draws_leave_the_card_as_it_is():
    scores, labels = _scores_and_labels()
    ids = list(labels["sample_id"])
    uniform = _draws(ids, [1 / 40] * 40, 40)  # 1 / (40 * 0.025) is exactly 1
    assert _card_row(scores, labels, uniform).equals(_card_row(scores, labels))
    row = _card_row(scores, labels)
    assert row["basis"] == "people"
    assert "on 40 labels drawn uniformly" in row["reason"]


def test_a_queues_unequal_draws_weight_the_people_rung_and_the_card_says_so():
    scores, labels = _scores_and_labels()
    ids = list(labels["sample_id"])
    q = np.where(np.arange(40) < 10, 0.05, 0.5 / 30)  # the first ten drawn more often
    row = _card_row(scores, labels, _draws(ids, list(q / q.sum()), 200))
    assert (
        "on 40 labels weighted by the queue's draw probabilities over 200 samples" in row["reason"]
    )
    assert WEIGHTED_TEST in row["reason"]
    unweighted = _card_row(scores, labels)
    assert row["value"] != pytest.approx(unweighted["value"], abs=1e-6)
    assert row["judge"] == "a"


def _weighted_criterion() -> tuple[CardSources, np.ndarray, pd.DataFrame]:
    """A binary criterion labelled through a queue that drew every third sample four times as
    often, its right/wrong table weighted as the report weights it."""
    truth = truths(BINARY, 60, 3)
    scores = criterion_scores(
        BINARY, {"good": follows(0.1, BINARY), "poor": follows(0.45, BINARY)}, truth, seed=3
    )
    labels = people_labels(BINARY.name, truth)
    ids = list(labels["sample_id"])
    q = np.where(np.arange(60) % 3 == 0, 4.0, 1.0)
    draws = _draws(ids, list(q / q.sum()), 60).assign(metric=BINARY.name, annotator="ann")
    outcomes = outcome_table(scores, labels, {BINARY.name: BINARY})
    found = people_right(outcomes, sample_weights(labels, draws))[BINARY.name]
    assert found.weights is not None
    sources = CardSources(
        scores=scores,
        ranking=pd.DataFrame(),
        people_right={BINARY.name: found},
        sampling={BINARY.name: "labels weighted by the queue's draw probabilities over 60 samples"},
    )
    return sources, found.weights.to_numpy(float), found.right


def test_a_criterions_weighted_rung_ranks_by_the_weighted_accuracy_and_compares_by_bootstrap():
    sources, weights, table = _weighted_criterion()
    evidence = criterion_people_evidence(BINARY.name, sources)
    assert evidence is not None and evidence.weighting is not None
    ranked = {s.judge: s for s in standings(evidence)}
    for judge in ("good", "poor"):
        values = table[judge].to_numpy(float)
        assert ranked[judge].quality == pytest.approx(weighted_share(values, weights))
        assert ranked[judge].size == pytest.approx(share_size(values, weights))
        assert ranked[judge].n == len(values)
    ruling = rule(evidence)
    assert ruling.top is not None and ruling.top.judge == "good"
    assert ruling.others[0][1].test == WEIGHTED_TEST
    assert ruling.others[0][1].diff == pytest.approx(
        ranked["good"].quality - ranked["poor"].quality
    )


def test_beats_chance_holds_its_level_under_a_queue_that_overdraws_the_right_answers():
    """A judge right on exactly half the run's 500 samples (chance 0.5), and a queue that draws
    the samples it is right on three times as often: on 300 queues of 100 draws, today's
    unweighted rung says it beats chance most of the time; the weighted rung (Wilson at the
    effective n, one-sided 2.5% at chance) at most 6% of the time."""
    rng = np.random.default_rng(9)
    right = np.r_[np.ones(250), np.zeros(250)]
    q = np.where(right == 1, 3.0, 1.0)
    q /= q.sum()
    ids = np.array([f"s{i:03d}" for i in range(500)])
    said = {"weighted": [], "today": []}
    for _ in range(300):
        drawn, counts = np.unique(rng.choice(500, 100, p=q), return_counts=True)
        table = pd.DataFrame({"j": right[drawn]}, index=ids[drawn])
        weights = pd.Series(counts / (500 * q[drawn]), index=table.index)
        for name, w in (("weighted", weights), ("today", None)):
            found = PeopleRight(table, 0.5, w)
            sources = CardSources(pd.DataFrame(), pd.DataFrame(), people_right={"c": found})
            evidence = criterion_people_evidence("c", sources)
            assert evidence is not None
            top = rule(evidence).top
            assert top is not None
            said[name].append(excludes_chance(evidence, top, 1))
    assert np.mean(said["today"]) > 0.5
    assert np.mean(said["weighted"]) <= 0.06


def test_the_cards_weighted_figure_is_the_validity_tables():
    """One weighted rho and one interval for a judge, whether the card or the table quotes it:
    both bootstrap the same draws of the labelled samples."""
    scores, labels = _scores_and_labels()
    ids = list(labels["sample_id"])
    q = np.where(np.arange(40) < 10, 0.05, 0.5 / 30)
    draws = _draws(ids, list(q / q.sum()), 200)
    found = analyse(scores, RunFacts(), ValidityInputs(human_labels=labels, label_draws=draws))
    card = found.card.set_index("metric").loc["m"]
    table = found.table("validity_people_by_judge").set_index("judge").loc[card["judge"]]
    for mine, theirs in (("value", "spearman"), ("low", "spearman_low"), ("high", "spearman_high")):
        assert card[mine] == pytest.approx(table[theirs], abs=1e-9)


def test_the_margin_reads_the_weighted_paired_bootstraps_bound():
    sources, _, _ = _weighted_criterion()
    evidence = criterion_people_evidence(BINARY.name, sources)
    assert evidence is not None
    ruling = rule(evidence, margin=0.5)
    (standing, diff, _), *_ = ruling.others
    assert diff.test == WEIGHTED_TEST
    assert diff.lower_one_sided < diff.diff < diff.upper_one_sided
    within = [s.judge for s, _ in ruling.within_margin]
    assert (standing.judge in within) == (diff.upper_one_sided < 0.5)
    tight = rule(evidence, margin=max(diff.upper_one_sided - 1e-6, 0.0))
    assert standing.judge not in [s.judge for s, _ in tight.within_margin]
