"""Testing by betting (``stats.betting``, Waudby-Smith & Ramdas 2024): checked by simulation,
looking after every draw — the error stays at alpha however often one looks, where a fixed-n
test looked at as often does not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from judgegrid.analyses import draws_to_reject, lower_confidence_sequence
from judgegrid.analyses.stats.betting import FIRST_LOOK, first_rejection, log_capital

ALPHA = 0.05


def test_the_test_keeps_its_error_under_continuous_monitoring():
    """2,000 sequences of 1,000 fair coin flips, null E <= 0.5 true at its boundary, a look
    after every flip: rejections <= alpha (plus 2 binomial SEs). The fixed-n binomial test,
    looked at after every flip from 10 on, rejects far more often."""
    rng = np.random.default_rng(11)
    z = (rng.random((2000, 1000)) < 0.5).astype(float)
    rejected = first_rejection(z, 0.5, 0.0, 1.0, ALPHA) > 0
    assert rejected.mean() <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / 2000)
    sums = np.cumsum(z[:300, :300], axis=1)
    n = np.arange(1, 301)
    p = stats.binom.sf(sums - 1, n, 0.5)  # one-sided exact p after each flip
    assert (p[:, 9:] <= ALPHA).any(axis=1).mean() > 2 * ALPHA


def test_weighted_values_keep_the_error_too():
    """Importance-weighted draws w (right - 0.6) of a population whose accuracy is exactly 0.6:
    the mean is 0 at the null's boundary, the weights skewed 1:6."""
    rng = np.random.default_rng(12)
    hard = np.arange(1000) < 300
    right = np.concatenate([np.arange(300) < 90, np.arange(700) < 510]).astype(float)
    assert right.mean() == pytest.approx(0.6)
    q = np.where(hard, 6.0, 1.0)
    q /= q.sum()
    w = 1 / (1000 * q)
    picked = rng.choice(1000, size=(1500, 800), p=q)
    z = w[picked] * (right[picked] - 0.6)
    bound = w.max()
    rejected = first_rejection(z, 0.0, -0.6 * bound, 0.4 * bound, ALPHA) > 0
    assert rejected.mean() <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / 1500)


def test_the_lower_confidence_sequence_covers_at_every_draw_at_once():
    rng = np.random.default_rng(13)
    truth = 2 / 7  # Beta(2, 5)
    misses = 0
    for _ in range(300):
        lower = lower_confidence_sequence(rng.beta(2, 5, 400), 0.0, 1.0, ALPHA, grid=100)
        misses += bool((lower > truth).any())
        assert (np.diff(lower) >= 0).all()  # a running intersection only tightens
    assert misses / 300 <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / 300)


def test_a_real_difference_is_found_and_the_capital_never_goes_negative():
    rng = np.random.default_rng(14)
    z = (rng.random((200, 300)) < 0.7).astype(float)
    assert (first_rejection(z, 0.5, 0.0, 1.0, ALPHA) > 0).mean() > 0.9
    # it bets big after 30 highs, then every draw is at the low bound: it loses, never all
    worst = log_capital(np.r_[np.ones(30), np.zeros(200)], 0.5, 0.0, 1.0)
    assert np.isfinite(worst).all() and worst[-1] < worst[29] and worst[-1] < 0


def test_the_projection_says_zero_when_rejected_and_infinity_at_the_null():
    rng = np.random.default_rng(15)
    clear = (rng.random((400, 1)) < 0.9).astype(float)
    assert draws_to_reject(clear, [(0.5, 0.0, 1.0, ALPHA)], 100) == 0.0
    flat = np.tile([[0.0], [1.0]], (20, 1))
    assert draws_to_reject(flat, [(0.5, 0.0, 1.0, ALPHA)], 300) == np.inf
    some = np.array([[1.0], [0.0], [1.0], [1.0], [0.0], [1.0], [1.0], [0.0], [1.0], [1.0]])
    assert first_rejection(some[:, 0], 0.5, 0.0, 1.0, ALPHA) == 0  # not yet
    more = draws_to_reject(some, [(0.5, 0.0, 1.0, ALPHA)], 2000, seed=1)
    assert 0 < more < 2000


def _followed_whole(history, tests, horizon, futures=40, seed=0):
    """The projection followed to the horizon in every continuation and test, each test's
    first rejection read with ``first_rejection`` on the continuation's whole path."""
    rows = np.random.default_rng(seed).integers(0, len(history), size=(futures, horizon))
    done = np.zeros(futures)
    for k, (null, low, high, alpha) in enumerate(tests):
        for f in range(futures):
            path = np.r_[history[:, k], history[rows[f], k]]
            bounds = [b if np.ndim(b) == 0 else np.r_[b, b[rows[f]]] for b in (low, high)]
            first = int(first_rejection(path, null, *bounds, alpha))
            done[f] = max(done[f], np.inf if first == 0 else max(first - len(history), 0))
    return float(np.median(done))


def test_the_projection_looks_a_little_ahead_first_and_says_what_the_whole_horizon_says():
    """``draws_to_reject`` follows the continuations ``FIRST_LOOK`` draws before the horizon
    (and leaves a test rejected already, or a median already infinite): its figure is the one
    of every continuation followed to the horizon, draw for draw, whether the tests reject
    within the first look, after it, or never; with bounds per draw and several tests."""
    rng = np.random.default_rng(16)
    seen = set()
    for case in range(24):
        draws = int(rng.integers(5, 120))
        lead = rng.uniform(0.0, 0.35)
        reach = rng.uniform(1.0, 2.5, draws)
        paired = np.where(rng.random(draws) < 0.5 + lead, 1.0, -1.0) * (rng.random(draws) < 0.4)
        chance = (rng.random(draws) < 0.5 + lead).astype(float) - 0.5
        history = np.column_stack([paired * reach, chance])
        tests = [(-0.02 * (case % 2), -reach, reach, ALPHA / 3), (0.0, -0.5, 0.5, ALPHA / 3)]
        more = draws_to_reject(history, tests, 2000, seed=case)
        assert more == _followed_whole(history, tests, 2000, seed=case)
        seen.add("never" if np.isinf(more) else "soon" if more <= FIRST_LOOK else "later")
    assert seen == {"never", "soon", "later"}
