"""The paired rule behind the decision card: its statistics checked against scipy and
statsmodels, and the verdicts it gives on judges of known quality."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from judgegrid.analyses.decision.card import decide_every_metric, decision_card
from judgegrid.analyses.decision.ladder import CardSources
from judgegrid.analyses.decision.outcome import cheapest_then_fastest
from judgegrid.analyses.decision.recommendation import judge_ranking
from judgegrid.analyses.stats.intervals import rho_interval
from judgegrid.analyses.stats.paired import (
    bootstrap_draws,
    consensus_tau_statistic,
    holm,
    mcnemar_exact,
    mean_statistic,
    paired_bootstrap,
    spearman_statistic,
)
from judgegrid.analyses.stats.ruling import Evidence, excludes_chance, standings
from judgegrid.analyses.validity.pairs import pairs_from_labels
from judgegrid.analyses.validity.people import validity_by_judge
from support.frames import scores_frame


@pytest.mark.parametrize("seed", range(6))
def test_mcnemar_exact_matches_statsmodels_and_binomtest(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(40) < 0.8
    b = rng.random(40) < 0.55
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    ours = mcnemar_exact(a, b)
    assert ours == pytest.approx(mcnemar(table, exact=True).pvalue)
    discordant = table[0][1] + table[1][0]
    assert ours == pytest.approx(stats.binomtest(table[0][1], discordant, 0.5).pvalue)


def test_mcnemar_without_discordant_items_is_one():
    same = np.array([True, False, True])
    assert mcnemar_exact(same, same) == 1.0


def test_holm_matches_statsmodels():
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.005])
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])


def test_statistics_match_scipy():
    rng = np.random.default_rng(3)
    values = rng.random((25, 3))
    target = values[:, 0] + rng.normal(0, 0.3, 25)
    rho = spearman_statistic(values, target, np.arange(25)[None])[0]
    for k in range(3):
        assert rho[k] == pytest.approx(stats.spearmanr(values[:, k], target).statistic)
    tau = consensus_tau_statistic(values, None, np.arange(25)[None])[0]
    for k in range(3):
        others = np.delete(values, k, axis=1).mean(axis=1)
        assert tau[k] == pytest.approx(stats.kendalltau(values[:, k], others).statistic)


def test_consensus_tau_on_bootstrap_draws_matches_scipy_on_the_resampled_items():
    """Each draw repeats some items (ties in both ratings) and leaves others out; the tau-b the
    card reads from item counts is scipy's tau-b of the resampled ratings, ties included."""
    rng = np.random.default_rng(11)
    values = rng.integers(0, 5, size=(40, 4)) / 4  # coarse scores: many ties
    draws = bootstrap_draws(40, seed=2, draws=30)
    tau = consensus_tau_statistic(values, None, draws)
    for d, items in enumerate(draws):
        drawn = values[items]
        for k in range(4):
            others = np.delete(drawn, k, axis=1).mean(axis=1)
            expected = stats.kendalltau(drawn[:, k], others).statistic
            assert tau[d, k] == pytest.approx(expected, abs=1e-12), (d, k)


def test_paired_bootstrap_of_a_mean_difference_agrees_with_the_paired_t_interval():
    rng = np.random.default_rng(5)
    base = rng.normal(size=200)
    values = np.column_stack([base + 0.3 + rng.normal(0, 0.5, 200), base])
    result = paired_bootstrap(values, None, mean_statistic, 0, 1, seed=1, draws=4000)
    t_interval = stats.ttest_rel(values[:, 0], values[:, 1]).confidence_interval(0.95)
    assert result.diff == pytest.approx(np.mean(values[:, 0] - values[:, 1]))
    assert result.low == pytest.approx(t_interval.low, abs=0.02)
    assert result.high == pytest.approx(t_interval.high, abs=0.02)
    assert result.p_value < 0.001 and result.lower_one_sided > result.low


# ---------------------------------------------------------------- verdicts


def _pairs_run(accuracy: dict[str, float], n: int = 60, seed: int = 0, failed: str = ""):
    """Judges right on each of n preference pairs with the given probability."""
    rng = np.random.default_rng(seed)
    right: dict[str, list[bool]] = {judge: [] for judge in accuracy}
    for _ in range(n):
        for judge, acc in accuracy.items():
            right[judge].append(bool(rng.random() < acc))
    return _pairs_frame(right, failed)


def _scripted_pairs(right: dict[str, int], n: int):
    """Judges right on exactly their first k of n preference pairs, wrong on the rest."""
    return _pairs_frame({judge: [p < k for p in range(n)] for judge, k in right.items()})


def _pairs_frame(right: dict[str, list[bool]], failed: str = ""):
    """Scores and pairs of judges right (or wrong) on each pair as given; ``failed``'s cell of
    every fourth pair fails."""
    labels, values = {}, {}
    n = len(next(iter(right.values())))
    for p in range(n):
        labels[f"p{p}-g"] = {"pair": f"p{p}", "preferred": 1, "aspect": "faithfulness"}
        labels[f"p{p}-b"] = {"pair": f"p{p}", "preferred": 0, "aspect": "faithfulness"}
        for judge, outcomes in right.items():
            good = None if judge == failed and p % 4 == 0 else (0.9 if outcomes[p] else 0.2)
            values[("faithfulness", judge, "", 0, 0, f"p{p}-g", 0)] = good
            values[("faithfulness", judge, "", 0, 0, f"p{p}-b", 0)] = 0.5
    return scores_frame(values), pairs_from_labels(labels)


def _card(scores, pairs=None, costs=None, margin=None):
    pairs = pairs if pairs is not None else pd.DataFrame()
    for judge, cost in (costs or {}).items():
        scores.loc[scores["judge"] == judge, "cost"] = cost
    sources = CardSources(
        scores=scores, ranking=judge_ranking(scores, pairs), pairs=pairs, margin=margin
    )
    return decision_card(sources, "RUN").set_index("metric").loc["faithfulness"]


def test_a_clearly_better_judge_is_named_with_its_comparison_to_the_runner_up():
    scores, pairs = _pairs_run({"strong": 0.97, "weak": 0.6}, n=80)
    row = _card(scores, pairs)
    assert row["verdict"] == "strong"
    assert "vs runner-up weak" in row["reason"] and ": separated" in row["reason"]


def test_equal_judges_are_a_set_and_the_cheapest_is_taken():
    scores, pairs = _pairs_run({"dear": 0.85, "cheap": 0.85}, n=40, seed=2)
    row = _card(scores, pairs, costs={"dear": 0.01, "cheap": 0.001})
    assert "not separated; take cheap (the cheapest)" in row["verdict"]
    assert "dear" in row["verdict"] and "not separated" in row["reason"]


def test_a_judge_that_does_not_exclude_chance_is_never_taken_from_a_set():
    """The demo's flaw: on 8 pairs the top judge is right on all (95% CI 0.68-1.00, clear of
    chance), the cheapest on 2 (0.25); McNemar on 6 discordant pairs, Holm-corrected over two
    comparisons, does not separate them, and the old rule took the cheapest of the set."""
    scores, pairs = _scripted_pairs({"strong": 8, "other": 4, "cheap": 2}, n=8)
    costs = {"strong": 0.01, "other": 0.001, "cheap": 0.0001}
    row = _card(scores, pairs, costs=costs)
    assert "not separated" in row["reason"]  # the paired test alone would not tell them apart
    assert row["judge"] == "strong" and row["value"] == pytest.approx(1.0)
    assert row["verdict"] == "strong; other and cheap: not separated but not above chance"
    assert "take cheap" not in row["verdict"]
    assert "cheap: accuracy 0.25" in row["reason"] and "does not exclude chance" in row["reason"]


def test_a_set_holds_only_judges_above_chance_and_its_take_is_the_cheapest_of_them():
    scores, pairs = _scripted_pairs({"strong": 12, "mid": 11, "cheap": 7}, n=12)
    costs = {"strong": 0.01, "mid": 0.001, "cheap": 0.0001}
    row = _card(scores, pairs, costs=costs)
    assert row["verdict"] == (
        "strong or mid: not separated; take mid (the cheapest); "
        "cheap: not separated but not above chance"
    )
    # the figure is the take's, and the reason gives the top's and the take's
    assert (row["judge"], row["value"], row["n"]) == ("mid", pytest.approx(11 / 12), 12)
    assert row["top_value"] == pytest.approx(1.0)
    assert (
        row["reason"].startswith("strong: accuracy 1.00")
        and "take mid: accuracy 0.92" in row["reason"]
    )


def test_a_margin_takes_no_judge_that_does_not_exclude_chance():
    scores, pairs = _scripted_pairs({"dear": 8, "cheap": 4}, n=8)
    row = _card(scores, pairs, costs={"dear": 0.01, "cheap": 0.0001}, margin=0.9)
    assert row["judge"] == "dear" and not row["verdict"].startswith("cheap")
    assert (
        "cheap: accuracy 0.50" in row["reason"]
        and "within 0.9 of dear, but does not" in row["reason"]
    )


def test_two_judges_are_never_named_by_agreement_only():
    rng = np.random.default_rng(1)
    truth = rng.random(30)
    values = {
        ("faithfulness", j, "", 0, 0, f"s{i}", 0): float(truth[i] + rng.normal(0, 0.1))
        for j in ("a", "b")
        for i in range(30)
    }
    row = _card(scores_frame(values))
    assert row["verdict"] == "no verdict" and "by agreement only" not in row["verdict"]
    assert "agreement cannot rank fewer than 3 judges" in row["reason"]


def test_a_cheap_judge_within_the_margin_is_named_with_its_one_sided_bound():
    scores, pairs = _pairs_run({"dear": 0.95, "cheap": 0.93}, n=200, seed=4)
    row = _card(scores, pairs, costs={"dear": 0.01, "cheap": 0.001}, margin=0.1)
    assert row["verdict"].startswith("cheap (within 0.1 of dear")
    assert "one-sided 95% bound" in row["reason"] and "> -0.1" in row["reason"]
    strict = _card(*_pairs_run({"dear": 0.95, "cheap": 0.93}, n=200, seed=4), margin=0.001)
    assert not strict["verdict"].startswith("cheap")


def test_failed_cells_count_against_a_judge_and_a_large_share_is_on_the_card():
    scores, pairs = _pairs_run({"flaky": 1.0, "steady": 0.5}, n=80, failed="flaky")
    ranking = judge_ranking(scores, pairs).set_index("judge")
    assert ranking.loc["flaky", "quality"] == pytest.approx(60 / 80)  # 20 failed pairs: wrong
    row = _card(scores, pairs)
    assert row["verdict"] == "flaky" and "12% of flaky's cells failed" in row["reason"]


def test_people_evidence_compares_the_top_judge_with_the_runner_up():
    rng = np.random.default_rng(7)
    truth = rng.random(60)
    values = {}
    for judge, noise in (("close", 0.05), ("far", 0.6)):
        for i in range(60):
            score = float(truth[i] + rng.normal(0, noise))
            values[("faithfulness", judge, "", 0, 0, f"s{i}", 0)] = score
    scores = scores_frame(values)
    labels = pd.DataFrame(
        {"sample_id": [f"s{i}" for i in range(60)], "metric": "faithfulness",
         "annotator": "ann", "value": np.clip(truth, 0, 1)}
    )  # fmt: skip
    sources = CardSources(
        scores=scores,
        ranking=judge_ranking(scores, pd.DataFrame()),
        labels=labels,
        people=validity_by_judge(scores, labels),
    )
    row = decision_card(sources, "RUN").set_index("metric").loc["faithfulness"]
    assert (row["verdict"], row["basis"]) == ("close", "people")
    assert "vs runner-up far" in row["reason"] and "paired bootstrap" in row["reason"]


def test_cheapest_then_fastest_says_which_decided():
    usage = pd.DataFrame(
        {"cost_per_score": [0.0, 0.0, 0.1], "latency_per_score_s": [2.0, 1.0, 0.1]},
        index=["slow", "quick", "dear"],
    )
    assert cheapest_then_fastest(["slow", "quick", "dear"], usage) == (
        "quick",
        "as cheap, and the fastest",
    )
    assert cheapest_then_fastest(["slow", "dear"], usage) == ("slow", "the cheapest")


# ---------------------------------------------------------------- the evidence behind the card


def _evidence(scores, pairs):
    sources = CardSources(scores=scores, ranking=judge_ranking(scores, pairs), pairs=pairs)
    card, evidence = decide_every_metric(sources, "RUN")
    return card.set_index("metric").loc["faithfulness"], evidence


def test_the_evidence_gives_every_judge_its_interval_and_its_difference_from_the_top():
    scores, pairs = _pairs_run({"strong": 0.97, "weak": 0.6, "coin": 0.5}, n=80)
    row, evidence = _evidence(scores, pairs)
    assert row["verdict"] == "strong"
    by_judge = evidence.set_index("judge")
    assert set(by_judge.index) == {"strong", "weak", "coin"}
    assert by_judge.loc["strong", "role"] == "chosen" and np.isnan(by_judge.loc["strong", "diff"])
    assert by_judge.loc["strong", "value"] == pytest.approx(row["value"])
    # each judge's accuracy is its share of pairs right, its interval Wilson's (statsmodels)
    for judge in ("weak", "coin"):
        r = by_judge.loc[judge]
        right = round(r["value"] * r["n"])
        low, high = proportion_confint(right, r["n"], method="wilson")
        assert (r["low"], r["high"]) == (pytest.approx(low), pytest.approx(high))
        assert r["role"] == "measured" and r["p_holm"] < 0.05
        assert r["diff_low"] <= r["diff"] <= r["diff_high"] and r["diff"] > 0


def test_a_set_not_separated_marks_its_members_and_its_pick():
    scores, pairs = _pairs_run({"a": 0.9, "b": 0.88}, n=40, seed=2)
    row, evidence = _evidence(scores, pairs)
    assert "not separated" in row["verdict"]
    roles = dict(zip(evidence["judge"], evidence["role"], strict=True))
    assert sorted(roles.values()) == ["chosen", "set"] and roles[row["judge"]] == "chosen"


def test_a_judge_agreeing_perfectly_with_peoples_labels_beats_chance_though_rho_has_no_interval():
    # rho 1.00 on 25 pass/fail labels has no Fisher-z interval (z is infinite): the exact chance
    # of agreement that perfect (1 / C(25, 12)) decides; on 4 labels (1 / C(4, 2)) it cannot
    labels = np.array([float(k % 2 == 0) for k in range(25)])
    other = np.where(np.arange(25) % 3 == 0, 1 - labels, labels)
    for n, beats in ((25, True), (4, False)):
        evidence = Evidence(
            basis="people",
            measure="rho",
            unit="samples people labelled",
            chance=0.0,
            judges=("a", "b"),
            values=np.column_stack([labels[:n], other[:n]]),
            target=labels[:n],
            statistic=spearman_statistic,
            binary=False,
            interval=rho_interval,
        )
        top = standings(evidence)[0]
        assert top.judge == "a" and top.quality == pytest.approx(1.0) and np.isnan(top.low)
        assert excludes_chance(evidence, top, judges=2) is beats


def test_the_card_says_a_perfect_agreement_has_no_interval_and_was_tested_exactly():
    labels = {f"s{k:02d}": float(k % 2 == 0) for k in range(25)}
    values = {}
    for sid, label in labels.items():
        values[("faithfulness", "a", "", 0, 0, sid, 0)] = label
        flip = int(sid[1:]) % 3 == 0
        values[("faithfulness", "b", "", 0, 0, sid, 0)] = 1 - label if flip else label
    scores = scores_frame(values)
    frame = pd.DataFrame(
        [(sid, "faithfulness", "ann", v) for sid, v in labels.items()],
        columns=["sample_id", "metric", "annotator", "value"],
    )
    people = validity_by_judge(scores, frame)
    sources = CardSources(
        scores=scores, ranking=judge_ranking(scores, pd.DataFrame()), labels=frame, people=people
    )
    row = decision_card(sources, "RUN").set_index("metric").loc["faithfulness"]
    assert row["verdict"] == "a"
    assert (
        "rho 1.00 (perfect agreement: no interval; tested against chance exactly)"
        in (row["reason"])
    )
    assert row["next_step"] == "none needed: agreement this perfect excludes chance"


def test_the_label_command_carries_the_cards_margin():
    """Pasted from a card made with ``report --margin 0.9``, the labelling page asks what the card
    asked: ``label`` reads only the matrix's margin, ``--margin`` gives it the card's."""
    scores, pairs = _scripted_pairs({"dear": 8, "cheap": 4}, n=8)
    under = _card(scores.copy(), pairs, margin=0.9)["next_step"]
    plain = _card(scores.copy(), pairs)["next_step"]
    assert "judgegrid label RUN --metric faithfulness --n " in under
    assert under.endswith(" --margin 0.9") and "--margin" not in plain
