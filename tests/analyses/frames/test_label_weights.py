"""Each labelled sample's weight (``frames.label_weights``): from its queue's draws (a sample drawn
twice counts twice), from a label's own probability, or 1 for a label drawn uniformly; and, by
simulation through the queue's own design (``decision.sampling``), a judge's accuracy weighted so
is unbiased for all the run's samples where the unweighted one is not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.decision.sampling import draw_labels, label_design
from judgegrid.analyses.frames.label_weights import (
    CHOSEN_ONLY_WORDS,
    UNIFORM_WORDS,
    WEIGHT_COLUMNS,
    populations,
    sample_weights,
    sampling_words,
)
from judgegrid.analyses.stats.intervals import accuracy_interval
from judgegrid.analyses.stats.weighted import share_size, weighted_share


def _labels(rows: list[tuple[str, str, float, float | None]], metric: str = "m") -> pd.DataFrame:
    """(sample, annotator, value, probability) rows as the labels the analyses read."""
    return pd.DataFrame(
        [
            {"sample_id": s, "metric": metric, "annotator": a, "value": v, "probability": p}
            for s, a, v, p in rows
        ]
    )


def _draws(rows: list[tuple[str, float]], population: int, annotator: str = "ann") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "metric": "m",
                "annotator": annotator,
                "draw": i + 1,
                "sample_id": s,
                "probability": q,
                "population": population,
            }
            for i, (s, q) in enumerate(rows)
        ]
    )


def test_labels_drawn_uniformly_weigh_one_each():
    labels = _labels([("a", "x", 1.0, None), ("b", "x", 0.0, None), ("a", "y", 1.0, None)])
    found = sample_weights(labels).set_index("sample_id")
    assert list(found.columns) == [c for c in WEIGHT_COLUMNS if c != "sample_id"]
    assert found["weight"].tolist() == [1.0, 1.0]
    assert found["labels"].tolist() == [2, 1]
    assert sampling_words(sample_weights(labels), None, {}) == {"m": UNIFORM_WORDS}


def test_a_queues_draws_weigh_one_over_n_q_and_a_repeat_counts_twice():
    labels = _labels([("a", "ann", 1.0, 0.02), ("b", "ann", 0.0, 0.005), ("c", "ann", 1.0, None)])
    draws = _draws([("a", 0.02), ("b", 0.005), ("a", 0.02), ("z", 0.01)], population=100)
    found = sample_weights(labels, draws).set_index("sample_id")
    # a: drawn twice at 1 / (100 * 0.02) = 0.5; b: 2.0; c: no draw, no probability: 1;
    # z: drawn but never answered: nothing
    assert found["weight"].to_dict() == pytest.approx({"a": 1.0, "b": 2.0, "c": 1.0})
    assert found["draws"].to_dict() == {"a": 2, "b": 1, "c": 1}
    words = sampling_words(sample_weights(labels, draws), draws, {})
    assert words == {"m": "labels weighted by the queue's draw probabilities over 100 samples"}


def test_a_label_with_a_probability_and_no_draw_takes_the_runs_sample_count():
    labels = _labels([("a", "ann", 1.0, 0.05), ("b", "ann", 0.0, None)])
    scores = pd.DataFrame({"metric": ["m"] * 8, "sample_id": list("abcdefgh")})
    sizes = populations(scores, labels)
    assert sizes == {"m": 8}
    found = sample_weights(labels, None, sizes).set_index("sample_id")["weight"]
    assert found.to_dict() == pytest.approx({"a": 1 / (8 * 0.05), "b": 1.0})
    with pytest.raises(ValueError, match="carry a probability but the run has no sample count"):
        sample_weights(labels)


def test_several_annotators_weights_of_one_sample_are_averaged():
    labels = _labels([("a", "ann", 1.0, None), ("a", "bob", 1.0, None), ("b", "bob", 0.0, None)])
    draws = _draws([("a", 0.25), ("a", 0.25)], population=10)  # ann: a twice at 0.4
    found = sample_weights(labels, draws).set_index("sample_id")["weight"]
    assert found.to_dict() == pytest.approx({"a": (0.8 + 1.0) / 2, "b": 1.0})


def test_a_draw_with_an_impossible_probability_is_refused():
    labels = _labels([("a", "ann", 1.0, None)])
    with pytest.raises(ValueError, match=r"draw 1 of m \(ann\) has probability 0.0"):
        sample_weights(labels, _draws([("a", 0.0)], population=10))


def test_labels_chosen_on_the_view_page_weigh_nothing_beside_drawn_ones_and_are_said():
    """A label the person chose (``chosen``) is no draw of any design: beside labels that are,
    it weighs 0 (a weighted figure leaves it out: the weighted accuracy is the plain mean of
    the drawn labels alone), still counts as a label, and the words say how many; a sample
    also drawn by another annotator keeps that annotator's weight, not half of it, and the
    chosen label of it is a second opinion, not left out."""
    labels = _labels(
        [
            ("a", "ann", 1.0, None),
            ("b", "ann", 0.0, None),
            ("c", "ann", 1.0, None),
            ("x", "cy", 1.0, None),  # chosen, nobody drew it
            ("y", "cy", 1.0, None),  # chosen
            ("a", "cy", 1.0, None),  # chosen by cy, drawn by ann
        ]
    ).assign(chosen=[False, False, False, True, True, True])
    found = sample_weights(labels).set_index("sample_id")
    assert found["weight"].to_dict() == {"a": 1.0, "b": 1.0, "c": 1.0, "x": 0.0, "y": 0.0}
    assert found["labels"].to_dict() == {"a": 2, "b": 1, "c": 1, "x": 1, "y": 1}
    assert found["chosen"].to_dict() == {"a": 1, "b": 0, "c": 0, "x": 1, "y": 1}
    right = pd.Series({"a": 1.0, "b": 0.0, "c": 0.0, "x": 1.0, "y": 1.0})
    weight = found["weight"].reindex(right.index).to_numpy()
    assert weighted_share(right.to_numpy(), weight) == pytest.approx(np.mean([1.0, 0.0, 0.0]))
    words = sampling_words(sample_weights(labels), None, {})
    assert words == {
        "m": f"{UNIFORM_WORDS}; 2 labels chosen on the view page are not counted in the "
        "weighted figures"
    }


def test_a_chosen_label_a_draw_points_to_counts_as_that_draw():
    labels = _labels([("a", "ann", 1.0, 0.05), ("b", "ann", 0.0, None)]).assign(
        chosen=[True, False]
    )
    draws = _draws([("a", 0.05)], population=10)
    found = sample_weights(labels, draws).set_index("sample_id")
    assert found["weight"].to_dict() == pytest.approx({"a": 2.0, "b": 1.0})
    assert found["chosen"].to_dict() == {"a": 0, "b": 0}


def test_labels_all_chosen_on_the_view_page_weigh_one_and_say_they_describe_those_samples():
    labels = _labels([("x", "cy", 1.0, None), ("y", "cy", 0.0, None)]).assign(chosen=True)
    found = sample_weights(labels).set_index("sample_id")
    assert found["weight"].to_dict() == {"x": 1.0, "y": 1.0}
    assert sampling_words(sample_weights(labels), None, {}) == {"m": CHOSEN_ONLY_WORDS}


def test_the_weighted_accuracy_is_unbiased_through_the_queues_design_where_todays_is_not():
    """300 queues of 120 draws from a design that draws the samples the judges disagree on
    (where this judge is mostly wrong) far more often: the weighted accuracy's mean error is
    within 0.01, its 95% interval (Wilson at the effective n) holds the run's accuracy at least
    93% of the time; today's unweighted accuracy on the same labels is off by more than 0.05."""
    rng = np.random.default_rng(42)
    n = 600
    priority = pd.Series(rng.random(n) ** 2, index=[f"s{i:03d}" for i in range(n)])
    right = np.where(priority.to_numpy() > 0.5, rng.random(n) < 0.35, rng.random(n) < 0.92)
    truth = right.mean()
    design = label_design(priority)
    by_id = pd.Series(right.astype(float), index=priority.index)
    errors, covered, plain = [], [], []
    for seed in range(300):
        drawn = draw_labels(design, 120, seed)
        labels = pd.DataFrame(
            {
                "sample_id": drawn["sample_id"].unique(),
                "metric": "m",
                "annotator": "ann",
                "value": 1.0,
                "probability": np.nan,
            }
        )
        draws = drawn.assign(metric="m", annotator="ann", population=n)
        weights = sample_weights(labels, draws).set_index("sample_id")["weight"]
        values = by_id[weights.index].to_numpy()
        share = weighted_share(values, weights.to_numpy())
        low, high = accuracy_interval(share, share_size(values, weights.to_numpy()))
        errors.append(share - truth)
        covered.append(low <= truth <= high)
        plain.append(values.mean() - truth)
    assert abs(np.mean(errors)) <= 0.01
    assert np.mean(covered) >= 0.93
    assert np.mean(plain) < -0.05
