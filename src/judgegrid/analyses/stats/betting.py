"""Tests and confidence sequences that stay valid however often one looks: testing by betting
(Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables by betting", JRSS-B;
Shafer's and Ville's game-theoretic probability).

To test ``H0: E[z] <= m`` on independent draws ``z_i`` in ``[low, high]``, a gambler starts
with capital 1 and bets a share ``lambda_i >= 0``, fixed before draw ``i`` is seen, that ``z_i``
exceeds ``m``: ``K_t = prod (1 + lambda_i (z_i - m))``. Under ``H0`` the capital is a
nonnegative supermartingale, so by Ville's inequality it ever reaches ``1 / alpha`` with
probability at most ``alpha``: looking after every draw and stopping at the first crossing
keeps the error at ``alpha``. The bet is aGRAPA (the paper's section 5.2): the Kelly bet of the
draws so far, ``(mu - m) / (sigma^2 + (mu - m)^2)``, clipped to ``[0, c / (m - low)]``
so that the capital stays positive. The draws may be weighted (``stats.weighted``), as long as
the weights are bounded: the bounds are those of the weighted values. The bounds may differ from
draw to draw (an adaptive queue, ``decision.adaptive``, whose design, and so its largest weight,
changes as labels come): each draw's bounds must be known before it is drawn, and the bet on it
is clipped by its own, which keeps the capital positive and the bet predictable.

A one-sided confidence sequence for the mean is the set of ``m`` no test has rejected yet
(``lower_confidence_sequence``). ``draws_to_reject`` projects how many more draws the tests
need if the present draws are what the rest will look like (a bootstrap of the future).

Missing data: none; the caller passes the draws it has.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BET_CAP = 0.5  # c: the capital never loses more than half on one draw
FIRST_LOOK = 500  # future draws ``draws_to_reject`` follows before it looks to the horizon


Bound = float | np.ndarray  # one bound for every draw, or each draw's own (last axis)


def log_capital(z: np.ndarray, null: float, low: Bound, high: Bound) -> np.ndarray:
    """``log K_t`` after each draw (last axis) of the bettor against ``E[z] <= null``; any
    leading axes are independent sequences. ``low`` and ``high``: the draws' bounds, one for
    all or one per draw (each known before its draw)."""
    z = np.asarray(z, float)
    low_at = np.broadcast_to(np.asarray(low, float), z.shape)
    high_at = np.broadcast_to(np.asarray(high, float), z.shape)
    if z.size and (np.any(z < low_at - 1e-12) or np.any(z > high_at + 1e-12)):
        raise ValueError(f"z: expected every draw in its bounds [{low}, {high}]")
    if z.size == 0:
        return z.copy()
    if np.all(null >= high_at):
        return np.full(z.shape, -np.inf)
    if not np.all((low_at < null) & (null < high_at)):
        return np.zeros(z.shape)  # the null sits on a bound: nothing to bet on
    t = np.arange(1, z.shape[-1] + 1)
    sums = np.cumsum(z, axis=-1)
    # predictable mean and variance: one pseudo-draw at the null, then the draws before i
    mean = (null + sums) / (t + 1)
    before = np.concatenate([np.full((*z.shape[:-1], 1), null), mean[..., :-1]], axis=-1)
    # the prior spread: the first draw's range (known before any draw)
    prior = ((high_at[..., :1] - low_at[..., :1]) / 4) ** 2
    var = (prior + np.cumsum((z - before) ** 2, axis=-1)) / (t + 1)
    var_before = np.concatenate([prior, var[..., :-1]], axis=-1)
    edge = before - null
    bet = np.clip(edge / (var_before + edge**2), 0.0, BET_CAP / (null - low_at))
    return np.cumsum(np.log1p(bet * (z - null)), axis=-1)


def first_rejection(
    z: np.ndarray, null: float, low: Bound, high: Bound, alpha: float
) -> np.ndarray:
    """The number of draws at which the test of ``E[z] <= null`` first rejects at ``alpha``
    (per sequence on the leading axes; 0 where it never does within the draws)."""
    crossed = log_capital(z, null, low, high) >= np.log(1 / alpha)
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1) + 1, 0)


def lower_confidence_sequence(
    z: np.ndarray, low: float, high: float, alpha: float, grid: int = 400
) -> np.ndarray:
    """After each draw, a lower bound of ``E[z]`` valid at every draw at once: the largest
    ``m`` on a grid whose test has rejected by then (``low`` before any has)."""
    means = np.linspace(low, high, grid + 2)[1:-1]
    capital = np.stack([log_capital(z, m, low, high) for m in means])
    rejected = np.maximum.accumulate(capital >= np.log(1 / alpha), axis=1)
    bound = np.where(rejected, means[:, None], low)
    return np.asarray(bound.max(axis=0))


def draws_to_reject(
    history: np.ndarray,
    tests: Sequence[tuple[float, Bound, Bound, float]],
    horizon: int,
    futures: int = 40,
    seed: int = 0,
) -> float:
    """How many more draws until every test rejects, if the draws to come are like the draws so
    far: ``history`` is draws x tests (one row a draw, each test's value on it), ``tests`` each
    (null, low, high, alpha), the bounds one for all draws or one per draw of the history (a
    future draw then takes the bounds of the draw it repeats). The median over ``futures``
    bootstrap continuations of up to ``horizon`` draws; ``inf`` where most never get there.

    The continuations are followed ``FIRST_LOOK`` draws first, and to the horizon only where
    no more than half of them have got there by then: a capital's path up to a draw is computed
    alike however far it goes on (running sums), so the median is the same, in a fraction of the
    time where the tests reject soon (the labelling page asks it after every answer)."""
    history = np.asarray(history, float)
    if history.ndim != 2 or history.shape[1] != len(tests) or len(history) == 0:
        raise ValueError("history: expected draws x tests, with at least one draw")
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(history), size=(futures, horizon))
    for ahead in sorted({min(FIRST_LOOK, horizon), horizon}):
        done = _draws_until_all_reject(history, tests, rows[:, :ahead])
        if ahead == horizon or _median_known(done):
            break
    return float(np.median(done))


def _draws_until_all_reject(
    history: np.ndarray, tests: Sequence[tuple[float, Bound, Bound, float]], rows: np.ndarray
) -> np.ndarray:
    """Per continuation (a row of ``rows``: the history's draws it repeats), the draws until
    every test has rejected (0: all have by now; inf: not within ``rows``). A test that has
    rejected on the history is 0 in every continuation, and once half of them have not got
    there the median is inf whatever the other tests do: neither is followed further."""
    draws = len(history)
    done = np.zeros(len(rows))
    for k, (null, low, high, alpha) in enumerate(tests):
        if (log_capital(history[:, k], null, low, high) >= np.log(1 / alpha)).any():
            continue
        path = np.concatenate(
            [np.broadcast_to(history[:, k], (len(rows), draws)), history[rows, k]], axis=1
        )
        lows, highs = (_continued(b, rows, draws) for b in (low, high))
        crossed = log_capital(path, null, lows, highs) >= np.log(1 / alpha)
        crossed = np.maximum.accumulate(crossed, axis=1)[:, draws - 1 :]
        # 0 if already rejected now; else the first future draw at which it has
        at = np.where(crossed.any(axis=1), crossed.argmax(axis=1).astype(float), np.inf)
        done = np.maximum(done, at)
        if not _median_known(done):
            break
    return done


def _median_known(done: np.ndarray) -> bool:
    """Whether the median of ``done`` is finite: more than half its values are (the values
    not yet known, past the draws followed, sort after them as inf)."""
    return len(done) == 0 or bool(np.isfinite(np.sort(done)[len(done) // 2]))


def _continued(bound: Bound, rows: np.ndarray, draws: int) -> Bound:
    """A bound along a bootstrap continuation: the history's, then the repeated draws'."""
    if np.ndim(bound) == 0:
        return bound
    every = np.broadcast_to(np.asarray(bound, float), (draws,))
    return np.concatenate([np.broadcast_to(every, (len(rows), draws)), every[rows]], axis=1)
