"""The weighted figures of a judge against people (``stats.weighted``): each equals the library's
unweighted statistic on the data replicated by whole weights (scipy's Spearman and Kendall,
sklearn's Cohen's kappa with ``sample_weight``, statsmodels' WLS sandwich for the share's
variance), and the weighted rho's interval covers the population's rho under a queue's biased
with-replacement design (simulation)."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from judgegrid.analyses.stats.categorical import cohen_kappa, pass_fail_kappa
from judgegrid.analyses.stats.paired import bootstrap_statistic, weighted_tau_b
from judgegrid.analyses.stats.weighted import (
    fisher_size,
    kish_size,
    share_size,
    weighted_mean_statistic,
    weighted_rank_correlation,
    weighted_ranks,
    weighted_share,
    weighted_spearman,
    weighted_spearman_statistic,
)


def _tied_data(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratings and labels with many ties, and whole weights 1 to 4."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n).astype(float) / 4
    y = np.clip(x + rng.normal(0, 0.3, n), 0, 1).round(1)
    return x, y, rng.integers(1, 5, n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_spearman_is_scipys_rho_of_the_replicated_data(seed):
    x, y, w = _tied_data(seed)
    expected = stats.spearmanr(np.repeat(x, w), np.repeat(y, w)).statistic
    assert weighted_spearman(x, y, w.astype(float))[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_tau_b_is_scipys_tau_b_of_the_replicated_data(seed):
    x, y, w = _tied_data(seed)
    expected = stats.kendalltau(np.repeat(x, w), np.repeat(y, w), variant="b").statistic
    assert weighted_tau_b(x, y, w[None, :].astype(float))[0] == pytest.approx(expected, abs=1e-12)


def test_weighted_ranks_are_the_replicated_mid_ranks():
    x, _, w = _tied_data(3)
    ranks = stats.rankdata(np.repeat(x, w))
    first = np.r_[0, np.cumsum(w)[:-1]]  # each item's first copy in the replicated data
    assert weighted_ranks(x, w.astype(float))[0] == pytest.approx(ranks[first] - 0.5)


def test_weighted_kappa_is_sklearns_with_sample_weight():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 60).astype(float)
    b = np.where(rng.random(60) < 0.6, a, rng.integers(0, 4, 60)).astype(float)
    w = rng.uniform(0.2, 3.0, 60)
    for kind, name in ((None, None), ("linear", "linear"), ("quadratic", "quadratic")):
        expected = cohen_kappa_score(a, b, weights=name, sample_weight=w)
        assert cohen_kappa(a, b, 4, kind, unit_weights=w) == pytest.approx(expected, abs=1e-12)
    passed, human = a >= 2, b >= 2
    expected = cohen_kappa_score(passed, human, sample_weight=w)
    assert pass_fail_kappa(passed, human, w)[0] == pytest.approx(expected, abs=1e-12)


def test_weighted_share_and_its_size_match_statsmodels():
    """The share is DescrStatsW's weighted mean; the effective size gives the Wilson interval
    the WLS sandwich's variance: p (1 - p) / size = bse^2 (HC1)."""
    rng = np.random.default_rng(6)
    right = (rng.random(90) < 0.75).astype(float)
    w = rng.uniform(0.3, 2.5, 90)
    fit = sm.WLS(right, np.ones((90, 1)), weights=w).fit(cov_type="HC1")
    p = weighted_share(right, w)
    assert p == pytest.approx(sm.stats.DescrStatsW(right, weights=w).mean, rel=1e-12)
    assert p * (1 - p) / share_size(right, w) == pytest.approx(fit.bse[0] ** 2, rel=1e-10)


def test_an_all_right_share_takes_kishs_size():
    w = np.array([1.0, 2.0, 3.0, 4.0])
    assert share_size(np.ones(4), w) == pytest.approx(kish_size(w)) == pytest.approx(100 / 30)


def test_the_paired_rules_weighted_statistics_read_the_drawn_items():
    """On a draw that takes every item once, the statistics are the figures themselves; on a
    draw with repeats, the figures of the data replicated by those repeats."""
    x, y, w = _tied_data(7, 30)
    values = np.column_stack([x, 1 - x])
    draws = np.r_[np.arange(30), np.arange(5)][None, :]  # the first five items twice
    counts = np.r_[np.full(5, 2), np.ones(25)] * w
    spear = weighted_spearman_statistic(w.astype(float))(values, y, draws)[0]
    assert spear[0] == pytest.approx(weighted_spearman(x, y, counts)[0], abs=1e-12)
    assert spear[1] == pytest.approx(-spear[0], abs=1e-12)
    right = (x >= 0.5).astype(float)[:, None]
    share = weighted_mean_statistic(w.astype(float))(right, None, draws)[0, 0]
    assert share == pytest.approx(weighted_share(right[:, 0], counts))


def test_fisher_size_gives_the_bootstraps_spread_on_the_z_scale():
    x, y, w = _tied_data(8, 80)
    column = x[:, None]
    point, drawn = bootstrap_statistic(column, y, weighted_spearman_statistic(w.astype(float)))
    size = fisher_size(float(point[0]), drawn[:, 0], 1 + point[0] ** 2 / 2, 3)
    spread = np.arctanh(drawn[:, 0]).std(ddof=1)
    assert np.sqrt((1 + point[0] ** 2 / 2) / (size - 3)) == pytest.approx(spread, rel=1e-9)


def _population(rng: np.random.Generator, n: int = 1000):
    """Ratings and labels of a run's samples, and a queue's design that draws the samples where
    the rating and label are far apart four times as often."""
    label = rng.random(n)
    rating = np.clip(label + rng.normal(0, 0.25, n), 0, 1)
    hard = np.abs(rating - label) > 0.2
    q = np.where(hard, 4.0, 1.0)
    return rating, label, q / q.sum()


def test_the_weighted_rhos_interval_covers_the_populations_rho_under_a_biased_queue():
    """200 queues of 150 draws (with replacement) from one population: the weighted rho's 95%
    interval holds the population's rho at least 90% of the time (Monte-Carlo SE 1.5 points),
    its mean error is small, and the unweighted rho of the same draws is visibly off."""
    rng = np.random.default_rng(11)
    rating, label, q = _population(rng)
    truth = stats.spearmanr(rating, label).statistic
    found, plain = [], []
    for _ in range(200):
        drawn = rng.choice(len(q), 150, p=q)
        ids, counts = np.unique(drawn, return_counts=True)
        w = counts / (len(q) * q[ids])
        rho, low, high, _ = weighted_rank_correlation(rating[ids], label[ids], w, "spearman")
        found.append((rho, low <= truth <= high))
        plain.append(stats.spearmanr(rating[drawn], label[drawn]).statistic)
    rhos, covered = np.array(found).T
    assert covered.mean() >= 0.90
    assert abs(rhos.mean() - truth) < 0.02
    assert np.mean(plain) - truth < -0.05  # the queue's pick of hard samples drags rho down
