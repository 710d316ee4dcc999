"""Scripted judges of a criterion, as scores tables in the run database's shape (with the
criterion columns ``wording``, ``answer`` and ``weighting``), and people's labels for them.

A judge is a policy: (truth, wording, repeat, rng) -> the category score it answers. A judge
that follows the people answers the truth; a random one any category; a wording-dependent one
the truth under wording 0 and another category under the other wordings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from judgegrid.core.criterion import CriterionSpec

Policy = Callable[[float, int, int, np.random.Generator], float]

BINARY = CriterionSpec(name="polite", definition="Is the reply polite?", type="binary")
LABELS = CriterionSpec(
    name="refund",
    definition="Does it follow our refund policy?",
    type="labels",
    labels={"correct": 1.0, "partial": 0.5, "wrong": 0.0},
)
SCALE = CriterionSpec(
    name="helpful",
    definition="How helpful is the reply?",
    type="scale",
    scale={1: "useless", 2: "weak", 3: "fair", 4: "good", 5: "excellent"},
    wordings=("Rate how much the reply helps the user.", "Score the reply's usefulness."),
)
SPECS = {spec.name: spec for spec in (BINARY, LABELS, SCALE)}


def category_scores(spec: CriterionSpec) -> list[float]:
    if spec.type == "binary":
        return [0.0, 1.0]
    if spec.type == "labels":
        assert spec.labels is not None
        return sorted(float(v) for v in spec.labels.values())
    return [float(level) for level in spec.levels]


def truths(spec: CriterionSpec, samples: int, seed: int = 0) -> list[float]:
    """A person's label per sample, every category present."""
    known = category_scores(spec)
    rng = np.random.default_rng(seed)
    return [
        known[k % len(known)] if k < len(known) else float(rng.choice(known))
        for k in range(samples)
    ]


def follows(flip: float = 0.0, spec: CriterionSpec | None = None) -> Policy:
    """The person's label, or (with probability ``flip``) any category."""

    def policy(truth: float, wording: int, repeat: int, rng: np.random.Generator) -> float:
        if flip and rng.random() < flip:
            assert spec is not None
            return float(rng.choice(category_scores(spec)))
        return truth

    return policy


def at_random(spec: CriterionSpec) -> Policy:
    return lambda truth, wording, repeat, rng: float(rng.choice(category_scores(spec)))


def worded(spec: CriterionSpec) -> Policy:
    """The truth under wording 0; under wording w, the category w places up (round the list)."""
    known = category_scores(spec)

    def policy(truth: float, wording: int, repeat: int, rng: np.random.Generator) -> float:
        return known[(known.index(truth) + wording) % len(known)]

    return policy


def criterion_scores(
    spec: CriterionSpec,
    judges: Mapping[str, Policy],
    truth: list[float],
    repeats: int = 3,
    wordings: int = 1,
    seed: int = 0,
    weighting: str = "none",
    confidence: float = 0.8,
) -> pd.DataFrame:
    """A scores table of ``spec`` under ``judges``: one row per judge, sample, wording, repeat.
    With ``weighting="logprobs"``, each cell puts ``confidence`` on its answer and spreads the
    rest evenly (binary: the score is P(pass))."""
    rng = np.random.default_rng(seed)
    known = category_scores(spec)
    rows = []
    for judge, policy in judges.items():
        for i, value in enumerate(truth):
            for w in range(wordings):
                for r in range(repeats):
                    answer = policy(value, w, r, rng)
                    p = _probabilities(known, answer, confidence)
                    score = answer
                    if weighting == "logprobs":
                        score = (
                            p[1]
                            if spec.type == "binary"
                            else sum(k * q for k, q in zip(known, p, strict=True))
                        )
                    details = {"answer": answer}
                    if weighting == "logprobs":
                        details["probabilities"] = {
                            str(k): q for k, q in zip(known, p, strict=True)
                        }
                    rows.append(
                        _row(spec.name, judge, f"s{i:03d}", r, w, answer, score, weighting, details)
                    )
    return pd.DataFrame(rows)


def _probabilities(known: list[float], answer: float, confidence: float) -> list[float]:
    rest = (1 - confidence) / (len(known) - 1)
    return [confidence if k == answer else rest for k in known]


def _row(metric, judge, sample, repeat, wording, answer, score, weighting, details) -> dict:
    return {
        "sample_id": sample,
        "metric": metric,
        "judge": judge,
        "embedding": "",
        "dimension": 0,
        "strictness": 1 if metric == BINARY.name else 0,
        "repeat": repeat,
        "status": "scored",
        "score": float(score),
        "reason": None,
        "error": None,
        "details": json.dumps(details),
        "calls": 1,
        "tokens_in": 100,
        "tokens_out": 10,
        "cost": 0.001,
        "latency_s": 0.5,
        "finished_at": 0.0,
        "wording": wording,
        "answer": float(answer),
        "weighting": weighting,
    }


def people_labels(metric: str, truth: list[float], annotator: str = "ann") -> pd.DataFrame:
    """One person's label per sample, as the labels table reads them."""
    return pd.DataFrame(
        {
            "sample_id": [f"s{i:03d}" for i in range(len(truth))],
            "metric": metric,
            "annotator": annotator,
            "value": truth,
        }
    )
