"""Which of the leader's tests binds, and the uniform share that speeds it: the labelling queue
(``decision.adaptive``) draws a share uniformly and the rest where the leader and an open rival
disagree (the focus); this module picks the share that makes the slowest of the leader's open
tests as fast as it can be.

Why: the rule names the leader when *all* its tests have rejected (``decision.anytime``), so
the labels to a verdict are those of its slowest test. A paired test learns only in the focus;
the test against chance learns everywhere, and best from a uniform design, since uneven
weights widen its bets' bounds and spread. Under a non-inferiority margin, with a leader not
far above chance, chance binds, and a fixed 40% uniform share lost to uniform order on
JudgeBench's pairs (``benches/README.md``, "The binding test").

The model of a test under the design ``q`` (each draw weighted ``1 / (N q_i)``): its values
``X`` have mean ``gap`` above the null (estimated from the labels so far) and second moment
about the null ``S``; a paired test's ``E[X^2] = (1/N^2) sum 1/q_i`` over the samples where
the two differ (there one of them is right), the test against chance's
``spread (1/N^2) sum 1/q_i`` over all, ``spread = E[(right - chance)^2]`` of a right-or-wrong
answer. The bettor (``stats.betting``) bets ``lambda = gap / S`` clipped to ``BET_CAP / (null -
low)``, ``low`` the lowest value the design allows, and its log capital grows by about
``lambda gap - lambda^2 S / 2`` a draw; the draws to a rejection go as its inverse.

Tried and left out: a mixture over each open rival's disagreement set besides the share (the
family the model can weigh rival by rival) took more labels on the bank's four judges (median
ratio to uniform 0.68 against 0.59 today, 30 people; with the true gaps 0.62) and widened the
accuracy figure's weights (coverage 0.90 on two equal judges).

Missing data: none here; the caller passes which samples each pair differs on (a NaN differs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgegrid.analyses.stats.betting import BET_CAP

SHARES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # uniform shares tried


@dataclass(frozen=True)
class LeaderTests:
    """The leader's open tests as the design sees them: per open rival the samples where the two
    differ (samples x rivals) and the estimated gap above its null; the test against chance's
    gap (None: already rejected), the chance level and the margin (the paired null ``-m``)."""

    apart: np.ndarray
    gaps: tuple[float, ...]
    chance_gap: float | None
    chance: float = 0.5
    margin: float = 0.0


def binding_share(tests: LeaderTests, floor: float) -> float:
    """The uniform share, at least ``floor``, on ``SHARES`` whose slowest open test grows
    fastest (``slowest_growth``); ties to the larger share."""
    shares = np.array(sorted({floor, *(s for s in SHARES if s >= floor)}))
    growth = slowest_growth(tests, shares)
    return float(shares[np.flatnonzero(growth >= growth.max() - 1e-12)[-1]])


def slowest_growth(tests: LeaderTests, shares: np.ndarray) -> np.ndarray:
    """Per uniform share (the rest uniform over the focus, where any open rival differs): the
    least log capital a draw gains among the leader's open tests (``growth``)."""
    apart = np.asarray(tests.apart, bool)
    n = len(apart)
    focus = int(apart.any(axis=1).sum())
    if focus == 0 or len(tests.gaps) != apart.shape[1]:
        raise ValueError("apart: expected a column per gap, and the focus not empty")
    inside = 1.0 / (shares + (1 - shares) * n / focus)  # the weight 1 / (N q) in the focus
    outside = 1.0 / shares  # and outside it
    found = []
    for differs, gap in zip(apart.sum(axis=0), tests.gaps, strict=True):
        second = differs / n * inside  # E[X^2]
        about_null = second + 2 * tests.margin * (gap - tests.margin) + tests.margin**2
        found.append(growth(gap, about_null, inside - tests.margin))
    if tests.chance_gap is not None:
        accuracy = tests.chance + tests.chance_gap
        spread = accuracy * (1 - tests.chance) ** 2 + (1 - accuracy) * tests.chance**2
        second = spread * (focus * inside + (n - focus) * outside) / n
        found.append(growth(tests.chance_gap, second, tests.chance * np.maximum(inside, outside)))
    return np.asarray(np.min(found, axis=0))


def growth(gap: float, about_null: np.ndarray, below_null: np.ndarray) -> np.ndarray:
    """A test's log capital gained a draw, about: the bettor's Kelly share ``gap / S`` clipped
    to ``BET_CAP / below_null`` (``stats.betting``: how far the lowest value lies below the
    null), then ``lambda gap - lambda^2 S / 2``."""
    cap = BET_CAP / np.maximum(below_null, 1e-12)
    bet = np.minimum(gap / about_null, cap)
    return np.asarray(bet * gap - bet**2 * about_null / 2)
