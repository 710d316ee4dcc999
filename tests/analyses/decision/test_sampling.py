"""The labelling queue with known probabilities (``decision.sampling``): every sample can be
drawn, the disagreeing strata more often, the draws follow the stated probabilities (scipy's
chi-square), and the same seed gives the same queue."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from judgegrid.analyses import draw_labels, label_design
from judgegrid.analyses.decision.sampling import metric_design


def _priority() -> pd.Series:
    values = [0.0] * 60 + [0.5] * 30 + [1.0] * 10
    return pd.Series(values, index=[f"s{i:03d}" for i in range(100)])


def test_every_sample_has_probability_and_the_disagreeing_more():
    plan = label_design(_priority(), uniform_share=0.4, strata=3)
    assert plan.probability.sum() == pytest.approx(1.0)
    assert plan.probability.min() >= 0.4 / 100 - 1e-15
    by = pd.Series(plan.probability).groupby(plan.stratum).first()
    assert by[0] == pytest.approx(0.4 / 100)  # no disagreement: the uniform share alone
    # the targeted share goes to the strata by size x mean priority: 30 x 0.5 against 10 x 1
    assert (by[1] - 0.004) * 30 == pytest.approx(0.6 * 15 / 25)
    assert (by[2] - 0.004) * 10 == pytest.approx(0.6 * 10 / 25)
    assert plan.weight().max() == pytest.approx(1 / 0.4)


def test_the_draws_follow_the_stated_probabilities_and_repeat_under_a_seed():
    plan = label_design(_priority())
    drawn = draw_labels(plan, 20000, seed=7)
    counts = drawn.groupby("stratum").size().reindex(range(3), fill_value=0)
    expected = pd.Series(plan.probability).groupby(plan.stratum).sum() * 20000
    assert stats.chisquare(counts.to_numpy(), expected.to_numpy()).pvalue > 0.001
    again = draw_labels(plan, 20000, seed=7)
    pd.testing.assert_frame_equal(drawn, again)
    assert not draw_labels(plan, 50, seed=8)["sample_id"].equals(drawn["sample_id"][:50])
    # a sample drawn again asks nothing; one already labelled neither
    first = draw_labels(plan, 300, seed=9, labelled={"s000"})
    assert first["new"].sum() == first["sample_id"].nunique() - ("s000" in set(first["sample_id"]))
    assert (first["weight"] == 1 / (100 * first["probability"])).all()


def test_the_hansen_hurwitz_weights_are_exactly_unbiased_under_the_design():
    plan = label_design(_priority())
    y = np.random.default_rng(1).random(100)
    expectation = np.sum(plan.probability * y / (100 * plan.probability))
    assert expectation == pytest.approx(y.mean())


def test_a_metric_design_reads_todays_priority_from_the_scores():
    scores = pd.DataFrame(
        {
            "sample_id": ["a", "a", "b", "b", "c", "c"],
            "metric": "m",
            "judge": ["x", "y"] * 3,
            "embedding": "",
            "dimension": 0,
            "strictness": 0,
            "repeat": 0,
            "status": "scored",
            "score": [0.1, 0.9, 0.5, 0.5, 0.4, 0.6],
        }
    )
    plan = metric_design(scores, "m", uniform_share=0.5)
    q = dict(zip(plan.samples, plan.probability, strict=True))
    # priorities 0.8 (a), 0.2 (c), 0 (b): equal-width strata put c with b, and that stratum
    # gets 0.2 of the 1.0 of priority, the other 0.8
    assert q["c"] == q["b"] == pytest.approx(0.5 / 3 + 0.5 * 0.2 / 2)
    assert q["a"] == pytest.approx(0.5 / 3 + 0.5 * 0.8)


def test_bad_designs_are_refused():
    with pytest.raises(ValueError, match="uniform_share"):
        label_design(_priority(), uniform_share=0.0)
    with pytest.raises(ValueError, match="no sample"):
        label_design(pd.Series(dtype=float))
