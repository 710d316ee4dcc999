"""The product's labelling queue as the bench runs it (``labelling_person.adaptive_run``: the
label page's draws without replacement, weighted by kind, its tests shifted for the kinds all
labelled; the prototype ``testing.population_rule`` it replaced was tested so): the designs
uniform within a kind, the shifts against the kinds labelled counted independently (pandas),
and the rule's error rate under a null over fresh runs by simulation (scipy's binomial tail)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from judgegrid.analyses import Standing, adaptive_probability, kinds_of
from judgegrid.testing.labelling_person import CHANCE, World, adaptive_run, prepared


def _world(rng: np.random.Generator, quality: tuple[float, float], n: int) -> World:
    """A fresh run of ``n`` pairs, two judges right with ``quality`` each, independently, and
    a person who answers the truth."""
    truth = np.where(rng.random(n) < 0.5, 1, -1)
    right = np.column_stack([rng.random(n) < q for q in quality])
    picks = np.where(right, truth[:, None], -truth[:, None])
    best = frozenset({"a"} if quality[0] > quality[1] else ())
    return prepared(World("test", ("a", "b"), picks, truth, best, noise=0.0))


def _right(world: World) -> np.ndarray:
    return (world.picks == world.truth[:, None]).astype(float)


def test_the_designs_are_uniform_within_a_kind():
    """The base design (``prepared``) and the adaptive one read the stratum and the picks alone,
    so every sample of a kind (``kinds_of``) has the same probability, as the kind weights ask
    (``draw_without_replacement``: a design must read nothing of a sample but its kind)."""
    world = _world(np.random.default_rng(3), (0.8, 0.7), 200)
    kinds = kinds_of(world.stratum, world.picks.astype(float))
    assert len(kinds.shares) > 2 and len(np.unique(world.stratum)) > 1
    answers = world.picks.astype(float)
    designs = [world.probability]
    designs += [
        adaptive_probability(world.probability, answers, Standing(0, c, (1,))) for c in (0, 1)
    ]
    for q in designs:
        for x in range(len(kinds.shares)):
            assert np.ptp(q[kinds.of_sample == x]) == pytest.approx(0.0, abs=1e-15)


def test_each_tests_shift_is_its_share_of_the_kinds_labelled_before_the_draw():
    """A run of 40 pairs labelled to the end: before each draw, the share of the pairs in
    kinds (stratum and picks, grouped by pandas) all labelled by the draws before it, times
    ``-chance`` for the tests against chance, and the share of those where the two pick
    differently (times -1) for the paired tests; none at the first draw, the most at the last."""
    world = _world(np.random.default_rng(5), (0.8, 0.6), 40)
    _, drawn = adaptive_run(world, _right(world), np.random.default_rng(6))
    assert sorted(drawn.picked) == list(range(40))  # every pair, once
    table = pd.DataFrame({"stratum": world.stratum, "a": world.picks[:, 0], "b": world.picks[:, 1]})
    kind = table.groupby(["stratum", "a", "b"]).ngroup().to_numpy()
    apart = world.picks[:, 0] != world.picks[:, 1]
    labelled = np.zeros(40, bool)
    for t, sample in enumerate(drawn.picked):
        left = pd.Series(~labelled).groupby(kind).transform("any").to_numpy()
        gone = ~left
        assert drawn.shifts[("a", None)][t] == pytest.approx(-CHANCE * gone.mean())
        assert drawn.shifts[("b", "a")][t] == pytest.approx(-(gone & apart).mean())
        labelled[sample] = True
    assert drawn.shifts[("a", None)][0] == 0 and drawn.shifts[("a", None)][-1] < -0.25


def _wrong_picks(quality: tuple[float, float], people: int) -> tuple[int, int]:
    """Over ``people`` fresh runs of 60 pairs (all labelled by the end): verdicts, wrong."""
    verdicts = wrong = 0
    for seed in range(people):
        world = _world(np.random.default_rng((7, seed)), quality, 60)
        run, _ = adaptive_run(world, _right(world), np.random.default_rng((8, seed)))
        verdicts += run.named is not None
        wrong += run.wrong
    return verdicts, wrong


def test_the_rule_keeps_its_error_under_a_null_for_fresh_runs():
    """Two equally good judges, a fresh run per person, the queue labelling every pair: naming
    either is an error the rule bounds by its two paired tests' alpha (0.05 / 4 each); the
    count must not be improbably high for that rate (binomial tail; with replacement, the
    queue named one for about a fifth of people). The same people with one judge much better
    get verdicts, so the rule is not merely silent."""
    people = 120
    _, wrong = _wrong_picks((0.8, 0.8), people)
    assert stats.binom.sf(wrong - 1, people, 0.025) > 0.001
    verdicts, wrong_better = _wrong_picks((0.95, 0.55), 20)
    assert verdicts >= 10 and wrong_better == 0
