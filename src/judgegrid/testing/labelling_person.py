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

Orders: ``uniform`` (draws uniformly at random, with replacement), ``today`` (today's preference
queue, ``analyses.preference_queue``, in its order) and ``new`` (the adaptive queue,
``analyses.adaptive_probability``: with replacement, its design recomputed before each new label
from the rule's state, each draw weighted by its own probability and its bets clipped by its own
bounds). Rules: ``anytime`` (``analyses.anytime_verdict``; weighted on the new queue) and
``fixed-n`` (the card's own rule, ``first_evidence``'s pairs rung through ``outcome``), each
looked at after every label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from judgegrid.analyses import (
    UNIFORM_SHARE,
    AnytimeVerdict,
    Standing,
    adaptive_probability,
    anytime_verdict,
    binary_evidence,
    draw_bounds,
    hansen_hurwitz,
    label_design,
    outcome,
    preference_queue,
    standing_of,
    usage_of,
)
from judgegrid.inputs.recorded import judgebench
from judgegrid.testing.decision_bank import BANK, METRIC, Scenario, _scores_table

POPULATION = 1000  # pairs in a synthetic run
BUDGET = 400  # labels a person gives at most
DRAW_CAP = 4000  # draws (a draw of a pair already labelled asks nothing)
CHANCE = 0.5  # a pair's
NOISE = 0.1  # the synthetic person's share of wrong answers
FIXED_BUDGET = 150  # labels the fixed-n rule is looked at up to (the whole rule each time)
BIAS_LABELS = 60  # labels (draws) the accuracy figure rests on in the bias figure
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
    ``today``: today's queue's order of the pairs, ``probability``: the new queue's
    probability a draw of each pair (both from the judges' picks alone, made once);
    ``noise``: the person's share of answers flipped from the truth (the bank's ``NOISE``,
    the replay's 0; ``dataclasses.replace`` gives the same world with another person, as
    ``bench_labels.py --floors`` does at 0, 0.05 and 0.10); ``scenario``: the bank's scenario
    a synthetic world was drawn from (``person_world`` draws each person a run of their own
    from it), None for a replay."""

    name: str
    judges: tuple[str, ...]
    picks: np.ndarray
    truth: np.ndarray
    acceptable: frozenset[str]
    noise: float = NOISE
    today: np.ndarray = field(default_factory=lambda: np.empty(0, int))
    probability: np.ndarray = field(default_factory=lambda: np.empty(0))
    scenario: Scenario | None = None


@dataclass(frozen=True)
class Draws:
    """An adaptive queue's draws in order: the sample, its probability when drawn, the
    design's largest weight and per pair of judges the largest weight where their picks
    differ (each known before the draw)."""

    picked: np.ndarray
    probability: np.ndarray
    bound: np.ndarray
    pair_bounds: dict[tuple[str, str], np.ndarray]


def prepared(world: World, uniform_share: float = UNIFORM_SHARE) -> World:
    """``world`` with today's queue and the new queue's design, from the judges' picks."""
    scores, members = _as_scores(world)
    queue = preference_queue(scores, members)
    index = {p: i for i, p in enumerate(members)}
    plan = label_design(queue.set_index("pair")["priority"], uniform_share)
    probability = np.empty(len(world.truth))
    probability[[index[p] for p in plan.samples]] = plan.probability
    today = np.array([index[p] for p in queue["pair"]])
    return replace(world, today=today, probability=probability)


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
    return prepared(replace(drawn, noise=world.noise))


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
    ``BIAS_LABELS`` (the new queue's: ``queue_errors``, on queues of their own), and the
    projection at ``CHECKPOINT`` against what happened."""

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
        runs.append(_fixed_run(world, "uniform", right, _distinct(uniform)[:fixed]))
        runs.append(_fixed_run(world, "today", right, world.today[:fixed]))
    runs = [replace(r, wrong_on_answers=_wrong_on(world, r.named, population)) for r in runs]
    first = right[world.today[:BIAS_LABELS]].mean(axis=0)
    projected, realised = _projection(world, right, drawn, new)
    return Person(tuple(runs), float(np.mean(first - population)), projected, realised)


def person_of(world: World, seed: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """``seed``'s person: the generator, each judge's right on the person's answers (drawn
    first) and the uniform order (next); the adaptive queue draws from the generator after
    them, so ``label_person`` and ``bias_draws`` draw the same queue for a seed."""
    rng = np.random.default_rng(seed)
    answers = np.where(rng.random(len(world.truth)) < world.noise, -world.truth, world.truth)
    right = (world.picks == answers[:, None]).astype(float)
    uniform = rng.integers(0, len(answers), DRAW_CAP)
    return rng, right, uniform


def bias_draws(world: World, seed: int) -> tuple[np.ndarray, Draws]:
    """Each judge's right on ``seed``'s person's answers, and the person's adaptive queue run
    only as far as ``BIAS_LABELS`` draws: the first draws of ``label_person``'s queue (the rule
    is still looked at after every label, as the design follows it), without the rest of the
    person (the other orders, the queue on to a verdict), so many more queues are affordable."""
    rng, right, _ = person_of(world, seed)
    _, drawn = adaptive_run(world, right, rng, to_verdict=False)
    return right, drawn


def queue_errors(world: World, seed: int) -> tuple[float, float]:
    """The weighted accuracy figure's mean error over judges, and the share of judges its 95%
    interval holds, on ``seed``'s adaptive queue's first ``BIAS_LABELS`` draws."""
    return _weighted_errors(*bias_draws(world, seed))


def _weighted_errors(right: np.ndarray, drawn: Draws) -> tuple[float, float]:
    """The weighted accuracy figure (Hansen-Hurwitz about chance, each draw weighted by its own
    probability) on the adaptive queue's first ``BIAS_LABELS`` draws: its mean error against
    the run's accuracy over judges, and the share of its 95% intervals that hold it."""
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
    """The anytime rule after every draw of an unweighted order (uniform, or today's queue,
    which has no probabilities), stopping at the first verdict or at ``BUDGET`` labels."""
    labels = labels_so_far(picked)
    within = within_budget(labels, len(right))
    found = anytime_verdict(
        world.judges, right[picked[:within]], np.ones(within), 1.0, CHANCE, project=False
    )
    return _run(world, order, labels, found)


def _run(world: World, order: str, labels: np.ndarray, found: AnytimeVerdict) -> Run:
    if found.named is None:
        return Run(order, "anytime", 0, None, False)
    return Run(order, "anytime", int(labels[found.at - 1]), found.named, _wrong(world, found.named))


def adaptive_run(
    world: World, right: np.ndarray, rng: np.random.Generator, to_verdict: bool = True
) -> tuple[Run, Draws]:
    """The adaptive queue: before each new label the design is recomputed from the rule's
    state on the draws so far (``analyses.adaptive_probability``), then drawn from until a
    draw asks for a new label (a draw of a pair already labelled counts its label again); the
    rule is looked at after every label and the person stops at the first verdict, or at
    ``BUDGET`` labels. The draws go on to ``BIAS_LABELS`` for the accuracy figure; with
    ``to_verdict`` False they stop there (the first draws the same: a batch of draws depends
    only on the draws before it)."""
    n = len(right)
    answers = world.picks.astype(float)
    labelled = np.zeros(n, bool)
    drawn = Draws(np.empty(0, int), np.empty(0), np.empty(0), {})
    standing, stop = Standing(None), None
    while len(drawn.picked) < DRAW_CAP and (
        len(drawn.picked) < BIAS_LABELS or (to_verdict and stop is None)
    ):
        q = adaptive_probability(world.probability, answers, standing)
        drawn = _until_new(drawn, q, draw_bounds(q, answers, world.judges), labelled, rng)
        labelled[drawn.picked[-1]] = True
        if stop is not None or labelled.sum() > min(BUDGET, n):
            continue
        found = _verdict(world, right, drawn)
        if found.named is not None:
            stop = _run(world, "new", labels_so_far(drawn.picked), found)
        standing = standing_of(found, world.judges)
    return stop or Run("new", "anytime", 0, None, False), drawn


def _until_new(
    drawn: Draws,
    q: np.ndarray,
    bounds: tuple[float, dict[tuple[str, str], float]],
    labelled: np.ndarray,
    rng: np.random.Generator,
) -> Draws:
    """``drawn`` and the draws from ``q`` up to the first of a sample not yet labelled (or to
    ``DRAW_CAP`` draws), each with the design's bounds."""
    room = DRAW_CAP - len(drawn.picked)
    batch = rng.choice(len(q), size=min(room, 64), p=q)
    fresh = np.flatnonzero(~labelled[batch])
    while not len(fresh) and len(batch) < room:  # every draw a repeat: draw on
        batch = np.concatenate([batch, rng.choice(len(q), size=min(room - len(batch), 256), p=q)])
        fresh = np.flatnonzero(~labelled[batch])
    batch = batch[: fresh[0] + 1] if len(fresh) else batch
    largest, by_pair = bounds
    more = len(batch)
    return Draws(
        np.concatenate([drawn.picked, batch]),
        np.concatenate([drawn.probability, q[batch]]),
        np.concatenate([drawn.bound, np.full(more, largest)]),
        {
            key: np.concatenate([drawn.pair_bounds.get(key, np.empty(0)), np.full(more, value)])
            for key, value in by_pair.items()
        },
    )


def _verdict(
    world: World, right: np.ndarray, drawn: Draws, project: bool = False
) -> AnytimeVerdict:
    """The anytime rule on an adaptive queue's draws, each weighted ``1 / (N q_t)`` and bet on
    within its own bounds."""
    weight = 1.0 / (len(right) * drawn.probability)
    return anytime_verdict(
        world.judges,
        right[drawn.picked],
        weight,
        drawn.bound,
        CHANCE,
        pair_bounds=drawn.pair_bounds,
        project=project,
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
    """ "About N more" at ``CHECKPOINT`` labels of the adaptive queue (the new labels the
    design it would then draw from asks in the draws the rule still needs), and what it
    took."""
    labels = labels_so_far(drawn.picked)
    if not run.labels or run.labels <= CHECKPOINT:
        return float("nan"), float("nan")
    at = int(np.searchsorted(labels, CHECKPOINT, side="left")) + 1
    head = Draws(
        drawn.picked[:at],
        drawn.probability[:at],
        drawn.bound[:at],
        {k: v[:at] for k, v in drawn.pair_bounds.items()},
    )
    found = _verdict(world, right, head, project=True)
    labelled = np.zeros(len(right), bool)
    labelled[head.picked] = True
    design = adaptive_probability(
        world.probability, world.picks.astype(float), standing_of(found, world.judges)
    )
    more = _expected_new(design, labelled, found.about_more)
    return more, float(run.labels - CHECKPOINT)


def _expected_new(probability: np.ndarray, labelled: np.ndarray, draws: float) -> float:
    """How many new labels ``draws`` more draws with replacement ask for, in expectation: each
    sample not yet labelled is asked with probability ``1 - (1 - q)^draws``."""
    q = np.asarray(probability, float)[~labelled]
    if not q.size:
        return 0.0
    return float(np.sum(1 - (1 - q) ** draws)) if np.isfinite(draws) else float("inf")


def within_budget(labels: np.ndarray, population: int) -> int:
    """How many draws the rule reads: up to the last one before a label beyond ``BUDGET`` (or
    beyond the run's ``population``, where every sample is labelled sooner); ``labels`` is
    ``labels_so_far``'s."""
    return int(np.searchsorted(labels, min(BUDGET, population), side="right"))


def labels_so_far(picked: np.ndarray) -> np.ndarray:
    """After each draw, how many distinct samples have been labelled."""
    seen: set[int] = set()
    out = np.empty(len(picked), int)
    for i, p in enumerate(picked):
        seen.add(int(p))
        out[i] = len(seen)
    return out


def _distinct(picked: np.ndarray) -> np.ndarray:
    """The samples in the order first drawn (a fixed-n rule sees each label once)."""
    return np.asarray(pd.unique(picked))


def _wrong(world: World, named: str) -> bool:
    return named not in world.acceptable


def _wrong_on(world: World, named: str | None, accuracy: np.ndarray) -> bool:
    """Whether ``named`` is not above every other judge and chance in ``accuracy`` (each
    judge's share right on the person's answers over the whole run)."""
    if named is None:
        return False
    j = world.judges.index(named)
    others = np.delete(accuracy, j)
    return not (accuracy[j] > CHANCE and bool(np.all(accuracy[j] > others)))


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
    for order, rule in RULES:
        runs = [r for p in people for r in p.runs if r.order == order and r.rule == rule]
        if not runs:
            continue
        reached = [r.labels for r in runs if r.labels]
        key = f"{order} {rule}"
        figures[f"{key}: verdicts"] = len(reached) / len(runs)
        figures[f"{key}: median labels"] = censored_median(
            runs, fixed_budget if rule == "fixed-n" else BUDGET
        )
        figures[f"{key}: wrong pick"] = sum(r.wrong for r in runs) / len(runs)
        figures[f"{key}: wrong on answers"] = sum(r.wrong_on_answers for r in runs) / len(runs)
    figures["today bias"] = float(np.mean([p.today_bias for p in people]))
    figures |= bias_figures(world, seeds if bias_seeds is None else bias_seeds)
    ratios = [
        p.projected / p.realised for p in people if np.isfinite(p.projected) and p.realised > 0
    ]
    figures["about-N ratio"] = float(np.median(ratios)) if ratios else float("nan")
    figures["about-N cases"] = len(ratios)
    return figures


def bias_figures(world: World, seeds: Iterable[int]) -> dict[str, float]:
    """The weighted accuracy figure on each seed's adaptive queue's first ``BIAS_LABELS`` draws
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
