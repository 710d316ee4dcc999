"""The labelling queue draws without replacement and weighs each label by its sample's kind, so
that the people rung's verdict holds for the judges on samples like the run's, not only for
the run's own samples.

Why: a queue that draws with replacement and counts a repeat draw's label again
(Hansen-Hurwitz) is valid for the run's own mean. But once it has labelled every sample where
two judges disagree, its redraws weigh that run's own luck again and again: over runs of two
equally good judges it named one of them for about a fifth of people, uniform order for 1%
(``benches/README.md``, issue 42).

A sample's *kind* is all the design reads of it: its stratum (``decision.sampling``) and the
judges' answers on it (``decision.adaptive``: pass or fail, a pick of a pair; NaN, no answer,
is a value of its own). Take the run's samples as drawn from a population, a sample's outcomes
(each judge right or wrong against the person) given its kind as fresh draws. Before label
``t`` the design ``q_t`` over the samples not yet labelled gives ``rho_t(x)``, the chance the
label is of kind ``x``; the label weighs ``p_x / rho_t(x)``, ``p_x`` the run's share of kind
``x``, so ``E[w v | past] = sum_x p_x E[v | x]`` whatever the design: the population's mean
given the run's kind shares. Every label is new and counted once.

A kind all labelled can no longer be drawn, and ``E[w v | past]`` then misses its share: each
test of the rule adds the share *gone* times the lowest value a label of it could give
(``-chance`` against chance; ``-1`` for two judges that answer differently there, 0 where they
answer alike), which keeps the mean at most the population's (valid, conservative); a test left
no room above its null stops betting (``decision.anytime``).

Stored as ``records.LabelDraw``: ``probability`` ``rho_t(x) / N_x`` (so that its weight
``1 / (N q)`` is ``p_x / rho_t(x)``, as the figures read it, ``frames.label_weights``), and
``bounds`` (``bounds_text``) the largest weight a label could carry, per pair of judges the
largest where they answer differently (elsewhere their difference is 0 whatever the label),
and the shares gone.

Missing data: a sample outside the design (no priority) is no kind; a NaN answer is a value.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from judgegrid.analyses.decision.adaptive import differ
from judgegrid.analyses.decision.sampling import LabelDesign

TINY = 1e-9  # a pair's bound where no drawable kind separates them (their values are all 0)


@dataclass(frozen=True)
class Kinds:
    """A design's samples by kind: each sample's kind (an index), each kind's answers (kinds x
    judges; NaN none) and its share ``p_x`` of the samples."""

    of_sample: np.ndarray
    answers: np.ndarray
    shares: np.ndarray


@dataclass(frozen=True)
class DrawBounds:
    """What a draw's bets are clipped by and shifted by, all known before it is drawn: the
    largest weight of any drawable sample, per pair of judges the largest where their answers
    differ, the share of the samples in kinds all labelled (``gone``) and per pair the share of
    those where the two answer differently (None: not known, read as ``gone``)."""

    largest: float
    pairs: Mapping[tuple[str, str], float] = field(default_factory=dict)
    gone: float = 0.0
    gone_pairs: Mapping[tuple[str, str], float] | None = None

    def pair(self, first: str, second: str) -> float:
        """The pair's bound (either order), the largest weight where none is stored."""
        return self.pairs.get((first, second), self.pairs.get((second, first), self.largest))

    def gone_pair(self, first: str, second: str) -> float:
        """The share gone where the pair answer differently (either order)."""
        if self.gone_pairs is None:
            return self.gone
        found = self.gone_pairs.get((first, second), self.gone_pairs.get((second, first)))
        return self.gone if found is None else found


@dataclass(frozen=True)
class QueueDesign:
    """What the queue draws its next labels from: the design (its probabilities, made from the
    kinds alone), the samples' kinds and the judges whose answers the kinds hold (none: kinds
    by stratum only, a criterion's or a preference's fixed design)."""

    design: LabelDesign
    kinds: Kinds
    judges: tuple[str, ...] = ()


def fixed_queue(design: LabelDesign) -> QueueDesign:
    """The fixed design's queue: its kinds are its strata, all it reads of a sample."""
    return QueueDesign(design, kinds_of(design.stratum))


def queue_draw(
    queue: QueueDesign, asked: Collection[str], rng: np.random.Generator
) -> tuple[str, float, str] | None:
    """The next draw among the design's samples not ``asked`` (labelled, skipped or drawn
    before): its sample, its stored probability and bounds (``draw_without_replacement``,
    ``bounds_text``); None once every sample is asked."""
    samples = queue.design.samples
    taken = set(asked)
    open_ = np.fromiter((s not in taken for s in samples), bool, len(samples))
    if not open_.any():
        return None
    sample, probability, bounds = draw_without_replacement(
        queue.design.probability, queue.kinds, open_, queue.judges, rng
    )
    return samples[sample], probability, bounds_text(bounds)


def kinds_of(stratum: np.ndarray, answers: np.ndarray | None = None) -> Kinds:
    """The samples grouped by what the design reads of them: the stratum and, where given, the
    judges' answers (samples x judges, NaN none)."""
    stratum = np.asarray(stratum, float).reshape(-1, 1)
    table = stratum if answers is None else np.hstack([stratum, np.asarray(answers, float)])
    coded = np.where(np.isnan(table), np.inf, table)  # NaN as a value np.unique can group
    patterns, of_sample = np.unique(coded, axis=0, return_inverse=True)
    of_sample = of_sample.ravel()
    shares = np.bincount(of_sample, minlength=len(patterns)) / len(table)
    picks = np.where(np.isinf(patterns[:, 1:]), np.nan, patterns[:, 1:])
    return Kinds(of_sample, picks, shares)


def kind_chances(q: np.ndarray, kinds: Kinds, open_: np.ndarray) -> np.ndarray:
    """``rho_t(x)``: the chance the next label, drawn in proportion to ``q`` among the ``open_``
    samples (not yet labelled), is of kind ``x`` (0 for a kind all labelled)."""
    mass = np.bincount(
        kinds.of_sample, weights=np.where(open_, q, 0.0), minlength=len(kinds.shares)
    )
    return np.asarray(mass / mass.sum())


def draw_bounds_by_kind(
    kinds: Kinds, rho: np.ndarray, judges: tuple[str, ...]
) -> tuple[np.ndarray, DrawBounds]:
    """Each kind's weight ``p_x / rho_t(x)`` (inf where it cannot be drawn) and the next
    draw's bounds over the drawable kinds (``DrawBounds``)."""
    drawable = rho > 0
    weight = np.full(len(rho), np.inf)
    weight[drawable] = kinds.shares[drawable] / rho[drawable]
    pairs, gone_pairs = {}, {}
    if kinds.answers.shape[1] == len(judges):
        for a, first in enumerate(judges):
            for b in range(a + 1, len(judges)):
                apart = differ(kinds.answers, a, b)
                reach = weight[drawable & apart]
                pairs[(first, judges[b])] = float(reach.max()) if reach.size else TINY
                gone_pairs[(first, judges[b])] = float(kinds.shares[~drawable & apart].sum())
    gone = float(kinds.shares[~drawable].sum())
    known = gone_pairs if pairs else None
    return weight, DrawBounds(float(weight[drawable].max()), pairs, gone, known)


def draw_without_replacement(
    q: np.ndarray,
    kinds: Kinds,
    open_: np.ndarray,
    judges: tuple[str, ...],
    rng: np.random.Generator,
) -> tuple[int, float, DrawBounds]:
    """One draw among the ``open_`` samples in proportion to ``q``: the sample, the probability
    stored with it (``rho_t(x) / N_x``: its weight ``1 / (N q)`` is ``p_x / rho_t(x)``) and
    its bounds. ``q``: the design (``decision.sampling``, ``decision.adaptive``), which must
    read nothing of a sample but its kind."""
    if not np.any(open_):
        raise ValueError("no sample left to draw")
    rho = kind_chances(q, kinds, open_)
    weight, bounds = draw_bounds_by_kind(kinds, rho, judges)
    chances = np.where(open_, q, 0.0)
    sample = int(rng.choice(len(q), p=chances / chances.sum()))
    kind = kinds.of_sample[sample]
    population = len(kinds.of_sample)
    return sample, float(1.0 / (population * weight[kind])), bounds


BOUNDS_KEPT = 4096  # draws' bounds ``bounds_of`` keeps read (each well under a kilobyte)


def bounds_text(bounds: DrawBounds) -> str:
    """A draw's bounds as stored with it (``records.LabelDraw.bounds``): JSON."""
    found: dict[str, object] = {
        "largest": bounds.largest,
        "pairs": [[a, b, v] for (a, b), v in bounds.pairs.items()],
        "gone": bounds.gone,
    }
    if bounds.gone_pairs is not None:
        found["gone_pairs"] = [[a, b, v] for (a, b), v in bounds.gone_pairs.items()]
    return json.dumps(found)


@lru_cache(maxsize=BOUNDS_KEPT)
def bounds_of(text: str) -> DrawBounds:
    """A stored draw's bounds (``bounds_text``; a draw stored before the queue drew without
    replacement has no shares gone). Kept by its text (a value shared: read it, never change
    it): the labelling page's state line reads every stored draw's bounds after every answer,
    and the same texts again each time."""
    found = json.loads(text)
    gone_pairs = found.get("gone_pairs")
    return DrawBounds(
        float(found["largest"]),
        _pairs(found["pairs"]),
        float(found.get("gone", 0.0)),
        None if gone_pairs is None else _pairs(gone_pairs),
    )


def shifts_of(
    bounds: list[DrawBounds | None], judges: tuple[str, ...], chance: float
) -> dict[tuple[str, str | None], np.ndarray]:
    """Per test of the rule (``anytime.hypotheses_of``: ``(judge, rival)``, rival None against
    chance), per draw, what it adds to the draw's value for the kinds all labelled before it
    (module docstring): ``-chance`` times the share gone against chance, minus the share gone
    where the pair answer differently for a pair; 0 for a draw with no bounds stored."""
    every = [b if b is not None else DrawBounds(1.0) for b in bounds]
    shifts: dict[tuple[str, str | None], np.ndarray] = {}
    for judge in judges:
        shifts[(judge, None)] = np.array([-chance * b.gone for b in every])
        for rival in judges:
            if rival != judge:
                shifts[(judge, rival)] = np.array([-b.gone_pair(judge, rival) for b in every])
    return shifts


def _pairs(rows: list[list[object]]) -> dict[tuple[str, str], float]:
    return {(str(a), str(b)): float(str(v)) for a, b, v in rows}
