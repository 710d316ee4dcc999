"""The corrected mean by people's standard (``stats.ppi``) against ppi_py, the authors' own
library (Angelopoulos, Duchi & Zrnic), and by simulation: coverage and unbiasedness."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import ppi_py
import pytest
import statsmodels.api as sm
from scipy import optimize
from statsmodels.stats.weightstats import DescrStatsW

from judgegrid.analyses import classical_mean, draw_weights, power_tuning, ppi_mean


def _arrays(seed: int, n: int, big_n: int, bias: float = 0.1, noise: float = 0.5):
    """People's labels on ``n`` samples, a biased noisy judge on them and on ``big_n`` more."""
    rng = np.random.default_rng(seed)
    y_all = rng.normal(0.6, 0.2, big_n + n)
    f_all = y_all + bias + rng.normal(0, noise * 0.2, big_n + n)
    return y_all[:n], f_all[:n], f_all


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
def test_point_and_interval_equal_ppi_py(seed, lam):
    y, f, f_all = _arrays(seed, n=60 + 20 * seed, big_n=1500)
    found = ppi_mean(y, f, f_all, lam=lam, level=0.95)
    point = ppi_py.ppi_mean_pointestimate(y, f, f_all, lam=lam)
    low, high = ppi_py.ppi_mean_ci(y, f, f_all, alpha=0.05, lam=lam)
    assert found.corrected.mean == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
    assert found.corrected.low == pytest.approx(float(np.ravel(low)[0]), abs=1e-9)
    assert found.corrected.high == pytest.approx(float(np.ravel(high)[0]), abs=1e-9)


def _drawn(seed: int, n: int, big_n: int = 1500):
    """``n`` draws with replacement from ``big_n`` samples, the hard third drawn four times as
    often, a judge lenient on the hard ones; each draw's weight ``1 / (N q)``."""
    rng = np.random.default_rng(seed)
    hard = rng.random(big_n) < 1 / 3
    y_all = np.where(hard, rng.uniform(0.0, 0.5, big_n), rng.uniform(0.5, 1.0, big_n))
    f_all = y_all + np.where(hard, 0.3, 0.05) + rng.normal(0, 0.08, big_n)
    q = np.where(hard, 4.0, 1.0)
    q = q / q.sum()
    picks = rng.choice(big_n, n, p=q)
    return y_all[picks], f_all[picks], f_all, draw_weights(list(q[picks]), big_n)


def _survey(values: np.ndarray, w: np.ndarray):
    """statsmodels' weighted mean of ``values`` with its sandwich SE (HC1) and t interval:
    the with-replacement design's ratio mean and its linearised variance, as survey packages
    give it (Lohr, Sampling, ch. 6)."""
    fit = sm.WLS(values, np.ones((len(values), 1)), weights=w).fit(cov_type="HC1", use_t=True)
    low, high = fit.conf_int(alpha=0.05)[0]
    return float(fit.params[0]), float(fit.bse[0]), float(low), float(high)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_form_equals_statsmodels_survey_mean_of_the_gap(seed):
    """Weighted: the corrected mean is the judge's mean over all N plus the weighted mean of
    the gap ``y - lam f`` over the draws, with the sandwich SE and t interval of that weighted
    mean; people's is the weighted mean of ``y``. statsmodels' WLS computes both its own way."""
    y, f, f_all, w = _drawn(seed, n=60 + 40 * seed)
    assert not np.allclose(w, 1.0)
    for lam in (None, 1.0, 0.3):
        found = ppi_mean(y, f, f_all, lam=lam, weights=w)
        mean, se, low, high = _survey(y - found.lam * f, w)
        shift = found.lam * f_all.mean()
        assert found.corrected.mean == pytest.approx(shift + mean, abs=1e-9)
        assert found.corrected.se == pytest.approx(se, abs=1e-9)
        assert found.corrected.low == pytest.approx(shift + low, abs=1e-9)
        assert found.corrected.high == pytest.approx(shift + high, abs=1e-9)
    people = classical_mean(y, w)
    mean, se, low, high = _survey(y, w)
    assert (people.mean, people.se, people.low, people.high) == pytest.approx(
        (mean, se, low, high), abs=1e-9
    )
    assert people.mean == pytest.approx(DescrStatsW(y, weights=w).mean, abs=1e-12)
    assert found.people == people


def test_weighted_tuning_minimises_the_survey_se():
    """The tuned ``lam`` is the one at which statsmodels' SE of the corrected mean is least
    (found by scipy's scalar minimiser over [0, 1]), and the weights' scale does not matter
    (a ratio mean)."""
    y, f, f_all, w = _drawn(9, n=150)
    found = ppi_mean(y, f, f_all, weights=w)
    best = optimize.minimize_scalar(
        lambda lam: _survey(y - lam * f, w)[1],
        bounds=(0, 1),
        method="bounded",
        options={"xatol": 1e-8},
    )
    assert 0 < found.lam < 1
    assert found.lam == pytest.approx(best.x, abs=1e-4)
    assert power_tuning(y, f, f_all, weights=w) == found.lam
    scaled = ppi_mean(y, f, f_all, weights=3.7 * w)
    assert astuple(scaled.corrected) == pytest.approx(astuple(found.corrected), abs=1e-12)
    assert found.effective_labels == pytest.approx(
        150 * (found.people.se / found.corrected.se) ** 2
    )


def test_classical_mean_equals_ppi_py_classical_interval():
    y, _, _ = _arrays(4, n=70, big_n=10)
    found = classical_mean(y)
    low, high = ppi_py.classical_mean_ci(y, alpha=0.05)
    assert found.mean == pytest.approx(y.mean(), abs=1e-12)
    assert (found.low, found.high) == pytest.approx((float(low), float(high)), abs=1e-9)


def test_tuned_lam_is_ppi_pys_and_zero_lam_gives_people_back():
    y, f, f_all = _arrays(7, n=90, big_n=900, noise=2.0)
    found = ppi_mean(y, f, f_all)
    # ppi_py's own tuned interval, re-run at our lam, must be the same interval
    at_ours = ppi_py.ppi_mean_ci(y, f, f_all, alpha=0.05, lam=found.lam)
    at_theirs = ppi_py.ppi_mean_ci(y, f, f_all, alpha=0.05)
    assert np.ravel(at_theirs) == pytest.approx(np.ravel(at_ours), abs=1e-9)
    assert 0 < found.lam < 1
    zero = ppi_mean(y, f, f_all, lam=0.0)
    assert zero.corrected.mean == pytest.approx(zero.people.mean, abs=1e-12)
    assert zero.corrected.se == pytest.approx(zero.people.se, abs=1e-12)
    assert zero.effective_labels == pytest.approx(90)


def test_a_good_judge_is_worth_more_labels_and_a_useless_one_none():
    rng = np.random.default_rng(2)
    y_all = rng.normal(0.5, 0.2, 2100)
    good = y_all + 0.2 + rng.normal(0, 0.05, 2100)  # biased, but tracks people closely
    useless = rng.normal(0.9, 0.2, 2100)  # says nothing about people
    sharp = ppi_mean(y_all[:100], good[:100], good)
    flat = ppi_mean(y_all[:100], useless[:100], useless)
    assert sharp.effective_labels > 500
    assert sharp.corrected.high - sharp.corrected.low < sharp.people.high - sharp.people.low
    assert flat.lam < 0.3
    assert flat.effective_labels == pytest.approx(100, rel=0.15)
    assert abs(good.mean() - sharp.corrected.mean) > 0.15  # the bias shown, then removed


def test_a_judge_with_one_score_everywhere_carries_nothing():
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    assert power_tuning(y, np.ones(5), np.ones(50)) == 0.0
    found = ppi_mean(y, np.ones(5), np.ones(50))
    assert found.corrected.mean == pytest.approx(y.mean())


def test_draw_weights_count_an_unknown_probability_as_uniform():
    w = draw_weights([None, 0.01, 0.002], population=100)
    assert w == pytest.approx([1.0, 1.0, 5.0])
    with pytest.raises(ValueError, match="probabilities"):
        draw_weights([0.0], population=100)


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="labels: NaN"):
        ppi_mean(np.array([1.0, np.nan]), np.ones(2), np.ones(4))
    with pytest.raises(ValueError, match="judge_on_labelled"):
        ppi_mean(np.ones(3), np.ones(2), np.ones(4))
    with pytest.raises(ValueError, match="weights"):
        ppi_mean(np.ones(3), np.ones(3), np.ones(4), weights=np.array([1.0, 0.0, 1.0]))


def test_one_label_gives_no_interval():
    found = ppi_mean(np.array([1.0]), np.array([0.8]), np.full(10, 0.8))
    assert np.isnan(found.corrected.low)
    assert found.unlabelled == 10


def test_intervals_cover_by_simulation_on_binary_verdicts():
    """A lenient pass/fail judge (says pass on 40% of people's fails), 100 labels of 2,000:
    95% intervals of the pass rate cover the truth in 92-97% of 2,000 data sets (measured at
    93.7% over 8,000: a normal interval on 0/1 values runs a little under its level), and are
    narrower than labels alone."""
    rng = np.random.default_rng(20261128)
    truth, big_n, n, runs = 0.6, 2000, 100, 2000
    covered, narrower = 0, 0
    for _ in range(runs):
        y = (rng.random(big_n) < truth).astype(float)
        f = np.where(y == 1, rng.random(big_n) < 0.95, rng.random(big_n) < 0.4).astype(float)
        picked = np.zeros(big_n, bool)
        picked[rng.choice(big_n, n, replace=False)] = True
        found = ppi_mean(y[picked], f[picked], f[~picked])
        covered += found.corrected.low <= truth <= found.corrected.high
        narrower += found.corrected.se < found.people.se
    assert 0.92 <= covered / runs <= 0.97
    assert narrower / runs >= 0.95


def test_weighted_draws_are_unbiased_and_cover_over_all_samples():
    """Labels drawn with replacement, hard samples 5 times as often: unweighted, the corrected
    mean is off; weighted by 1 / (N q) it centres on the mean over all N and covers it."""
    rng = np.random.default_rng(5)
    big_n, n = 1000, 150
    hard = rng.random(big_n) < 0.3
    y = np.where(hard, rng.random(big_n) < 0.3, rng.random(big_n) < 0.9).astype(float)
    f = np.clip(y + rng.normal(0.15, 0.3, big_n), 0, 1)
    q = np.where(hard, 5.0, 1.0)
    q = q / q.sum()
    truth = y.mean()
    weighted, plain, covered = [], [], 0
    for _ in range(1000):
        picks = rng.choice(big_n, n, p=q)
        found = ppi_mean(y[picks], f[picks], f, weights=draw_weights(list(q[picks]), big_n))
        weighted.append(found.corrected.mean - truth)
        plain.append(ppi_mean(y[picks], f[picks], f).corrected.mean - truth)
        covered += found.corrected.low <= truth <= found.corrected.high
    assert abs(np.mean(weighted)) < 0.005
    assert np.mean(plain) < -0.05  # the hard samples' many fails, counted as if typical
    assert covered >= 930
