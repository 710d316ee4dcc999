"""Variance components and the decision study: the simulation's components recovered, ICC
agreed with, Spearman-Brown followed, listwise deletion stated."""

from __future__ import annotations

import numpy as np
import pytest

from judgegrid.analyses.consistency.variance import (
    RESIDUAL,
    decision_study,
    needed_for_target,
    variance_components,
)
from judgegrid.analyses.stats.icc import icc
from support.frames import simulated


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
