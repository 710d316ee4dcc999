"""The floors under issue 42's labels goals (benches/README.md, "Labels that count"): what the
anytime rule needs where no queue could do better, measured on the bench's own people
(``labelling_person``: the same seeds and answers; the full rule's rows, uniform order and the
new queue, are ``label_person``'s, the product's queue without replacement).

The oracles below are the *with-replacement* rule's floors (each draw weighted ``1 / (N q)``
by the design's own probability, a repeat draw counting its label again, ``DRAW_CAP`` draws):
valid for the run's own samples, the rule the new queue followed until it drew without
replacement (issue 42, commit 56c32c7). They were not moved to the product's kind weights
(``analyses.draw_without_replacement``): read them as the floors of a with-replacement queue,
not of the product's; the paired tests alone run on uniform order's permutation.

- **Paired tests alone, uniform order** (``paired_alone_run``): the person's uniform draws, a
  judge named once it beats every other judge, the test against chance given free: the
  like-for-like comparison for a queue that mostly skips the chance test's samples.
- **An oracle queue** (``oracle_run``): told which judge is truly best, it draws only where that
  judge differs from a rival, with the best fixed design over the *kinds* of sample (a kind:
  which rivals differ from the best there; ``oracle_allocation``), each draw weighted
  ``1 / (N q)``, the bets clipped by the design's bounds, and only the best's tests against its
  rivals run (chance given free). It knows more than any real queue and skips a test, so its
  labels to a verdict are a lower bound for a queue under this rule.
- **The oracle with the chance test required** (``oracle_chance_run``): its design scaled by
  ``1 - s`` and ``s`` spread over the rest (where the best agrees with every rival: only there
  can its accuracy, hence its test against chance, be learnt), the best's full rule; ``s``
  scanned (``chance_scans``), one share or two phases as the new queue's 40% then 5%.

Why the allocation: a with-replacement draw's weighted difference ``x = (right_b - right_r) /
(N q)`` has mean ``Delta_r`` (the run's difference; ``right_b - right_r`` is 0 off ``D_r``, where
the two pick alike) and variance ``Var_r = sum_(i in D_r) 1 / (N^2 q_i) - Delta_r^2``; within a
kind ``q_i = pi_k / n_k``, so ``Var_r = sum_(k contains r) n_k^2 / (N^2 pi_k) - Delta_r^2``. The
draws a test needs grow with ``Var_r / Delta_r^2`` and a verdict needs every rival's, so the
design minimises the largest.

Missing data: none (a world's picks are complete).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import optimize

from judgegrid.analyses import draw_bounds, first_named, first_rejections, hypotheses_of
from judgegrid.testing.labelling_person import (
    BUDGET,
    CHANCE,
    Person,
    Run,
    World,
    censored_median,
    first_draws,
    person_of,
)

NOISES = (0.0, 0.05, 0.10)  # the person's noise levels the wrong picks are measured at
DRAW_CAP = 4000  # an oracle's draws (with replacement: a draw of a pair labelled asks nothing)


@dataclass(frozen=True)
class Kinds:
    """A world's samples by which rivals of the best differ from it there: ``of_sample`` each
    sample's kind (-1 where the best agrees with every rival), ``members`` kinds x rivals,
    ``sizes`` the samples of each kind."""

    rivals: tuple[int, ...]
    of_sample: np.ndarray
    members: np.ndarray
    sizes: np.ndarray


@dataclass(frozen=True)
class OracleDesign:
    """The oracle queue's fixed design: the best judge, each sample's probability and the
    bounds its draws are bet within (known before any draw: the design never changes)."""

    best: str
    probability: np.ndarray
    largest: float
    pair_bounds: dict[tuple[str, str], float]
    allocation: np.ndarray  # the share of draws a kind gets
    worst: float  # its largest Var_r / Delta_r^2
    worst_uniform: float  # the same for uniform draws over every sample


def kinds_of(picks: np.ndarray, best: int, rivals: Sequence[int] | None = None) -> Kinds:
    """Group the samples by which ``rivals`` (None: every other judge) pick differently from
    judge ``best`` there."""
    rivals = (
        tuple(j for j in range(picks.shape[1]) if j != best) if rivals is None else tuple(rivals)
    )
    apart = picks[:, list(rivals)] != picks[:, [best]]
    codes = apart @ (1 << np.arange(len(rivals)))
    present = np.unique(codes[codes > 0])
    of_sample = np.full(len(picks), -1)
    for k, code in enumerate(present):
        of_sample[codes == code] = k
    members = ((present[:, None] >> np.arange(len(rivals))) & 1).astype(bool)
    sizes = np.bincount(of_sample[of_sample >= 0], minlength=len(present))
    return Kinds(rivals, of_sample, members, sizes)


def rival_differences(world: World, best: int, rivals: Sequence[int]) -> np.ndarray:
    """``Delta_r``: the best's accuracy minus each rival's, in expectation on the person's
    answers (the truth flipped with probability ``world.noise`` turns each difference's sign
    with it, so the truth's difference shrinks by ``1 - 2 noise``)."""
    right = world.picks == world.truth[:, None]
    truth = right[:, best].mean() - right[:, list(rivals)].mean(axis=0)
    return np.asarray((1 - 2 * world.noise) * truth, float)


def design_variances(
    allocation: np.ndarray, kinds: Kinds, delta: np.ndarray, population: int
) -> np.ndarray:
    """Per rival, a draw's variance of the weighted difference under ``allocation`` over the
    kinds (uniform within a kind): ``sum_(k contains r) n_k^2 / (N^2 pi_k) - Delta_r^2``."""
    spread = (kinds.sizes**2 / (population**2 * np.asarray(allocation, float)))[:, None]
    return np.asarray((spread * kinds.members).sum(axis=0) - delta**2)


def worst_ratio(allocation: np.ndarray, kinds: Kinds, delta: np.ndarray, population: int) -> float:
    """The largest ``Var_r / Delta_r^2`` over the rivals: the verdict waits for the slowest."""
    return float(np.max(design_variances(allocation, kinds, delta, population) / delta**2))


def oracle_allocation(kinds: Kinds, delta: np.ndarray, population: int) -> np.ndarray:
    """The allocation over the kinds that minimises ``worst_ratio`` (a convex problem: each
    term is ``1 / pi_k``), by SLSQP on its epigraph, started from uniform over the samples."""
    if np.any(delta <= 0):
        raise ValueError(f"delta: expected the best ahead of every rival, got {delta}")
    if len(kinds.sizes) == 1:
        return np.ones(1)
    start = kinds.sizes / kinds.sizes.sum()

    def margins(x: np.ndarray) -> np.ndarray:
        return x[-1] - design_variances(x[:-1], kinds, delta, population) / delta**2

    found = optimize.minimize(
        lambda x: x[-1],
        np.append(start, worst_ratio(start, kinds, delta, population)),
        method="SLSQP",
        bounds=[(1e-9, 1.0)] * len(start) + [(None, None)],
        constraints=[
            {"type": "ineq", "fun": margins},
            {"type": "eq", "fun": lambda x: x[:-1].sum() - 1.0},
        ],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    allocation = np.clip(found.x[:-1], 1e-12, None)
    allocation /= allocation.sum()
    return allocation


def oracle_design(world: World, best: str, rivals: Iterable[str] | None = None) -> OracleDesign:
    """The oracle queue told ``best``, against ``rivals`` (None: every other judge): its
    allocation over the kinds spread uniformly within each kind, 0 where the best agrees with
    every rival (a label there moves none of its tests); the bounds of ``draw_bounds`` over the
    samples it can draw (the others never are)."""
    b = world.judges.index(best)
    n = len(world.truth)
    against = None if rivals is None else sorted(world.judges.index(r) for r in rivals)
    kinds = kinds_of(world.picks, b, against)
    delta = rival_differences(world, b, kinds.rivals)
    allocation = oracle_allocation(kinds, delta, n)
    drawn = kinds.of_sample >= 0
    probability = np.zeros(n)
    probability[drawn] = (allocation / kinds.sizes)[kinds.of_sample[drawn]]
    # draw_bounds weighs by the samples it is given: 1 / (n_drawn q); the rule's is 1 / (N q)
    largest, pairs = draw_bounds(probability[drawn], world.picks[drawn].astype(float), world.judges)
    scale = drawn.sum() / n
    uniform_variance = (kinds.sizes[:, None] * kinds.members).sum(axis=0) / n - delta**2
    return OracleDesign(
        best,
        probability,
        largest * scale,
        {pair: bound * scale for pair, bound in pairs.items()},
        allocation,
        worst_ratio(allocation, kinds, delta, n),
        float(np.max(uniform_variance / delta**2)),
    )


OracleDesigns = dict[frozenset[str], OracleDesign]  # by the rivals still open


def oracle_designs(world: World, best: str) -> OracleDesigns:
    """The oracle's design for every set of rivals still open (for the oracle that drops a
    rival once beaten; the whole set is the fixed oracle's)."""
    rivals = [j for j in world.judges if j != best]
    subsets = (
        frozenset(c) for size in range(1, len(rivals) + 1) for c in combinations(rivals, size)
    )
    return {subset: oracle_design(world, best, subset) for subset in subsets}


def named_at(
    firsts: dict[tuple[str, str | None], int], candidates: Iterable[str]
) -> tuple[str | None, int]:
    """The candidate that first beats every other judge (its tests against chance not asked)
    and the draw at which it does (None, 0: none within the draws): the rule's naming
    (``first_named``) on the paired tests alone."""
    paired = {key: first for key, first in firsts.items() if key[1] is not None}
    return first_named(paired, candidates)


def paired_alone_run(world: World, seed: int) -> Run:
    """``seed``'s person in uniform order (``label_person``'s uniform draws), the anytime rule's
    paired tests alone: a judge named once it beats every other, chance given free."""
    _, right, uniform = person_of(world, seed)
    return _paired_run(world, "uniform", right, uniform, np.ones(len(uniform)), 1.0, None, None)


def oracle_run(world: World, seed: int, designs: OracleDesigns, drop: bool = False) -> Run:
    """``seed``'s person labelling in the oracle queue's order, only the best's tests against
    its rivals run, up to ``DRAW_CAP`` draws (from the generator after the person's answers and
    uniform order, as the adaptive queue draws). ``drop``: at each rival's first rejection the
    design turns to the rivals still open (``designs``; each stage's design fixed by the draws
    before it, each draw weighted ``1 / (N q)`` and bet within its own stage's bounds);
    otherwise the fixed design against every rival throughout."""
    best = next(iter(designs.values())).best
    return _staged_run(
        world, seed, best, lambda rivals, _: designs[rivals], drop, chance=False, staged=drop
    )


def chance_design(world: World, base: OracleDesign | None, best: str, share: float) -> OracleDesign:
    """The oracle's design ``base`` scaled by ``1 - share``, and ``share`` spread uniformly over
    the rest: the samples where ``best`` agrees with every rival ``base`` draws for (None: no
    rival left, uniform over every sample). Every sample then has ``q > 0``, so the best's
    weighted accuracy is unbiased and its test against chance can run; the bounds are
    ``draw_bounds``' over the whole design (the largest weight, for chance, is the rest's)."""
    n = len(world.truth)
    if base is None:
        probability = np.full(n, 1.0 / n)
    else:
        rest = base.probability == 0
        probability = (1 - share) * base.probability
        probability[rest] = share / rest.sum() if rest.any() else 0.0
        probability /= probability.sum()
    largest, pairs = draw_bounds(probability, world.picks.astype(float), world.judges)
    return OracleDesign(
        best,
        probability,
        largest,
        pairs,
        np.empty(0) if base is None else base.allocation,
        math.nan if base is None else base.worst,
        math.nan if base is None else base.worst_uniform,
    )


ChanceDesigns = dict[tuple[frozenset[str], float], OracleDesign]  # by rivals open and share


def chance_designs(world: World, designs: OracleDesigns, shares: Iterable[float]) -> ChanceDesigns:
    """``chance_design`` for every set of rivals still open (``oracle_designs``; the empty set
    too: every rival beaten, chance still to show) at every share of ``shares``."""
    best = next(iter(designs.values())).best
    found: ChanceDesigns = {}
    for share in set(shares):
        found[(frozenset(), share)] = chance_design(world, None, best, share)
        for rivals, base in designs.items():
            found[(rivals, share)] = chance_design(world, base, best, share)
    return found


def oracle_chance_run(
    world: World,
    seed: int,
    designs: ChanceDesigns,
    shares: tuple[float, float],
    drop: bool = False,
) -> Run:
    """``seed``'s person labelling in the oracle queue with the chance test required: the full
    rule for the best judge (its tests against every rival and against chance, at the rule's
    alpha split), share ``shares[0]`` of the draws on the rest until the chance test has
    rejected and ``shares[1]`` after (equal: one share throughout). ``drop``: the design
    turns to the rivals still open at each rival's first rejection, as ``oracle_run``."""
    best = next(iter(designs.values())).best
    before, after = shares

    def design_of(rivals: frozenset[str], chance_open: bool) -> OracleDesign:
        return designs[(rivals, before if chance_open else after)]

    staged = drop or before != after
    return _staged_run(world, seed, best, design_of, drop, chance=True, staged=staged)


def _staged_run(
    world: World,
    seed: int,
    best: str,
    design_of: Callable[[frozenset[str], bool], OracleDesign],
    drop: bool,
    chance: bool,
    staged: bool,
) -> Run:
    """The oracles' shared loop: ``design_of(rivals open, chance still open)`` the design to draw
    from; ``staged``: at each of the best's tests' first rejections the state changes (a rival
    beaten is dropped only if ``drop``) and the draws after it are drawn anew from the new
    state's design; otherwise one design throughout, the verdict at the last test's
    rejection. ``chance``: the best's test against chance is required too."""
    rng, right, _ = person_of(world, seed)
    n = len(right)
    open_rivals = _all_rivals(world, best)
    chance_open = chance
    rule = "anytime" if chance else "paired alone"
    order = "oracle with chance" if chance else "oracle"
    drawn = _Stages(np.empty(0, int), np.empty(0), np.empty(0), {})
    while True:
        design = design_of(open_rivals if drop else _all_rivals(world, best), chance_open)
        room = DRAW_CAP - len(drawn.picked)
        batch = rng.choice(n, size=room, p=design.probability)
        trial = drawn.then(batch, design, n)
        labels = labels_so_far(trial.picked)
        within = within_budget(labels, n)
        tests = hypotheses_of(
            world.judges,
            trial.largest[:within],
            CHANCE,
            pair_bounds={pair: b[:within] for pair, b in trial.pair_bounds.items()},
        )
        firsts = first_rejections(
            tests, world.judges, right[trial.picked[:within]], trial.weight[:within], CHANCE
        )
        pending: list[str | None] = [*open_rivals, *([None] if chance_open else [])]
        rejected = {r: firsts[(best, r)] for r in pending if firsts[(best, r)] > 0}
        if not rejected or (not staged and len(rejected) < len(pending)):
            return Run(order, rule, 0, None, False)
        at = min(rejected.values()) if staged else max(rejected.values())
        still = [r for r in pending if rejected.get(r, at + 1) > at]
        open_rivals = frozenset(r for r in still if r is not None)
        chance_open = None in still
        if not still:
            return Run(order, rule, int(labels[at - 1]), best, best not in world.acceptable)
        drawn = first_draws(trial, at)


def _all_rivals(world: World, best: str) -> frozenset[str]:
    return frozenset(j for j in world.judges if j != best)


@dataclass(frozen=True)
class _Stages:
    """The oracle's draws so far: each draw's sample, weight, largest weight and per pair of
    judges its bound (its stage's design's)."""

    picked: np.ndarray
    weight: np.ndarray
    largest: np.ndarray
    pair_bounds: dict[tuple[str, str], np.ndarray]

    def then(self, batch: np.ndarray, design: OracleDesign, population: int) -> _Stages:
        more = len(batch)
        return _Stages(
            np.concatenate([self.picked, batch]),
            np.concatenate([self.weight, 1.0 / (population * design.probability[batch])]),
            np.concatenate([self.largest, np.full(more, design.largest)]),
            {
                pair: np.concatenate([self.pair_bounds.get(pair, np.empty(0)), np.full(more, b)])
                for pair, b in design.pair_bounds.items()
            },
        )


def _paired_run(
    world: World,
    order: str,
    right: np.ndarray,
    picked: np.ndarray,
    weight: np.ndarray,
    largest: float,
    pair_bounds: dict[tuple[str, str], float] | None,
    only: str | None,
) -> Run:
    """The rule's tests on the draws up to ``BUDGET`` labels (as ``anytime_run``), a judge
    (``only``, or any) named once its paired tests have all rejected."""
    labels = labels_so_far(picked)
    within = within_budget(labels, len(right))
    tests = hypotheses_of(world.judges, largest, CHANCE, pair_bounds=pair_bounds)
    firsts = first_rejections(tests, world.judges, right[picked[:within]], weight[:within], CHANCE)
    named, at = named_at(firsts, world.judges if only is None else (only,))
    if named is None:
        return Run(order, "paired alone", 0, None, False)
    return Run(order, "paired alone", int(labels[at - 1]), named, named not in world.acceptable)


def only_best(world: World) -> str | None:
    """The world's truly best judge if there is exactly one (else no oracle can be told one)."""
    return next(iter(world.acceptable)) if len(world.acceptable) == 1 else None


def floor_figures(
    world: World, seeds: Sequence[int], people: Sequence[Person]
) -> dict[str, object]:
    """Per world: the full rule's labels to a verdict in uniform order and the new queue
    (``people``: ``label_person`` for ``seeds``), the paired tests alone in uniform order, and
    the oracle queue (where the world has one best judge), with their ratios to uniform's."""
    runs = {
        "uniform": [
            r for p in people for r in p.runs if (r.order, r.rule) == ("uniform", "anytime")
        ],
        "new": [r for p in people for r in p.runs if (r.order, r.rule) == ("new", "anytime")],
        "paired alone": [paired_alone_run(world, seed) for seed in seeds],
    }
    best = only_best(world)
    figures: dict[str, object] = {"world": world.name, "seeds": len(seeds), "best": best}
    if best is not None:
        designs = oracle_designs(world, best)
        runs["oracle"] = [oracle_run(world, seed, designs) for seed in seeds]
        runs["oracle dropping"] = [oracle_run(world, seed, designs, drop=True) for seed in seeds]
        design = designs[_all_rivals(world, best)]
        figures["design share"] = design.worst / design.worst_uniform
        figures["kinds"] = len(design.allocation)
        figures["chance scans"] = chance_scans(world, seeds, designs)
    for key, found in runs.items():
        figures[f"{key}: verdicts"] = sum(bool(r.labels) for r in found) / len(found)
        figures[f"{key}: median labels"] = censored_median(found, BUDGET)
        figures[f"{key}: wrong pick"] = sum(r.wrong for r in found) / len(found)
    return figures


# (b''): the rest's share, one throughout
SHARES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
FIRST_SHARES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)  # two phases: until chance rejects
LATER_SHARES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05)  # and after (new queue: 40%, then 5%)
ShareScan = dict[tuple[float, float], float]  # median labels by (share before, share after)


def share_scan(
    world: World,
    seeds: Sequence[int],
    designs: ChanceDesigns,
    shares: Iterable[tuple[float, float]],
    drop: bool = False,
) -> ShareScan:
    """The median labels to a verdict (``censored_median``) of ``oracle_chance_run`` over
    ``seeds`` at each pair of shares (before and after the chance test rejects)."""
    return {
        pair: censored_median(
            [oracle_chance_run(world, s, designs, pair, drop) for s in seeds], BUDGET
        )
        for pair in shares
    }


def best_share(scan: ShareScan) -> tuple[tuple[float, float], float]:
    """The shares with the fewest median labels (a tie: the first scanned) and that median."""
    pair = min(scan, key=lambda p: scan[p])
    return pair, scan[pair]


def chance_scans(
    world: World, seeds: Sequence[int], designs: OracleDesigns
) -> dict[str, ShareScan]:
    """(b'') the oracle with the chance test required, by the rest's share: one share
    throughout (``SHARES``) with the fixed design and dropping beaten rivals, and two phases
    (``FIRST_SHARES`` then a smaller one of ``LATER_SHARES``) with both."""
    single = [(s, s) for s in SHARES]
    phased = [(a, b) for a in FIRST_SHARES for b in LATER_SHARES if b < a]
    mixed = chance_designs(world, designs, [*SHARES, *FIRST_SHARES, *LATER_SHARES])
    return {
        "fixed": share_scan(world, seeds, mixed, single),
        "dropping": share_scan(world, seeds, mixed, single, drop=True),
        "two-phase fixed": share_scan(world, seeds, mixed, phased),
        "two-phase dropping": share_scan(world, seeds, mixed, phased, drop=True),
    }


def wrong_picks(people: Sequence[Person], order: str) -> tuple[float, float]:
    """The anytime rule's wrong picks in ``order``: by the scenario, and on the person's own
    answers over the run."""
    runs = [r for p in people for r in p.runs if (r.order, r.rule) == (order, "anytime")]
    return (
        sum(r.wrong for r in runs) / len(runs),
        sum(r.wrong_on_answers for r in runs) / len(runs),
    )


def within_budget(labels: np.ndarray, population: int) -> int:
    """How many draws the rule reads: up to the last one before a label beyond ``BUDGET`` (or
    beyond the run's ``population``, where every sample is labelled sooner); ``labels`` is
    ``labels_so_far``'s."""
    return int(np.searchsorted(labels, min(BUDGET, population), side="right"))


def labels_so_far(picked: np.ndarray) -> np.ndarray:
    """After each draw (with replacement), how many distinct samples have been labelled."""
    seen: set[int] = set()
    out = np.empty(len(picked), int)
    for i, p in enumerate(picked):
        seen.add(int(p))
        out[i] = len(seen)
    return out
