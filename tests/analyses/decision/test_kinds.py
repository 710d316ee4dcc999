"""The queue without replacement, each label weighted by its kind (``decision.kinds``): the
weight's expectation over the next draw is the population's mean given the kind shares
(enumerated exactly), the bounds are the largest weights over the drawable kinds (brute force),
and the stored text reads back, an older draw's with no share gone."""

from __future__ import annotations

import json

import numpy as np
import pytest

from judgegrid.analyses.decision.kinds import (
    TINY,
    DrawBounds,
    bounds_of,
    bounds_text,
    draw_bounds_by_kind,
    draw_without_replacement,
    kind_chances,
    kinds_of,
    shifts_of,
)

JUDGES = ("a", "b")


def _pool(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A pool's strata and two judges' answers (pass 1, fail 0, none NaN)."""
    rng = np.random.default_rng(seed)
    stratum = rng.integers(0, 3, n)
    answers = rng.choice([0.0, 1.0, np.nan], size=(n, 2), p=[0.45, 0.45, 0.1])
    return stratum, answers


def test_a_kind_is_the_stratum_and_the_answers_a_missing_answer_a_value_of_its_own():
    stratum = np.array([0, 0, 0, 1, 1])
    answers = np.array([[1, 0], [1, 0], [1, np.nan], [1, 0], [1, np.nan]], float)
    kinds = kinds_of(stratum, answers)
    assert kinds.of_sample[0] == kinds.of_sample[1]  # the same stratum and answers
    assert len(set(kinds.of_sample.tolist())) == 4
    assert kinds.shares.sum() == pytest.approx(1.0)
    assert kinds.shares[kinds.of_sample[0]] == pytest.approx(0.4)
    assert np.isnan(kinds.answers[kinds.of_sample[2], 1])  # NaN kept in the kind's answers
    assert len(set(kinds_of(stratum).of_sample.tolist())) == 2  # strata alone


@pytest.mark.parametrize("seed", range(5))
def test_the_next_labels_weighted_value_has_the_populations_mean_given_the_kinds(seed):
    # a design not uniform within a kind, some samples labelled: over the next draw, the label's
    # weight times its kind's mean is, exactly, the share-weighted mean over the kinds still
    # drawable (a kind all labelled is what the rule fills in)
    stratum, answers = _pool(seed)
    kinds = kinds_of(stratum, answers)
    rng = np.random.default_rng(100 + seed)
    q = rng.random(len(stratum)) + 0.01
    open_ = rng.random(len(stratum)) < 0.6
    means = rng.random(len(kinds.shares))
    rho = kind_chances(q, kinds, open_)
    weight, _ = draw_bounds_by_kind(kinds, rho, JUDGES)
    chance = np.where(open_, q, 0.0) / q[open_].sum()
    expected = sum(
        chance[i] * weight[k] * means[k] for i, k in enumerate(kinds.of_sample) if open_[i]
    )
    drawable = np.bincount(kinds.of_sample, weights=open_, minlength=len(means)) > 0
    assert expected == pytest.approx(float(np.sum(kinds.shares[drawable] * means[drawable])))


@pytest.mark.parametrize("seed", range(5))
def test_the_bounds_are_the_largest_weights_over_the_kinds_still_drawable(seed):
    stratum, answers = _pool(seed)
    kinds = kinds_of(stratum, answers)
    q = np.random.default_rng(seed).random(len(stratum)) + 0.01
    open_ = np.random.default_rng(50 + seed).random(len(stratum)) < 0.5
    sample, stored, bounds = draw_without_replacement(
        q, kinds, open_, JUDGES, np.random.default_rng(seed)
    )
    assert open_[sample]
    # brute force, sample by sample: a sample's weight is its kind's share over the chance the
    # draw falls in its kind
    n = len(stratum)
    kind = kinds.of_sample
    share = np.array([np.mean(kind == kind[i]) for i in range(n)])
    reach = np.array([q[(kind == kind[i]) & open_].sum() for i in range(n)]) / q[open_].sum()
    drawable = reach > 0
    weight = np.where(drawable, share / np.where(drawable, reach, 1), np.inf)
    assert 1 / (n * stored) == pytest.approx(weight[sample])
    assert bounds.largest == pytest.approx(weight[drawable].max())
    a, b = answers[:, 0], answers[:, 1]
    apart = ~((a == b) & ~np.isnan(a) & ~np.isnan(b))
    pair = weight[drawable & apart].max() if (drawable & apart).any() else TINY
    assert bounds.pair("b", "a") == pytest.approx(pair)
    assert bounds.gone == pytest.approx(np.mean(~drawable))
    assert bounds.gone_pair("a", "b") == pytest.approx(np.mean(~drawable & apart))


def test_the_draws_never_repeat_and_follow_the_design_among_the_samples_left():
    stratum = np.zeros(4, int)
    kinds = kinds_of(stratum)
    q = np.array([0.7, 0.1, 0.1, 0.1])
    counts = np.zeros(4)
    for seed in range(2000):
        rng = np.random.default_rng(seed)
        open_ = np.array([True, True, True, True])
        first, _, _ = draw_without_replacement(q, kinds, open_, (), rng)
        open_[first] = False
        second, _, _ = draw_without_replacement(q, kinds, open_, (), rng)
        assert second != first
        counts[first] += 1
    assert counts / counts.sum() == pytest.approx(q, abs=0.03)
    with pytest.raises(ValueError, match="no sample left"):
        draw_without_replacement(q, kinds, np.zeros(4, bool), (), np.random.default_rng(0))


def test_the_stored_bounds_read_back_and_an_older_draw_has_nothing_gone():
    bounds = DrawBounds(3.5, {("a", "b"): 2.0}, 0.25, {("a", "b"): 0.1})
    again = bounds_of(bounds_text(bounds))
    assert again == bounds
    assert again.pair("b", "a") == 2.0 and again.gone_pair("b", "a") == 0.1
    older = bounds_of(json.dumps({"largest": 4.0, "pairs": [["a", "b", 1.5]]}))
    assert older.gone == 0.0 and older.gone_pair("a", "b") == 0.0
    unknown = DrawBounds(2.0, gone=0.3)  # a criterion's: no answers, so no pair's share known
    assert unknown.pair("a", "b") == 2.0 and unknown.gone_pair("a", "b") == 0.3


def test_the_shares_gone_shift_each_test_by_its_lowest_value():
    every = [None, DrawBounds(2.0, {}, 0.2, {("a", "b"): 0.05})]
    shifts = shifts_of(every, JUDGES, chance=0.5)
    assert shifts[("a", None)].tolist() == pytest.approx([0.0, -0.1])  # -chance x share gone
    assert shifts[("b", "a")].tolist() == pytest.approx([0.0, -0.05])  # -1 where they differ
