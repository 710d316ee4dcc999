"""Preference pairs and designed contrasts: accuracy with ties and unscored pairs counted as
wrong, a lower-is-better metric's direction, and Spearman against numeric labels."""

from __future__ import annotations

import numpy as np
import pytest

from judgegrid.analyses.validity.pairs import pair_accuracy, pairs_from_contrasts, pairs_from_labels
from judgegrid.core.scales import Scale, Scales
from support.frames import scores_frame


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
    lower_is_better = Scales({"m": Scale(higher_is_better=False)})
    lower = pair_accuracy(scores_frame(values), pairs, lower_is_better).iloc[0]
    assert higher["accuracy"] == 0 and lower["accuracy"] == 1


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

    from judgegrid.analyses.validity.pairs import label_correlations

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
