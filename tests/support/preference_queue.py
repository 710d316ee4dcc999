"""A pairs run's people's preferences drawn by a scripted preference queue: two judges on N
pairs of which the first ``DISPUTED`` split them, each pair's members rated so that a judge is
right or wrong as ``TRUTH`` says, and what the report reads of a person who answered the drawn
pairs (``queue``), with the card's sources as ``analyse`` makes them (``card_sources``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgegrid.analyses import person_item
from judgegrid.analyses.bundle import ValidityInputs, preference_weights
from judgegrid.analyses.decision.ladder import CardSources
from judgegrid.core.records import PREFERENCE
from support.frames import scores_frame

METRIC = "faithfulness"  # what a faithfulness pair's preference is scored on (ASPECT_METRICS)
N = 400
DISPUTED = 100  # the first 100 pairs: a and b prefer different answers


def _truth() -> dict[str, np.ndarray]:
    """Per judge, right (1) or wrong (0) on each of the N pairs: on the disputed pairs a is
    right on 40%, b on the other 60%; on the rest both are right on 85% of them."""
    i = np.arange(N)
    a_disputed = (i % 5) < 2
    agreed = (i % 20) < 17
    a = np.where(i < DISPUTED, a_disputed, agreed)
    b = np.where(i < DISPUTED, ~a_disputed, agreed)
    return {"a": a.astype(float), "b": b.astype(float)}


TRUTH = _truth()
IDS = [f"p{i:03d}" for i in range(N)]


def _scores() -> pd.DataFrame:
    """A judge right on a pair rates its preferred member 0.9 and the other 0.5; wrong, 0.1."""
    values = {}
    for judge, right in TRUTH.items():
        for pair, ok in zip(IDS, right, strict=True):
            values[(METRIC, judge, "", 0, 0, f"{pair}-g", 0)] = 0.9 if ok else 0.1
            values[(METRIC, judge, "", 0, 0, f"{pair}-b", 0)] = 0.5
    return scores_frame(values)


SCORES = _scores()


def queue(drawn: np.ndarray, q: np.ndarray, annotator: str = "ann") -> ValidityInputs:
    """What the report reads of a person who answered the drawn pairs (indices into IDS, in
    draw order, ``q`` each pair's probability a draw), preferring the data set's answer."""
    draws = pd.DataFrame(
        {
            "metric": PREFERENCE,
            "annotator": annotator,
            "draw": np.arange(1, len(drawn) + 1),
            "sample_id": [IDS[k] for k in drawn],
            "probability": q[drawn],
            "population": N,
        }
    )
    answered = [IDS[k] for k in dict.fromkeys(drawn.tolist())]
    answers = pd.DataFrame(
        {
            "sample_id": answered,
            "metric": PREFERENCE,
            "annotator": annotator,
            "value": 1.0,
            "labelled_at": np.arange(len(answered), dtype=float),
        }
    )
    people = pd.DataFrame(
        {
            "source": "people",
            "pair": [person_item(p, annotator) for p in answered],
            "aspect": METRIC,
            "metric": METRIC,
            "preferred": [f"{p}-g" for p in answered],
            "other": [f"{p}-b" for p in answered],
        }
    )
    return ValidityInputs(people_pairs=people, label_draws=draws, answers=answers)


def card_sources(inputs: ValidityInputs, weighted: bool = True) -> CardSources:
    """The card's sources as ``analyse`` makes them for the pairs rung (``preference_weights``),
    or, ``weighted`` False, without the preferences' weights (today's unweighted rung)."""
    assert inputs.people_pairs is not None
    weights, words = preference_weights(inputs, inputs.people_pairs)
    return CardSources(
        scores=SCORES,
        ranking=pd.DataFrame(),
        pairs=inputs.people_pairs,
        label_weights=weights if weighted else pd.DataFrame(),
        sampling=words if weighted else {},
    )
