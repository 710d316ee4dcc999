"""The paired rule: which of several candidates (judges, configurations) measured on the same
items is best, and which it is not separated from.

A rung of evidence (``Evidence``) holds every candidate's values on the same items. The top
candidate by the point estimate must exclude chance (its interval at 95% over the k candidates
measured, Bonferroni: the best of k candidates at chance would otherwise exclude it by luck
about k times as often); then it is compared with each other candidate on the items both were
measured on (exact McNemar for right/wrong items, a paired bootstrap of the difference
otherwise), the p-values Holm-corrected. Those it is not separated from form a set with it.
With a non-inferiority margin, the candidates whose one-sided 95% upper bound of (top - it)
lies below the margin are within it.

Weighted evidence (people's labels drawn by a queue, ``Evidence.weighting``): each judge's
figure is the weighted statistic, its interval the unweighted form at its effective number of
items, and every comparison (the margin's bound too) the paired bootstrap of the weighted
difference; with no weighting (every weight 1) all is as above.

The card (``decision``), ``judgegrid pairs`` and the pairwise criteria all rule this way.
Missing data: each comparison uses the items both candidates have a value for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from judgegrid.analyses.stats.correlation import perfect_agreement_p
from judgegrid.analyses.stats.intervals import accuracy_interval
from judgegrid.analyses.stats.paired import (
    ALPHA,
    JACKKNIFE_ABOVE,
    PairedDifference,
    Statistic,
    bootstrap_statistic,
    difference,
    holm,
    mean_statistic,
    on_all_items,
    paired_binary,
    paired_bootstrap,
)
from judgegrid.analyses.stats.weighted import Weighting

# the paired test of weighted evidence: the bootstrap of the weighted difference (draws
# resampled, each judge's weighted figure on the same draw), for right/wrong items too
WEIGHTED_TEST = "weighted paired bootstrap"


@dataclass(frozen=True)
class Evidence:
    """One rung of the ladder for one metric: every judge measured on the same items."""

    basis: str  # the card's basis column
    measure: str  # "rho", "accuracy", "tau-b"
    unit: str  # what an item is: "samples", "pairs"
    chance: float
    judges: tuple[str, ...]
    values: np.ndarray  # items x judges; NaN: this judge has no value for the item
    target: np.ndarray | None  # per item (people's mean label), or None
    statistic: Statistic
    binary: bool  # values are right (1) / wrong (0): McNemar
    # a judge's CI from (quality, n, level)
    interval: Callable[[float, float, float], tuple[float, float]]
    named_suffix: str = ""  # "(by agreement only)"
    min_judges: int = 1
    joint: bool = False  # the statistic reads every judge's column at once (a consensus)
    next_if_named: str = "check it against people"
    words: Callable[[str], str] = lambda judge: ""  # more about a named judge (alt-test)
    # joint evidence over more than JACKKNIFE_ABOVE items: first minus second by the jackknife
    jackknife: Callable[[np.ndarray, int, int], PairedDifference] | None = None
    # people's labels drawn by a queue: each item's weight, the statistic under weights and the
    # effective number of items a judge's interval is read at (None: every item counts once)
    weighting: Weighting | None = None
    sampling: str = ""  # what the figures stand for, in words ("labels drawn uniformly")
    label_counts: np.ndarray | None = None  # per item: how many labels it rests on


@dataclass(frozen=True)
class Standing:
    """A judge's own figures on a rung."""

    judge: str
    quality: float
    low: float
    high: float
    n: int
    effective: float | None = None  # weighted evidence: the items its interval is read at

    @property
    def size(self) -> float:
        """The number of items the judge's interval is read at: n, or the effective n."""
        return float(self.n) if self.effective is None else self.effective


def standings(evidence: Evidence) -> list[Standing]:
    """Each judge's quality on its own items, best first (NaN quality left out)."""
    out = []
    joint = on_all_items(evidence.statistic, evidence.values, None) if evidence.joint else None
    for k, judge in enumerate(evidence.judges):
        mask = np.isfinite(evidence.values[:, k])
        if evidence.target is not None:
            mask &= np.isfinite(evidence.target)
        effective = None
        if joint is not None:
            quality = float(joint[k])
        else:
            target = None if evidence.target is None else evidence.target[mask]
            column = evidence.values[mask][:, [k]]
            statistic = _statistic(evidence, mask)
            quality = float(on_all_items(statistic, column, target)[0])
            if evidence.weighting is not None and np.isfinite(quality):
                weights = evidence.weighting.weights[mask]
                effective = evidence.weighting.effective(column, target, weights, quality)
        n = int(mask.sum())
        if np.isfinite(quality):
            size = float(n) if effective is None else effective
            nan = (float("nan"), float("nan"))
            low, high = evidence.interval(quality, size, 0.95) if np.isfinite(size) else nan
            out.append(Standing(judge, quality, low, high, n, effective))
    return sorted(out, key=lambda s: (-s.quality, -s.n))


def _statistic(evidence: Evidence, mask: np.ndarray) -> Statistic:
    """The rung's statistic on the items ``mask`` keeps: weighted by their weights, if the
    evidence is weighted."""
    if evidence.weighting is None:
        return evidence.statistic
    return evidence.weighting.statistic(evidence.weighting.weights[mask])


def compare(evidence: Evidence, first: str, second: str, seed: int = 0) -> PairedDifference:
    """``first`` minus ``second`` on the items both have a value for."""
    a, b = evidence.judges.index(first), evidence.judges.index(second)
    if evidence.joint:
        if _by_jackknife(evidence):
            assert evidence.jackknife is not None
            return evidence.jackknife(evidence.values, a, b)
        return paired_bootstrap(evidence.values, None, evidence.statistic, a, b, seed)
    mask = np.isfinite(evidence.values[:, a]) & np.isfinite(evidence.values[:, b])
    if evidence.target is not None:
        mask &= np.isfinite(evidence.target)
    both = evidence.values[mask][:, [a, b]]
    if evidence.binary and evidence.weighting is None:
        return paired_binary(both, 0, 1, seed)
    target = None if evidence.target is None else evidence.target[mask]
    found = paired_bootstrap(both, target, _statistic(evidence, mask), 0, 1, seed)
    return found if evidence.weighting is None else replace(found, test=WEIGHTED_TEST)


def _compare_with_top(
    evidence: Evidence, top: Standing, others: list[Standing]
) -> list[PairedDifference]:
    """The top judge minus each other. Joint evidence (one statistic over every judge) is
    bootstrapped once and every pair read from the same draws."""
    if not evidence.joint or _by_jackknife(evidence):
        return [compare(evidence, top.judge, other.judge) for other in others]
    point, drawn = bootstrap_statistic(evidence.values, None, evidence.statistic)
    a = evidence.judges.index(top.judge)
    n = len(evidence.values)
    return [difference(point, drawn, a, evidence.judges.index(o.judge), n) for o in others]


def _by_jackknife(evidence: Evidence) -> bool:
    """Whether joint evidence holds too many items to bootstrap (``JACKKNIFE_ABOVE``)."""
    return evidence.jackknife is not None and len(evidence.values) > JACKKNIFE_ABOVE


@dataclass(frozen=True)
class Ruling:
    """What the rule found on one rung: the top judge, its comparisons, the set it is not
    separated from, and (with a margin) the judges within it."""

    top: Standing | None
    others: list[tuple[Standing, PairedDifference, float]]  # (judge, top - judge, Holm p)
    tied: list[Standing]  # the top and every judge not separated from it
    within_margin: list[tuple[Standing, PairedDifference | None]]
    too_few: bool = False


def rule(evidence: Evidence, margin: float | None = None) -> Ruling:
    """The paired rule on one rung of evidence (see the module docstring)."""
    ranked = standings(evidence)
    if len(evidence.judges) < evidence.min_judges:
        return Ruling(ranked[0] if ranked else None, [], [], [], too_few=True)
    if not ranked:
        return Ruling(None, [], [], [])
    top = ranked[0]
    diffs = _compare_with_top(evidence, top, ranked[1:])
    p = np.array([d.p_value if np.isfinite(d.p_value) else 1.0 for d in diffs])
    adjusted = holm(p) if len(p) else p
    others = list(zip(ranked[1:], diffs, [float(x) for x in adjusted], strict=True))
    tied = [top] + [s for s, _, q in others if not q < ALPHA]
    within: list[tuple[Standing, PairedDifference | None]] = []
    if margin is not None:
        within = [(top, None)] + [
            (s, d)
            for s, d, _ in others
            if np.isfinite(d.upper_one_sided) and d.upper_one_sided < margin
        ]
    return Ruling(top, others, tied, within)


def binary_evidence(
    right: pd.DataFrame,
    unit: str = "pairs",
    basis: str = "preference pairs",
    measure: str = "accuracy",
) -> Evidence:
    """Evidence from right/wrong outcomes (items x candidates; NaN or False: wrong), chance one
    half: the card's pairs and probes rungs, and a "best" figure outside the card (``judgegrid
    pairs``, a pairwise criterion) chosen by the same rule."""
    return Evidence(
        basis=basis,
        measure=measure,
        unit=unit,
        chance=0.5,
        judges=tuple(str(c) for c in right.columns),
        values=right.fillna(False).astype(float).to_numpy(),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=accuracy_interval,
    )


def best_words(ruling: Ruling) -> str:
    """The top candidate, or the set it is not separated from: 'a', 'a or b: not separated'."""
    if ruling.top is None:
        return "none measured"
    if len(ruling.tied) == 1:
        return ruling.top.judge
    return " or ".join(s.judge for s in ruling.tied) + ": not separated"


def excludes_chance(evidence: Evidence, standing: Standing, judges: int) -> bool:
    """Whether a judge's interval excludes chance at 95% over ``judges`` looks (Bonferroni):
    the best of several judges at chance excludes it by luck more often. Weighted evidence
    reads the interval at the judge's effective number of items."""
    if not np.isfinite(standing.size):
        return False
    alpha = 0.05 / max(judges, 1)
    low, _ = evidence.interval(standing.quality, standing.size, 1 - alpha)
    if np.isfinite(low):
        return bool(low > evidence.chance)
    return perfect_beyond_chance(evidence, standing, alpha)


def perfect_beyond_chance(evidence: Evidence, standing: Standing, alpha: float) -> bool:
    """Whether a judge whose rank correlation with people is exactly 1 (no Fisher-z interval)
    beats chance: the exact chance of agreement that perfect with no association
    (``correlation.perfect_agreement_p``, a permutation test of its labelled items) below
    ``alpha``. Valid under a queue's draws too: each reads the judges' scores and the labels
    given before it, never the label to come, so with no association the labels of the items
    drawn are still exchangeable."""
    if evidence.target is None or evidence.measure not in ("rho", "tau-b"):
        return False
    if standing.quality < 1 - 1e-9:
        return False
    k = evidence.judges.index(standing.judge)
    mask = np.isfinite(evidence.values[:, k]) & np.isfinite(evidence.target)
    return perfect_agreement_p(evidence.target[mask]) < alpha
