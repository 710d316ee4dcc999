"""Validity against human labels: oracles where a library exists (scipy for Spearman, Kendall and
the t distribution; scikit-learn for Cohen's kappa; the krippendorff package for alpha), and
hand-worked tables for the Alternative Annotator Test (Calderon, Reichart & Dror 2025) and the
Benjamini-Yekutieli correction, plus the simulation the issue asks for."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score

from judgegrid.analyses.validity.people import (
    _by_correction,
    aat_instances,
    alternative_annotator_test,
    human_agreement,
    labels_needed,
    validity_against_people,
    validity_by_judge,
)
from judgegrid.core.scales import Scale, Scales

Z_SUM = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 2.8016


def score_rows(
    judge: str,
    values: dict[str, float | None],
    metric: str = "faithfulness",
    repeat: int = 0,
    strictness: int = 0,
) -> list[dict]:
    """One repeat of a judge's cells; None is a failed cell."""
    return [
        {
            "metric": metric,
            "judge": judge,
            "embedding": "",
            "dimension": 0,
            "strictness": strictness,
            "sample_id": sid,
            "repeat": repeat,
            "score": value,
            "status": "failed" if value is None else "scored",
        }
        for sid, value in values.items()
    ]


def label_rows(table: dict[str, dict[str, float]], metric: str = "faithfulness") -> pd.DataFrame:
    """{annotator: {sample: value}} as a labels table."""
    return pd.DataFrame(
        [
            {"sample_id": sid, "metric": metric, "annotator": who, "value": value}
            for who, values in table.items()
            for sid, value in values.items()
        ]
    )


# ---------------------------------------------------------------- validity vs oracles


def random_run(seed: int, n: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two judges x two strictness levels, two repeats with some failed cells; three
    annotators who each skip some samples."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    ids = [f"s{i}" for i in range(n)]
    rows = []
    for judge, noise in (("good", 0.1), ("poor", 0.4)):
        for strictness in (1, 2):
            for repeat in range(2):
                values = np.clip(truth + rng.normal(0, noise, n), 0, 1).round(2)
                failed = rng.random(n) < 0.1
                rows += score_rows(
                    judge,
                    {
                        s: (None if f else float(v))
                        for s, v, f in zip(ids, values, failed, strict=True)
                    },
                    repeat=repeat,
                    strictness=strictness,
                )
    labels = {
        who: {
            s: float(np.clip(t + rng.normal(0, 0.15), 0, 1).round(2))
            for s, t in zip(ids, truth, strict=True)
            if rng.random() > 0.3
        }
        for who in ("ann1", "ann2", "ann3")
    }
    return pd.DataFrame(rows), label_rows(labels)


def oracle_pairs(scores: pd.DataFrame, labels: pd.DataFrame, keys: list[str]) -> dict:
    """Per configuration: (ratings, mean labels) on samples with both, computed plainly."""
    ok = scores[scores["status"] == "scored"]
    rating = ok.groupby([*keys, "sample_id"])["score"].mean().rename("rating").reset_index()
    label = labels.groupby("sample_id")["value"].mean().rename("label").reset_index()
    both = rating.merge(label, on="sample_id")
    return {
        key: (block["rating"].to_numpy(), block["label"].to_numpy())
        for key, block in both.groupby(keys)
    }


def never_scored(scores: pd.DataFrame, labels: pd.DataFrame, key: tuple) -> np.ndarray:
    """Mean labels of the labelled samples a (judge, strictness) attempted and never scored."""
    mine = scores[(scores["judge"] == key[0]) & (scores["strictness"] == key[1])]
    mine = mine[mine["status"] != "skipped"]
    ok = set(mine.loc[mine["status"] == "scored", "sample_id"])
    lost = sorted(set(mine["sample_id"]) - ok)
    label = labels.groupby("sample_id")["value"].mean()
    return label.reindex([s for s in lost if s in label.index]).to_numpy(float)


@pytest.mark.parametrize("seed", range(4))
def test_validity_matches_scipy_and_scikit_learn(seed):
    scores, labels = random_run(seed)
    table = validity_against_people(scores, labels, Scales({"faithfulness": Scale(0.4)}))
    oracle = oracle_pairs(scores, labels, ["judge", "strictness"])
    assert len(table) == len(oracle) == 4
    for row in table.itertuples():
        x, y = oracle[(row.judge, row.strictness)]
        assert row.n == len(x)
        assert row.spearman == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
        assert row.tau_b == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)
        assert row.spearman_low < row.spearman < row.spearman_high
        assert row.tau_b_low < row.tau_b < row.tau_b_high
        assert row.threshold == 0.4
        # a labelled sample this configuration only failed on counts as a wrong call
        failed = never_scored(scores, labels, (row.judge, row.strictness))
        truth = np.concatenate([y >= 0.4, failed >= 0.4])
        called = np.concatenate([x >= 0.4, failed < 0.4])
        assert row.accuracy == pytest.approx(accuracy_score(truth, called))
        assert row.kappa == pytest.approx(cohen_kappa_score(x >= 0.4, y >= 0.4), abs=1e-12)
        assert row.accuracy_low <= row.accuracy <= row.accuracy_high


def test_a_labelled_sample_a_judge_only_failed_on_counts_against_its_accuracy():
    scores = pd.DataFrame(
        score_rows("steady", {"a": 0.9, "b": 0.1, "c": 0.9, "d": 0.1})
        + score_rows("flaky", {"a": 0.9, "b": 0.1, "c": None, "d": None})
    )
    labels = label_rows({"ann": {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0}})
    table = validity_against_people(scores, labels, Scales(default=Scale(0.5))).set_index("judge")
    assert table.loc["steady", "accuracy"] == 1.0 and table.loc["steady", "n"] == 4
    # two right of four attempted: the two failed samples are wrong calls, not left out
    assert table.loc["flaky", "accuracy"] == 0.5 and table.loc["flaky", "n"] == 2


def test_validity_by_judge_pools_configurations_like_a_plain_mean():
    scores, labels = random_run(9)
    table = validity_by_judge(scores, labels).set_index("judge")
    assert "strictness" not in table.columns and "embedding" not in table.columns
    for judge, (x, y) in oracle_pairs(scores, labels, ["judge"]).items():
        assert table.loc[judge, "n"] == len(x)
        assert table.loc[judge, "spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
        assert table.loc[judge, "kappa"] == pytest.approx(cohen_kappa_score(x >= 0.5, y >= 0.5))
    assert table.loc["good", "spearman"] > table.loc["poor", "spearman"]


def test_unlabelled_samples_and_failed_cells_are_left_out():
    scores = pd.DataFrame(
        score_rows("j", {"a": 0.1, "b": 0.5, "c": None, "d": 0.9, "e": 0.3, "f": 0.7})
        + score_rows("j", {"a": 0.3, "b": None, "c": None, "d": 0.9, "e": 0.3, "f": 0.7}, repeat=1)
        + score_rows("dead", {s: None for s in "abcdef"})
    )
    labels = label_rows(
        {
            "x": {"a": 0.0, "b": 0.6, "c": 0.5, "d": 1.0, "e": np.nan},  # e: no value, dropped
            "y": {"a": 0.4, "b": 0.6, "d": 0.8},
        }
    )
    table = validity_against_people(scores, labels).set_index("judge")
    # c: both repeats failed (no rating); e: its one label has no value; f: never labelled.
    # a: rating mean(0.1, 0.3) = 0.2, label mean(0, 0.4) = 0.2; b: only the scored repeat, 0.5.
    assert table.loc["j", "n"] == 3
    x, y = np.array([0.2, 0.5, 0.9]), np.array([0.2, 0.6, 0.9])
    assert table.loc["j", "spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
    # a configuration whose every cell failed keeps its row, with nothing to measure
    assert table.loc["dead", "n"] == 0 and np.isnan(table.loc["dead", "spearman"])
    assert "fewer than" in table.loc["dead", "note"]


def test_a_relabel_is_averaged_and_bad_labels_are_refused():
    labels = label_rows({"x": {"a": 0.2}, "y": {"a": 0.6}})
    labels = pd.concat([labels, label_rows({"x": {"a": 0.4}})])  # x labelled a twice
    agreement = human_agreement(labels).iloc[0]
    assert agreement["annotators"] == 2 and agreement["labels"] == 2  # not three people
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        validity_against_people(
            pd.DataFrame(score_rows("j", {"a": 0.5})), label_rows({"x": {"a": 4}})
        )
    with pytest.raises(ValueError, match="annotator"):
        human_agreement(labels.drop(columns="annotator"))


# ---------------------------------------------------------------- the humans' own agreement


@pytest.mark.parametrize("seed", range(4))
def test_human_agreement_matches_krippendorff(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    truth = rng.random(n)
    table = {
        f"h{k}": {
            f"s{i}": float(np.clip(truth[i] + rng.normal(0, 0.2), 0, 1))
            for i in range(n)
            if rng.random() > 0.3
        }
        for k in range(4)
    }
    labels = label_rows(table)
    row = human_agreement(labels).iloc[0]
    wide = labels.pivot(index="annotator", columns="sample_id", values="value")
    oracle = krippendorff.alpha(
        reliability_data=wide.to_numpy(float), level_of_measurement="interval"
    )
    assert row["alpha"] == pytest.approx(oracle, abs=1e-9)
    assert row["samples_multi"] == int((wide.notna().sum(axis=0) >= 2).sum())
    assert row["annotators"] == 4


# ---------------------------------------------------------------- the alternative annotator test

# Hand-worked table: three annotators a, b, c and judge J on four instances.
#          a     b     c     J
#   s1   0.0   0.0   1.0   0.0
#   s2   1.0   0.5   0.5   0.5
#   s3   0.5   0.5   0.5   1.0
#   s4   1.0   1.0   0.0   1.0
# plus s5, labelled by a only (fewer than two labels: not an instance), and s6, labelled by all
# three but whose judge cells failed (no rating: not an instance).
# Alignment = -RMSE against the remaining annotators; a tie is a win for both (paper's rule).
# Leave out a (others b, c):
#   s1 J: -sqrt((0+1)/2) = -.707, a: -.707 -> tie          W^f=1 W^h=1
#   s2 J: -sqrt((0+0)/2) = 0,     a: -.5                    W^f=1 W^h=0
#   s3 J: -.5,                    a: 0                      W^f=0 W^h=1
#   s4 J: -sqrt((0+1)/2),         a: same -> tie            W^f=1 W^h=1
#   rho^f_a = 3/4, rho^h_a = 3/4, d = W^h - W^f = [0, -1, 1, 0]
# Leave out b (others a, c):
#   s1 J = b = 0 -> tie; s2 J = b = .5 -> tie; s3 J: -.5, b: 0 -> b; s4 J = b = 1 -> tie
#   rho^f_b = 3/4, rho^h_b = 1, d = [0, 0, 1, 0]
# Leave out c (others a, b):
#   s1 J: 0, c: -1 -> J; s2 J: -sqrt(.25/2) = c: -sqrt(.25/2) -> tie; s3 J: -.5, c: 0 -> c;
#   s4 J: 0, c: -1 -> J
#   rho^f_c = 3/4, rho^h_c = 1/2, d = [-1, 0, 1, -1]
# rho (average advantage probability) = 3/4.
# t = (mean(d) - eps) / (sd(d) / 2), ddof 1, 3 degrees of freedom; with eps = 0.5:
#   a: (0 - .5) / (sqrt(2/3)/2) = -1.2247    b: (.25 - .5) / (.5/2) = -1.0
#   c: (-.25 - .5) / (sqrt(2.75/3)/2) = -1.5667
HAND_LABELS = {
    "a": {"s1": 0.0, "s2": 1.0, "s3": 0.5, "s4": 1.0, "s5": 0.3, "s6": 0.5},
    "b": {"s1": 0.0, "s2": 0.5, "s3": 0.5, "s4": 1.0, "s6": 0.5},
    "c": {"s1": 1.0, "s2": 0.5, "s3": 0.5, "s4": 0.0, "s6": 0.5},
}
HAND_JUDGE = {"s1": 0.0, "s2": 0.5, "s3": 1.0, "s4": 1.0, "s5": 0.3, "s6": None}


def hand_run() -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.DataFrame(score_rows("J", HAND_JUDGE)), label_rows(HAND_LABELS)


def test_aat_instances_follow_the_hand_worked_table():
    instances = aat_instances(*hand_run()).set_index(["annotator", "sample_id"])
    assert sorted(instances.index.get_level_values("sample_id").unique()) == [
        "s1",
        "s2",
        "s3",
        "s4",
    ]
    half = np.sqrt(0.5)
    assert instances.loc[("a", "s1"), "judge_alignment"] == pytest.approx(-half)
    assert instances.loc[("a", "s2"), "annotator_alignment"] == pytest.approx(-0.5)
    assert instances.loc[("c", "s2"), "judge_alignment"] == pytest.approx(-np.sqrt(0.125))
    wins = {
        "a": ([1, 1, 0, 1], [1, 0, 1, 1]),
        "b": ([1, 1, 0, 1], [1, 1, 1, 1]),
        "c": ([1, 1, 0, 1], [0, 1, 1, 0]),
    }
    for who, (judge, human) in wins.items():
        block = instances.loc[who].sort_index()
        assert block["judge_wins"].astype(int).tolist() == judge, who
        assert block["annotator_wins"].astype(int).tolist() == human, who
        assert (block["others"] == 2).all()


def test_aat_follows_the_hand_worked_table():
    summary, per = alternative_annotator_test(*hand_run(), epsilon=0.5, min_instances=4)
    per = per.set_index("annotator")
    assert per["rho_f"].tolist() == [0.75, 0.75, 0.75]
    assert per["rho_h"].tolist() == [0.75, 1.0, 0.5]
    assert per["mean_diff"].tolist() == [0.0, 0.25, -0.25]
    t = {"a": -0.5 / (np.sqrt(2 / 3) / 2), "b": -1.0, "c": -0.75 / (np.sqrt(2.75 / 3) / 2)}
    for who, value in t.items():
        assert per.loc[who, "t"] == pytest.approx(value)
        assert per.loc[who, "p_value"] == pytest.approx(stats.t.cdf(value, df=3))
    # p = .154, .196, .108: none survives BY at q = .05, so omega = 0 and the judge fails
    row = summary.iloc[0]
    assert row["winning_rate"] == 0 and not row["passed"]
    assert row["advantage_probability"] == pytest.approx(0.75)
    assert row["annotators"] == 3 and row["instances"] == 4
    # BY by hand at m = 3, H_3 = 11/6: adjusted p_(k) = min_{l>=k} p_(l) * 3 * H_3 / l; the
    # largest, .196 * 5.5 / 3 = .358, is the smallest from every rank, so all three are .358
    # and a lenient q = 0.4 rejects all three: omega = 1.
    lenient, per_lenient = alternative_annotator_test(
        *hand_run(), epsilon=0.5, q=0.4, min_instances=4
    )
    assert per_lenient["p_by"].to_numpy() == pytest.approx([stats.t.cdf(-1.0, df=3) * 5.5 / 3] * 3)
    assert lenient.iloc[0]["winning_rate"] == 1 and bool(lenient.iloc[0]["passed"])


def test_aat_needs_enough_instances_and_annotators():
    summary, per = alternative_annotator_test(*hand_run())  # default min_instances = 30
    assert not per["tested"].any() and per["note"].str.contains("4 instances < 30").all()
    row = summary.iloc[0]
    assert np.isnan(row["winning_rate"]) and pd.isna(row["passed"])
    assert "0 annotator(s)" in row["note"]
    two = label_rows({k: v for k, v in HAND_LABELS.items() if k != "c"})
    summary, _ = alternative_annotator_test(hand_run()[0], two, min_instances=4)
    assert pd.isna(summary.iloc[0]["passed"]) and "2 annotator(s)" in summary.iloc[0]["note"]


def test_by_correction_matches_a_hand_computed_example():
    # m = 5, H_5 = 137/60; adjusted p_(k) = min_{l>=k} p_(l) * m * H_5 / l:
    #   .01*5H/1 = .02*5H/2 = .03*5H/3 = .04*5H/4 = .05H = .11417;  .2*5H/5 = .2H = .45667
    # Step-up form (the reference's by_procedure): thresholds k/m * q/H_5 at q = .12 are
    # .0105, .0210, .0315, .0420, .0526 -> the four smallest p pass, .2 does not.
    block = pd.DataFrame({"p_value": [0.03, 0.2, 0.01, 0.04, 0.02], "tested": True})
    h5 = 137 / 60
    out = _by_correction(block, q=0.12)
    assert out["p_by"].to_numpy() == pytest.approx([0.05 * h5, 0.2 * h5] + [0.05 * h5] * 3)
    assert out["rejected"].tolist() == [True, False, True, True, True]
    assert not _by_correction(block, q=0.05)["rejected"].any()


# ---------------------------------------------------------------- the simulation


def simulated_run(seed: int, n: int = 60, noise: float = 0.1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judge A scores a sample's true quality (two repeats, +-0.01 around it); judge B scores
    noise unrelated to it. Annotators h1 and h2 label A's score plus N(0, noise) (clipped to
    [0, 1]); h3 labels uniformly at random."""
    rng = np.random.default_rng(seed)
    quality, unrelated = rng.random(n), rng.random(n)
    ids = [f"s{i}" for i in range(n)]
    rows = []
    for judge, values in (("A", quality), ("B", unrelated)):
        for repeat, shift in ((0, -0.01), (1, 0.01)):
            rows += score_rows(
                judge, dict(zip(ids, (values + shift).tolist(), strict=True)), repeat=repeat
            )
    labels = {
        "h1": np.clip(quality + rng.normal(0, noise, n), 0, 1),
        "h2": np.clip(quality + rng.normal(0, noise, n), 0, 1),
        "h3": rng.random(n),
    }
    return pd.DataFrame(rows), label_rows(
        {who: dict(zip(ids, values.tolist(), strict=True)) for who, values in labels.items()}
    )


def test_aat_passes_the_judge_people_agree_with_and_fails_the_unrelated_one():
    # Expected values (60 instances, eps = 0.2, q = 0.05):
    # - Left-out h3 (random): the others h1, h2 sit within ~0.1 of A, h3 ~0.33 away on
    #   average, so A wins most instances (rho^f_h3 ~0.8-0.95) and the null is rejected.
    # - Left-out h1: the others are h2 (close to A and to h1) and h3 (random, which dominates
    #   the RMSE), so A and h1 each win about half (rho^f ~0.55): mean(d) ~ -0.1, t ~ -2.3, p
    #   ~ .01, rejected after BY in most draws. Likewise h2.
    # So omega is 2/3 or 1 and rho = mean(rho^f) ~ (0.55 + 0.55 + 0.9)/3 ~ 0.67. 200 seeds
    # gave rho_A in [0.60, 0.77] (1st-99th percentile) and A passing in 90% of them.
    # - B (unrelated): against h1/h2 left out the annotator, close to the remaining h2/h1,
    #   wins most instances (mean(d) > 0: no rejection); against h3 left out, B and h3 are
    #   both random (rho^f ~0.5, mean(d) ~ 0, p ~ .06 before BY): omega = 0 in ~99% of seeds,
    #   rho_B ~0.41 (1st-99th percentile [0.30, 0.52]).
    summary, per = alternative_annotator_test(*simulated_run(seed=1))
    summary = summary.set_index("judge")
    per = per.set_index(["judge", "annotator"])
    assert summary.loc["A", "winning_rate"] >= 2 / 3 and bool(summary.loc["A", "passed"])
    assert 0.58 <= summary.loc["A", "advantage_probability"] <= 0.78
    assert per.loc[("A", "h3"), "rho_f"] >= 0.75 and per.loc[("A", "h3"), "rejected"]
    assert summary.loc["B", "winning_rate"] == 0 and not bool(summary.loc["B", "passed"])
    assert 0.28 <= summary.loc["B", "advantage_probability"] <= 0.54
    assert per.loc[("B", "h1"), "rho_h"] > per.loc[("B", "h1"), "rho_f"]
    assert summary.loc["A", "advantage_probability"] > summary.loc["B", "advantage_probability"]


def test_aat_simulation_over_many_seeds():
    # The single-seed test must not rest on a lucky draw: over 30 seeds A passes in ~90% (a
    # 3-SD lower bound at 30 draws is ~0.74) and B in ~1% (3 SD above: ~0.06).
    passed = {"A": [], "B": []}
    for seed in range(100, 130):
        summary, _ = alternative_annotator_test(*simulated_run(seed))
        for judge, ok in zip(summary["judge"], summary["passed"], strict=True):
            passed[judge].append(bool(ok))
    assert np.mean(passed["A"]) >= 0.74
    assert np.mean(passed["B"]) <= 0.07


def test_aat_leaves_out_failed_cells_and_single_labels():
    scores, labels = simulated_run(seed=2)
    failed = scores["judge"].eq("A") & scores["sample_id"].isin(["s0", "s1"])
    scores.loc[failed, ["status", "score"]] = ["failed", np.nan]
    labels = labels[~(labels["sample_id"].eq("s2") & labels["annotator"].ne("h1"))]
    instances = aat_instances(scores, labels)
    a = instances[instances["judge"] == "A"]
    assert not a["sample_id"].isin(["s0", "s1", "s2"]).any()  # no rating / one label
    assert a.groupby("annotator").size().eq(57).all()
    b = instances[instances["judge"] == "B"]
    assert not b["sample_id"].eq("s2").any() and b.groupby("annotator").size().eq(59).all()
    _, per = alternative_annotator_test(scores, labels)
    assert per.set_index(["judge", "annotator"]).loc[("A", "h1"), "n"] == 57


# ---------------------------------------------------------------- how many labels


def validity_rows(rhos: dict[str, float], n: int = 20) -> pd.DataFrame:
    return pd.DataFrame(
        [{"metric": "m", "judge": j, "n": n, "spearman": r} for j, r in rhos.items()]
    )


def test_labels_needed_by_fisher_z():
    # chance: n = 3 + (1 + .5^2/2) * (2.8016 / atanh .5)^2 = 3 + 1.125 * (2.8016/.54931)^2
    #           = 32.26 -> 33
    # runner-up: n = 3 + (1.125 + 1.045) * (2.8016 / (.54931 - .30952))^2 = 299.2 -> 300
    table = labels_needed(validity_rows({"x": 0.5, "y": 0.3, "z": np.nan})).set_index("comparison")
    assert table.loc["chance", "n_needed"] == 33
    assert table.loc["chance", "more_needed"] == 13
    assert table.loc["runner-up", "n_needed"] == 300
    assert table.loc["runner-up", ["best", "other"]].tolist() == ["x", "y"]
    assert 3 + 1.125 * (Z_SUM / np.arctanh(0.5)) ** 2 == pytest.approx(32.26, abs=0.01)


def test_labels_needed_is_nan_with_a_reason_when_undefined():
    tied = labels_needed(validity_rows({"x": 0.4, "y": 0.4})).set_index("comparison")
    assert (
        np.isnan(tied.loc["runner-up", "n_needed"])
        and "effect is 0" in tied.loc["runner-up", "note"]
    )
    negative = labels_needed(validity_rows({"x": -0.2})).set_index("comparison")
    assert (
        np.isnan(negative.loc["chance", "n_needed"])
        and "not above 0" in negative.loc["chance", "note"]
    )
    assert "only one judge" in negative.loc["runner-up", "note"]
    perfect = labels_needed(validity_rows({"x": 1.0, "y": 0.2})).set_index("comparison")
    assert np.isnan(perfect.loc["chance", "n_needed"]) and "+-1" in perfect.loc["chance", "note"]
    none = labels_needed(validity_rows({"x": np.nan}))
    assert none["n_needed"].isna().all() and none["note"].str.contains("no judge").all()


def test_a_run_without_labels_gives_empty_tables_with_their_columns():
    scores = pd.DataFrame(score_rows("j", {"a": 0.5, "b": 0.7}))
    none = pd.DataFrame(columns=["sample_id", "metric", "annotator", "value"])
    by_judge = validity_by_judge(scores, none)
    assert by_judge.empty and "spearman" in by_judge.columns and "embedding" not in by_judge
    assert human_agreement(none).empty and "alpha" in human_agreement(none).columns
    summary, per = alternative_annotator_test(scores, none)
    assert summary.empty and "winning_rate" in summary and per.empty and "p_by" in per
    assert labels_needed(by_judge).empty and "n_needed" in labels_needed(by_judge)
