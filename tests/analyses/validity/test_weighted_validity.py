"""Validity against people weighted to stand for all the run's samples: with every weight 1 the
tables are today's exactly; with whole weights each figure is the unweighted one (scipy,
sklearn underneath) on the samples replicated by weight; the alt-test's weighted t-test with
equal weights is scipy's one-sample t-test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from judgegrid.analyses.frames.label_weights import sample_weights
from judgegrid.analyses.validity.criteria import criterion_validity, outcome_table
from judgegrid.analyses.validity.people import (
    alternative_annotator_test,
    validity_against_people,
    validity_by_judge,
)
from support.criterion_frames import BINARY, SCALE, criterion_scores, follows, people_labels, truths

FIGURES = ["spearman", "tau_b", "accuracy", "kappa"]


def _run(n: int = 40, seed: int = 1, annotators: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two judges' scores of a metric and people's labels of it (``annotators`` each)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    ids = [f"s{i:02d}" for i in range(n)]
    rows = [
        {
            "metric": "m",
            "judge": judge,
            "embedding": "",
            "dimension": 0,
            "strictness": 0,
            "sample_id": sid,
            "repeat": 0,
            "score": float(np.clip(t + rng.normal(0, noise), 0, 1).round(1)),
            "status": "scored",
        }
        for judge, noise in (("a", 0.2), ("b", 0.4))
        for sid, t in zip(ids, truth, strict=True)
    ]
    labels = pd.DataFrame(
        [
            {"sample_id": sid, "metric": "m", "annotator": f"p{k}", "value": float(t > 0.5)}
            for k in range(annotators)
            for sid, t in zip(ids, truth, strict=True)
        ]
    )
    return pd.DataFrame(rows), labels


def _replicated(frame: pd.DataFrame, times: dict[str, int]) -> pd.DataFrame:
    """``frame`` with each sample's rows copied ``times[sample]`` times, as new samples."""
    copies = [
        frame[frame["sample_id"] == sid].assign(sample_id=f"{sid}#{k}")
        for sid, many in times.items()
        for k in range(many)
    ]
    return pd.concat(copies, ignore_index=True)


def _draws_for(times: dict[str, int], population: int) -> pd.DataFrame:
    """A queue's draws that took each sample ``times`` over, each at probability 1 / N: weight
    1 a draw, so a sample's weight is how often it was drawn."""
    rows = [(sid, 1 / population) for sid, many in times.items() for _ in range(many)]
    return pd.DataFrame(
        [
            {
                "metric": "m",
                "annotator": "p0",
                "draw": i + 1,
                "sample_id": sid,
                "probability": q,
                "population": population,
            }
            for i, (sid, q) in enumerate(rows)
        ]
    )


def test_every_weight_one_gives_todays_tables_exactly():
    scores, labels = _run(annotators=2)
    weights = sample_weights(labels)
    assert (weights["weight"] == 1.0).all()
    pd.testing.assert_frame_equal(
        validity_against_people(scores, labels, weights=weights),
        validity_against_people(scores, labels),
    )
    today = alternative_annotator_test(scores, labels, min_instances=5, min_annotators=2)
    weighted = alternative_annotator_test(
        scores, labels, min_instances=5, min_annotators=2, weights=weights
    )
    for mine, theirs in zip(weighted, today, strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_whole_weights_give_the_figures_of_the_replicated_samples():
    scores, labels = _run()
    rng = np.random.default_rng(3)
    times = {
        sid: int(k) for sid, k in zip(labels["sample_id"], rng.integers(1, 4, 40), strict=True)
    }
    weights = sample_weights(labels, _draws_for(times, 40))
    found = validity_by_judge(scores, labels, weights=weights).set_index("judge")
    copied = validity_by_judge(_replicated(scores, times), _replicated(labels, times))
    copied = copied.set_index("judge")
    for figure in FIGURES:
        assert found[figure].to_numpy() == pytest.approx(copied[figure].to_numpy(), abs=1e-12)
    assert found["n"].tolist() == [40, 40]  # the samples, not the draws
    assert found["ci_method"].str.startswith("weighted by the queue's draw probabilities").all()
    for figure in ("spearman", "tau_b", "accuracy"):
        assert (found[f"{figure}_low"] < found[figure]).all()
        assert (found[figure] < found[f"{figure}_high"]).all()


def test_the_weighted_alt_test_with_equal_weights_is_scipys_t_test():
    """Weights all 2 are not 1, so the weighted path runs; the Hajek mean and its linearised
    SE are then the plain mean and scipy's standard error, so every figure is today's."""
    scores, labels = _run(n=36, annotators=3)
    weights = sample_weights(labels).assign(weight=2.0)
    today, per_today = alternative_annotator_test(scores, labels, epsilon=0.1)
    found, per_found = alternative_annotator_test(scores, labels, epsilon=0.1, weights=weights)
    for column in ("rho_f", "rho_h", "mean_diff", "t", "p_value", "p_by"):
        assert per_found[column].to_numpy(float) == pytest.approx(
            per_today[column].to_numpy(float), rel=1e-9, nan_ok=True
        )
    assert found["winning_rate"].tolist() == today["winning_rate"].tolist()


@pytest.mark.parametrize("spec", [BINARY, SCALE])
def test_a_criterions_weighted_figures_are_those_of_the_replicated_samples(spec):
    truth = truths(spec, 50, 4)
    scores = criterion_scores(spec, {"j": follows(0.5, spec)}, truth, seed=4, repeats=1)
    labels = people_labels(spec.name, truth)
    rng = np.random.default_rng(5)
    ids = sorted(labels["sample_id"].unique())
    times = {sid: int(k) for sid, k in zip(ids, rng.integers(1, 4, len(ids)), strict=True)}
    draws = _draws_for(times, len(ids)).assign(metric=spec.name)
    annotator = str(labels["annotator"].iloc[0])
    weights = sample_weights(labels, draws.assign(annotator=annotator))
    criteria = {spec.name: spec}
    found = criterion_validity(outcome_table(scores, labels, criteria), criteria, weights).iloc[0]
    copied_out = outcome_table(_replicated(scores, times), _replicated(labels, times), criteria)
    copied = criterion_validity(copied_out, criteria).iloc[0]
    names = ["accuracy", "chance", "kappa"]
    names += ["tpr", "tnr"] if spec.type == "binary" else ["within_one", "spearman"]
    for name in names:
        assert found[name] == pytest.approx(copied[name], abs=1e-12), name
    assert found["n"] == len(ids)
    assert "weighted by the queue's draw probabilities" in found["note"]
    answered = copied_out.dropna(subset=["code"])
    kind = "quadratic" if spec.type == "scale" else None
    expected = cohen_kappa_score(answered["label"], answered["code"], weights=kind)
    assert found["kappa"] == pytest.approx(expected, abs=1e-12)
    assert found["kappa_low"] < found["kappa"] < found["kappa_high"]
