"""A pairwise criterion's people's preferences weighted by its own queue's draws, as a pointwise
criterion's labels are: the card's rung (accuracy, chance, the paired test) and the true score
read each labelled pair at ``1 / (N q)`` a draw; every weight 1 leaves them as they were."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.weightstats import DescrStatsW

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.decision.ladder import CardSources, criterion_people_evidence
from judgegrid.analyses.frames.label_weights import sample_weights, sampling_words
from judgegrid.analyses.pairwise import tables as pairwise_tables
from judgegrid.analyses.stats.ruling import WEIGHTED_TEST, compare, standings
from judgegrid.analyses.validity.true_score import drawn_of, pairwise_true_scores
from judgegrid.core.criterion import CriterionSpec
from support.pairwise_judges import pairwise_cell

BETTER = CriterionSpec(
    name="better", definition="Which?", type="pairwise", compare=("response", "response_b")
)
N = 400
HARD = 100  # the first 100 pairs: where the biased judge always says a


def _people() -> np.ndarray:
    """People's preference of each of the N pairs: a on every other pair, b on the rest."""
    return np.where(np.arange(N) % 2 == 0, "a", "b")


PEOPLE = _people()
IDS = [f"p{i:03d}" for i in range(N)]
# on the hard pairs, "biased" says a where people say b; elsewhere both judges are right
BIASED = np.where(np.arange(N) < HARD, "a", PEOPLE)
FAIR = np.where(np.arange(N) % 10 == 9, np.where(PEOPLE == "a", "b", "a"), PEOPLE)


def _scores() -> pd.DataFrame:
    """Both judges' cells on the N pairs, each judge's two orders agreeing."""
    return pd.DataFrame(
        [
            pairwise_cell(judge, pair, winner, winner)
            for judge, said in (("biased", BIASED), ("fair", FAIR))
            for pair, winner in zip(IDS, said, strict=True)
        ]
    )


SCORES = _scores()


def _queue(drawn: np.ndarray, q: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A person's answers (people's preference of each drawn pair, once a pair) and the draws."""
    answered = list(dict.fromkeys(drawn.tolist()))
    labels = pd.DataFrame(
        {
            "sample_id": [IDS[k] for k in answered],
            "metric": "better",
            "annotator": "ann",
            "value": [1.0 if PEOPLE[k] == "a" else 0.0 for k in answered],
        }
    )
    draws = pd.DataFrame(
        {
            "metric": "better",
            "annotator": "ann",
            "draw": np.arange(1, len(drawn) + 1),
            "sample_id": [IDS[k] for k in drawn],
            "probability": q[drawn],
            "population": N,
        }
    )
    return labels, draws


def _overdrawn() -> np.ndarray:
    q = np.where(np.arange(N) < HARD, 4.0, 1.0)
    return q / q.sum()


def _card_evidence(labels: pd.DataFrame, draws: pd.DataFrame | None):
    """The card's rung of ``better`` as the report makes it from these labels and draws."""
    weights = sample_weights(labels, draws)
    words = sampling_words(weights, draws, {})
    _, right = pairwise_tables.pairwise_run_tables(
        SCORES, labels, {"better": BETTER}, weights=weights, sampling=words
    )
    sources = CardSources(SCORES, pd.DataFrame(), people_right=right, sampling=words)
    return right["better"], criterion_people_evidence("better", sources)


def test_the_criterions_rung_weighs_each_pair_by_its_draws():
    rng = np.random.default_rng(5)
    q = _overdrawn()
    drawn = rng.choice(N, 150, p=q)
    found, evidence = _card_evidence(*_queue(drawn, q))
    assert evidence is not None and evidence.weighting is not None
    assert evidence.sampling == (
        "labels weighted by the queue's draw probabilities over 400 samples"
    )
    pairs, counts = np.unique(drawn, return_counts=True)
    w = pd.Series(counts / (N * q[pairs]), index=[IDS[k] for k in pairs])
    assert found.weights is not None
    assert found.weights.to_numpy() == pytest.approx(w.reindex(found.right.index).to_numpy())
    ranked = {s.judge: s for s in standings(evidence)}
    for judge, said in (("biased", BIASED), ("fair", FAIR)):
        right = (said[pairs] == PEOPLE[pairs]).astype(float)
        expected = DescrStatsW(right, weights=counts / (N * q[pairs])).mean
        assert ranked[judge].quality == pytest.approx(expected)
    said_a = (PEOPLE[pairs] == "a").astype(float)
    share_a = DescrStatsW(said_a, weights=counts / (N * q[pairs])).mean
    assert found.chance == pytest.approx(max(share_a, 1 - share_a))


def test_a_queue_drawn_once_a_pair_uniformly_leaves_the_rung_as_without_draws():
    q = np.full(N, 1 / N)
    labels, draws = _queue(np.arange(60), q)
    found, evidence = _card_evidence(labels, draws)
    plain, today = _card_evidence(labels, None)
    assert found.weights is None and evidence is not None and evidence.weighting is None
    assert today is not None and evidence.sampling == today.sampling == "labels drawn uniformly"
    assert found.chance == plain.chance
    assert standings(evidence) == standings(today)


def test_the_card_says_the_criterions_preferences_are_weighted():
    rng = np.random.default_rng(7)
    q = _overdrawn()
    labels, draws = _queue(rng.choice(N, 150, p=q), q)
    facts = RunFacts(criteria={"better": BETTER})
    inputs = ValidityInputs(human_labels=labels, label_draws=draws)
    analysis = analyse(SCORES, facts, inputs)
    row = analysis.card.set_index("metric").loc["better"]
    assert row["basis"] == "people" and row["judge"] == "fair"
    answered = len(labels)
    assert (
        f"on {answered} labels weighted by the queue's draw probabilities over 400 samples"
        in row["reason"]
    )
    assert WEIGHTED_TEST in row["reason"]
    assert row["n"] == answered
    true = analysis.table("pairwise_true_score")
    assert set(true["weights"]) == {
        "labels weighted by the queue's draw probabilities over 400 samples"
    }


def test_the_pairwise_true_score_is_unbiased_under_the_overdrawing_queue():
    """120 queues of 120 draws that draw the hard pairs (where the biased judge says a and
    people b) four times as often: answer a's win rate under the biased judge, corrected by
    people's preferences weighted, misses people's win rate of a over all N pairs by less than
    3 standard errors on average; corrected unweighted, by far more. People's weighted mean
    is statsmodels' weighted mean of their outcomes."""
    rng = np.random.default_rng(11)
    q = _overdrawn()
    truth = float((PEOPLE == "a").mean())
    both = pd.DataFrame({"judge": "biased", "pair": IDS, "combined": BIASED})
    errors: dict[str, list[float]] = {"weighted": [], "unweighted": []}
    for _ in range(120):
        drawn = rng.choice(N, 120, p=q)
        labels, draws = _queue(drawn, q)
        weights = sample_weights(labels, draws)
        people = pd.DataFrame(
            {"pair": labels["sample_id"], "preferred": np.where(labels["value"] == 1, "a", "b")}
        )
        mine = drawn_of(weights, "better", "weighted")
        assert mine is not None
        found = pairwise_true_scores(both, people, pd.DataFrame(), mine).set_index("system")
        plain = pairwise_true_scores(both, people, pd.DataFrame()).set_index("system")
        pairs, counts = np.unique(drawn, return_counts=True)
        said_a = (PEOPLE[pairs] == "a").astype(float)
        expected = DescrStatsW(said_a, weights=counts / (N * q[pairs])).mean
        assert found.loc["a", "people_mean"] == pytest.approx(expected)
        assert found.loc["a", "weights"] == "weighted"
        errors["weighted"].append(found.loc["a", "corrected"] - truth)
        errors["unweighted"].append(plain.loc["a", "corrected"] - truth)
    bias = {k: float(np.mean(v)) for k, v in errors.items()}
    se = {k: float(np.std(v, ddof=1) / np.sqrt(len(v))) for k, v in errors.items()}
    assert abs(bias["weighted"]) < 3 * se["weighted"], (bias, se)
    assert abs(bias["unweighted"]) > 10 * se["unweighted"], (bias, se)


def _validity(labels: pd.DataFrame, draws: pd.DataFrame | None) -> pd.DataFrame:
    weights = sample_weights(labels, draws)
    words = sampling_words(weights, draws, {})
    tables, _ = pairwise_tables.pairwise_run_tables(
        SCORES, labels, {"better": BETTER}, weights=weights, sampling=words
    )
    return tables["pairwise_validity"].set_index("judge")


def test_the_validity_table_gives_the_cards_weighted_accuracy():
    """``pairwise_validity``'s accuracy and interval are the card's for each judge, the
    accuracy statsmodels' weighted mean (and numpy's mean of the rows replicated by whole
    weights); the unweighted share is kept as ``accuracy_unweighted``, and the table says what
    the weights stand for."""
    rng = np.random.default_rng(13)
    q = _overdrawn()
    drawn = rng.choice(N, 150, p=q)
    labels, draws = _queue(drawn, q)
    table = _validity(labels, draws)
    _, evidence = _card_evidence(labels, draws)
    assert evidence is not None
    ranked = {s.judge: s for s in standings(evidence)}
    pairs, counts = np.unique(drawn, return_counts=True)
    weights = counts / (N * q[pairs])
    unit = 1 / (N * q.max())  # a hard pair's draw: every weight a whole number of it
    whole = np.rint(weights / unit).astype(int)
    assert np.allclose(weights / unit, whole)
    for judge, said in (("biased", BIASED), ("fair", FAIR)):
        right = (said[pairs] == PEOPLE[pairs]).astype(float)
        row = table.loc[judge]
        assert row["accuracy"] == pytest.approx(DescrStatsW(right, weights=weights).mean)
        assert row["accuracy"] == pytest.approx(float(np.repeat(right, whole).mean()))
        assert row["accuracy_unweighted"] == pytest.approx(right.mean())
        standing = ranked[judge]
        assert (row["accuracy"], row["accuracy_low"], row["accuracy_high"]) == pytest.approx(
            (standing.quality, standing.low, standing.high), abs=1e-12
        )
        assert row["weighting"] == (
            "labels weighted by the queue's draw probabilities over 400 samples"
        )
        assert row["pairs"] == len(pairs)  # still a count


def test_a_queue_drawn_once_a_pair_uniformly_leaves_the_validity_table_as_it_was():
    labels, draws = _queue(np.arange(60), np.full(N, 1 / N))
    pd.testing.assert_frame_equal(_validity(labels, draws), _validity(labels, None))
    assert "accuracy_unweighted" not in _validity(labels, draws).columns


# a third judge that ties (its two orders disagree) on every third pair and errs on every
# seventh: the tie-excluded, half-credit and kappa figures then differ from the strict accuracy
TIED = np.where(np.arange(N) % 7 == 3, np.where(PEOPLE == "a", "b", "a"), PEOPLE)
TIES = np.arange(N) % 3 == 1


def _scores_with_ties() -> pd.DataFrame:
    tied = [
        pairwise_cell("tied", pair, "a" if tie else w, "b" if tie else w)
        for pair, w, tie in zip(IDS, TIED, TIES, strict=True)
    ]
    return pd.concat([SCORES, pd.DataFrame(tied)], ignore_index=True)


SCORES_WITH_TIES = _scores_with_ties()


def _tables(labels: pd.DataFrame, draws: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    weights = sample_weights(labels, draws)
    words = sampling_words(weights, draws, {})
    tables, _ = pairwise_tables.pairwise_run_tables(
        SCORES_WITH_TIES, labels, {"better": BETTER}, weights=weights, sampling=words
    )
    return tables


def _overdrawn_queue() -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """150 draws of the queue that draws the hard pairs four times as often: the labels, the
    draws, the pairs drawn and each one's weight ``draws / (N q)``."""
    q = _overdrawn()
    drawn = np.random.default_rng(21).choice(N, 150, p=q)
    labels, draws = _queue(drawn, q)
    pairs, counts = np.unique(drawn, return_counts=True)
    return labels, draws, pairs, counts / (N * q[pairs])


def test_the_validity_tables_other_figures_are_weighted_too():
    """Tie-excluded accuracy and half credit: statsmodels' weighted means (the half credit's
    interval: the robust (HC1) SE of a weighted least squares mean, the Hajek mean's linearised
    SE); kappa: scikit-learn's ``cohen_kappa_score`` with ``sample_weight``."""
    labels, draws, pairs, weights = _overdrawn_queue()
    table = _tables(labels, draws)["pairwise_validity"].set_index("judge")
    verdict = {"biased": BIASED, "fair": FAIR, "tied": np.where(TIES, "tie", TIED)}
    for judge, said in verdict.items():
        mine, people = said[pairs], PEOPLE[pairs]
        row = table.loc[judge]
        decided = mine != "tie"
        right = (mine == people).astype(float)
        assert row["accuracy_tie_excluded"] == pytest.approx(
            DescrStatsW(right[decided], weights=weights[decided]).mean
        )
        assert row["ci_low"] < row["accuracy_tie_excluded"] < row["ci_high"]
        credit = np.where(mine == people, 1.0, np.where(mine == "tie", 0.5, 0.0))
        fit = sm.WLS(credit, np.ones(len(credit)), weights=weights).fit(cov_type="HC1")
        half = stats.t.ppf(0.975, len(credit) - 1) * float(fit.bse[0])
        assert (
            row["accuracy_half_credit"],
            row["half_credit_low"],
            row["half_credit_high"],
        ) == pytest.approx((fit.params[0], fit.params[0] - half, fit.params[0] + half))
        assert row["kappa"] == pytest.approx(cohen_kappa_score(mine, people, sample_weight=weights))
        assert row["kappa_low"] < row["kappa"] < row["kappa_high"]
        assert row["decided"] == int(decided.sum())  # still a count
    tied = table.loc["tied"]
    assert tied["accuracy_tie_excluded"] != pytest.approx(tied["accuracy"])
    assert tied["accuracy_half_credit"] != pytest.approx(tied["accuracy"])


def test_the_comparisons_table_is_the_cards_weighted_paired_test():
    """``pairwise_comparisons`` compares the judges as the card's rung does: the same top
    judge, each difference statsmodels' weighted mean of the paired differences, and the card's
    own weighted paired bootstrap (interval and p-value) for the same two judges."""
    labels, draws, pairs, weights = _overdrawn_queue()
    table = _tables(labels, draws)["pairwise_comparisons"]
    weights_ = sample_weights(labels, draws)
    words = sampling_words(weights_, draws, {})
    _, right = pairwise_tables.pairwise_run_tables(
        SCORES_WITH_TIES, labels, {"better": BETTER}, weights=weights_, sampling=words
    )
    sources = CardSources(SCORES_WITH_TIES, pd.DataFrame(), people_right=right, sampling=words)
    evidence = criterion_people_evidence("better", sources)
    assert evidence is not None
    top = standings(evidence)[0].judge
    verdict = {"biased": BIASED, "fair": FAIR, "tied": np.where(TIES, "tie", TIED)}
    assert set(table["top"]) == {top}
    assert len(table) == 2
    for row in table.to_dict("records"):
        card = compare(evidence, top, row["other"])
        assert (row["diff"], row["low"], row["high"], row["p"]) == pytest.approx(
            (card.diff, card.low, card.high, card.p_value)
        )
        gap = (verdict[top][pairs] == PEOPLE[pairs]).astype(float) - (
            verdict[row["other"]][pairs] == PEOPLE[pairs]
        ).astype(float)
        assert row["diff"] == pytest.approx(DescrStatsW(gap, weights=weights).mean)
        assert row["test"] == WEIGHTED_TEST
        assert row["weighting"] == words["better"]


def test_a_queue_drawn_once_a_pair_uniformly_leaves_the_tables_as_they_were():
    """Every weight 1: the validity table's every figure and the comparisons' McNemar test as
    without draws, no new column."""
    labels, draws = _queue(np.arange(60), np.full(N, 1 / N))
    with_draws, without = _tables(labels, draws), _tables(labels, None)
    for name in ("pairwise_validity", "pairwise_comparisons"):
        pd.testing.assert_frame_equal(with_draws[name], without[name])
        assert "weighting" not in with_draws[name].columns
    assert set(with_draws["pairwise_comparisons"]["test"]) == {"exact McNemar"}


def _grouped_tables(labels: pd.DataFrame, draws: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    """``_tables`` with each pair in a group: ``hard`` (the first ``HARD``) or ``easy``."""
    weights = sample_weights(labels, draws)
    words = sampling_words(weights, draws, {})
    info = {pair: {"group": "hard" if k < HARD else "easy"} for k, pair in enumerate(IDS)}
    tables, _ = pairwise_tables.pairwise_run_tables(
        SCORES_WITH_TIES,
        labels,
        {"better": BETTER},
        sample_info=info,
        weights=weights,
        sampling=words,
    )
    return tables


def test_the_rules_and_groups_accuracies_are_weighted():
    """``pairwise_rules`` and ``pairwise_groups``: each accuracy statsmodels' weighted mean of
    its pairs, the chosen rule's the validity table's (the card's); counts stay counts."""
    labels, draws, pairs, weights = _overdrawn_queue()
    tables = _grouped_tables(labels, draws)
    validity = tables["pairwise_validity"].set_index("judge")
    verdict = {"biased": BIASED, "fair": FAIR, "tied": np.where(TIES, "tie", TIED)}
    hard = pairs < HARD
    for row in tables["pairwise_rules"].to_dict("records"):
        right = (verdict[row["judge"]][pairs] == PEOPLE[pairs]).astype(float)
        assert row["accuracy"] == pytest.approx(DescrStatsW(right, weights=weights).mean)
        assert row["accuracy_unweighted"] == pytest.approx(right.mean())
        assert row["pairs"] == len(pairs)
        if row["chosen"]:
            card = validity.loc[row["judge"], ["accuracy", "accuracy_low", "accuracy_high"]]
            assert (row["accuracy"], row["ci_low"], row["ci_high"]) == pytest.approx(tuple(card))
    groups = tables["pairwise_groups"]
    assert len(groups) == 3 * 2 * 2  # judges x groups x rules
    for row in groups.to_dict("records"):
        mine = hard if row["group"] == "hard" else ~hard
        right = (verdict[row["judge"]][pairs[mine]] == PEOPLE[pairs[mine]]).astype(float)
        assert row["accuracy"] == pytest.approx(DescrStatsW(right, weights=weights[mine]).mean)
        assert row["pairs"] == int(mine.sum())


def test_a_uniform_queue_leaves_the_rules_and_groups_as_they_were():
    labels, draws = _queue(np.arange(60), np.full(N, 1 / N))
    with_draws, without = _grouped_tables(labels, draws), _grouped_tables(labels, None)
    for name in ("pairwise_rules", "pairwise_groups"):
        assert not with_draws[name].empty
        pd.testing.assert_frame_equal(with_draws[name], without[name])
        assert "weighting" not in with_draws[name].columns
