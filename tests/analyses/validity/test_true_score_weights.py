"""The true-score table on labels a biased queue drew (``validity.true_score`` with
``frames.label_weights``): the weighted corrected mean against statsmodels' weighted mean and
sandwich interval on the same draws, and unbiased, and covering, where the unweighted one is
not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from judgegrid.analyses.decision.sampling import draw_labels, label_design
from judgegrid.analyses.frames.label_weights import sample_weights, sampling_words
from judgegrid.analyses.validity.true_score import UNIFORM, true_scores

N = 400


def _population(seed: int):
    """People's truth on ``N`` samples, a judge lenient by 0.3 on the hard ones (a third) and
    near right elsewhere, and the queue's priority: the hard samples first."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i:03d}" for i in range(N)]
    hard = rng.random(N) < 1 / 3
    truth = np.where(hard, rng.uniform(0.0, 0.5, N), rng.uniform(0.5, 1.0, N))
    rating = np.clip(truth + np.where(hard, 0.3, 0.0) + rng.normal(0, 0.05, N), 0, 1)
    scores = pd.DataFrame(
        {
            "metric": "faithfulness",
            "judge": "j",
            "embedding": "",
            "dimension": 0,
            "strictness": 0,
            "sample_id": ids,
            "repeat": 0,
            "score": rating,
            "status": "scored",
        }
    )
    priority = pd.Series(hard.astype(float) + rng.uniform(0, 0.1, N), index=ids)
    return scores, pd.Series(truth, index=ids), priority


def _drawn(truth: pd.Series, priority: pd.Series, draws: int, seed: int):
    """One annotator's labels and the queue's draws from the biased design."""
    plan = label_design(priority)
    drawn = draw_labels(plan, draws, seed)
    queue = pd.DataFrame(
        {
            "metric": "faithfulness",
            "annotator": "ann",
            "draw": drawn["draw"],
            "sample_id": drawn["sample_id"].astype(str),
            "probability": drawn["probability"].astype(float),
            "population": plan.population,
        }
    )
    ids = pd.unique(queue["sample_id"])
    labels = pd.DataFrame(
        {"sample_id": ids, "metric": "faithfulness", "annotator": "ann", "value": truth[ids]}
    )
    return labels, queue


def _weighted(scores, labels, queue):
    weights = sample_weights(labels, queue)
    words = sampling_words(weights, queue, {})
    return true_scores(scores, labels, weights=weights, sampling=words).iloc[0]


def _survey(values: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """statsmodels' weighted mean of ``values`` over the draws, with its sandwich (HC1) t
    interval: a with-replacement design's ratio mean and linearised variance."""
    fit = sm.WLS(values, np.ones((len(values), 1)), weights=w).fit(cov_type="HC1", use_t=True)
    low, high = fit.conf_int(alpha=0.05)[0]
    return float(fit.params[0]), float(low), float(high)


def test_weighted_corrected_and_peoples_mean_equal_statsmodels_on_the_draws():
    scores, truth, priority = _population(3)
    labels, queue = _drawn(truth, priority, 150, seed=4)
    assert queue["sample_id"].duplicated().any()  # a sample drawn twice counts twice
    row = _weighted(scores, labels, queue)
    # on the draws themselves: one row a draw, its weight 1 / (N q)
    y = truth[queue["sample_id"]].to_numpy()
    rating = scores.set_index("sample_id")["score"]
    f = rating[queue["sample_id"]].to_numpy()
    w = 1.0 / (N * queue["probability"].to_numpy())
    assert not np.allclose(w, 1.0)
    # the judge's mean over every sample plus the weighted mean of the gap at the row's lam
    assert 0 < row["lam"] <= 1
    shift = row["lam"] * rating.mean()
    mean, low, high = _survey(y - row["lam"] * f, w)
    assert row["corrected"] == pytest.approx(shift + mean, abs=1e-9)
    assert row["corrected_low"] == pytest.approx(shift + low, abs=1e-9)
    assert row["corrected_high"] == pytest.approx(shift + high, abs=1e-9)
    # people's own mean and interval: the weighted mean of their values
    assert (row["people_mean"], row["people_low"], row["people_high"]) == pytest.approx(
        _survey(y, w), abs=1e-9
    )
    # the effective labels as ppi.py defines them, over the draws
    people_se = (row["people_high"] - row["people_low"]) / 2
    se = (row["corrected_high"] - row["corrected_low"]) / 2
    assert row["effective_labels"] == pytest.approx(len(y) * (people_se / se) ** 2, rel=1e-9)
    assert row["labels"] == len(labels)
    assert row["weights"] == (f"labels weighted by the queue's draw probabilities over {N} samples")


def test_uniform_weights_give_todays_table_exactly():
    scores, truth, priority = _population(5)
    labels, _ = _drawn(truth, priority, 80, seed=6)
    weights = sample_weights(labels)  # no draws, no probability: every weight 1
    plain = true_scores(scores, labels)
    weighted = true_scores(scores, labels, weights=weights, sampling={"faithfulness": "x"})
    pd.testing.assert_frame_equal(plain, weighted)
    assert plain["weights"].iloc[0] == UNIFORM


def test_weighted_corrected_mean_is_unbiased_where_the_unweighted_is_not():
    """The queue draws the hard samples (where the judge is lenient) far more often: counted
    as uniform, the labels over-state the judge's bias and the corrected mean comes out low;
    weighted by 1 / (N q) it centres on people's mean over all samples, and its 95% interval
    covers that mean."""
    scores, truth, priority = _population(7)
    weighted, plain, covered = [], [], 0
    for seed in range(200):
        labels, queue = _drawn(truth, priority, 60, seed=seed)
        row = _weighted(scores, labels, queue)
        weighted.append(row["corrected"] - truth.mean())
        covered += row["corrected_low"] <= truth.mean() <= row["corrected_high"]
        plain.append(true_scores(scores, labels).iloc[0]["corrected"] - truth.mean())
    assert abs(np.mean(weighted)) < 0.005
    assert np.mean(plain) < -0.03
    # 60 draws of unequal weight: ppi_py's weighted interval covered 86% here (issue 43)
    assert covered >= 0.9 * 200, covered
