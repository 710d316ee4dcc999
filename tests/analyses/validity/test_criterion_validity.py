"""Validity of judges against people on a criterion: figures checked against scikit-learn and
scipy, the missing-data rule (a tie or a failed cell is wrong), and the card's first rung for a
criterion, by scripted judges of each type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score, recall_score

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.decision.card import EVERY_SAMPLE_LABELLED, NO_VERDICT
from judgegrid.analyses.validity.criteria import (
    criterion_recall,
    criterion_validity,
    no_information_rate,
    outcome_table,
    people_right,
)
from support.criterion_frames import (
    BINARY,
    LABELS,
    SCALE,
    SPECS,
    at_random,
    criterion_scores,
    follows,
    people_labels,
    truths,
)


def _validity(spec, judges, samples=60, seed=2, **kwargs):
    truth = truths(spec, samples, seed)
    scores = criterion_scores(spec, judges, truth, seed=seed, **kwargs)
    labels = people_labels(spec.name, truth)
    outcomes = outcome_table(scores, labels, {spec.name: spec})
    return scores, labels, outcomes, criterion_validity(outcomes, {spec.name: spec})


def _judge(table, judge):
    return table[table["judge"] == judge].iloc[0]


@pytest.mark.parametrize("spec", [BINARY, LABELS])
def test_categorical_figures_match_scikit_learn(spec):
    _, _, outcomes, table = _validity(spec, {"noisy": follows(0.4, spec)}, repeats=1)
    row = _judge(table, "noisy")
    code, label = outcomes["code"], outcomes["label"]
    assert row["accuracy"] == pytest.approx(accuracy_score(label, code))
    assert row["kappa"] == pytest.approx(cohen_kappa_score(label, code))
    assert row["accuracy_low"] < row["accuracy"] < row["accuracy_high"]
    assert row["chance"] == pytest.approx(label.value_counts(normalize=True).max())
    if spec.type == "binary":
        assert row["tpr"] == pytest.approx(recall_score(label, code, pos_label=1))
        assert row["tnr"] == pytest.approx(recall_score(label, code, pos_label=0))
    recall = criterion_recall(outcomes, {spec.name: spec})
    expected = recall_score(label, code, average=None, labels=[0.0, 1.0, 2.0][: len(recall)])
    assert recall["recall"].to_numpy() == pytest.approx(expected)
    if spec.type == "labels":
        assert list(recall["label"]) == ["wrong", "partial", "correct"]  # by score


def test_scale_figures_match_scikit_learn_and_scipy():
    _, _, outcomes, table = _validity(SCALE, {"noisy": follows(0.5, SCALE)}, repeats=1)
    row = _judge(table, "noisy")
    code, label = outcomes["code"], outcomes["label"]
    assert row["kappa"] == pytest.approx(cohen_kappa_score(label, code, weights="quadratic"))
    assert row["spearman"] == pytest.approx(stats.spearmanr(code, label).statistic)
    assert row["spearman_low"] < row["spearman"] < row["spearman_high"]
    assert row["within_one"] == pytest.approx(float((abs(code - label) <= 1).mean()))
    assert row["accuracy"] == pytest.approx(accuracy_score(label, code))


@pytest.mark.parametrize("spec", [BINARY, LABELS, SCALE])
def test_a_judge_that_follows_the_people_is_valid_and_a_random_one_is_not(spec):
    judges = {"follower": follows(), "rand": at_random(spec)}
    _, _, _, table = _validity(spec, judges)
    follower, rand = _judge(table, "follower"), _judge(table, "rand")
    assert follower["accuracy"] == 1.0 and follower["kappa"] == pytest.approx(1.0)
    assert follower["accuracy_low"] > follower["chance"]
    assert rand["kappa_low"] <= 0 <= rand["kappa_high"]
    if spec.type == "scale":
        assert follower["spearman"] == pytest.approx(1.0)


def test_a_tie_between_repeats_and_a_failed_cell_count_as_wrong_in_the_accuracy():
    truth = [1.0, 0.0, 1.0, 0.0]
    scores = criterion_scores(BINARY, {"a": follows()}, truth, repeats=2)
    tie = (scores["sample_id"] == "s000") & (scores["repeat"] == 1)
    scores.loc[tie, ["answer", "score"]] = 0.0  # s000: one pass, one fail
    failed = scores["sample_id"] == "s001"
    scores.loc[failed, ["status", "answer", "score"]] = ["failed", np.nan, np.nan]
    skipped = scores["sample_id"] == "s002"
    scores.loc[skipped, ["status", "answer", "score"]] = ["skipped", np.nan, np.nan]
    labels = people_labels(BINARY.name, truth)
    outcomes = outcome_table(scores, labels, {BINARY.name: BINARY})
    row = criterion_validity(outcomes, {BINARY.name: BINARY}).iloc[0]
    assert row["n"] == 3  # the skipped sample takes no part
    assert row["answered"] == 1
    assert row["accuracy"] == pytest.approx(1 / 3)


def test_the_peoples_label_is_their_modal_label_and_a_tie_leaves_the_sample_out():
    truth = [1.0, 0.0, 1.0]
    scores = criterion_scores(BINARY, {"a": follows()}, truth, repeats=1)
    labels = pd.concat(
        [
            people_labels(BINARY.name, truth, "p1"),
            people_labels(BINARY.name, [1.0, 0.0, 0.0], "p2"),
            people_labels(BINARY.name, [0.0, 0.0, 0.0], "p3"),
        ]
    )
    outcomes = outcome_table(scores, labels, {BINARY.name: BINARY}).set_index("sample_id")
    assert outcomes.loc["s000", "label"] == 1.0  # 2 of 3 say pass
    assert outcomes.loc["s002", "label"] == 0.0
    two = labels[labels["annotator"] != "p3"]
    outcomes = outcome_table(scores, two, {BINARY.name: BINARY})
    assert "s002" not in set(outcomes["sample_id"])  # p1 pass, p2 fail: a tie


def test_no_information_rate_is_the_share_of_the_commonest_label():
    assert no_information_rate(np.array([1.0, 1.0, 0.0, 1.0])) == 0.75
    assert np.isnan(no_information_rate(np.array([])))


@pytest.mark.parametrize("spec", [BINARY, LABELS, SCALE])
def test_the_card_names_the_follower_by_the_paired_rule_on_people(spec):
    truth = truths(spec, 60, seed=4)
    judges = {"follower": follows(), "rand": at_random(spec)}
    scores = criterion_scores(spec, judges, truth, seed=4)
    card = analyse(
        scores,
        RunFacts(criteria={spec.name: spec}),
        ValidityInputs(human_labels=people_labels(spec.name, truth)),
    ).card.iloc[0]
    assert card["verdict"] == "follower"
    assert card["basis"] == "people"
    assert card["measure"] == "accuracy"
    assert "exact McNemar" in card["reason"]
    assert card["chance"] == pytest.approx(no_information_rate(np.array(truth)))


def test_the_card_says_no_verdict_when_no_judge_beats_always_giving_the_commonest_label():
    truth = [1.0] * 50 + [0.0] * 10  # always "pass" scores 0.83
    judges = {"r1": at_random(BINARY), "r2": at_random(BINARY)}
    scores = criterion_scores(BINARY, judges, truth, seed=5)
    labels = people_labels(BINARY.name, truth)
    card = analyse(
        scores, RunFacts(criteria={BINARY.name: BINARY}), ValidityInputs(human_labels=labels)
    ).card.iloc[0]
    assert card["verdict"] == NO_VERDICT
    assert card["chance"] == pytest.approx(50 / 60)
    assert "does not exclude chance" in card["reason"]


def test_scale_labels_outside_0_1_do_not_reach_the_built_in_metrics_analyses():
    """A scale's labels are levels (1..5): the human module would refuse them as out of [0, 1]."""
    frames, labels = [], []
    for spec in SPECS.values():
        truth = truths(spec, 30)
        frames.append(criterion_scores(spec, {"a": follows(), "b": follows(0.3, spec)}, truth))
        labels.append(people_labels(spec.name, truth))
    analysis = analyse(
        pd.concat(frames, ignore_index=True),
        RunFacts(criteria=SPECS),
        ValidityInputs(human_labels=pd.concat(labels, ignore_index=True)),
    )
    assert set(analysis.table("criterion_validity")["metric"]) == set(SPECS)
    assert analysis.table("validity_people_by_judge").empty
    assert set(analysis.card["basis"]) == {"people"}


def test_people_right_holds_the_cards_items_with_nan_where_a_judge_did_not_attempt():
    truth = [1.0, 0.0, 1.0, 1.0]
    scores = criterion_scores(BINARY, {"a": follows(), "b": follows()}, truth, repeats=1)
    scores = scores[~((scores["judge"] == "b") & (scores["sample_id"] == "s000"))]
    outcomes = outcome_table(scores, people_labels(BINARY.name, truth), {BINARY.name: BINARY})
    found = people_right(outcomes)[BINARY.name]
    assert found.right.shape == (4, 2)
    assert np.isnan(found.right.loc["s000", "b"]) and found.right.loc["s000", "a"] == 1.0
    assert found.chance == 0.75


def test_an_annotators_latest_label_of_a_sample_is_the_one_that_counts():
    labels = pd.DataFrame(
        {
            "sample_id": ["s000", "s000"],
            "metric": BINARY.name,
            "annotator": "p1",
            "value": [1.0, 0.0],
            "labelled_at": [20.0, 10.0],  # the pass came later
        }
    )
    scores = criterion_scores(BINARY, {"a": follows()}, [1.0], repeats=1)
    outcomes = outcome_table(scores, labels, {BINARY.name: BINARY})
    assert outcomes["label"].tolist() == [1.0]


def test_judges_that_always_pass_get_the_peoples_reason_and_no_sentence_that_none_was_assessed():
    """Two judges that answer pass to everything: the ranking cannot measure them (their scores
    do not vary), but the card decides on people's labels, and its detail must not say that no
    judge could be assessed (the embedded judges' criteria demo read so before)."""
    truth = [1.0] * 30 + [0.0] * 20
    always = {"p1": lambda *_: 1.0, "p2": lambda *_: 1.0}
    scores = criterion_scores(BINARY, always, truth, seed=6)
    labels = people_labels(BINARY.name, truth)
    card = analyse(
        scores, RunFacts(criteria={BINARY.name: BINARY}), ValidityInputs(human_labels=labels)
    ).card.iloc[0]
    assert card["basis"] == "people" and card["verdict"] == NO_VERDICT
    assert "no judge could be assessed" not in str(card["detail"])


def test_the_next_step_asks_for_labels_only_while_a_sample_is_left_unlabelled():
    """A fully labelled run (an imported benchmark with its truth) has no label left to ask
    for: the card says so rather than sending the person to an empty queue (a judge named
    needs none, and says so, labelled or not)."""
    truth = truths(BINARY, 60, seed=4)
    judges = {"rand": at_random(BINARY), "also": at_random(BINARY)}  # no verdict: more evidence
    scores = criterion_scores(BINARY, judges, truth, seed=4)
    facts = RunFacts(criteria={BINARY.name: BINARY})

    def next_step(labelled: list[float]) -> str:
        labels = people_labels(BINARY.name, labelled)
        return str(
            analyse(scores, facts, ValidityInputs(human_labels=labels)).card.iloc[0]["next_step"]
        )

    assert next_step(truth) == EVERY_SAMPLE_LABELLED
    assert next_step(truth[:40]).startswith("judgegrid label RUN")
