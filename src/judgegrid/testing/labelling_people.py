"""Several people labelling one run (issue 42): whether the anytime rule, reading everyone's
draws merged, still names a wrong judge at most 5% of the time, and what it costs in labels
against one person alone.

The labelling page draws each person's questions a session at a time (``--n``, 20 by default,
or ``--batch``): before a session, the adaptive design from the rule's state on everyone's
labels so far (``analyses.adaptive_probability``, as ``adaptive_design_of`` makes it), then
that many draws without replacement (``analyses.draw_without_replacement``, over the kinds
``labelling_person`` uses) among the samples the *pool* still holds. The pool is either the
person's own (``shared`` False: the samples this person has not drawn, whatever the others
drew) or shared (``shared`` True: the samples nobody has drawn, as the page draws). The people
answer in turns, one label each (round-robin), a draw pending from when it is drawn until
its person answers it; the rule reads every answered draw in the order answered (a person's
in their own draw order, as ``label_state.read_sequence`` reads them), each weighted and
bounded as stored (``labelling_person.Draws``), a sample drawn by two people twice, as
``label_state`` reads stored draws: its per-sample right/wrong reindexed by the sequence.

Everyone answers a pair alike (the person's noise drawn once a pair, ``person_of``): where two
people label one pair, the people's modal label the card reads is that answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from judgegrid.analyses import (
    DrawBounds,
    Kinds,
    Standing,
    adaptive_probability,
    draw_without_replacement,
    kinds_of,
    standing_of,
)
from judgegrid.testing.labelling_person import (
    BUDGET,
    NO_DRAWS,
    Draws,
    Run,
    World,
    person_of,
    person_world,
    queue_verdict,
    run_figures,
    run_of,
    wrong_on,
)

SESSION = 20  # draws a person's session makes at once: the page's default --n
Pending = tuple[int, float, DrawBounds]  # a sample drawn, its stored probability and bounds


@dataclass(frozen=True)
class Crowd:
    """Who labels: ``people`` taking turns, each drawing ``session`` at a time, from a pool of
    their own or one ``shared`` by all."""

    people: int
    shared: bool
    session: int = SESSION

    @property
    def name(self) -> str:
        pool = "shared pool" if self.shared else "own pools"
        return f"{self.people} {'person' if self.people == 1 else 'people'}, {pool}"


@dataclass(frozen=True)
class CrowdRun:
    """One crowd's labels on one run: the rule's run (``labelling_person.Run``: labels at the
    verdict, the judge named, wrong or not) and how many of the draws read were of a pair
    already read (counted again)."""

    run: Run
    repeats: int
    read: int
    # the draws read, in order: (person, the person's draw number from 1, pair, probability,
    # bounds), as ``label_draws`` would store them (``tests/testing``: read back by the product)
    stored: tuple[tuple[int, int, int, float, DrawBounds], ...] = ()


def crowd_run(world: World, seed: int, crowd: Crowd) -> CrowdRun:
    """``seed``'s people (one answer a pair, ``person_of``) labelling a ``prepared`` world in
    turns until the rule's first verdict, ``BUDGET`` labels, or nothing left to draw."""
    rng, right, _ = person_of(world, seed)
    answers = world.picks.astype(float)
    kinds = kinds_of(world.stratum, answers)
    n = len(right)
    shared = np.ones(n, bool)  # one array every person draws from and marks
    pools = [shared if crowd.shared else np.ones(n, bool) for _ in range(crowd.people)]
    pending: list[deque[Pending]] = [deque() for _ in range(crowd.people)]
    drawn, standing = NO_DRAWS, Standing(None)
    stored: list[tuple[int, int, int, float, DrawBounds]] = []
    numbers = [0] * crowd.people
    budget = min(BUDGET, n * crowd.people)
    turn = 0
    while len(drawn.picked) < budget:
        person = next(
            (p for p in _turns(turn, crowd.people) if _has_a_question(p, pending, pools)), None
        )
        if person is None:
            break
        turn = person + 1
        if not pending[person]:
            q = adaptive_probability(world.probability, answers, standing)
            pending[person].extend(_session(q, kinds, pools[person], world, rng, crowd.session))
            numbers[person] += len(pending[person])
        number = numbers[person] - len(pending[person]) + 1  # the person's draw it answers
        sample, probability, bounds = pending[person].popleft()
        stored.append((person, number, sample, probability, bounds))
        drawn = drawn.then(sample, probability, bounds, world.judges)
        found = queue_verdict(world, right, drawn)
        if found.named is not None:
            return _crowd_run(world, right, drawn, run_of(world, "crowd", found), stored)
        standing = standing_of(found, world.judges)
    return _crowd_run(world, right, drawn, Run("crowd", "anytime", 0, None, False), stored)


def _turns(start: int, people: int) -> list[int]:
    """The people in turn from ``start``: round-robin."""
    return [(start + k) % people for k in range(people)]


def _has_a_question(
    person: int, pending: Sequence[deque[Pending]], pools: Sequence[np.ndarray]
) -> bool:
    return bool(pending[person]) or bool(pools[person].any())


def _session(
    q: np.ndarray,
    kinds: Kinds,
    pool: np.ndarray,
    world: World,
    rng: np.random.Generator,
    size: int,
) -> list[Pending]:
    """A session's draws from one design, each among the pool's samples left (the pool is
    changed: a draw leaves it)."""
    found = []
    for _ in range(size):
        if not pool.any():
            break
        sample, probability, bounds = draw_without_replacement(q, kinds, pool, world.judges, rng)
        pool[sample] = False
        found.append((sample, probability, bounds))
    return found


def _crowd_run(
    world: World,
    right: np.ndarray,
    drawn: Draws,
    run: Run,
    stored: Sequence[tuple[int, int, int, float, DrawBounds]],
) -> CrowdRun:
    """The crowd's run, judged also on the answers over the run (``wrong_on``), with its
    repeats: draws of a pair read before."""
    wrong = wrong_on(world, run.named, right.mean(axis=0))
    read = len(drawn.picked)
    repeats = read - len(np.unique(drawn.picked))
    return CrowdRun(replace(run, wrong_on_answers=wrong), repeats, read, tuple(stored))


def crowds_of(people: Iterable[int], session: int = SESSION) -> tuple[Crowd, ...]:
    """One person alone, and each number of ``people`` (above one) with their own pools and
    with a shared one."""
    many = sorted({p for p in people if p > 1})
    alone = (Crowd(1, True, session),)
    return alone + tuple(Crowd(p, shared, session) for p in many for shared in (False, True))


def crowd_figures(world: World, seeds: Iterable[int], crowds: Sequence[Crowd]) -> list[dict]:
    """Per crowd on ``world`` (each seed's people a run of their own, ``person_world``): the
    verdict share, the median labels to a verdict (``censored_median``), the wrong picks by the
    scenario and on the answers, and the share of the draws read that were repeats."""
    seeds = list(seeds)
    rows = []
    for crowd in crowds:
        runs = [crowd_run(person_world(world, seed), seed, crowd) for seed in seeds]
        plain = [c.run for c in runs]
        rows.append(
            {
                "world": world.name,
                "crowd": crowd.name,
                "people": crowd.people,
                "shared": crowd.shared,
                "seeds": len(seeds),
                **run_figures(plain, BUDGET),
                "repeats": sum(c.repeats for c in runs) / max(sum(c.read for c in runs), 1),
            }
        )
    return rows
