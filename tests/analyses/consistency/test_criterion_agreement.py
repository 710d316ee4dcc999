"""Agreement between judges on a criterion, by type: each row of the table checked against an
independent implementation (scikit-learn's cohen_kappa_score plain and quadratic, statsmodels'
Fleiss' kappa, the krippendorff package, scipy's Kendall tau-b) on answers with ties between
repeats and failed cells; and scripted judges: followers agree, a random one's interval holds 0."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from judgegrid.analyses.consistency.criterion_agreement import answer_table, criterion_agreement
from judgegrid.analyses.frames.criteria import judge_answers
from support.criterion_frames import (
    BINARY,
    LABELS,
    SCALE,
    at_random,
    criterion_scores,
    follows,
    truths,
)


def _messy(spec, seed=3):
    """Three noisy judges with two repeats (so some samples tie), a few failed cells, and a
    second wording that agreement must not read."""
    truth = truths(spec, 50, seed)
    judges = {name: follows(flip, spec) for name, flip in (("a", 0.2), ("b", 0.4), ("c", 0.6))}
    scores = criterion_scores(spec, judges, truth, repeats=2, wordings=2, seed=seed)
    failed = np.random.default_rng(seed).random(len(scores)) < 0.08
    scores.loc[failed, ["status", "score", "answer"]] = ["failed", np.nan, np.nan]
    return scores


def _row(table, statistic, raters="all judges"):
    mine = table[(table["statistic"] == statistic) & (table["raters"] == raters)]
    assert len(mine) == 1
    return mine.iloc[0]


def _wide(scores, spec):
    return answer_table(scores, {spec.name: spec}, spec.name)


@pytest.mark.parametrize("spec", [BINARY, LABELS])
def test_nominal_statistics_match_the_independent_packages(spec):
    scores = _messy(spec)
    table = criterion_agreement(scores, {spec.name: spec})
    wide = _wide(scores, spec)
    assert wide.isna().any().any()  # ties and failures left holes
    k = 2 if spec.type == "binary" else 3
    pair = wide[["a", "c"]].dropna()
    kappa = _row(table, "Cohen's kappa", "a vs c")
    assert kappa["value"] == pytest.approx(cohen_kappa_score(pair["a"], pair["c"]))
    assert kappa["units"] == len(pair)
    assert kappa["low"] < kappa["value"] < kappa["high"]
    complete = wide.dropna().to_numpy(int)
    counts, _ = aggregate_raters(complete, n_cat=k)
    fleiss = _row(table, "Fleiss' kappa")
    assert fleiss["value"] == pytest.approx(statsmodels_fleiss(counts, method="fleiss"))
    assert fleiss["units"] == len(complete)
    alpha = _row(table, "Krippendorff's alpha (nominal)")
    expected = krippendorff.alpha(
        reliability_data=wide.T.to_numpy(float), level_of_measurement="nominal"
    )
    assert alpha["value"] == pytest.approx(expected)
    assert np.isfinite(_row(table, "Gwet's AC1")["value"])


def test_scale_statistics_match_the_independent_packages():
    scores = _messy(SCALE)
    table = criterion_agreement(scores, {SCALE.name: SCALE})
    wide = _wide(scores, SCALE)
    pair = wide[["a", "b"]].dropna()
    weighted = _row(table, "weighted kappa (quadratic)", "a vs b")
    assert weighted["value"] == pytest.approx(
        cohen_kappa_score(pair["a"], pair["b"], weights="quadratic")
    )
    tau = _row(table, "Kendall's tau-b", "a vs b")
    assert tau["value"] == pytest.approx(stats.kendalltau(pair["a"], pair["b"]).statistic)
    assert tau["low"] < tau["value"] < tau["high"]
    alpha = _row(table, "Krippendorff's alpha (ordinal)")
    expected = krippendorff.alpha(
        reliability_data=wide.T.to_numpy(float), level_of_measurement="ordinal"
    )
    assert alpha["value"] == pytest.approx(expected)
    assert set(table["statistic"]) == {
        "weighted kappa (quadratic)",
        "Kendall's tau-b",
        "Krippendorff's alpha (ordinal)",
    }


def test_a_judges_answer_is_its_modal_answer_of_wording_0_and_a_tie_is_none():
    rows = []
    for repeat, (w0, w1) in enumerate([(1.0, 0.0), (1.0, 0.0), (0.0, 0.0)]):
        for wording, answer in ((0, w0), (1, w1)):
            rows.append(("s1", repeat, wording, answer))
    rows += [("s2", 0, 0, 1.0), ("s2", 1, 0, 0.0)]  # a tie
    scores = pd.DataFrame(
        [
            {
                "sample_id": s,
                "metric": BINARY.name,
                "judge": "a",
                "repeat": r,
                "wording": w,
                "status": "scored",
                "score": x,
                "answer": x,
            }
            for s, r, w, x in rows
        ]
    )
    answers = judge_answers(scores, {BINARY.name: BINARY}).set_index("sample_id")
    assert answers.loc["s1", "code"] == 1.0  # wording 1's fails are not read
    assert answers.loc["s1", "answers"] == 3
    assert np.isnan(answers.loc["s2", "code"]) and answers.loc["s2", "tied"]


@pytest.mark.parametrize("spec", [BINARY, LABELS, SCALE])
def test_judges_that_follow_the_people_agree_and_a_random_one_holds_0(spec):
    truth = truths(spec, 60, seed=1)
    judges = {"a": follows(), "b": follows(), "rand": at_random(spec)}
    table = criterion_agreement(criterion_scores(spec, judges, truth, seed=1), {spec.name: spec})
    first = "weighted kappa (quadratic)" if spec.type == "scale" else "Cohen's kappa"
    assert _row(table, first, "a vs b")["value"] == pytest.approx(1.0)
    random_pair = _row(table, first, "a vs rand")
    assert random_pair["low"] <= 0 <= random_pair["high"]


def test_a_random_judges_interval_holds_0_about_95_times_in_100():
    """The bootstrap interval's coverage of a random judge's kappa with a follower."""
    held = 0
    for seed in range(20):
        truth = truths(BINARY, 60, seed=seed)
        judges = {"a": follows(0.1, BINARY), "rand": at_random(BINARY)}
        scores = criterion_scores(BINARY, judges, truth, seed=seed)
        row = _row(criterion_agreement(scores, {BINARY.name: BINARY}), "Cohen's kappa", "a vs rand")
        held += row["low"] <= 0 <= row["high"]
    assert held >= 17


def test_built_in_metrics_and_a_single_judge_give_no_rows():
    truth = truths(BINARY, 20)
    one = criterion_scores(BINARY, {"a": follows()}, truth)
    assert criterion_agreement(one, {BINARY.name: BINARY}).empty
    assert criterion_agreement(one, {}).empty


def test_an_undefined_kappa_says_why():
    truth = [1.0] * 12
    scores = criterion_scores(BINARY, {"a": follows(), "b": follows()}, truth)
    table = criterion_agreement(scores, {BINARY.name: BINARY})
    kappa = _row(table, "Cohen's kappa", "a vs b")
    assert np.isnan(kappa["value"]) and "one category" in kappa["note"]
    assert _row(table, "Gwet's AC1")["value"] == pytest.approx(1.0)  # AC1 stays defined
