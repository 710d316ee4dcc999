"""The analysis tables on scores tables: stability, agreement, variance, strictness, validity."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pingouin as pg
import pytest

from judgegrid.analyses.agreement import agreement_pairs, agreement_summary, rater_offsets
from judgegrid.analyses.decision import CardSources, card_markdown, decision_card
from judgegrid.analyses.icc import icc
from judgegrid.analyses.recommendation import judge_ranking
from judgegrid.analyses.stability import stability
from judgegrid.analyses.strictness import strictness_tradeoff
from judgegrid.analyses.validity import (
    pair_accuracy,
    pairs_from_contrasts,
    pairs_from_labels,
)
from judgegrid.analyses.variance import (
    RESIDUAL,
    decision_study,
    needed_for_target,
    variance_components,
)
from support.frames import scores_frame, simulated


def test_stability_sd_flips_and_icc1_over_repeats():
    values = {}
    for i in range(6):
        values[("faithfulness", "steady", "", 0, 0, f"s{i}", 0)] = i / 5
        values[("faithfulness", "steady", "", 0, 0, f"s{i}", 1)] = i / 5
        # 'shaky' straddles 0.5 on samples 0..2 only
        values[("faithfulness", "shaky", "", 0, 0, f"s{i}", 0)] = 0.4 if i < 3 else 0.9
        values[("faithfulness", "shaky", "", 0, 0, f"s{i}", 1)] = 0.6 if i < 3 else 0.8
    values[("faithfulness", "shaky", "", 0, 0, "s5", 1)] = None  # a failed repeat
    table = stability(scores_frame(values)).set_index("judge")
    assert table.loc["steady", "mean_run_sd"] == 0
    assert table.loc["steady", "flip_share"] == 0
    assert table.loc["steady", "icc1"] == pytest.approx(1.0)
    assert table.loc["shaky", "flip_samples"] == 5  # s5 has one scored repeat: no flip verdict
    assert table.loc["shaky", "flip_share"] == pytest.approx(3 / 5)
    assert table.loc["shaky", "icc1_samples"] == 5  # listwise
    assert "listwise" in table.loc["shaky", "missing"]


def test_stability_icc1_matches_pingouin_and_needs_two_repeats():
    frame = simulated(seed=1, judges=("a",), repeats=3)
    row = stability(frame).iloc[0]
    wide = frame.pivot(index="sample_id", columns="repeat", values="score").to_numpy()
    long = pd.DataFrame(
        {
            "t": np.repeat(np.arange(len(wide)), 3),
            "r": np.tile(np.arange(3), len(wide)),
            "s": wide.ravel(),
        }
    )
    oracle = pg.intraclass_corr(long, "t", "r", "s").set_index("Type").loc["ICC(1,1)", "ICC"]
    assert row["icc1"] == pytest.approx(oracle)
    single = stability(simulated(seed=1, judges=("a",), repeats=1)).iloc[0]
    assert np.isnan(single["icc1"]) and "repeats" in single["note"]


def test_agreement_between_judges_matches_oracles_on_judge_means():
    frame = simulated(seed=2, samples=25)
    frame.loc[frame.index[:4], "status"] = "failed"  # some failed cells
    frame.loc[frame.index[:4], "score"] = np.nan
    row = agreement_summary(frame).iloc[0]
    means = (
        frame[frame["status"] == "scored"].groupby(["sample_id", "judge"])["score"].mean().unstack()
    )
    alpha = krippendorff.alpha(reliability_data=means.to_numpy().T, level_of_measurement="interval")
    assert row["alpha"] == pytest.approx(alpha)
    assert row["icc2"] == pytest.approx(icc(means.to_numpy())["icc2"])
    assert row["raters"] == 3 and row["samples"] == 25
    assert "pairwise" not in row["icc_missing"] and "listwise" in row["icc_missing"]
    pairs = agreement_pairs(frame)
    assert len(pairs) == 6  # 3 judges, both orders
    ab = pairs[(pairs["rater_a"] == "a") & (pairs["rater_b"] == "b")].iloc[0]
    ba = pairs[(pairs["rater_a"] == "b") & (pairs["rater_b"] == "a")].iloc[0]
    assert ab["tau_b"] == pytest.approx(ba["tau_b"]) and ab["mad"] == pytest.approx(ba["mad"])


def test_offsets_find_the_lenient_judge():
    values = {}
    for i in range(10):
        base = i / 10
        values[("faithfulness", "a", "", 0, 0, f"s{i}", 0)] = base
        values[("faithfulness", "b", "", 0, 0, f"s{i}", 0)] = base
        values[("faithfulness", "lenient", "", 0, 0, f"s{i}", 0)] = base + 0.1
    offsets = rater_offsets(scores_frame(values)).set_index("rater")
    assert offsets.loc["lenient", "offset"] == pytest.approx(0.1)
    assert offsets.loc["a", "offset"] == pytest.approx(-0.05)
    assert offsets.loc["a", "consensus_tau_b"] == pytest.approx(1.0)


def test_agreement_with_one_judge_or_one_sample_is_nan_with_reason():
    one_judge = agreement_summary(simulated(judges=("a",)))
    assert np.isnan(one_judge.iloc[0]["icc2"]) and "raters" in one_judge.iloc[0]["note"]
    one_sample = agreement_summary(simulated(samples=1))
    assert np.isnan(one_sample.iloc[0]["icc2"]) and "samples" in one_sample.iloc[0]["note"]


def test_agreement_between_embedding_configurations():
    values = {}
    for i, d in itertools.product(range(8), (64, 16)):
        values[("response_relevancy", "a", "bow", d, 1, f"s{i}", 0)] = i / 8 + d / 1000
    summary = agreement_summary(scores_frame(values), rater="embedding")
    assert list(summary["judge"]) == ["a"] and summary.iloc[0]["raters"] == 2
    assert summary.iloc[0]["mean_tau_b"] == pytest.approx(1.0)


def test_variance_components_recover_the_simulation_and_match_icc():
    frame = simulated(
        seed=5,
        samples=200,
        judges=tuple("abcdef"),
        repeats=4,
        sd_sample=0.3,
        sd_judge=0.2,
        sd_judge_sample=0.1,
        sd_residual=0.05,
    )
    comps = variance_components(frame).set_index("component")["raw"]
    assert comps["sample"] == pytest.approx(0.09, rel=0.25)
    assert comps["judge x sample"] == pytest.approx(0.01, rel=0.25)
    assert comps[RESIDUAL] == pytest.approx(0.0025, rel=0.1)
    assert comps["judge"] > 0.005
    # With one repeat, sigma2_s / (sigma2_s + sigma2_j + sigma2_e) is ICC(2,1) exactly.
    one = simulated(seed=6, samples=15, judges=("a", "b", "c"), repeats=1)
    c = variance_components(one).set_index("component")["raw"]
    table = one.pivot(index="sample_id", columns="judge", values="score").to_numpy()
    assert c["sample"] / (c["sample"] + c["judge"] + c[RESIDUAL]) == pytest.approx(
        icc(table)["icc2"]
    )


def test_decision_study_follows_spearman_brown_for_repeats():
    frame = simulated(seed=7, samples=40, judges=("a",), repeats=3, sd_residual=0.2)
    comps = variance_components(frame)
    study = decision_study(comps)
    rho1 = study[(study["judges"] == 1) & (study["repeats"] == 1)]["reliability"].iloc[0]
    rho5 = study[(study["judges"] == 1) & (study["repeats"] == 5)]["reliability"].iloc[0]
    assert rho5 == pytest.approx(5 * rho1 / (1 + 4 * rho1))
    needed = needed_for_target(study).iloc[0]
    assert needed["reliability_1_judge_1_repeat"] == pytest.approx(rho1)


def test_variance_listwise_drops_incomplete_samples_and_handles_embeddings():
    frame = simulated(seed=8, samples=10, dims=(64, 16), metric="response_relevancy")
    frame.loc[frame.index[0], ["status", "score"]] = ["failed", np.nan]
    comps = variance_components(frame)
    assert set(comps["samples"]) == {9}
    assert "dimension" in set(comps["component"])
    assert "listwise" in comps["missing"].iloc[0]


def test_variance_one_sample_is_nan_with_reason():
    comps = variance_components(simulated(samples=1))
    assert comps["variance"].isna().all() and "fewer than two samples" in comps["note"].iloc[0]


def test_strictness_tradeoff_per_judge_and_strictness():
    values = {}
    for s, i, r in itertools.product((1, 3), range(5), range(2)):
        values[("response_relevancy", "a", "bow", 64, s, f"s{i}", r)] = 0.5 + (r - 0.5) / (s * 5)
    table = strictness_tradeoff(scores_frame(values)).set_index("strictness")
    assert table.loc[3, "mean_run_sd"] < table.loc[1, "mean_run_sd"]
    assert table.loc[3, "calls_per_score"] == 5 and table.loc[1, "calls_per_score"] == 3
    assert table.loc[3, "cost_per_score"] == pytest.approx(0.004)


def test_pair_accuracy_counts_ties_as_disagreement_and_reports_unscored_pairs():
    labels = {
        "p1-good": {"pair": "p1", "preferred": 1, "aspect": "faithfulness"},
        "p1-bad": {"pair": "p1", "preferred": 0, "aspect": "faithfulness"},
        "p2-good": {"pair": "p2", "preferred": 1, "aspect": "faithfulness"},
        "p2-bad": {"pair": "p2", "preferred": 0, "aspect": "faithfulness"},
        "p3-good": {"pair": "p3", "preferred": 1, "aspect": "faithfulness"},
        "p3-bad": {"pair": "p3", "preferred": 0, "aspect": "faithfulness"},
        "p4-good": {"pair": "p4", "preferred": 1, "aspect": "context_relevance"},
        "p4-bad": {"pair": "p4", "preferred": 0, "aspect": "context_relevance"},
    }
    pairs = pairs_from_labels(labels)
    assert set(pairs["metric"]) == {"faithfulness"}  # nothing forced onto context relevance
    values = {
        ("faithfulness", "j", "", 0, 0, "p1-good", 0): 0.9,
        ("faithfulness", "j", "", 0, 0, "p1-bad", 0): 0.2,
        ("faithfulness", "j", "", 0, 0, "p2-good", 0): 0.5,
        ("faithfulness", "j", "", 0, 0, "p2-bad", 0): 0.5,  # tie
        ("faithfulness", "j", "", 0, 0, "p3-good", 0): None,  # failed: pair unscored
        ("faithfulness", "j", "", 0, 0, "p3-bad", 0): 0.1,
    }
    row = pair_accuracy(scores_frame(values), pairs).iloc[0]
    assert (row["pairs"], row["agree"], row["ties"], row["pairs_unscored"]) == (2, 1, 1, 1)
    assert row["accuracy"] == pytest.approx(1 / 3) and row["n"] == 3  # unscored: wrong
    assert row["ci_low"] < 0.5 < row["ci_high"]


def test_contrast_pairs_and_lower_is_better():
    contrasts = {
        "x1": {"group": "g", "metric": "m", "rank": 1, "kind": "good"},
        "x2": {"group": "g", "metric": "m", "rank": 2, "kind": "worse"},
        "x3": {"group": "g", "metric": "m", "rank": 3, "kind": "worst"},
    }
    pairs = pairs_from_contrasts(contrasts)
    assert len(pairs) == 3
    values = {("m", "j", "", 0, 0, s, 0): v for s, v in (("x1", 0.1), ("x2", 0.5), ("x3", 0.9))}
    higher = pair_accuracy(scores_frame(values), pairs).iloc[0]
    lower = pair_accuracy(scores_frame(values), pairs, frozenset({"m"})).iloc[0]
    assert higher["accuracy"] == 0 and lower["accuracy"] == 1


def test_ranking_and_paragraph_without_labels_use_consensus():
    frame = simulated(seed=9, samples=20, judges=("good", "also", "noisy"))
    noisy = frame["judge"] == "noisy"
    frame.loc[noisy, "score"] = np.random.default_rng(0).random(noisy.sum())
    frame.loc[frame["judge"] == "good", "cost"] = 0.01
    ranking = judge_ranking(frame, pd.DataFrame())
    assert ranking.iloc[-1]["judge"] == "noisy"
    assert ranking["basis"].str.contains("consensus").all()
    row = card_of(frame).loc["faithfulness"]
    assert row["basis"] == "other judges" and "(by agreement only)" in row["verdict"]
    assert "noisy" not in row["verdict"].split(":")[0]
    assert "vs runner-up" in row["reason"] and "paired bootstrap" in row["reason"]
    assert "95% CI" in row["reason"] and "judgegrid label RUN" in row["next_step"]
    assert "ranks first" in row["detail"] and "not validity" in row["detail"]


def test_ranking_with_pairs_uses_validity():
    labels, values = {}, {}
    for p in range(12):
        labels[f"p{p}-g"] = {"pair": f"p{p}", "preferred": 1, "aspect": "faithfulness"}
        labels[f"p{p}-b"] = {"pair": f"p{p}", "preferred": 0, "aspect": "faithfulness"}
        values[("faithfulness", "right", "", 0, 0, f"p{p}-g", 0)] = 0.9
        values[("faithfulness", "right", "", 0, 0, f"p{p}-b", 0)] = 0.1
        values[("faithfulness", "wrong", "", 0, 0, f"p{p}-g", 0)] = 0.1 if p % 3 else 0.9
        values[("faithfulness", "wrong", "", 0, 0, f"p{p}-b", 0)] = 0.5
    ranking = judge_ranking(scores_frame(values), pairs_from_labels(labels)).set_index("judge")
    assert ranking.loc["right", "quality"] == 1 and ranking.loc["right", "rank"] == 1
    assert ranking.loc["wrong", "quality"] == pytest.approx(4 / 12)
    assert ranking.loc["right", "pareto"]
    row = card_of(scores_frame(values), pairs_from_labels(labels)).loc["faithfulness"]
    assert (row["verdict"], row["basis"]) == ("right", "preference pairs")
    assert "12 pairs" in row["reason"] and "right ranks first" in row["detail"]
    assert "vs runner-up wrong" in row["reason"] and "exact McNemar" in row["reason"]


def test_empty_tables_do_not_crash():
    empty = scores_frame({})
    empty = pd.DataFrame(columns=simulated(samples=1).columns)
    assert stability(empty).empty and agreement_summary(empty).empty
    assert variance_components(empty).empty and strictness_tradeoff(empty).empty
    card = card_of(empty)
    assert card.empty and "no decision to make" in card_markdown(card.reset_index())


def test_a_configuration_whose_cells_all_failed_shows_its_pairs_as_unscored():
    labels = {
        "p1-g": {"pair": "p1", "preferred": 1, "aspect": "faithfulness"},
        "p1-b": {"pair": "p1", "preferred": 0, "aspect": "faithfulness"},
    }
    values = {
        ("faithfulness", "broken", "", 0, 0, "p1-g", 0): None,
        ("faithfulness", "broken", "", 0, 0, "p1-b", 0): None,
    }
    row = pair_accuracy(scores_frame(values), pairs_from_labels(labels)).iloc[0]
    assert (row["judge"], row["pairs"], row["pairs_unscored"]) == ("broken", 0, 1)
    assert row["accuracy"] == 0  # an unscored pair counts against the judge, like a tie


def test_label_correlations_are_spearman_on_samples_with_both():
    from scipy import stats

    from judgegrid.analyses.validity import label_correlations

    rng = np.random.default_rng(12)
    truth = rng.random(12)
    values = {
        ("faithfulness", "j", "", 0, 0, f"s{i}", 0): float(truth[i] + rng.normal(0, 0.2))
        for i in range(12)
    }
    values[("faithfulness", "j", "", 0, 0, "s0", 0)] = None  # failed: left out
    labels = {f"s{i}": {"faithfulness": float(truth[i])} for i in range(11)}  # s11: no label
    row = label_correlations(scores_frame(values), labels).iloc[0]
    keep = list(range(1, 11))
    ratings = [values[("faithfulness", "j", "", 0, 0, f"s{i}", 0)] for i in keep]
    assert row["n"] == 10
    assert row["spearman"] == pytest.approx(stats.spearmanr(ratings, truth[keep]).statistic)
    assert row["ci_low"] < row["spearman"] < row["ci_high"]
    assert "pairwise-complete" in row["missing"]


def test_no_judge_is_recommended_when_chance_is_not_excluded():
    labels = {
        "p1-g": {"pair": "p1", "preferred": 1, "aspect": "faithfulness"},
        "p1-b": {"pair": "p1", "preferred": 0, "aspect": "faithfulness"},
    }
    values = {
        ("faithfulness", "weak", "", 0, 0, "p1-g", 0): 0.2,
        ("faithfulness", "weak", "", 0, 0, "p1-b", 0): 0.9,
        ("faithfulness", "broken", "", 0, 0, "p1-g", 0): None,
        ("faithfulness", "broken", "", 0, 0, "p1-b", 0): None,
    }
    row = card_of(scores_frame(values), pairs_from_labels(labels)).loc["faithfulness"]
    assert row["verdict"] == "no verdict" and "does not exclude chance" in row["reason"]
    assert "ranks first" not in row["detail"] and "support no judge yet" in row["detail"]


def card_of(scores: pd.DataFrame, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """The decision card from the scores (and pairs), without people's labels."""
    pairs = pairs if pairs is not None else pd.DataFrame()
    sources = CardSources(scores=scores, ranking=judge_ranking(scores, pairs), pairs=pairs)
    return decision_card(sources, "RUN").set_index("metric")
