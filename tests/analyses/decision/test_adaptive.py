"""The adaptive labelling queue (``decision.adaptive``): every sample keeps a probability, the
draws concentrate where the leader and its open rivals disagree once the leader beats chance,
each draw's bounds are the largest weights of its design, and the weighted accuracy stays
unbiased although the design follows the draws (a simulation against the run's own mean)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from judgegrid.analyses import (
    ADAPTIVE_SHARE,
    UNIFORM_SHARE,
    AnytimeVerdict,
    Standing,
    adaptive_probability,
    draw_bounds,
    hansen_hurwitz,
    standing_of,
)
from judgegrid.analyses.decision.adaptive import BINDING_LABELS

N = 200
JUDGES = ("a", "b", "c")


def _answers() -> np.ndarray:
    """Three judges' picks (+1/-1) on 200 pairs: a and b differ on the first 20, a and c on
    samples 20-59, b has no answer on sample 199."""
    answers = np.ones((N, 3))
    answers[:20, 1] = -1
    answers[20:60, 2] = -1
    answers[199, 1] = np.nan
    return answers


def _base() -> np.ndarray:
    base = np.linspace(1, 3, N)
    return base / base.sum()


def test_no_leader_draws_from_the_fixed_design():
    q = adaptive_probability(_base(), _answers(), Standing(None))
    assert q == pytest.approx(_base())


def test_the_probabilities_sum_to_one_and_none_is_zero_in_every_phase():
    for standing in (
        Standing(None),
        Standing(0, False, (1, 2)),
        Standing(0, True, (1, 2)),
        Standing(0, True, (2,)),
        Standing(0, True, ()),
    ):
        q = adaptive_probability(_base(), _answers(), standing)
        assert q.sum() == pytest.approx(1.0)
        assert q.min() >= ADAPTIVE_SHARE / N - 1e-15, standing


def test_once_the_leader_beats_chance_the_draws_go_where_it_and_open_rivals_disagree():
    answers = _answers()
    early = adaptive_probability(_base(), answers, Standing(0, False, (1, 2)))
    clear = adaptive_probability(_base(), answers, Standing(0, True, (1, 2)))
    focus = np.zeros(N, bool)
    focus[:60] = True
    focus[199] = True  # b has no answer there: a and b may differ
    assert early[focus].sum() == pytest.approx(UNIFORM_SHARE * 61 / N + (1 - UNIFORM_SHARE))
    assert clear[focus].sum() == pytest.approx(ADAPTIVE_SHARE * 61 / N + (1 - ADAPTIVE_SHARE))
    assert clear[~focus] == pytest.approx(np.full((~focus).sum(), ADAPTIVE_SHARE / N))
    # b beaten: only where a and c disagree
    only_c = adaptive_probability(_base(), answers, Standing(0, True, (2,)))
    assert only_c[20:60].sum() == pytest.approx(ADAPTIVE_SHARE * 40 / N + 1 - ADAPTIVE_SHARE)
    assert only_c[:20].max() == pytest.approx(ADAPTIVE_SHARE / N)
    # every rival beaten (or none differs): uniform
    assert adaptive_probability(_base(), answers, Standing(0, True, ())) == pytest.approx(
        np.full(N, 1 / N)
    )


def test_the_standing_is_read_from_the_rules_rejections():
    found = AnytimeVerdict(
        None, "b", 30, 0, 12.0, frozenset({("b", None), ("b", "a")}), gaps=((("b", "c"), 0.2),)
    )
    assert standing_of(found, JUDGES) == Standing(1, True, (2,), (0.2,), None, 30)
    assert standing_of(AnytimeVerdict(None, None, 0, 0, np.inf), JUDGES) == Standing(None)


def test_once_the_gaps_can_be_read_the_uniform_share_follows_the_binding_test():
    """From ``BINDING_LABELS`` labels with every open gap above 0 the uniform share is
    ``decision.binding``'s, never below the phase's; before, or with a gap not above 0, the
    phase's."""
    answers = _answers()
    fixed = adaptive_probability(_base(), answers, Standing(0, False, (1, 2)))
    # a barely above chance, far ahead of b and c where they differ: chance binds, uniform
    read = Standing(0, False, (1, 2), (0.4, 0.4), 0.03, BINDING_LABELS)
    assert adaptive_probability(_base(), answers, read) == pytest.approx(np.full(N, 1 / N))
    # c close to a, chance far behind: the phase's 40% uniform, the rest over the focus
    close = Standing(0, False, (1, 2), (0.5, 0.03), 0.4, BINDING_LABELS)
    assert adaptive_probability(_base(), answers, close) == pytest.approx(fixed)
    # chance beaten, a rival open: 5% uniform as before
    clear = Standing(0, True, (1, 2), (0.5, 0.03), None, BINDING_LABELS)
    assert adaptive_probability(_base(), answers, clear).min() == pytest.approx(ADAPTIVE_SHARE / N)
    for unread in (replace(read, labels=BINDING_LABELS - 1), replace(read, gaps=(0.4, -0.01))):
        assert adaptive_probability(_base(), answers, unread) == pytest.approx(fixed)


def test_a_draws_bounds_are_the_largest_weights_overall_and_where_two_judges_differ():
    answers = _answers()
    q = adaptive_probability(_base(), answers, Standing(0, True, (1,)))
    largest, pairs = draw_bounds(q, answers, JUDGES)
    weight = 1 / (N * q)
    assert largest == pytest.approx(1 / ADAPTIVE_SHARE)
    brute = {
        (JUDGES[a], JUDGES[b]): max(
            weight[i]
            for i in range(N)
            if answers[i, a] != answers[i, b]  # NaN is unequal to everything
        )
        for a, b in ((0, 1), (0, 2), (1, 2))
    }
    assert pairs == pytest.approx(brute)
    # a and b differ only in the focus: their bound is the focus's weight, far below 1 / share
    assert pairs[("a", "b")] == pytest.approx(1 / (ADAPTIVE_SHARE + (1 - ADAPTIVE_SHARE) * N / 21))


def test_bad_shares_and_shapes_are_refused():
    with pytest.raises(ValueError, match="share"):
        adaptive_probability(_base(), _answers(), Standing(0, True, (1,)), share=0.0)
    with pytest.raises(ValueError, match="answers"):
        adaptive_probability(_base(), _answers()[:10], Standing(0, True, (1,)))


def test_the_weighted_accuracy_stays_unbiased_when_the_design_follows_the_draws():
    """1,000 queues of 60 draws, the design recomputed before every draw from the draws so far
    (the leader: the best weighted accuracy; clear of chance after 10 draws above 0.6). The
    Hansen-Hurwitz mean, each draw weighted by its own probability, must average to the run's
    accuracy; the plain mean of the same draws does not (it over-samples the disagreements,
    where judge a is wrong more often)."""
    rng = np.random.default_rng(42)
    answers = _answers()
    truth = np.ones(N)
    truth[:60:3] = -1  # a is wrong on a third of its disagreements with b and c
    truth[100:130] = -1  # and on 30 samples where all agree
    right = (np.nan_to_num(answers) == truth[:, None]).astype(float)
    target = right[:, 0].mean()
    weighted, plain = [], []
    for _ in range(1000):
        picked, probability = [], []
        sums = np.zeros(3)
        for t in range(60):
            leader = int(np.argmax(sums)) if t else None
            clear = t >= 10 and sums[leader or 0] / t > 0.6
            q = adaptive_probability(_base(), answers, Standing(leader, clear, (1, 2)))
            i = rng.choice(N, p=q)
            picked.append(i)
            probability.append(q[i])
            sums += right[i] / (N * q[i])
        found = hansen_hurwitz(right[picked, 0], np.array(probability), N, centre=0.5)
        weighted.append(found.mean)
        plain.append(right[picked, 0].mean())
    error = np.mean(weighted) - target
    standard_error = np.std(weighted) / np.sqrt(len(weighted))
    assert abs(error) <= 3 * standard_error and abs(error) <= 0.02, (error, standard_error)
    assert np.mean(plain) - target < -0.04  # what the weights correct (-0.057 here)


def test_a_bet_within_each_draws_own_bounds_is_the_same_bet_where_they_agree():
    """Per-draw bounds equal to one bound give today's capital; a draw beyond its own bound is
    refused; a looser bound on some draws bets less there (the clip is the draw's own)."""
    from judgegrid.analyses.stats.betting import log_capital

    z = np.random.default_rng(3).uniform(-0.2, 1.0, 50)
    same = log_capital(z, 0.0, np.full(50, -1.0), np.full(50, 1.0))
    assert same == pytest.approx(log_capital(z, 0.0, -1.0, 1.0))
    later = np.arange(50) >= 25
    wide = log_capital(z, 0.0, np.where(later, -10.0, -1.0), np.where(later, 10.0, 1.0))
    assert wide[:25] == pytest.approx(same[:25])
    assert wide[-1] < same[-1]
    with pytest.raises(ValueError, match="bounds"):
        log_capital(np.array([0.5, -2.0]), 0.0, np.array([-3.0, -1.0]), 1.0)
