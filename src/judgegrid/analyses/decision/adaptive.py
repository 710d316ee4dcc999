"""An adaptive labelling queue: once the rule's leader beats chance, ask where it and the
rivals it has not yet beaten disagree, since only there can a label tell them apart.

The fixed design (``decision.sampling``) spreads its draws over every sample where any judges
disagree, and keeps drawing there after the question it helps answer is settled. This design is
recomputed before each draw (or batch of draws) from what the rule (``decision.anytime``) says
so far:

- no label yet, or no leader: the fixed design ``base``;
- a leader not yet clear of chance: ``early_share`` uniform, the rest uniform over the samples
  where the leader and an open rival answer differently (the focus);
- a leader clear of chance: only ``share`` (5%) uniform, the rest over the focus;
- no open rival left, or no disagreement with one: uniform;
- from ``BINDING_LABELS`` labels on, while the leader is ahead in every open test on the labels
  so far (each estimated gap above its null, ``AnytimeVerdict.gap``), the uniform share may
  grow above the phase's to the one whose slowest open test grows fastest
  (``decision.binding``): the leader is named only when all its tests reject, so the slowest,
  the binding one, sets the labels. Where the test against chance binds (a leader not far
  above chance, and under a margin nothing else in the way) the share goes up, to uniform if
  need be, since that test learns best from uniform draws (uneven weights widen its bets'
  bounds); where a rival binds it stays the phase's. On ``benches/bench_labels.py`` under a
  margin of 0.1 it took the two JudgeBench pairs where chance binds from 1.14 and 0.98 times
  uniform order's labels to 1.02 and 0.88 (300 people), and the other worlds about as they were
  (``benches/README.md``, "The binding test").

Every sample keeps a probability of at least ``share / N`` (never 0), so every kind of sample
can be drawn and no weight is unbounded. Each draw's probabilities are fixed before the draw
from earlier draws alone, and read nothing of a sample but its kind (its stratum and the
judges' answers), which is what drawing without replacement and weighting by kind needs
(``decision.kinds``): the weighted value of each label then has, given the labels before it,
the mean of samples like the run's whatever the design, and the betting tests stay valid as
long as each bet is clipped by that draw's own bounds (``kinds.DrawBounds``). ``draw_bounds``
gives the bounds of a draw with replacement from the whole design, which the bench's floors
(``testing.label_floors``) read.

Missing data: a judge with no answer on a sample (NaN) differs there from every other judge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgegrid.analyses.decision.anytime import AnytimeVerdict
from judgegrid.analyses.decision.binding import LeaderTests, binding_share
from judgegrid.analyses.decision.sampling import UNIFORM_SHARE

ADAPTIVE_SHARE = 0.05  # uniform share once the leader is clear of chance (scratch sims: 0.05)
BINDING_LABELS = 20  # labels before the gaps are read to choose the design (decision.binding)


@dataclass(frozen=True)
class Standing:
    """What the design reads of the rule's state: the leader (a column of ``answers``), whether
    it beats chance yet, the rivals it has not yet beaten, and how far ahead it is in each open
    test (``decision.binding``)."""

    leader: int | None
    clear_of_chance: bool = False
    open_rivals: tuple[int, ...] = ()
    # the leader's estimated gaps above the nulls (``AnytimeVerdict.gap``): per open rival,
    # then against chance (None: not read); the labels they rest on, the chance level, margin
    gaps: tuple[float, ...] = ()
    chance_gap: float | None = None
    labels: int = 0
    chance: float = 0.5
    margin: float = 0.0


def standing_of(found: AnytimeVerdict, judges: tuple[str, ...]) -> Standing:
    """The design's view of the rule's verdict so far (``AnytimeVerdict.beaten``)."""
    if found.leader is None:
        return Standing(None)
    lead = found.leader
    rivals = tuple(k for k, j in enumerate(judges) if j != lead and (lead, j) not in found.beaten)
    clear = (lead, None) in found.beaten
    gaps = tuple(found.gap(lead, judges[k]) for k in rivals)
    chance_gap = None if clear else found.gap(lead, None)
    seen = (gaps, chance_gap, found.draws, found.chance, found.margin)
    return Standing(judges.index(lead), clear, rivals, *seen)


def differ(answers: np.ndarray, first: int, second: int) -> np.ndarray:
    """Per sample: whether two judges' answers differ (a NaN differs from everything), so that
    their right and wrong against a label may differ there and nowhere else."""
    a, b = answers[:, first], answers[:, second]
    return np.asarray(~((a == b) & ~np.isnan(a) & ~np.isnan(b)))


def focus_of(answers: np.ndarray, standing: Standing) -> np.ndarray:
    """The samples where the leader and an open rival answer differently."""
    focus = np.zeros(len(answers), bool)
    if standing.leader is None:
        return focus
    for rival in standing.open_rivals:
        focus |= differ(answers, standing.leader, rival)
    return focus


def adaptive_probability(
    base: np.ndarray,
    answers: np.ndarray,
    standing: Standing,
    share: float = ADAPTIVE_SHARE,
    early_share: float = UNIFORM_SHARE,
) -> np.ndarray:
    """Each sample's probability for the next draw (sums to 1, none 0): see the module
    docstring. ``base``: the fixed design's probabilities; ``answers``: samples x judges, each
    judge's answer (its pass/fail, its pick of a pair), NaN where it has none."""
    if not 0 < share <= 1 or not 0 < early_share <= 1:
        raise ValueError(f"share: expected shares in (0, 1], got {share} and {early_share}")
    base = np.asarray(base, float)
    answers = np.asarray(answers, float)
    if answers.ndim != 2 or len(answers) != len(base):
        raise ValueError("answers: expected samples x judges, a row per sample of base")
    n = len(base)
    if standing.leader is None:
        return base / base.sum()
    focus = focus_of(answers, standing)
    if not focus.any():
        return np.full(n, 1.0 / n)
    uniform = share if standing.clear_of_chance else early_share
    tests = binding_tests(answers, standing)
    if tests is not None:
        uniform = binding_share(tests, uniform)
    return np.asarray(uniform / n + (1 - uniform) * focus / focus.sum())


def binding_tests(answers: np.ndarray, standing: Standing) -> LeaderTests | None:
    """The leader's open tests as ``decision.binding`` weighs them (the rivals it differs from
    somewhere; chance while not yet beaten), or None while their gaps cannot be read: fewer than
    ``BINDING_LABELS`` labels, or a gap not above 0 (the leader not ahead there on the labels
    so far: the fixed split, not a model fitted to noise)."""
    if standing.leader is None or standing.labels < BINDING_LABELS:
        return None
    apart = [differ(answers, standing.leader, rival) for rival in standing.open_rivals]
    kept = [k for k, where in enumerate(apart) if where.any()]
    gaps = tuple(standing.gaps[k] for k in kept) if len(standing.gaps) == len(apart) else ()
    chance_gap = None if standing.clear_of_chance else standing.chance_gap
    read = [*gaps, *([] if standing.clear_of_chance else [chance_gap])]
    if not kept or len(gaps) != len(kept) or not all(g is not None and g > 0 for g in read):
        return None
    matrix = np.column_stack([apart[k] for k in kept])
    return LeaderTests(matrix, gaps, chance_gap, standing.chance, standing.margin)


def draw_bounds(
    probability: np.ndarray, answers: np.ndarray, judges: tuple[str, ...]
) -> tuple[float, dict[tuple[str, str], float]]:
    """A draw's bounds under ``probability``, known before it is drawn: the largest weight
    ``1 / (N q)`` of any sample (the bound of a judge against chance), and per pair of judges
    the largest weight where their answers differ (elsewhere their difference is 0 whatever
    the label; a tiny positive bound where they never differ)."""
    q = np.asarray(probability, float)
    weight = 1.0 / (len(q) * q)
    pairs = {}
    for a, first in enumerate(judges):
        for b in range(a + 1, len(judges)):
            apart = differ(answers, a, b)
            pairs[(first, judges[b])] = float(weight[apart].max()) if apart.any() else 1e-9
    return float(weight.max()), pairs
