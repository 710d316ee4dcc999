"""The decision bank's labelling person (issue 42): what a verdict on the people rung costs in
labels, and how often it is wrong when the card is recomputed after every label.

A *world* is a run's samples as preference pairs, each judge's pick on every pair (a, b, or
neither) and each pair's truth. The person answers the truth, flipped with probability
``noise``, one label at a time in a queue's order, and stops at the first verdict. Worlds:

- synthetic: the bank's pairs scenarios (``decision_bank.BANK``), each judge right on a pair
  with its accuracy, independently, over a run of ``POPULATION`` pairs;
- a JudgeBench replay (``replay_world``): the recorded verdicts of real judges, read by
  judgegrid's own reader (``inputs.recorded.judgebench``), combined by JudgeBench's sum rule;
  the person answers the pair's known truth.

Orders, each a new label at every draw (no sample twice): ``uniform`` (a random permutation of
the run's pairs, weight 1), ``today`` (today's preference queue, ``analyses.preference_queue``,
in its order, weight 1) and ``new`` (the product's labelling queue, as the label page draws it:
before each label the adaptive design, ``analyses.adaptive_probability``, recomputed from the
rule's state; the label drawn without replacement among the pairs not yet labelled,
``analyses.draw_without_replacement``, over kinds of the base design's stratum and the judges'
picks, ``analyses.kinds_of``; weighted ``1 / (N q)`` with the probability it stores, which is
the kind's ``p_x / rho_t(x)``; its bets clipped by its own bounds and its tests shifted for the
kinds all labelled, ``analyses.shifts_of``, as ``label_state`` reads the stored draws). Rules:
``anytime`` (``analyses.anytime_verdict``; weighted on the new queue) and ``fixed-n`` (the
card's own rule, ``first_evidence``'s pairs rung through ``outcome``), each looked at after
every label. The product's functions are the one source of the weights and bounds: nothing
here computes them again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd

from judgegrid.analyses import (
    UNIFORM_SHARE,
    AnytimeVerdict,
    DrawBounds,
    Standing,
    adaptive_probability,
    anytime_verdict,
    binary_evidence,
    draw_without_replacement,
    hansen_hurwitz,
    kinds_of,
    label_design,
    labels_to_come,
    outcome,
    preference_queue,
    shifts_of,
    standing_of,
    usage_of,
)
from judgegrid.inputs.recorded import judgebench
from judgegrid.testing.decision_bank import BANK, METRIC, Scenario, _scores_table

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

POPULATION = 1000  # pairs in a synthetic run
BUDGET = 400  # labels a person gives at most
CHANCE = 0.5  # a pair's
NOISE = 0.1  # the synthetic person's share of wrong answers
FIXED_BUDGET = 150  # labels the fixed-n rule is looked at up to (the whole rule each time)
BIAS_LABELS = 60  # labels the accuracy figure rests on in the bias figure
# adaptive queues the bias figure rests on, a world: a queue's error has an SD of about 0.1, so
# about 0.0035 of standard error, against a goal of 0.01 (100 queues could not tell 0.01 from 0)
BIAS_SEEDS = 800
CHECKPOINT = 30  # labels at which "about N more" is projected
RUN_STREAM = 7  # a person's own run (person_world) draws from (RUN_STREAM, seed), not seed
ORDERS = ("uniform", "today", "new")
LABELS_GOAL = 0.5  # the new queue's median labels to a verdict over uniform's
WRONG_PICK_GOAL = 0.05
BIAS_GOAL = 0.01
COVERAGE_GOAL = 0.93
RATIO_GOAL = (0.67, 1.5)


@dataclass(frozen=True)
class World:
    """A run's pairs: each judge's pick (+1 a, -1 b, 0 neither) and the truth (+1 a, -1 b);
    ``today``: today's queue's order of the pairs, ``probability``: the new queue's base
    design's probability of each pair and ``stratum`` its stratum (``label_design``; all from
    the judges' picks alone, made once: the kinds are the stratum and the picks);
    ``noise``: the person's share of answers flipped from the truth (the bank's ``NOISE``,
    the replay's 0; ``dataclasses.replace`` gives the same world with another person, as
    ``bench_labels.py --floors`` does at 0, 0.05 and 0.10); ``scenario``: the bank's scenario
    a synthetic world was drawn from (``person_world`` draws each person a run of their own
    from it), None for a replay; ``margin``: the rule's non-inferiority margin (0: a verdict
    names a judge better than the others; ``with_margin``)."""

    name: str
    judges: tuple[str, ...]
    picks: np.ndarray
    truth: np.ndarray
    acceptable: frozenset[str]
    noise: float = NOISE
    today: np.ndarray = field(default_factory=lambda: np.empty(0, int))
    probability: np.ndarray = field(default_factory=lambda: np.empty(0))
    scenario: Scenario | None = None
    stratum: np.ndarray = field(default_factory=lambda: np.empty(0, int))
    margin: float = 0.0


DrawsT = TypeVar("DrawsT", bound="DataclassInstance")


@dataclass(frozen=True)
class Draws:
    """The new queue's labels in order, as the label page stores them and ``label_state`` reads
    them: the sample, the probability stored with it (``draw_without_replacement``: its weight
    ``1 / (N q)`` is the kind's ``p_x / rho_t(x)``), and from its bounds (``DrawBounds``,
    known before the draw) the largest weight, per pair of judges the largest where their
    picks differ, and per test of the rule its shift (``shifts_of``)."""

    picked: np.ndarray
    probability: np.ndarray
    bound: np.ndarray
    pair_bounds: dict[tuple[str, str], np.ndarray]
    shifts: dict[tuple[str, str | None], np.ndarray]

    def then(
        self, sample: int, probability: float, bounds: DrawBounds, judges: tuple[str, ...]
    ) -> Draws:
        """These draws and one more, read from its stored bounds."""
        shift = shifts_of([bounds], judges, CHANCE)
        return Draws(
            np.append(self.picked, sample),
            np.append(self.probability, probability),
            np.append(self.bound, bounds.largest),
            {
                pair: np.append(self.pair_bounds.get(pair, np.empty(0)), bounds.pair(*pair))
                for pair in combinations(judges, 2)
            },
            {key: np.append(self.shifts.get(key, np.empty(0)), v) for key, v in shift.items()},
        )


def first_draws(draws: DrawsT, count: int) -> DrawsT:
    """``draws`` (a dataclass of per-draw arrays, and of dicts of them) cut to its first
    ``count`` draws: the new queue's (``Draws``) and the oracles' (``label_floors``)."""
    cut = {f.name: _first(getattr(draws, f.name), count) for f in fields(draws)}
    return replace(draws, **cut)


def _first(value: np.ndarray | dict, count: int) -> np.ndarray | dict:
    if isinstance(value, dict):
        return {key: v[:count] for key, v in value.items()}
    return value[:count]


NO_DRAWS = Draws(np.empty(0, int), np.empty(0), np.empty(0), {}, {})


def prepared(world: World, uniform_share: float = UNIFORM_SHARE) -> World:
    """``world`` with today's queue and the new queue's base design (its probabilities and
    strata), from the judges' picks."""
    scores, members = _as_scores(world)
    queue = preference_queue(scores, members)
    index = {p: i for i, p in enumerate(members)}
    plan = label_design(queue.set_index("pair")["priority"], uniform_share)
    at = [index[p] for p in plan.samples]
    probability = np.empty(len(world.truth))
    probability[at] = plan.probability
    stratum = np.empty(len(world.truth), int)
    stratum[at] = plan.stratum
    today = np.array([index[p] for p in queue["pair"]])
    return replace(world, today=today, probability=probability, stratum=stratum)


def synthetic_world(scenario: Scenario, rng: np.random.Generator) -> World:
    """A pairs scenario of the bank drawn over ``POPULATION`` pairs. A verdict here says one
    judge is better than the others, so only a truly best judge that is the only one may be
    named: naming either of two equally good judges is a wrong pick (the fixed-n bank counts it
    right, as a verdict "a, b not separated" would be; no verdict here says that)."""
    truth = np.where(rng.random(POPULATION) < 0.5, 1, -1)
    right = np.column_stack([rng.random(POPULATION) < q for q in scenario.quality.values()])
    picks = np.where(right, truth[:, None], -truth[:, None])
    best = scenario.truly_best() if scenario.acceptable() else set()
    return World(
        scenario.name,
        tuple(scenario.quality),
        picks,
        truth,
        frozenset(best if len(best) == 1 else ()),
        scenario=scenario,
    )


def person_world(world: World, seed: int) -> World:
    """The run ``seed``'s person labels. A synthetic world's person gets a run of their own,
    the scenario drawn anew (the same person, ``noise``, whatever the world's draw), as every
    user has their own run: judges equal in the scenario differ a little over any one run's
    pairs, and whether the rule takes that run's luck for a better judge shows only over many
    runs (one run drawn once for every person hid it: docs/labels.md). A replay is one run by
    nature (JudgeBench's pairs): itself."""
    if world.scenario is None:
        return world
    drawn = synthetic_world(world.scenario, np.random.default_rng((RUN_STREAM, seed)))
    person = replace(drawn, noise=world.noise, margin=world.margin, acceptable=world.acceptable)
    return prepared(person)


def with_margin(world: World, margin: float) -> World:
    """``world`` under a non-inferiority margin: the rule shows every judge at most ``margin``
    below each other and above chance (``analyses.anytime_verdict``), and a judge it shows is
    acceptable if it truly is so (by the scenario's accuracies, or a replay's on its pairs;
    ``Scenario.acceptable``'s rule, a judge exactly the margin below counted within)."""
    if world.scenario is not None:
        acceptable = replace(world.scenario, margin=margin).acceptable()
    else:
        accuracy = (world.picks == world.truth[:, None]).mean(axis=0)
        floor = accuracy.max() - margin - 1e-9
        acceptable = {
            j for j, a in zip(world.judges, accuracy, strict=True) if a > CHANCE and a >= floor
        }
    return replace(world, margin=margin, acceptable=frozenset(acceptable))


SYNTHETIC = tuple(
    s for s in BANK if s.evidence == "pairs" and not s.failed and s.margin is None and s.n >= 60
)


def replay_world(paths: Sequence[Path], judges: Sequence[str] | None = None) -> World:
    """JudgeBench's judges on its pairs, read by judgegrid's reader: each judge's pick by the
    sum rule over its two trials (the paper's section 4), the truth the pair's label; the
    acceptable judge the one with the best accuracy on these pairs (the population)."""
    recorded = judgebench.read(list(paths))
    sides = {s.id: (s.labels or {}).get(judgebench.CRITERION) for s in recorded.samples}
    truth = pd.Series({sid: 1 if side == "a" else -1 for sid, side in sides.items()}, dtype=int)
    truth = truth.sort_index()
    votes = recorded.verdicts.assign(
        vote=recorded.verdicts["winner"].map({"a": 1, "b": -1}).fillna(0)
    )
    summed = votes.pivot_table(index="sample_id", columns="judge", values="vote", aggfunc="sum")
    names = tuple(judges) if judges else tuple(sorted(map(str, summed.columns)))
    picks = np.sign(summed.reindex(index=truth.index, columns=list(names)).fillna(0).to_numpy())
    return recorded_world(names, picks.astype(int), truth.to_numpy(), 0.0)


def replay_worlds(folder: Path) -> list[World]:
    """Every judge file in ``folder`` together, and each pair of them (a verdict between two
    judges is the people rung's commonest question)."""
    files = sorted(p for p in folder.glob("*.jsonl") if "judge_name=" in p.name)
    if not files:
        return []
    full = replay_world(files)
    worlds = [prepared(full)]
    for i, first in enumerate(full.judges):
        for second in full.judges[i + 1 :]:
            worlds.append(prepared(_sub_world(full, (first, second))))
    return worlds


def _sub_world(world: World, judges: tuple[str, ...]) -> World:
    columns = [world.judges.index(j) for j in judges]
    return recorded_world(judges, world.picks[:, columns], world.truth, world.noise)


def recorded_world(
    judges: tuple[str, ...], picks: np.ndarray, truth: np.ndarray, noise: float
) -> World:
    """A replay's world of ``judges``' recorded ``picks`` (pairs x judges) on pairs of known
    ``truth``: the acceptable judges are those of the best accuracy on these pairs (all of
    them where several tie; a pick of neither answer is wrong), the judges the replay and
    each of its pairs of judges are scored by, so both read them the same way."""
    accuracy = (picks == truth[:, None]).mean(axis=0)
    best = frozenset(j for j, a in zip(judges, accuracy, strict=True) if a >= accuracy.max())
    short = " vs ".join(n.split("/")[-1][:18] for n in judges)
    return World(f"JudgeBench: {short}", judges, picks, truth, best, noise)


# ---------------------------------------------------------------- one person, one seed


@dataclass(frozen=True)
class Run:
    """One person labelling in one order: labels at the verdict (0: none within the budget),
    the judge named, and whether that is a wrong pick."""

    order: str
    rule: str
    labels: int
    named: str | None
    wrong: bool
    # wrong on the person's own answers over the run (what the rule tests): the judge named is
    # not above every other and chance there; with a noisy person two judges equal in the
    # scenario differ by a little on the run, and naming the better one there is no error
    wrong_on_answers: bool = False


@dataclass(frozen=True)
class Person:
    """What one seed measured: the runs, today's queue's accuracy figure's error at
    ``BIAS_LABELS`` labels (the new queue's: ``queue_errors``, on queues of their own), and
    the projection at ``CHECKPOINT`` against what happened."""

    runs: tuple[Run, ...]
    today_bias: float  # today's queue: unweighted accuracy minus the run's, mean over judges
    projected: float  # labels "about N more" said at the checkpoint (nan: no projection)
    realised: float  # labels it took from the checkpoint to the verdict


def label_person(world: World, seed: int, fixed: int = FIXED_BUDGET) -> Person:
    """One person labelling a ``prepared`` world in each order (see the module docstring);
    ``fixed``: also run the card's fixed-n rule, looked at up to that many labels (0: not at
    all; it is slow, the whole rule at every label)."""
    rng, right, uniform = person_of(world, seed)
    population = right.mean(axis=0)
    new, drawn = adaptive_run(world, right, rng)
    runs = [
        anytime_run(world, "uniform", right, uniform),
        new,
        anytime_run(world, "today", right, world.today),
    ]
    if fixed:
        runs.append(_fixed_run(world, "uniform", right, uniform[:fixed]))
        runs.append(_fixed_run(world, "today", right, world.today[:fixed]))
    runs = [replace(r, wrong_on_answers=wrong_on(world, r.named, population)) for r in runs]
    first = right[world.today[:BIAS_LABELS]].mean(axis=0)
    projected, realised = _projection(world, right, drawn, new)
    return Person(tuple(runs), float(np.mean(first - population)), projected, realised)


def person_of(world: World, seed: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """``seed``'s person: the generator, each judge's right on the person's answers (drawn
    first) and the uniform order (next: a random permutation of the pairs, each labelled once);
    the new queue draws from the generator after them, so ``label_person`` and ``bias_draws``
    draw the same queue for a seed."""
    rng = np.random.default_rng(seed)
    answers = np.where(rng.random(len(world.truth)) < world.noise, -world.truth, world.truth)
    right = (world.picks == answers[:, None]).astype(float)
    uniform = rng.permutation(len(answers))
    return rng, right, uniform


def bias_draws(world: World, seed: int) -> tuple[np.ndarray, Draws]:
    """Each judge's right on ``seed``'s person's answers, and the person's new queue run only as
    far as ``BIAS_LABELS`` labels: the first labels of ``label_person``'s queue (the rule is
    still looked at after every label, as the design follows it), without the rest of the
    person (the other orders, the queue on to a verdict), so many more queues are affordable."""
    rng, right, _ = person_of(world, seed)
    _, drawn = adaptive_run(world, right, rng, to_verdict=False)
    return right, drawn


def queue_errors(world: World, seed: int) -> tuple[float, float]:
    """The weighted accuracy figure's mean error over judges, and the share of judges its 95%
    interval holds, on ``seed``'s new queue's first ``BIAS_LABELS`` labels."""
    return _weighted_errors(*bias_draws(world, seed))


def _weighted_errors(right: np.ndarray, drawn: Draws) -> tuple[float, float]:
    """The weighted accuracy figure (Hansen-Hurwitz about chance, its t interval; each label
    weighted as the product weighs it, ``1 / (N q)`` with its stored probability: the kind's
    ``p_x / rho_t(x)``) on the new queue's first ``BIAS_LABELS`` labels: its mean error
    against the run's accuracy over judges, and the share of its 95% intervals that hold it."""
    n = len(right)
    population = right.mean(axis=0)
    picked, q = drawn.picked[:BIAS_LABELS], drawn.probability[:BIAS_LABELS]
    errors, covered = [], []
    for j, truth in enumerate(population):
        found = hansen_hurwitz(right[picked, j], q, n, centre=CHANCE)
        errors.append(found.mean - truth)
        covered.append(found.low <= truth <= found.high)
    return float(np.mean(errors)), float(np.mean(covered))


def anytime_run(world: World, order: str, right: np.ndarray, picked: np.ndarray) -> Run:
    """The anytime rule after every label of an unweighted order (a permutation, or today's
    queue, which has no probabilities; each pair once), stopping at the first verdict or at
    ``BUDGET`` labels."""
    within = picked[: min(BUDGET, len(right))]
    found = anytime_verdict(
        world.judges,
        right[within],
        np.ones(len(within)),
        1.0,
        CHANCE,
        project=False,
        margin=world.margin,
    )
    return run_of(world, order, found)


def run_of(world: World, order: str, found: AnytimeVerdict) -> Run:
    """The person's run: a label a draw, so the verdict's draw is its labels; under a margin
    wrong if any judge it shows (``AnytimeVerdict.within``) is not acceptable."""
    if found.named is None:
        return Run(order, "anytime", 0, None, False)
    wrong = any(_wrong(world, judge) for judge in found.within or (found.named,))
    return Run(order, "anytime", found.at, found.named, wrong)


def adaptive_run(
    world: World, right: np.ndarray, rng: np.random.Generator, to_verdict: bool = True
) -> tuple[Run, Draws]:
    """The product's queue: before each label the adaptive design is recomputed from the rule's
    state on the labels so far (``analyses.adaptive_probability``), then one label drawn
    without replacement among the pairs not yet labelled (``draw_without_replacement``, over
    the kinds of the base design's stratum and the judges' picks); the rule is looked at after
    every label and the person stops at the first verdict, or at ``BUDGET`` labels. The draws
    go on to ``BIAS_LABELS`` for the accuracy figure; with ``to_verdict`` False they stop there
    (the first draws the same: a draw depends only on the draws before it)."""
    n = len(right)
    answers = world.picks.astype(float)
    kinds = kinds_of(world.stratum, answers)
    open_ = np.ones(n, bool)
    drawn, standing, stop = NO_DRAWS, Standing(None), None
    budget = min(BUDGET, n)
    while open_.any() and (
        len(drawn.picked) < BIAS_LABELS
        or (to_verdict and stop is None and len(drawn.picked) < budget)
    ):
        q = adaptive_probability(world.probability, answers, standing)
        sample, probability, bounds = draw_without_replacement(q, kinds, open_, world.judges, rng)
        open_[sample] = False
        drawn = drawn.then(sample, probability, bounds, world.judges)
        if stop is not None or len(drawn.picked) > budget:
            continue
        found = queue_verdict(world, right, drawn)
        if found.named is not None:
            stop = run_of(world, "new", found)
        standing = standing_of(found, world.judges)
    return stop or Run("new", "anytime", 0, None, False), drawn


def queue_verdict(
    world: World, right: np.ndarray, drawn: Draws, project: bool = False
) -> AnytimeVerdict:
    """The anytime rule on the new queue's labels as ``label_state`` reads stored draws: each
    weighted ``1 / (N q)``, bet on within its own bounds, its tests shifted."""
    weight = 1.0 / (len(right) * drawn.probability)
    return anytime_verdict(
        world.judges,
        right[drawn.picked],
        weight,
        drawn.bound,
        CHANCE,
        pair_bounds=drawn.pair_bounds,
        project=project,
        shifts=drawn.shifts,
        margin=world.margin,
    )


def _fixed_run(world: World, order: str, right: np.ndarray, order_of: np.ndarray) -> Run:
    """The card's fixed-n rule on the first t labels, t = 2, 3, ... (all of ``order_of``): the
    person stops at the first judge it names."""
    usage = usage_of(_ranking(world), METRIC)
    for t in range(2, len(order_of) + 1):
        table = pd.DataFrame(right[order_of[:t]], columns=list(world.judges))
        found = outcome(binary_evidence(table), usage)
        if found.kind == "named" and found.named is not None:
            return Run(order, "fixed-n", t, found.named, _wrong(world, found.named))
    return Run(order, "fixed-n", 0, None, False)


def _projection(world: World, right: np.ndarray, drawn: Draws, run: Run) -> tuple[float, float]:
    """ "About N more" at ``CHECKPOINT`` labels of the new queue (``labels_to_come``: a label a
    draw, within the pairs left), and what it took."""
    if not run.labels or run.labels <= CHECKPOINT:
        return float("nan"), float("nan")
    found = queue_verdict(world, right, first_draws(drawn, CHECKPOINT), project=True)
    more = labels_to_come(len(right) - CHECKPOINT, found.about_more)
    return more, float(run.labels - CHECKPOINT)


def _wrong(world: World, named: str) -> bool:
    return named not in world.acceptable


def wrong_on(world: World, named: str | None, accuracy: np.ndarray) -> bool:
    """Whether ``named`` is not above every other judge (less the world's margin) and chance in
    ``accuracy`` (each judge's share right on the person's answers over the whole run)."""
    if named is None:
        return False
    j = world.judges.index(named)
    others = np.delete(accuracy, j)
    return not (accuracy[j] > CHANCE and bool(np.all(accuracy[j] > others - world.margin)))


def _ranking(world: World) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": METRIC,
            "judge": list(world.judges),
            "cost_per_score": 0.001,
            "latency_per_score_s": 1.0,
            "failure_rate": 0.0,
        }
    )


def _as_scores(world: World) -> tuple[pd.DataFrame, dict[str, tuple[str, str]]]:
    """The judges' picks as the scores table today's preference queue reads: each pair's two
    members, the picked one 1, the other 0 (0.5 each for neither)."""
    members = {f"p{i:05d}": (f"p{i:05d}-a", f"p{i:05d}-b") for i in range(len(world.truth))}
    rows = []
    for j, judge in enumerate(world.judges):
        a_score = (world.picks[:, j] + 1) / 2
        for (first, second), score in zip(members.values(), a_score, strict=True):
            rows.append((first, judge, float(score), False))
            rows.append((second, judge, float(1 - score), False))
    return _scores_table(rows), members


# ---------------------------------------------------------------- figures


RULES = (*((o, "anytime") for o in ORDERS), ("uniform", "fixed-n"), ("today", "fixed-n"))


def world_figures(
    world: World,
    seeds: Iterable[int],
    fixed_seeds: int | None = None,
    fixed_budget: int = FIXED_BUDGET,
    bias_seeds: Iterable[int] | None = None,
) -> dict[str, object]:
    """Per world: each order and rule's median labels to a verdict, verdict share and wrong
    picks; the accuracy figures' bias (the new queue's on queues of its own, ``bias_seeds``;
    None: the people's seeds) and coverage; the projection's median ratio. Each person labels
    a run of their own (``person_world``); the bias queues run on ``world`` as drawn: their
    figure is the error against that run's own accuracy, which no run's luck enters (and 800
    runs drawn anew would take half an hour more)."""
    seeds = list(seeds)
    limit = len(seeds) if fixed_seeds is None else fixed_seeds
    people = [
        label_person(person_world(world, seed), seed, fixed=fixed_budget if k < limit else 0)
        for k, seed in enumerate(seeds)
    ]
    figures: dict[str, object] = {
        "world": world.name,
        "seeds": len(people),
        "disputed share": disputed_share(world),
    }
    figures |= order_figures(people, fixed_budget)
    figures["today bias"] = float(np.mean([p.today_bias for p in people]))
    figures |= bias_figures(world, seeds if bias_seeds is None else bias_seeds)
    ratios = [
        p.projected / p.realised for p in people if np.isfinite(p.projected) and p.realised > 0
    ]
    figures["about-N ratio"] = float(np.median(ratios)) if ratios else float("nan")
    figures["about-N cases"] = len(ratios)
    return figures


def order_figures(people: Sequence[Person], fixed_budget: int = FIXED_BUDGET) -> dict[str, float]:
    """Per order and rule the people ran (``RULES``): the share with a verdict, the median
    labels to it (``censored_median``), and the shares of wrong picks, by the world and on the
    person's answers."""
    figures: dict[str, float] = {}
    for order, rule in RULES:
        runs = [r for p in people for r in p.runs if r.order == order and r.rule == rule]
        if not runs:
            continue
        found = run_figures(runs, fixed_budget if rule == "fixed-n" else BUDGET)
        figures |= {f"{order} {rule}: {name}": value for name, value in found.items()}
    return figures


def run_figures(runs: Sequence[Run], budget: int) -> dict[str, float]:
    """Of some people's ``runs``: the share with a verdict, the median labels to it
    (``censored_median``, within ``budget``), and the shares of wrong picks, by the world and
    on the person's answers."""
    return {
        "verdicts": sum(r.labels > 0 for r in runs) / len(runs),
        "median labels": censored_median(runs, budget),
        "wrong pick": sum(r.wrong for r in runs) / len(runs),
        "wrong on answers": sum(r.wrong_on_answers for r in runs) / len(runs),
    }


def margin_figures(world: World, margin: float, seeds: Iterable[int]) -> dict[str, object]:
    """``order_figures`` of the anytime rule under a non-inferiority ``margin`` (``with_margin``),
    each person labelling a run of their own, the fixed-n rule not run."""
    judged = with_margin(world, margin)
    people = [label_person(person_world(judged, seed), seed, fixed=0) for seed in seeds]
    acceptable = ", ".join(sorted(judged.acceptable)) or "none"
    return {"world": world.name, "seeds": len(people), "acceptable": acceptable} | order_figures(
        people
    )


def bias_figures(world: World, seeds: Iterable[int]) -> dict[str, float]:
    """The weighted accuracy figure on each seed's new queue's first ``BIAS_LABELS`` labels
    (``queue_errors``): its mean error (the bias), the bias's standard error over the queues
    (each queue one independent error), how many queues, and the intervals' coverage."""
    errors, covered = np.array([queue_errors(world, seed) for seed in seeds]).T
    return {
        "new bias": float(errors.mean()),
        "new bias SE": float(errors.std(ddof=1) / np.sqrt(len(errors))),
        "new bias queues": len(errors),
        "new coverage": float(covered.mean()),
    }


def disputed_share(world: World) -> float:
    """|D| / N for a world of two judges: the share of pairs on which they pick differently
    (NaN with more judges). Only a label there moves their paired test, and in both orders the
    labels there fall uniformly, so with the same rule a queue needs about this share of
    uniform order's labels for the paired test alone (benches/README.md)."""
    if len(world.judges) != 2:
        return float("nan")
    return float(np.mean(world.picks[:, 0] != world.picks[:, 1]))


def censored_median(runs: Sequence[Run], budget: int) -> float:
    """The median labels to a verdict, a run without one counting as the budget (so the median
    is a floor where fewer than half reach one: then it reads as the budget, not a number)."""
    values = [r.labels if r.labels else budget + 1 for r in runs]
    middle = float(np.median(values))
    return middle if middle <= budget else float("inf")


def bank_worlds(seed: int = 0) -> list[World]:
    """The synthetic worlds, each drawn once (the people differ by seed)."""
    rng = np.random.default_rng(seed)
    return [prepared(synthetic_world(s, rng)) for s in SYNTHETIC]
