"""The paired statistics at scale (issue 41): tau-b by Knight's counting against the O(n²)
definition and scipy, bootstraps drawn in chunks and shared as counts against the draws made
at once, the consensus rung's jackknife against scipy's tau-b left one out, and the normal
intervals over many items against statsmodels, each beside the bootstrap it replaces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.weightstats import DescrStatsW

from judgegrid.analyses.pairwise.verdicts import kappa_with_interval
from judgegrid.analyses.stats import ruling
from judgegrid.analyses.stats.categorical import kappa_interval
from judgegrid.analyses.stats.intervals import mean_interval, tau_interval
from judgegrid.analyses.stats.paired import (
    BOOTSTRAP_DRAWS,
    NORMAL_ABOVE,
    bootstrap_counts,
    bootstrap_draws,
    bootstrap_statistic,
    consensus_tau_jackknife,
    consensus_tau_statistic,
    draw_chunks,
    leave_one_out_tau_b,
    mcnemar_exact,
    mean_statistic,
    paired_binary,
    paired_bootstrap,
    weighted_tau_b,
)
from judgegrid.analyses.stats.ruling import Evidence


def _quadratic_tau_b(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """tau-b of the items taken w times each, by its definition over every two items (the
    O(n²) way the card used before)."""
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    s = w @ sign @ w
    untied_x = w.sum() ** 2 - w @ (x[:, None] == x[None, :]) @ w
    untied_y = w.sum() ** 2 - w @ (y[:, None] == y[None, :]) @ w
    with np.errstate(invalid="ignore"):  # two draws of one item: no pair, no tau-b
        return float(s / np.sqrt(untied_x * untied_y))


def _ratings(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if kind == "ties":  # coarse scales: many ties in each and in both
        return rng.integers(0, 4, n).astype(float), rng.integers(0, 5, n) / 4
    x = rng.random(n)
    return x, x + rng.normal(0, 0.5, n)


@pytest.mark.parametrize("kind", ["ties", "continuous"])
@pytest.mark.parametrize("n", [2, 7, 60, 257])
def test_knights_weighted_tau_b_is_the_quadratic_form_and_scipys_on_the_drawn_items(kind, n):
    rng = np.random.default_rng(n)
    x, y = _ratings(kind, n, rng)
    draws = bootstrap_draws(n, seed=3, draws=12)
    counts = np.stack([np.bincount(d, minlength=n) for d in draws])
    ours = weighted_tau_b(x, y, counts, chunk=5)
    for d, items in enumerate(draws):
        expected = _quadratic_tau_b(x, y, counts[d].astype(float))
        assert ours[d] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        if np.ptp(x[items]) > 0 and np.ptp(y[items]) > 0:
            assert ours[d] == pytest.approx(stats.kendalltau(x[items], y[items]).statistic)


def test_knights_tau_b_on_every_item_once_is_scipys():
    rng = np.random.default_rng(0)
    x, y = _ratings("ties", 3000, rng)
    ours = weighted_tau_b(x, y, np.ones((1, 3000), dtype=int))[0]
    assert ours == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_a_constant_rating_has_no_tau_b():
    ours = weighted_tau_b(np.ones(10), np.arange(10.0), np.ones((1, 10), dtype=int))
    assert np.isnan(ours[0])


@pytest.mark.parametrize("n", [3, 101, 5000])
def test_draws_in_chunks_are_the_draws_made_at_once(n):
    whole = bootstrap_draws(n, seed=4)
    assert np.array_equal(np.concatenate(list(draw_chunks(n, seed=4, chunk=77))), whole)
    counts = bootstrap_counts(n, 4)
    assert counts.shape == (BOOTSTRAP_DRAWS, n)
    assert np.array_equal(counts, np.stack([np.bincount(d, minlength=n) for d in whole]))
    assert not counts.flags.writeable  # shared between statistics: nobody may change it


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(1).integers(0, 2, (400, 3)).astype(float),  # right or wrong
        np.random.default_rng(2).integers(0, 3, (401, 1)) / 2,  # half credit, win/tie/loss
        np.random.default_rng(3).normal(size=(50, 2)),  # no halves: the indexed draws
    ],
)
def test_a_bootstrapped_mean_is_the_mean_of_the_drawn_items_bit_for_bit(values):
    point, drawn = bootstrap_statistic(values, None, mean_statistic, seed=9)
    expected = values[bootstrap_draws(len(values), 9)].mean(axis=1)
    assert np.array_equal(drawn, expected)
    assert np.array_equal(point, values.mean(axis=0))


@pytest.mark.parametrize("n", [5, 40, 333])
def test_tau_b_left_one_out_is_scipys_on_the_rest(n):
    rng = np.random.default_rng(n)
    x, y = _ratings("ties", n, rng)
    full, left = leave_one_out_tau_b(x, y)
    assert full == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    for i in range(n):
        rest = stats.kendalltau(np.delete(x, i), np.delete(y, i)).statistic
        assert left[i] == pytest.approx(rest, abs=1e-12, nan_ok=True)


def _judges(n: int, seed: int) -> np.ndarray:
    """Four judges' scores on n samples (whole numbers, 0 to 100: the other judges' mean is the
    same float whichever way it is summed), the second closest to the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    noise = np.array([0.5, 0.25, 0.6, 0.8])
    return np.round(100 * (truth[:, None] + rng.normal(0, 1, (n, 4)) * noise))


def test_the_consensus_jackknife_is_scipys_tau_b_left_one_out():
    values = _judges(120, 0)
    others = (
        np.delete(values, [0], axis=1).mean(axis=1),
        np.delete(values, [1], axis=1).mean(axis=1),
    )
    left = np.array(
        [
            stats.kendalltau(np.delete(values[:, 0], i), np.delete(others[0], i)).statistic
            - stats.kendalltau(np.delete(values[:, 1], i), np.delete(others[1], i)).statistic
            for i in range(120)
        ]
    )
    se = np.sqrt(119 / 120 * ((left - left.mean()) ** 2).sum())
    diff = (
        stats.kendalltau(values[:, 0], others[0]).statistic
        - stats.kendalltau(values[:, 1], others[1]).statistic
    )
    ours = consensus_tau_jackknife(values, 0, 1)
    assert ours.diff == pytest.approx(diff, abs=1e-12)
    assert ours.low == pytest.approx(diff - stats.norm.ppf(0.975) * se, abs=1e-12)
    assert ours.upper_one_sided == pytest.approx(diff + stats.norm.ppf(0.95) * se, abs=1e-12)
    assert ours.p_value == pytest.approx(2 * stats.norm.sf(abs(diff) / se), abs=1e-12)


def test_the_consensus_jackknife_agrees_with_the_paired_bootstrap():
    values = _judges(1500, 1)
    jack = consensus_tau_jackknife(values, 1, 0)
    boot = paired_bootstrap(values, None, consensus_tau_statistic, 1, 0, draws=400)
    assert jack.diff == pytest.approx(boot.diff)
    assert jack.low == pytest.approx(boot.low, abs=0.01)
    assert jack.high == pytest.approx(boot.high, abs=0.01)
    assert jack.p_value < 0.05 and boot.p_value < 0.05


def _consensus(values: np.ndarray) -> Evidence:
    return Evidence(
        basis="other judges",
        measure="tau-b",
        unit="samples",
        chance=0.0,
        judges=("a", "b", "c", "d"),
        values=values,
        target=None,
        statistic=consensus_tau_statistic,
        binary=False,
        interval=tau_interval,
        joint=True,
        jackknife=consensus_tau_jackknife,
    )


@pytest.mark.parametrize("n, test", [(60, "paired bootstrap"), (61, "jackknife")])
def test_the_consensus_rung_switches_to_the_jackknife_above_its_size(monkeypatch, n, test):
    monkeypatch.setattr(ruling, "JACKKNIFE_ABOVE", 60)
    found = ruling.rule(_consensus(_judges(n, 2)))
    assert found.top is not None and found.others
    assert all(d.test.startswith(test) for _, d, _ in found.others)
    assert all(d.n == n for _, d, _ in found.others)


def _credit(n: int, seed: int) -> np.ndarray:
    """Half credit a pair: 1, 0.5 or 0."""
    return np.random.default_rng(seed).choice([0.0, 0.5, 1.0], size=n, p=[0.3, 0.1, 0.6])


def test_a_mean_over_many_items_takes_statsmodels_normal_interval():
    values = _credit(NORMAL_ABOVE + 1, 0)
    low, high = mean_interval(values)
    assert (low, high) == pytest.approx(DescrStatsW(values).zconfint_mean(0.05), abs=1e-12)


def test_a_mean_up_to_the_switch_keeps_its_percentile_bootstrap():
    values = _credit(NORMAL_ABOVE, 1)
    drawn = values[bootstrap_draws(len(values), 0)].mean(axis=1)
    assert mean_interval(values) == pytest.approx(tuple(np.percentile(drawn, [2.5, 97.5])))


def test_a_paired_mean_difference_over_many_items_is_statsmodels_z_interval():
    rng = np.random.default_rng(2)
    right = (rng.random((NORMAL_ABOVE + 1, 2)) < [0.7, 0.65]).astype(float)
    ours = paired_binary(right, 0, 1)
    d = DescrStatsW(right[:, 0] - right[:, 1])
    assert (ours.low, ours.high) == pytest.approx(d.zconfint_mean(0.05), abs=1e-12)
    lower, upper = d.zconfint_mean(0.10)  # the one-sided 95% bounds
    assert (ours.lower_one_sided, ours.upper_one_sided) == pytest.approx((lower, upper), abs=1e-12)
    assert ours.p_value == pytest.approx(mcnemar_exact(right[:, 0], right[:, 1]))
    assert "normal interval" in ours.test
    below = paired_binary(right[:NORMAL_ABOVE], 0, 1)
    assert below.test == "exact McNemar"  # the bootstrap's interval, as before


@pytest.mark.parametrize("n", [NORMAL_ABOVE, NORMAL_ABOVE + 1])
def test_kappa_of_a_pairwise_judge_with_people_on_both_sides_of_the_switch(n):
    rng = np.random.default_rng(3)
    people = rng.choice(["a", "b", "tie"], size=n, p=[0.45, 0.45, 0.1])
    judge = np.where(rng.random(n) < 0.6, people, rng.choice(["a", "b", "tie"], size=n))
    kappa, low, high = kappa_with_interval(pd.Series(judge), pd.Series(people))
    codes = [{"a": 0, "b": 1, "tie": 2}[w] for w in np.r_[judge, people]]
    table = np.bincount(np.array(codes[:n]) * 3 + codes[n:], minlength=9).reshape(3, 3)
    expected = cohens_kappa(table)
    assert kappa == pytest.approx(expected.kappa, abs=1e-12)
    if n > NORMAL_ABOVE:  # statsmodels' asymptotic interval
        assert (low, high) == pytest.approx((expected.kappa_low, expected.kappa_upp), abs=1e-12)
    else:  # the bootstrap's: near it, never it
        assert (low, high) == pytest.approx((expected.kappa_low, expected.kappa_upp), abs=0.01)
        assert (low, high) != pytest.approx((expected.kappa_low, expected.kappa_upp), abs=1e-9)


def test_kappa_interval_between_two_judges_switches_unweighted_only():
    """Two judges' codes (criterion agreement): unweighted kappa over many samples takes
    statsmodels' asymptotic interval; a weighted kappa keeps its bootstrap at any size."""
    rng = np.random.default_rng(4)
    n = NORMAL_ABOVE + 1
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 4, n))
    table = np.column_stack([a, b]).astype(float)
    expected = cohens_kappa(np.bincount(a * 4 + b, minlength=16).reshape(4, 4))
    kappa, low, high = kappa_interval(table, 4)
    assert (kappa, low, high) == pytest.approx(
        (expected.kappa, expected.kappa_low, expected.kappa_upp), abs=1e-12
    )
    weighted = kappa_interval(table[:500], 4, "quadratic")
    expected_weighted = cohens_kappa(
        np.bincount(a[:500] * 4 + b[:500], minlength=16).reshape(4, 4), wt="quadratic"
    )
    assert weighted[0] == pytest.approx(expected_weighted.kappa, abs=1e-12)
    assert weighted[1] != pytest.approx(expected_weighted.kappa_low, abs=1e-9)  # bootstrap


@pytest.mark.parametrize("n, levels", [(40, 4), (3000, 1000)])
def test_the_consensus_tau_on_every_item_is_scipys_and_the_bootstraps(n, levels):
    """On every item once, the statistic is read from the jackknife's cached tau-b: the same
    figure as scipy's tau-b and as the statistic on a draw that takes every item once."""
    rng = np.random.default_rng(n)
    values = rng.integers(0, levels, size=(n, 4)).astype(float)
    others = (values.sum(axis=1, keepdims=True) - values) / 3
    scipy_tau = [stats.kendalltau(values[:, j], others[:, j]).statistic for j in range(4)]
    once = consensus_tau_statistic(values, None, np.arange(n)[None])[0]
    shuffled = consensus_tau_statistic(values, None, rng.permutation(n)[None])[0]
    assert once == pytest.approx(scipy_tau, abs=1e-12)
    assert shuffled == pytest.approx(once, abs=1e-12)  # the general path, same items
