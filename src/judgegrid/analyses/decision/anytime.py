"""The people rung's two decisions, valid when the card is recomputed after every label and the
person stops at the first verdict: is one judge better than each other judge (the paired
comparison), and is it better than chance?

Each draw of the queue (``decision.sampling``) gives, per judge, right or wrong against the
person's label (or agreement with it: any value in [0, 1]) and the draw's weight
``1 / (N q)``. The weighted values ``w * right_j`` have mean judge j's accuracy over all the
run's samples, and ``w * (right_j - right_k)`` the paired difference; each hypothesis is tested
by betting (``stats.betting``), which Ville's inequality keeps valid under continuous
monitoring:

- ``j`` beats ``k``: reject ``E[w (right_j - right_k)] <= 0``;
- ``j`` beats chance: reject ``E[w (right_j - chance)] <= 0`` (``E[w] = 1``, so this is the
  accuracy against chance);

each at ``alpha / J``. A judge is named when all its ``J`` tests (its ``J - 1`` rivals and
chance) reject. A wrong name, a judge no better than some rival or than chance, needs one of
its own tests whose null is true to reject, which by Ville's inequality ever happens with
chance at most ``alpha / J``; at most ``J`` judges can be named wrongly, so by the union bound
the chance that any is, however often one looks, is at most ``alpha``. The rule controls the
error of the name it gives, not of every comparison: a test that rejects on the way (``a``
beats ``c`` while ``a`` against ``b`` is open) is no claim of the card, only what the adaptive
queue reads to choose where to ask (``decision.adaptive``). Splitting the error over every
test instead would run each paired test at ``alpha / (2 J (J - 1))``: for four judges 1/6 of
the error this rule gives it, for the same guarantee on the name. With a uniform queue every
weight is 1.

With a non-inferiority margin ``m`` (the card's ``decision: {margin}``) the paired tests ask
less: ``j`` is at most ``m`` below ``k``, reject ``E[w (right_j - right_k)] <= -m``. Every judge
whose tests have all rejected is then shown at most ``m`` below every other judge and above
chance (``AnytimeVerdict.within``); the card takes the cheapest of them. A judge shown so
wrongly, in truth more than ``m`` below some rival or at chance, again has a test of its own
with a true null that rejected, so the same union bound holds for the whole set at once: the
chance that any judge in it does not belong there, however often one looks, is at most
``alpha``.

"About N more" projects the leader, the judge the card names in practically every projected
future (the futures replay the present draws, where it leads; projecting every judge and taking
the first to get there gave the same figures in ``benches/bench_labels.py`` at k times the
cost), each of its tests at the whole ``alpha``: the labels it would take were the leader the
one judge to be named, chosen before any label. A projection is asked only while no verdict has
come, when the present difference tends to be smaller than the true one (had it been larger,
the verdict would likely have come), so replayed at the rule's own ``alpha / J`` it overstates
the labels still needed: in ``benches/bench_labels.py`` (the new queue, 100 people a world,
"about N more" at 30 labels against the labels the verdict then took), the median ratio was
2.0 (one judge better by 0.15) and 1.85 (four judges) at ``alpha / J``, against 1.25 and 1.52 at
``2 alpha / J`` and 0.97 and 1.41 at ``3 alpha / J``. Leaving out the price of not knowing the
leader in advance offsets the understated difference; it is a forecast, so calibrated (the
bench measures its ratio); the verdict itself is the rule's, at ``alpha / J``. Where the
leader's tests have crossed at ``alpha`` already and not at the rule's, it says one more.

Missing data: a judge with no answer on a draw counts as wrong there, as on the pairs rung.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from judgegrid.analyses.stats.betting import Bound, draws_to_reject, first_rejection

ALPHA = 0.05
HORIZON = 5000  # draws a projection looks ahead


@dataclass(frozen=True)
class Test:
    """One hypothesis of the rule: the weighted values it bets on and their null and bounds."""

    judge: str
    against: str | None  # None: against chance
    null: float
    low: Bound  # one bound for every draw, or each draw's own (known before the draw)
    high: Bound
    alpha: float
    # added to each draw's value (and bounds), known before the draw: a queue without
    # replacement fills in the kinds all labelled at their lowest (``decision.kinds``)
    shift: Bound = 0.0

    def values(self, raw: np.ndarray) -> np.ndarray:
        """The draws' values as bet on: ``raw + shift``, and the null (no bet: the capital
        unchanged) on a draw whose shift leaves no room above it (``frozen``)."""
        return np.where(self.frozen(), self.null, raw + self.shift)

    def bounds(self) -> tuple[Bound, Bound]:
        """The bounds of ``values``: the test's own, shifted (on a frozen draw, its own), each
        widened where needed to hold the null strictly inside (``_around``)."""
        if np.ndim(self.shift) == 0 and self.shift == 0:
            return _around(self.null, self.low, self.high)
        frozen = self.frozen()
        low = np.where(frozen, self.low, np.add(self.low, self.shift))
        return _around(self.null, low, np.where(frozen, self.high, np.add(self.high, self.shift)))

    def frozen(self) -> np.ndarray:
        """Per draw (or for all): whether the shift leaves the values no room above the null."""
        return np.asarray(np.add(self.high, self.shift) <= self.null)


def _around(null: float, low: Bound, high: Bound) -> tuple[Bound, Bound]:
    """``low`` and ``high`` widened, draw by draw, to hold ``null`` strictly inside, as the bet
    needs (``stats.betting``; a wider bound is still a bound). Under a margin a draw may lie
    wholly above the null: where the two judges differ on so few samples, by the design's
    weights, that one cannot be the margin below the other (the mean of ``w (right_j -
    right_k)`` lies within the largest such weight), the null is false whatever the label, and
    the draw's bet is a sure gain. A frozen draw's value is the null itself (no bet)."""
    gap = np.maximum(np.subtract(high, low), 1e-9)
    wide_low = np.where(np.less(low, null), low, np.subtract(null, gap))
    wide_high = np.where(np.greater(high, null), high, np.add(null, gap))
    if np.ndim(wide_low) == 0:
        return float(wide_low), float(wide_high)
    return wide_low, wide_high


@dataclass(frozen=True)
class AnytimeVerdict:
    """Where the rule stands after the draws so far."""

    named: str | None  # the judge that beats every other and chance, if one does
    leader: str | None  # the judge with the highest weighted accuracy
    draws: int
    # the draw at which the verdict was first reached, looking after every draw (0: none yet):
    # what a person who stops at the first verdict sees
    at: int
    about_more: float  # draws still needed for the leader, if the present differences hold
    # the tests rejected so far: (judge, rival) "judge beats rival", (judge, None) "beats
    # chance" (what an adaptive queue reads, ``decision.adaptive``)
    beaten: frozenset[tuple[str, str | None]] = frozenset()
    # the judges as accurate as the leader on the draws (the leader is the first of them in
    # order): the line says they are level, not that the leader leads them
    level: tuple[str, ...] = ()
    # with a non-inferiority margin (``margin`` > 0): every judge shown at most ``margin``
    # below every other and above chance, in the judges' order (``named`` is the first to be)
    within: tuple[str, ...] = ()
    margin: float = 0.0
    # per test of the leader's, ((judge, rival), the mean of the values it bets on above its
    # null on the draws so far: its estimated gap), in the tests' order: what an adaptive
    # queue reads to see which test binds (``decision.binding``; ``gap``); pairs, not a dict,
    # so that a verdict is immutable and hashable (a dict is neither, nor is a read-only view
    # of one); and the chance level the tests against chance stand on
    gaps: tuple[tuple[tuple[str, str | None], float], ...] = ()
    chance: float = 0.5

    def gap(self, judge: str, rival: str | None) -> float:
        """The leader's estimated gap in its test against ``rival`` (None: chance); NaN where
        no such test of the leader's was read."""
        return next((g for key, g in self.gaps if key == (judge, rival)), float("nan"))


def hypotheses_of(
    judges: tuple[str, ...],
    bound: Bound,
    chance: float,
    alpha: float = ALPHA,
    pair_bounds: Mapping[tuple[str, str], Bound] | None = None,
    shifts: Mapping[tuple[str, str | None], Bound] | None = None,
    margin: float = 0.0,
) -> list[Test]:
    """Every test the rule runs for ``judges``. ``bound`` is the largest weight a draw can
    carry (1 for a uniform queue; one per draw where the queue's design changes from draw to
    draw); ``pair_bounds`` may give a tighter bound of ``|w (right_j - right_k)|`` per pair,
    known before the draw (for two judges' picks on a preference pair: the largest weight
    among the pairs where their picks differ, since where they pick the same answer the
    difference is 0 whatever the person says); ``shifts`` what each test (``(judge, rival)``,
    rival None against chance) adds to its draws' values (``Test.shift``); ``margin``: how far
    below a rival a judge may be and pass its paired test (0: it must beat the rival)."""
    k = len(judges)
    each = alpha / k  # a wrong name needs one true null of its own rejected: see the module
    bounds = dict(pair_bounds or {})
    moved = dict(shifts or {})
    # against chance: w (right - chance), whose mean is accuracy - chance since E[w] = 1
    low, high = -chance * bound, (1 - chance) * bound
    found = [Test(j, None, 0.0, low, high, each, moved.get((j, None), 0.0)) for j in judges]
    for j in judges:
        for o in judges:
            if o != j:
                reach = bounds.get((j, o), bounds.get((o, j), bound))
                shift = moved.get((j, o), 0.0)
                found.append(Test(j, o, -margin, -reach, reach, each, shift))
    return found


def bet_values(
    test: Test, judges: tuple[str, ...], right: np.ndarray, weight: np.ndarray, chance: float
) -> np.ndarray:
    """The weighted values a test bets on, draw by draw: each has mean 0 under its null's
    boundary, the weights' mean 1 cancelling the chance level (a control variate: the
    spread of the weights then adds less to the spread of the values); shifted
    (``Test.values``)."""
    mine = right[:, judges.index(test.judge)]
    if test.against is None:
        return test.values(weight * (mine - chance))
    return test.values(weight * (mine - right[:, judges.index(test.against)]))


def anytime_verdict(
    judges: tuple[str, ...],
    right: np.ndarray,
    weight: np.ndarray,
    bound: Bound,
    chance: float,
    alpha: float = ALPHA,
    seed: int = 0,
    pair_bounds: Mapping[tuple[str, str], Bound] | None = None,
    project: bool = True,
    shifts: Mapping[tuple[str, str | None], Bound] | None = None,
    margin: float = 0.0,
) -> AnytimeVerdict:
    """The rule's state after the draws ``right`` (draws x judges, in [0, 1]; NaN: wrong) with
    their ``weight`` (``1 / (N q)``, at most ``bound``, per draw or for all; ``pair_bounds``,
    ``shifts`` and ``margin``: ``hypotheses_of``)."""
    right = np.nan_to_num(np.asarray(right, float), nan=0.0)
    weight = np.asarray(weight, float)
    tests = hypotheses_of(judges, bound, chance, alpha, pair_bounds, shifts, margin)
    firsts = first_rejections(tests, judges, right, weight, chance)
    named, named_at = first_named(firsts, judges)
    within = tuple(all_rejected(firsts, judges)) if margin > 0 else ()
    beaten = {key for key, first in firsts.items() if first > 0}
    draws = len(right)
    if draws == 0:
        return AnytimeVerdict(None, None, 0, 0, float("inf"), margin=margin)
    accuracy = (weight[:, None] * right).mean(axis=0)
    leader = judges[int(np.argmax(accuracy))]
    level = tuple(
        j
        for j, a in zip(judges, accuracy, strict=True)
        if j != leader and a >= accuracy.max() - 1e-12
    )
    done = frozenset(beaten)
    mine = [t for t in tests if t.judge == leader]  # what naming the leader still needs
    history = np.column_stack([bet_values(t, judges, right, weight, chance) for t in mine])
    gaps = tuple(
        ((t.judge, t.against), float(v.mean() - t.null))
        for t, v in zip(mine, history.T, strict=True)
    )
    if named is not None:
        return AnytimeVerdict(
            named, leader, draws, named_at, 0.0, done, level, within, margin, gaps, chance
        )
    if not project:
        return AnytimeVerdict(
            None, leader, draws, 0, float("nan"), done, level, (), margin, gaps, chance
        )
    ahead = [(t.null, *t.bounds(), alpha) for t in mine]  # the leader alone: see the module
    # at the whole alpha the leader's tests may have crossed already; no verdict: one more at least
    more = max(draws_to_reject(history, ahead, HORIZON, seed=seed), 1.0)
    return AnytimeVerdict(None, leader, draws, 0, more, done, level, (), margin, gaps, chance)


def first_rejections(
    tests: list[Test], judges: tuple[str, ...], right: np.ndarray, weight: np.ndarray, chance: float
) -> dict[tuple[str, str | None], int]:
    """Each test of ``tests`` (``hypotheses_of``) on the draws (NaN-free ``right``, ``weight``
    as ``anytime_verdict``): ``(judge, rival)`` "judge beats rival", ``(judge, None)`` "beats
    chance", and the draw at which it first rejects (0: not within the draws). The rule reads
    its verdict from them; a rule that takes some tests as given, such as
    ``testing.label_floors``' floors, reads them to bet exactly as this rule does."""
    return {
        (test.judge, test.against): int(
            first_rejection(bet_values(test, judges, right, weight, chance), *_bet(test))
        )
        for test in tests
    }


def first_named(
    firsts: Mapping[tuple[str, str | None], int], candidates: Iterable[str]
) -> tuple[str | None, int]:
    """The candidate whose tests in ``firsts`` (``first_rejections``) have all rejected first,
    and the draw at which the last of them did (None, 0: none within the draws; ties by name).
    The rule names a judge so; a rule that reads only some tests, such as
    ``testing.label_floors``' paired tests alone, passes only those."""
    reached = all_rejected(firsts, candidates)
    if not reached:
        return None, 0
    named = min(reached, key=lambda j: (reached[j], j))
    return named, reached[named]


def all_rejected(
    firsts: Mapping[tuple[str, str | None], int], candidates: Iterable[str]
) -> dict[str, int]:
    """The candidates whose tests in ``firsts`` have all rejected, in the candidates' order,
    each with the draw at which the last of them did: the one named first (``first_named``),
    or under a margin every judge shown (each at most the margin below every other)."""
    reached = {}
    for judge in candidates:
        mine = [first for (j, _), first in firsts.items() if j == judge]
        if mine and min(mine) > 0:
            reached[judge] = max(mine)
    return reached


def labels_to_come(open_samples: int, draws: float) -> float:
    """How many new labels ``draws`` more draws ask for: one each, since the queue draws without
    replacement (``decision.kinds``); inf where the draws needed are more than the ``open``
    samples left (no label can reach a verdict at the present difference); 0 once none is left,
    so that the line says no sample is left, not "none in sight" (which reads as "label on")."""
    if open_samples <= 0:
        return 0.0
    return float(draws) if draws <= open_samples else float("inf")


def count_words(samples: int, labels: int | None = None, kind: str = "labels") -> str:
    """How much a figure or state rests on: ``23 labels``, or ``5 samples, 15 labels`` where
    several people labelled a sample. ``kind``: the labels' words, starting with "labels", as
    the card's figures say what they stand for (``label_weights.sampling_words``: "labels drawn
    uniformly" gives ``23 labels drawn uniformly``); "labels" takes the count's number."""
    count = samples if labels is None else labels
    noun = ("labels" if count != 1 else "label") + kind.removeprefix("labels")
    if labels is None or labels == samples:
        return f"{samples} {noun}"
    return f"{samples} sample{'s' if samples != 1 else ''}, {labels} {noun}"


def state_words(
    labels: int,
    found: AnytimeVerdict,
    judges: tuple[str, ...],
    more: float,
    given: int | None = None,
    uncompared: int | None = 0,
) -> str:
    """The state line: ``23 labels · a leads b, not yet separated · about 15 more``; ``labels``
    the samples labelled, ``given`` the labels on them where more (``count_words``); ``more``
    the labels still needed (``labels_to_come`` of ``found.about_more`` draws);
    ``uncompared``: the pairs no judge compared, as ``more_words`` reads them."""
    head = count_words(labels, given)
    if found.named is not None and found.within:
        return f"{head} · {_within_words(found, judges)}"
    if found.named is not None:
        others = ", ".join(j for j in judges if j != found.named)
        rivals = f"{others} and chance" if others else "chance"  # one judge: chance alone
        return f"{head} · {found.named} is better than {rivals}"
    if found.leader is None:
        return f"{head} · no verdict yet"
    level = "they" if stays_level(found) else ""  # the standing words have just named them
    return f"{head} · {_standing_words(found, judges)} · {more_words(more, uncompared, level)}"


def _within_words(found: AnytimeVerdict, judges: tuple[str, ...]) -> str:
    """A verdict under a margin: ``b is at most 0.05 below a, c and better than chance``, or
    ``a and b are each at most 0.05 below every other judge and better than chance``. The one
    judge shown, where it also leads the others on the labels (not level with one), says so
    first: ``a leads b on the labels, shown at most 0.05 below it and better than chance``;
    "a is at most 0.05 below b" alone reads as if a were the worse, of a judge that may lead by
    far. It claims no more than the tests show: they ran at the margin's null, so "a is better
    than b" was never tested, and "leads on the labels" is the labels' estimate only."""
    size = f"{found.margin:g}"
    if len(found.within) == 1:
        (judge,) = found.within
        rivals = [j for j in judges if j != judge]
        others = ", ".join(rivals)
        if not rivals:
            return f"{judge} is better than chance"
        if judge == found.leader and not found.level:
            them = "it" if len(rivals) == 1 else "them"
            shown = f"shown at most {size} below {them} and better than chance"
            return f"{judge} leads {others} on the labels, {shown}"
        return f"{judge} is at most {size} below {others} and better than chance"
    names = f"{', '.join(found.within[:-1])} and {found.within[-1]}"
    return f"{names} are each at most {size} below every other judge and better than chance"


def _standing_words(found: AnytimeVerdict, judges: tuple[str, ...]) -> str:
    """Where the judges stand before a verdict: ``a leads b, c, not yet separated``; ``a and b
    are level, ahead of c, not yet separated`` where the top judges are as accurate as each
    other on the draws (none leads: the leader is only the first of them in order)."""
    if found.level:
        top = [j for j in judges if j == found.leader or j in found.level]
        behind = ", ".join(j for j in judges if j not in top)
        names = f"{', '.join(top[:-1])} and {top[-1]}"
        return f"{names} are level{f', ahead of {behind}' if behind else ''}, {_open(found)}"
    rest = ", ".join(j for j in judges if j != found.leader)
    standing = f"leads {rest}, {_open(found)}" if rest else "does not yet beat chance"
    return f"{found.leader} {standing}"


def _open(found: AnytimeVerdict) -> str:
    """What is not yet shown: a judge better than the others, or under a margin one at most the
    margin below them."""
    if found.margin > 0:
        return f"none yet shown at most {found.margin:g} below the others"
    return "not yet separated"


def stays_level(found: AnytimeVerdict) -> bool:
    """Whether no verdict can come while the judges level with the leader stay level: some
    are, and no margin lets level judges each be shown within it."""
    return bool(found.level) and found.margin == 0 and found.named is None


def more_words(more: float, uncompared: int | None = 0, level: str = "") -> str:
    """How many more labels: ``about 15 more``; none in sight where the present difference
    would not reach a verdict within the projection's horizon (or there is none yet), said
    ``while they stay level`` where the top judges are level (``level``: the words for them;
    ``stays_level``), as after the first few labels, when a verdict needs a difference still
    to come, not one too small; none left where every sample is labelled. ``uncompared``: the
    pairs of a pairwise criterion still to label that no judge compared, outside the queue's
    design: once every pair the design draws is labelled, "no sample left" would be untrue of
    them, and a label of theirs moves nothing until a judge compares the pair; None where they
    are not known (the run's data set can no longer be read), so that the line claims none
    left only where it knows."""
    if not np.isfinite(more) and level:
        return f"none in sight while {level} stay level"
    if not np.isfinite(more):
        return "none in sight at the present difference"
    if more <= 0 and uncompared is None:
        return (
            "every pair the judges compared is labelled; the data set's other pairs are not "
            "known (its samples cannot be read)"
        )
    if more <= 0 and uncompared:
        others = f"the {uncompared} others add" if uncompared != 1 else "the 1 other adds"
        pronoun = "them" if uncompared != 1 else "it"
        return (
            "every pair the judges compared is labelled; "
            f"{others} no evidence until a judge compares {pronoun}"
        )
    if more <= 0:  # every sample the queue draws is labelled: a draw asks for none
        return "no sample left to label"
    return f"about {int(np.ceil(more))} more"


def _bet(test: Test) -> tuple[float, Bound, Bound, float]:
    return test.null, *test.bounds(), test.alpha
