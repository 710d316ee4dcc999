"""Paired comparisons of judges on the same items: the tests behind every "best" the tool names.

Two judges scored on the same samples (or pairs) are compared on those items, not each with
chance: their estimates share the items' luck, and a paired test removes it.

- ``mcnemar_exact``: paired binary outcomes (a pair right or wrong for each judge): the exact
  two-sided McNemar test, a binomial test of the discordant items at one half.
- ``paired_bootstrap``: any per-judge statistic (Spearman's rho with people, tau-b with the
  other judges, an accuracy): the percentile bootstrap of the difference, items resampled with
  replacement and the same draw used for both judges; its two-sided p-value is twice the
  smaller tail of the bootstrap distribution at 0, and its one-sided lower bound is what a
  non-inferiority margin is read against.
- ``holm``: Holm's step-down adjustment, for the best judge compared with each of the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from scipy import stats

BOOTSTRAP_DRAWS = 2000
ALPHA = 0.05
# draws made (and their statistic computed) at a time: chunk x items indices in memory, not
# draws x items (2,000 x 100,000 pairs is 1.6 GB of indices, more for what indexes them)
DRAW_CHUNK = 100
# items above which the card's consensus rung compares judges by the jackknife rather than
# the bootstrap: 2,000 draws of a tau-b over 10,000 items took minutes even in O(n log n)
JACKKNIFE_ABOVE = 5000
JACKKNIFE_TEST = f"jackknife, normal interval (over {JACKKNIFE_ABOVE:,} items)"
# items above which a mean (an accuracy, half credit, a win rate) and Cohen's kappa take the
# normal interval of their standard error instead of 2,000 bootstrap draws: at 100,000 pairs
# the draws alone took longer than the whole report may
NORMAL_ABOVE = 20_000
NORMAL_WORDS = f"normal interval (over {NORMAL_ABOVE:,} items)"

# (values: items x judges, target: items or None, draws: draws x items, the indices of the items
# each draw takes) -> per-judge statistic: draws x judges. The statistic indexes the items itself,
# so one that needs only how often each item was drawn (tau-b) never builds draws x items² arrays.
Statistic = Callable[[np.ndarray, np.ndarray | None, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class PairedDifference:
    """The first judge minus the second on their shared items."""

    diff: float
    low: float  # two-sided 95%
    high: float
    lower_one_sided: float  # one-sided 95% bounds (non-inferiority)
    upper_one_sided: float
    p_value: float  # two-sided, uncorrected
    n: int
    test: str


def mcnemar_exact(a_right: np.ndarray, b_right: np.ndarray) -> float:
    """Two-sided exact McNemar p-value of paired binary outcomes (1 when no item is discordant)."""
    a, b = np.asarray(a_right, bool), np.asarray(b_right, bool)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    if only_a + only_b == 0:
        return 1.0
    tail = stats.binom.cdf(min(only_a, only_b), only_a + only_b, 0.5)
    return float(min(1.0, 2 * tail))


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error at the same level)."""
    p = np.asarray(p_values, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def bootstrap_draws(n: int, seed: int, draws: int = BOOTSTRAP_DRAWS) -> np.ndarray:
    """Item indices of each bootstrap draw (draws x n), reproducible by seed."""
    return np.random.default_rng(seed).integers(0, n, size=(draws, n))


def draw_chunks(
    n: int, seed: int, draws: int = BOOTSTRAP_DRAWS, chunk: int = DRAW_CHUNK
) -> Iterator[np.ndarray]:
    """``bootstrap_draws``' rows, ``chunk`` draws at a time from the one generator: the very
    same indices (numpy's generator fills row after row), a chunk of them in memory at once."""
    rng = np.random.default_rng(seed)
    for start in range(0, draws, chunk):
        yield rng.integers(0, n, size=(min(chunk, draws - start), n))


@lru_cache(maxsize=2)
def bootstrap_counts(n: int, seed: int, draws: int = BOOTSTRAP_DRAWS) -> np.ndarray:
    """How often each draw of ``bootstrap_draws`` takes each item (draws x n), counted chunk by
    chunk and kept (read-only): a report bootstraps many statistics over the same n items with
    the same seed (each judge's accuracy, half credit, kappa, win rate), and they share the
    draws. float32: the counts are whole numbers, exact, at half float64's memory."""
    out = np.empty((draws, n), np.float32)
    start = 0
    for chunk in draw_chunks(n, seed, draws):
        out[start : start + len(chunk)] = _draw_counts(chunk, n)
        start += len(chunk)
    out.flags.writeable = False
    return out


def paired_bootstrap(
    values: np.ndarray,
    target: np.ndarray | None,
    statistic: Statistic,
    first: int,
    second: int,
    seed: int = 0,
    draws: int = BOOTSTRAP_DRAWS,
) -> PairedDifference:
    """statistic[first] - statistic[second] over items (rows of ``values``), its percentile
    interval and p-value from one set of resampled items shared by both judges. Every row must
    be complete for the judges the statistic reads (the caller drops the others)."""
    if statistic is mean_statistic and len(values) > NORMAL_ABOVE:
        return normal_difference(values[:, first] - values[:, second])
    point, drawn = bootstrap_statistic(values, target, statistic, seed, draws)
    return difference(point, drawn, first, second, len(values))


def normal_difference(d: np.ndarray) -> PairedDifference:
    """The mean of paired differences with its normal (z) intervals and p-value, from their
    standard error: ``paired_bootstrap`` of a mean over more than ``NORMAL_ABOVE`` items."""
    return normal_from_se(
        float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))), len(d), NORMAL_WORDS
    )


def normal_from_se(diff: float, se: float, n: int, test: str) -> PairedDifference:
    """A difference with its two-sided 95% and one-sided 95% normal bounds and two-sided
    p-value from its standard error (the jackknife's, or a mean's)."""
    two, one = stats.norm.ppf(1 - ALPHA / 2), stats.norm.ppf(1 - ALPHA)
    p = float(2 * stats.norm.sf(abs(diff) / se)) if se > 0 else float(diff == 0)
    low, high, lower, upper = (float(diff + z * se) for z in (-two, two, -one, one))
    return PairedDifference(diff, low, high, lower, upper, p, n, test)


def on_all_items(statistic: Statistic, values: np.ndarray, target: np.ndarray | None) -> np.ndarray:
    """The statistic's point estimate per judge: every item once."""
    return statistic(values, target, np.arange(len(values))[None])[0]


def bootstrap_statistic(
    values: np.ndarray,
    target: np.ndarray | None,
    statistic: Statistic,
    seed: int = 0,
    draws: int = BOOTSTRAP_DRAWS,
) -> tuple[np.ndarray, np.ndarray]:
    """Every judge's statistic on all items (judges) and on each bootstrap draw (draws x
    judges): computed once, every pair of judges can be compared on the same draws."""
    n = len(values)
    point = on_all_items(statistic, values, target)
    if n < 3:
        return point, np.empty((0, len(point)))
    if statistic is mean_statistic and _sums_exactly(values):
        # a draw's mean is its counts times the values over n: the same floats as the mean of
        # the indexed values, since these sums are exact in any order
        counts = bootstrap_counts(n, seed, draws)
        return point, (counts @ values.astype(np.float32)).astype(float) / n
    chunks = [statistic(values, target, drawn) for drawn in draw_chunks(n, seed, draws)]
    return point, np.concatenate(chunks)


def _sums_exactly(values: np.ndarray) -> bool:
    """Whether every value is a whole number of halves (right or wrong, half credit, a win, tie
    or loss) and every draw's sum stays below 2**24 halves: then float32 sums them exactly, in
    any order, and a mean from the draws' counts is bit for bit the mean of the drawn values."""
    halves = np.asarray(values, float) * 2
    if not np.isfinite(halves).all() or (halves != np.round(halves)).any():
        return False
    return bool(len(halves) * np.abs(halves).max(initial=0) < 2**24)


def difference(
    point: np.ndarray, drawn: np.ndarray, first: int, second: int, n: int
) -> PairedDifference:
    """``first`` minus ``second`` from ``bootstrap_statistic``'s figures."""
    diff = float(point[first] - point[second])
    if n < 3 or not np.isfinite(diff):
        return _undefined(diff, n)
    draws = len(drawn)
    d = drawn[:, first] - drawn[:, second]
    d = d[np.isfinite(d)]
    if len(d) < draws // 2:
        return _undefined(diff, n)
    low, high, lower, upper = (float(q) for q in np.quantile(d, [0.025, 0.975, 0.05, 0.95]))
    p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))
    return PairedDifference(diff, low, high, lower, upper, p, n, "paired bootstrap")


def _undefined(diff: float, n: int) -> PairedDifference:
    nan = float("nan")
    return PairedDifference(diff, nan, nan, nan, nan, nan, n, "paired bootstrap")


def paired_binary(
    right: np.ndarray, first: int, second: int, seed: int = 0, draws: int = BOOTSTRAP_DRAWS
) -> PairedDifference:
    """Accuracy of ``first`` minus ``second`` on paired right/wrong outcomes (items x judges):
    the exact McNemar p-value, with the bootstrap's interval of the difference."""
    boot = paired_bootstrap(right.astype(float), None, mean_statistic, first, second, seed, draws)
    p = mcnemar_exact(right[:, first], right[:, second])
    test = "exact McNemar" if len(right) <= NORMAL_ABOVE else f"exact McNemar, {NORMAL_WORDS}"
    return replace(boot, p_value=p, test=test)


def mean_statistic(values: np.ndarray, target: np.ndarray | None, draws: np.ndarray) -> np.ndarray:
    """Per judge: the mean over items (an accuracy when values are right/wrong)."""
    return np.asarray(values[draws].mean(axis=1))


def spearman_statistic(
    values: np.ndarray, target: np.ndarray | None, draws: np.ndarray
) -> np.ndarray:
    """Per judge: Spearman's rho of its ratings with the target (people's mean label); NaN
    where a draw makes either constant."""
    assert target is not None
    ranked = stats.rankdata(values[draws], axis=1)
    truth = stats.rankdata(target[draws], axis=1)[..., None]
    return _pearson(ranked, truth)


def consensus_tau_statistic(
    values: np.ndarray, target: np.ndarray | None, draws: np.ndarray
) -> np.ndarray:
    """Per judge: Kendall's tau-b of its ratings with the mean of the other judges' (the
    leave-one-out consensus). On every item once (the card's standings), the full tau-b of
    ``_consensus_left_out``, which the jackknife then reads again rather than recomputes."""
    k = values.shape[1]
    if _every_item_once(draws, len(values)):
        return np.array([[_consensus_left_out(values, j)[0] for j in range(k)]])
    others = (values.sum(axis=1, keepdims=True) - values) / max(k - 1, 1)
    counts = _draw_counts(draws, len(values))
    return np.column_stack([weighted_tau_b(values[:, j], others[:, j], counts) for j in range(k)])


def _every_item_once(draws: np.ndarray, n: int) -> bool:
    return draws.shape == (1, n) and bool((draws[0] == np.arange(n)).all())


def consensus_tau_jackknife(values: np.ndarray, first: int, second: int) -> PairedDifference:
    """``consensus_tau_statistic`` of ``first`` minus ``second`` with the jackknife's standard
    error and a normal interval and p-value: the card's consensus rung above
    ``JACKKNIFE_ABOVE`` items, where 2,000 draws of a tau-b are minutes. Each item left out in
    turn gives the exact tau-b of the others (``leave_one_out_tau_b``: O(n log n), no loop)."""
    n = len(values)
    full_a, left_a = _consensus_left_out(values, first)
    full_b, left_b = _consensus_left_out(values, second)
    diff = float(full_a - full_b)
    left = left_a - left_b
    if n < 3 or not np.isfinite(diff) or not np.isfinite(left).all():
        return replace(_undefined(diff, n), test=JACKKNIFE_TEST)
    se = float(np.sqrt((n - 1) / n * ((left - left.mean()) ** 2).sum()))
    return normal_from_se(diff, se, n, JACKKNIFE_TEST)


# (the ratings' digest, judge) -> that judge's leave_one_out_tau_b with the others' consensus:
# the card compares the top judge with each other one, and the top's left-out taus, the
# costly part, are the same each time (about 1 s a judge over 100,000 samples)
_LEFT_OUT: dict[tuple[bytes, tuple[int, ...], int], tuple[float, np.ndarray]] = {}
_LEFT_OUT_KEPT = 16


def _consensus_left_out(values: np.ndarray, judge: int) -> tuple[float, np.ndarray]:
    """``leave_one_out_tau_b`` of one judge's column with the mean of the others', computed
    once per ratings table and judge."""
    values = np.ascontiguousarray(values, dtype=float)
    key = (hashlib.blake2b(values.tobytes(), digest_size=16).digest(), values.shape, judge)
    if key not in _LEFT_OUT:
        if len(_LEFT_OUT) >= _LEFT_OUT_KEPT:
            _LEFT_OUT.clear()
        others = (values.sum(axis=1) - values[:, judge]) / max(values.shape[1] - 1, 1)
        _LEFT_OUT[key] = leave_one_out_tau_b(values[:, judge], others)
    return _LEFT_OUT[key]


def leave_one_out_tau_b(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Kendall's tau-b of x and y, and of every n - 1 items left when one is taken out.

    Over ordered pairs, tau-b is S / sqrt(Tx Ty): S the sum of each item's concordant minus
    discordant partners c_i, Tx (Ty) the sum of each item's partners untied with it in x (y).
    Taking item i out takes 2 c_i from S and twice its untied partners from Tx and Ty."""
    ties_x, ties_y = _tie_sizes(x), _tie_sizes(y)
    c = _concordance(x, y, ties_x, ties_y)
    untied_x, untied_y = len(x) - ties_x, len(y) - ties_y
    s, tx, ty = c.sum(), untied_x.sum(), untied_y.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        full = s / np.sqrt(tx * ty)
        left = (s - 2 * c) / np.sqrt((tx - 2 * untied_x) * (ty - 2 * untied_y))
    return float(full), left


def _tie_sizes(values: np.ndarray) -> np.ndarray:
    """Per item: how many items (itself among them) have its value."""
    _, inverse, sizes = np.unique(values, return_inverse=True, return_counts=True)
    return sizes[inverse.reshape(-1)].astype(float)


def _concordance(
    x: np.ndarray, y: np.ndarray, ties_x: np.ndarray, ties_y: np.ndarray
) -> np.ndarray:
    """Per item i: the items concordant with it less those discordant, sum over j of
    sign(x_i - x_j)·sign(y_i - y_j). With C_i the items below it in both x and y or above it
    in both (``_below_both``, twice) and D_i those below in one and above in the other, every
    item but those tied with i in x or in y is one or the other: D_i = n - tx_i - ty_i +
    txy_i - C_i (``ties_x``, ``ties_y``: its tie sizes, itself counted; txy_i: the items
    tied with it in both), so C_i - D_i = 2 C_i - n + tx_i + ty_i - txy_i. Whole numbers,
    exactly as four counts of items below and above gave them, in half the sorting."""
    both = _below_both(x, y) + _below_both(-x, -y)
    return 2 * both - len(x) + ties_x + ties_y - _pair_tie_sizes(x, y)


def _pair_tie_sizes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per item: how many items (itself among them) have both its x and its y."""
    rank_x, rank_y = _dense_rank(x), _dense_rank(y)
    return _tie_sizes(rank_x.astype(np.int64) * (int(rank_y.max(initial=0)) + 1) + rank_y)


def _below_both(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per item: how many items are strictly below it in x and in y. In order of x, and of y
    downwards within a tie in x (so an item tied in x never counts), each item counts the
    earlier ones of lower rank in y: at the highest bit where two ranks differ, the lower has
    it clear and the higher set (Knight's merge counting, a bit at a time)."""
    rank = _dense_rank(y)
    order = np.lexsort((-rank, x))
    below = np.zeros(len(x))
    for regroup, bit, first in _bit_levels(rank[order]):
        clear = (~bit).astype(float)
        earlier = np.cumsum(clear) - clear
        earlier -= earlier[first]
        below[order[regroup[bit]]] += earlier[bit]
    return below


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))
    return np.asarray(r)


def _draw_counts(draws: np.ndarray, n: int) -> np.ndarray:
    """How often each draw takes each item: draws x items."""
    cells = draws + (np.arange(len(draws)) * n)[:, None]  # draw d's item i is cell d·n + i
    return np.bincount(cells.ravel(), minlength=len(draws) * n).reshape(-1, n)


def weighted_tau_b(
    x: np.ndarray, y: np.ndarray, counts: np.ndarray, chunk: int = DRAW_CHUNK
) -> np.ndarray:
    """Kendall's tau-b of x and y (items) on each draw, given as item counts (draws x items).

    A draw that takes items a and b w_a and w_b times holds w_a·w_b pairs of them, and two
    copies of one item are tied in both. Over ordered pairs, concordant minus discordant is
    the pairs untied in both (all, less those tied in x, less those tied in y, plus those tied
    in both: sums over tie groups) less four times the discordant unordered pairs, which
    Knight's algorithm counts in O(n log n) a draw rather than comparing every two items
    (``_discordant``): 10,000 items x 2,000 draws took minutes the O(n²) way. Every sum is a
    whole number below 2**53, so the figures do not depend on the order of summing.
    """
    ties_x, ties_y, ties_xy = _tie_groups(x), _tie_groups(y), _tie_groups(x, y)
    levels = _rank_levels(x, y)
    out = []
    for start in range(0, len(counts), chunk):
        w = counts[start : start + chunk].astype(float)
        untied_x, untied_y = _untied_pairs(w, ties_x), _untied_pairs(w, ties_y)
        tied_xy = w.sum(axis=1) ** 2 - _untied_pairs(w, ties_xy)
        s = untied_x + untied_y - w.sum(axis=1) ** 2 + tied_xy - 4 * _discordant(w, levels)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(s / np.sqrt(untied_x * untied_y))
    return np.concatenate(out) if out else np.empty(0)


# one bit of Knight's merge: the items in order of x then y, regrouped stably by the ranks of
# y above the bit, whether the bit is set, and where each item's group starts
Level = tuple[np.ndarray, np.ndarray, np.ndarray]


def _rank_levels(x: np.ndarray, y: np.ndarray) -> list[Level]:
    """The bits of y's dense rank, each as a ``Level`` (``_discordant``). Items in order of x,
    then y: two items tied in x never come out discordant."""
    order = np.lexsort((y, x))
    rank = _dense_rank(y)[order]
    return [(order[regroup], bit, first) for regroup, bit, first in _bit_levels(rank)]


def _dense_rank(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def _bit_levels(rank: np.ndarray) -> list[Level]:
    """For each bit of ``rank`` (a sequence of whole numbers), the positions regrouped stably
    by the rank's bits above it, whether the bit is set, and where each one's group starts."""
    levels = []
    for bit in range(max(int(rank.max(initial=0)).bit_length(), 1)):
        prefix = rank >> (bit + 1)
        regroup = np.argsort(prefix, kind="stable")
        grouped = prefix[regroup]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        first = np.repeat(starts, np.diff(np.r_[starts, len(grouped)]))
        levels.append((regroup, ((rank[regroup] >> bit) & 1).astype(bool), first))
    return levels


def _discordant(w: np.ndarray, levels: list[Level]) -> np.ndarray:
    """Per draw (rows of item counts ``w``): the weighted unordered pairs of items ordered one
    way by x and the other by y. Two items taken in x order are discordant when the first's
    rank of y is higher: at the highest bit where the ranks differ, the first has it set and
    the second not. So a bit at a time, within each group of items whose ranks agree above
    it, each item without the bit pairs with the weight of the earlier items with it: a
    cumulative sum, vectorised over the draws (the merge sort's counting, bit by bit)."""
    total = np.zeros(len(w))
    for items, bit, first in levels:
        taken = w[:, items]
        with_bit = np.where(bit, taken, 0.0)
        before = np.cumsum(with_bit, axis=1) - with_bit
        before -= before[:, first]
        total += np.einsum("ij,ij->i", np.where(bit, 0.0, taken), before)
    return total


def _tie_groups(*values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items in order of value (of the first, then the next), and where each run of items
    equal in every one starts in that order."""
    order = np.lexsort(values[::-1])
    ordered = np.column_stack(values)[order]
    return order, np.flatnonzero(np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)])


def _untied_pairs(w: np.ndarray, ties: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per draw (rows of item counts ``w``): the ordered pairs of drawn items whose values
    differ, (Σw)² minus the pairs within each group of equal values (``_tie_groups``)."""
    order, starts = ties
    # no two values equal (ratings averaged over repeats mostly are): each group is one item
    within = w if len(starts) == len(order) else np.add.reduceat(w[:, order], starts, axis=1)
    total = w.sum(axis=1, dtype=float)
    return total**2 - np.einsum("ij,ij->i", within, within).astype(float)
