"""A labelling queue whose every draw has a known probability, so that figures computed from
the labels can stand for all the run's samples (``stats.weighted``) and be tested as the
labels come (``decision.anytime``).

The design (fixed before the first label, from the judges' scores only): the samples are
split into strata by how much the judges disagree (today's queue's priority,
``decision.selection``); each draw picks, with replacement,

- with probability ``uniform_share``: a sample uniformly from all ``N`` (so no sample has
  probability 0 and the weights stay bounded by ``1 / uniform_share``);
- otherwise: a stratum with probability proportional to its size times its mean priority
  (disagreement), then a sample uniformly within it.

So a sample's probability a draw is ``q_i = s / N + (1 - s) a_h / N_h``, and its weight
``1 / (N q_i)``: importance sampling as in active testing (Kossen et al. 2021). The labelling
page draws from it *without* replacement, among the samples not yet asked, each label weighted
by its kind (``decision.kinds``, which says why); ``draw_labels`` draws with replacement
(Hansen-Hurwitz: a repeat draw counts its label again), as the figures' tests and
``benches/bench_true_score.py`` simulate a queue, and as draws stored before the page drew
without replacement were made.

Missing data: a sample with no priority (no judge scored it) is not in the design.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgegrid.analyses.decision.selection import label_priority, preference_queue

UNIFORM_SHARE = 0.4  # measured by benches/bench_labels.py: 0.25 under-covers, 0.5 asks more
STRATA = 3
DRAW_COLUMNS = ["draw", "sample_id", "stratum", "probability", "weight", "new"]


@dataclass(frozen=True)
class LabelDesign:
    """The queue's design: each sample's stratum and probability a draw (they sum to 1)."""

    samples: tuple[str, ...]
    stratum: np.ndarray
    probability: np.ndarray
    uniform_share: float

    @property
    def population(self) -> int:
        return len(self.samples)

    def weight(self) -> np.ndarray:
        """Each sample's weight ``1 / (N q)`` (1 for every sample under a uniform design)."""
        return np.asarray(1.0 / (self.population * self.probability))


def label_design(
    priority: pd.Series, uniform_share: float = UNIFORM_SHARE, strata: int = STRATA
) -> LabelDesign:
    """The design for samples with these priorities (index: sample id; higher: the judges
    disagree more): equal-width strata of the priority range, then the mixture above."""
    if not 0 < uniform_share <= 1:
        raise ValueError(f"uniform_share: expected a share in (0, 1], got {uniform_share}")
    priority = priority.dropna().astype(float).sort_index()
    if priority.empty:
        raise ValueError("priority: no sample to draw from")
    values = priority.to_numpy()
    span = values.max() - values.min()
    stratum = (
        np.zeros(len(values), int)
        if span <= 0
        else np.minimum(((values - values.min()) / span * strata).astype(int), strata - 1)
    )
    n = len(values)
    sizes = np.bincount(stratum, minlength=strata).astype(float)
    mass = np.bincount(stratum, weights=values - values.min(), minlength=strata)
    share = mass / mass.sum() if mass.sum() > 0 else sizes / n
    targeted = np.where(sizes > 0, share / np.maximum(sizes, 1), 0.0)[stratum]
    probability = uniform_share / n + (1 - uniform_share) * targeted
    return LabelDesign(tuple(map(str, priority.index)), stratum, probability, uniform_share)


def metric_design(
    scores: pd.DataFrame, metric: str, uniform_share: float = UNIFORM_SHARE
) -> LabelDesign:
    """The design of a metric's samples, by the labelling queue's priority
    (``selection.label_priority``)."""
    table, _ = label_priority(scores, metric)
    return label_design(table["priority"], uniform_share)


def preference_design(
    scores: pd.DataFrame,
    members: Mapping[str, tuple[str, str]],
    uniform_share: float = UNIFORM_SHARE,
) -> LabelDesign:
    """The design of preference pairs, by today's preference queue's priority."""
    queue = preference_queue(scores, members)
    return label_design(queue.set_index("pair")["priority"], uniform_share)


def draw_labels(
    plan: LabelDesign, draws: int, seed: int, labelled: Collection[str] = ()
) -> pd.DataFrame:
    """``draws`` draws from the design, deterministic under ``seed``; each with its sample, its
    stratum, its probability a draw, its weight ``1 / (N q)``, and whether it asks for a new
    label (False: ``labelled`` or drawn before)."""
    rng = np.random.default_rng(seed)
    picks = rng.choice(plan.population, size=draws, p=plan.probability / plan.probability.sum())
    ids = np.asarray(plan.samples, dtype=object)[picks]
    seen = set(labelled)
    new = []
    for sid in ids:
        new.append(sid not in seen)
        seen.add(sid)
    return pd.DataFrame(
        {
            "draw": np.arange(1, draws + 1),
            "sample_id": ids,
            "stratum": plan.stratum[picks],
            "probability": plan.probability[picks],
            "weight": plan.weight()[picks],
            "new": new,
        },
        columns=DRAW_COLUMNS,
    )
