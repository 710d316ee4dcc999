"""A prototype (issue 42): the new queue's anytime rule made valid for judges *in general*, not
only for the run's own samples.

Why: the adaptive queue (``labelling_person.adaptive_run``) draws with replacement, weights a
draw ``1 / (N q)`` and counts a repeat again. That is a martingale for the run's own mean, so
the rule is valid for the run. But once the queue has labelled every sample where two judges
disagree, its redraws pile up evidence about that pool's luck: with a fresh pool per person, two
equally good judges are told apart for about a fifth of the people.

The prototype assumes a superpopulation: the run's samples are drawn from a population, and a
sample's outcomes (each judge right or wrong against the person) given its *kind* are fresh,
independent draws. A kind is the pattern of the judges' picks on the sample; every design here
reads the picks alone, so it never looks at an outcome. Then:

- the queue draws *without* replacement (every draw asks a new label, counted once);
- before label t the design ``q_t`` (the adaptive design, from the rule's state) gives
  ``rho_t(x)``, the chance the next label is of kind x (``kind_chances``); the label's weight
  is ``p_x / rho_t(x)`` with ``p_x`` the pool's share of kind x, so
  ``E[w v | past] = sum_x p_x E[v | x]`` whatever the design: a martingale for the population
  mean given the pool's kinds;
- the bets are clipped by bounds known before the label (``label_bounds``);
- a kind all labelled can no longer be drawn, and ``E[w v | past]`` then misses its share: each
  test adds the kind's share times the lowest value a label of it can give (``FILL``; valid,
  conservative) and stops betting only where that leaves nothing above its null. Freezing every
  test that can move on the kind (``FREEZE``, the first idea) froze the tests against chance at
  the first tiny kind run out: fewer verdicts (benches/README.md), no fewer errors;
- uniform order: a random permutation of the pool, weight 1 (an iid sample of the population).

The same tests as the product's rule (``analyses.hypotheses_of``, ``first_rejections``) take
these values, so only the evidence changes. The estimand is the population mean *given the
pool's kind shares* ``p_x``: for two equally good independent judges the paired difference is 0
on every kind, so the null holds exactly; in general the kind shares' own luck is left out.

Missing data: none (a world's picks are complete; a pick of neither is a kind of its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from judgegrid.analyses import (
    AnytimeVerdict,
    Standing,
    adaptive_probability,
    first_named,
    first_rejections,
    hypotheses_of,
    standing_of,
)
from judgegrid.testing.labelling_person import (
    BUDGET,
    CHANCE,
    POPULATION,
    Run,
    World,
    adaptive_run,
    anytime_run,
    censored_median,
    person_of,
    prepared,
)

TestKey = tuple[str, str | None]  # (judge, rival); rival None: against chance
# generator streams, apart from the person's own (``person_of``) so today's draws stay the bench's
POOL_STREAM, QUEUE_STREAM, ORDER_STREAM = 1, 2, 3
TINY = 1e-9  # a pair's bound where no drawable kind separates them (their values are all 0)
VALUES = "values"  # the one judge of a test fed its values directly (``population_verdict``)
# what a test does once a kind runs out (``states_of_tests``)
FILL, FREEZE, LOOSE = "fill", "freeze", "loose"


@dataclass(frozen=True)
class PoolKinds:
    """A pool's samples by kind: each sample's kind, each kind's picks and its share ``p_x``."""

    of_sample: np.ndarray
    picks: np.ndarray  # kinds x judges
    shares: np.ndarray


@dataclass(frozen=True)
class Labels:
    """The prototype queue's labels in order: the sample, its weight ``p_x / rho_t(x)``, the
    largest weight then possible and per pair of judges the largest where they differ, and per
    test the shift added to its value and whether it is frozen (all known before the label)."""

    picked: np.ndarray
    weight: np.ndarray
    largest: np.ndarray
    pair_bounds: dict[tuple[str, str], np.ndarray]
    shift: dict[TestKey, np.ndarray]
    frozen: dict[TestKey, np.ndarray]


def pool_kinds(picks: np.ndarray) -> PoolKinds:
    """Group a pool's samples by the judges' picks on them (the designs read nothing else)."""
    patterns, of_sample = np.unique(picks, axis=0, return_inverse=True)
    shares = np.bincount(of_sample.ravel(), minlength=len(patterns)) / len(picks)
    return PoolKinds(of_sample.ravel(), patterns, shares)


def kind_chances(q: np.ndarray, kinds: PoolKinds, labelled: np.ndarray) -> np.ndarray:
    """``rho_t(x)``: the chance the next label, drawn from ``q`` among the samples not yet
    labelled, is of kind x (0 for a kind all labelled)."""
    open_q = np.where(labelled, 0.0, q)
    mass = np.bincount(kinds.of_sample, weights=open_q, minlength=len(kinds.shares))
    return np.asarray(mass / mass.sum())


def kind_weights(kinds: PoolKinds, rho: np.ndarray) -> np.ndarray:
    """Each kind's weight ``p_x / rho_t(x)`` (inf where it cannot be drawn): its expectation
    over the next label's kind is ``sum_x p_x`` over the drawable kinds."""
    with np.errstate(divide="ignore"):
        return np.where(rho > 0, kinds.shares / np.where(rho > 0, rho, 1.0), np.inf)


def label_bounds(
    kinds: PoolKinds, rho: np.ndarray, judges: tuple[str, ...]
) -> tuple[float, dict[tuple[str, str], float]]:
    """The next label's bounds, known before it: its largest possible weight, and per pair of
    judges the largest over the drawable kinds where their picks differ (elsewhere their
    difference is 0 whatever the label), as ``analyses.draw_bounds`` for the product's queue."""
    drawable = rho > 0
    weight = kind_weights(kinds, rho)
    pairs = {}
    for a, first in enumerate(judges):
        for b in range(a + 1, len(judges)):
            apart = drawable & (kinds.picks[:, a] != kinds.picks[:, b])
            pairs[(first, judges[b])] = float(weight[apart].max()) if apart.any() else TINY
    return float(weight[drawable].max()), pairs


def lowest_values(kinds: PoolKinds, judges: tuple[str, ...]) -> dict[TestKey, np.ndarray]:
    """Per test, per kind, the lowest value a label of that kind can give it (over the person's
    two answers): ``-chance`` against chance, the lowest ``right_j - right_k`` for a pair (0
    where they pick alike, or where only the rival picks neither). A kind's unknown mean is at
    least this, which is what filling in a kind all labelled rests on."""
    return {key: np.min(values, axis=0) for key, values in _kind_values(kinds, judges).items()}


def moving_kinds(kinds: PoolKinds, judges: tuple[str, ...]) -> dict[TestKey, np.ndarray]:
    """Per test, the kinds on which its value can be nonzero (every kind against chance, the
    kinds where the two pick differently for a pair): the kinds freezing waits on."""
    return {key: np.any(values != 0, axis=0) for key, values in _kind_values(kinds, judges).items()}


def _kind_values(kinds: PoolKinds, judges: tuple[str, ...]) -> dict[TestKey, np.ndarray]:
    """Per test: answers (a, b) x kinds, the value (unweighted) a label of that kind with that
    answer gives it."""
    right = np.stack([kinds.picks == answer for answer in (1, -1)]).astype(float)
    found: dict[TestKey, np.ndarray] = {}
    for a, first in enumerate(judges):
        found[(first, None)] = right[:, :, a] - CHANCE
        for b, second in enumerate(judges):
            if a != b:
                found[(first, second)] = right[:, :, a] - right[:, :, b]
    return found


def states_of_tests(
    mode: str,
    kinds: PoolKinds,
    rho: np.ndarray,
    lowest: Mapping[TestKey, np.ndarray],
    bounds: tuple[float, dict[tuple[str, str], float]],
) -> dict[TestKey, tuple[float, bool]]:
    """Per test, before a label: the shift added to its value and whether it is frozen. While
    every kind is drawable, ``E[w v | past]`` is the population mean; once kinds are all
    labelled it covers the drawable kinds' shares only. ``FILL``: add each exhausted kind's
    share times its lowest value (so the mean stays at most the population's: valid under the
    null ``<= 0``), frozen only where that leaves no room above the null; ``FREEZE``: stop
    betting once a kind the test can move on is exhausted; ``LOOSE``: neither (invalid).
    ``lowest``: ``lowest_values`` (FILL), or ``moving_kinds`` (FREEZE)."""
    exhausted = rho <= 0
    largest, pairs = bounds
    states = {}
    for key, per_kind in lowest.items():
        judge, rival = key
        if mode == LOOSE:
            states[key] = (0.0, False)
        elif mode == FREEZE:
            states[key] = (0.0, bool(np.any(exhausted & per_kind)))
        else:
            shift = float(np.sum(kinds.shares[exhausted] * per_kind[exhausted]))
            reach = (1 - CHANCE) * largest if rival is None else _pair_bound(pairs, judge, rival)
            states[key] = (0.0, True) if reach + shift <= 0 else (shift, False)
    return states


def _pair_bound(pairs: Mapping[tuple[str, str], float], judge: str, rival: str) -> float:
    return pairs.get((judge, rival), pairs.get((rival, judge), TINY))


def population_verdict(
    judges: tuple[str, ...], right: np.ndarray, labels: Labels
) -> AnytimeVerdict:
    """The product's tests (``hypotheses_of``: the same nulls, bounds and alpha split, bet by
    ``first_rejections``) on the prototype's labels, each value shifted or frozen as
    ``states_of_tests`` said before its label (the leader: the highest weighted accuracy)."""
    values = right[labels.picked]
    firsts = {}
    for test in hypotheses_of(judges, labels.largest, CHANCE, pair_bounds=labels.pair_bounds):
        key = (test.judge, test.against)
        rival = CHANCE if test.against is None else values[:, judges.index(test.against)]
        raw = labels.weight * (values[:, judges.index(test.judge)] - rival)
        z, low, high = _shifted(raw, test.low, test.high, labels.shift[key], labels.frozen[key])
        # the product's betting on a test of these values alone (one "judge", chance 0)
        alone = replace(test, judge=VALUES, against=None, low=low, high=high)
        ones = np.ones(len(z))
        firsts[key] = first_rejections([alone], (VALUES,), z[:, None], ones, 0.0)[(VALUES, None)]
    named, at = first_named(firsts, judges)
    leader = judges[int(np.argmax((labels.weight[:, None] * values).mean(axis=0)))]
    beaten = frozenset(key for key, first in firsts.items() if first > 0)
    return AnytimeVerdict(named, leader, len(values), at, float("nan"), beaten)


def _shifted(
    raw: np.ndarray,
    low: float | np.ndarray,
    high: float | np.ndarray,
    shift: np.ndarray,
    frozen: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A test's values and bounds label by label: ``raw + shift`` within the shifted bounds, a
    frozen label 0 within the test's own (the capital unchanged there)."""
    n = len(raw)
    low_at = np.broadcast_to(np.asarray(low, float), (n,))
    high_at = np.broadcast_to(np.asarray(high, float), (n,))
    return (
        np.where(frozen, 0.0, raw + shift),
        np.where(frozen, low_at, low_at + shift),
        np.where(frozen, high_at, high_at + shift),
    )


def _with_label(
    labels: Labels,
    sample: int,
    weight: float,
    bounds: tuple[float, dict[tuple[str, str], float]],
    states: Mapping[TestKey, tuple[float, bool]],
) -> Labels:
    """``labels`` and one more, with its bounds and its tests' states."""
    largest, pairs = bounds
    return Labels(
        np.append(labels.picked, sample),
        np.append(labels.weight, weight),
        np.append(labels.largest, largest),
        {k: np.append(labels.pair_bounds.get(k, np.empty(0)), v) for k, v in pairs.items()},
        {k: np.append(labels.shift.get(k, np.empty(0)), s) for k, (s, _) in states.items()},
        {k: np.append(labels.frozen.get(k, np.empty(0, bool)), f) for k, (_, f) in states.items()},
    )


def queue_run(
    world: World, right: np.ndarray, rng: np.random.Generator, mode: str = FILL
) -> tuple[Run, bool]:
    """The adaptive design without replacement: before each label the design is recomputed from
    the rule's state, the label drawn among the unlabelled samples in proportion to it and
    weighted ``p_x / rho_t(x)``; the rule looked at after every label, up to ``BUDGET``.
    ``mode``: what a test does once a kind is all labelled (``states_of_tests``). Also: whether
    some test was shifted or frozen before the verdict (or the budget)."""
    kinds = pool_kinds(world.picks)
    lowest = (moving_kinds if mode == FREEZE else lowest_values)(kinds, world.judges)
    answers = world.picks.astype(float)
    labelled = np.zeros(len(right), bool)
    labels = Labels(np.empty(0, int), np.empty(0), np.empty(0), {}, {}, {})
    standing = Standing(None)
    for _ in range(min(BUDGET, len(right))):
        q = adaptive_probability(world.probability, answers, standing)
        rho = kind_chances(q, kinds, labelled)
        open_q = np.where(labelled, 0.0, q)
        sample = int(rng.choice(len(q), p=open_q / open_q.sum()))
        weight = kind_weights(kinds, rho)[kinds.of_sample[sample]]
        bounds = label_bounds(kinds, rho, world.judges)
        states = states_of_tests(mode, kinds, rho, lowest, bounds)
        labels = _with_label(labels, sample, weight, bounds, states)
        labelled[sample] = True
        found = population_verdict(world.judges, right, labels)
        if found.named is not None:
            return _named_run(world, found), _touched(labels)
        standing = standing_of(found, world.judges)
    return Run("population queue", "anytime", 0, None, False), _touched(labels)


def _touched(labels: Labels) -> bool:
    """Whether any test's value was shifted or frozen on some label."""
    return any(s.any() for s in labels.shift.values()) or any(
        f.any() for f in labels.frozen.values()
    )


def _named_run(world: World, found: AnytimeVerdict) -> Run:
    named = str(found.named)
    return Run("population queue", "anytime", found.at, named, named not in world.acceptable)


def uniform_run(world: World, right: np.ndarray, rng: np.random.Generator) -> Run:
    """Uniform order without replacement: a random permutation of the pool, weight 1, each label
    once (then the labels are an iid sample of the population, and the rule is the product's)."""
    return anytime_run(world, "population uniform", right, rng.permutation(len(right)))


# ---------------------------------------------------------------- one person, both rules

ORDERS = (
    "today queue",
    "today uniform",
    "population queue",
    "population uniform",
    "population queue, freeze",
    "population queue, loose",
)
MODES = {"population queue": FILL, "population queue, freeze": FREEZE}
MODES["population queue, loose"] = LOOSE  # invalid: what the fill or freeze costs


@dataclass(frozen=True)
class PopulationPerson:
    """One seed's person in each order (``ORDERS``) under today's rule and the prototype's
    (its queue in each ``MODES``), and per mode whether a test was shifted or frozen before
    the verdict or the budget."""

    runs: dict[str, Run]
    touched: dict[str, bool]


def resampled_world(world: World, seed: int, size: int = POPULATION) -> World:
    """A fresh pool of ``size`` pairs drawn with replacement from a replay's pairs (their
    judges' picks and truth together), for ``seed``'s person: the replay's pairs as the
    population, so that its pool is no longer the limit (a rule valid for judges in general
    cannot learn more from 350 pairs than the 350 hold), the designs made from its picks."""
    rows = np.random.default_rng((POOL_STREAM, seed)).integers(0, len(world.truth), size)
    pool = replace(world, picks=world.picks[rows], truth=world.truth[rows])
    return prepared(pool)


def population_person(world: World, seed: int) -> PopulationPerson:
    """``seed``'s person (``person_of``: the same answers in every order) labelling a
    ``prepared`` world in today's two orders (with replacement, as ``label_person``) and the
    prototype's (without; their own generators, so today's draws are ``label_person``'s, and
    every mode of the queue draws alike until a verdict differs)."""
    rng, right, uniform = person_of(world, seed)
    today, _ = adaptive_run(world, right, rng)
    runs = {
        "today queue": today,
        "today uniform": anytime_run(world, "uniform", right, uniform),
        "population uniform": uniform_run(
            world, right, np.random.default_rng((ORDER_STREAM, seed))
        ),
    }
    touched = {}
    for order, mode in MODES.items():
        generator = np.random.default_rng((QUEUE_STREAM, seed))
        runs[order], touched[order] = queue_run(world, right, generator, mode)
    return PopulationPerson(runs, touched)


def population_figures(people: list[PopulationPerson]) -> dict[str, float]:
    """Per order: the censored median labels to a verdict (``censored_median``), the share of
    people with a verdict and the share with a wrong pick; the queue over uniform's median under
    each rule; per queue mode the share of people with a test shifted or frozen."""
    figures: dict[str, float] = {"people": len(people)}
    for order in ORDERS:
        runs = [p.runs[order] for p in people]
        figures[f"{order}: median labels"] = censored_median(runs, BUDGET)
        figures[f"{order}: verdicts"] = float(np.mean([r.labels > 0 for r in runs]))
        figures[f"{order}: wrong pick"] = float(np.mean([r.wrong for r in runs]))
    for rule in ("today", "population"):
        queue, uniform = (figures[f"{rule} {o}: median labels"] for o in ("queue", "uniform"))
        figures[f"{rule}: queue / uniform"] = queue / uniform if np.isfinite(uniform) else np.nan
    for order in MODES:
        figures[f"{order}: touched"] = float(np.mean([p.touched[order] for p in people]))
    return figures
