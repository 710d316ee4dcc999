"""What the tests of pairwise criteria share: a criterion comparing ``response`` with
``response_b``, the scripted judges that answer it, and the shared WikiEval pairs file.

The scripted judges: ``judge-first`` always picks answer A (the first shown); ``judge-follow``
picks the answer that says GOOD (the people's choice in the tests' pairs); ``judge-long`` picks
the longer answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from conftest import ROOT
from support.scripted import default_answer, last_block

WIKIEVAL = ROOT.parent / "shared" / "validation" / "wikieval_pairs.jsonl"
if not WIKIEVAL.exists():
    WIKIEVAL = Path("/work/shared/validation/wikieval_pairs.jsonl")

BETTER = {
    "name": "better",
    "type": "pairwise",
    "definition": "Which answer is better?",
    "compare": ["response", "response_b"],
}
JUDGES = [
    {"id": "scripted/judge-first", "label": "first"},
    {"id": "scripted/judge-follow", "label": "follow"},
    {"id": "scripted/judge-long", "label": "long"},
]


def scripted_pairwise(step: str, prompt: str, model: str) -> dict[str, Any]:
    """The scripted judges' verdict on a pairwise prompt (other steps: the default answers)."""
    if step != "pairwise":
        return default_answer(step, prompt, model)
    first, second = last_block(prompt, "Answer A"), last_block(prompt, "Answer B")
    if model.endswith("judge-first"):
        verdict = "A"
    elif model.endswith("judge-follow"):
        verdict = "A" if "GOOD" in first else "B"
    else:
        verdict = "A" if len(first) >= len(second) else "B"
    return {"verdict": verdict, "reason": "scripted"}


def pairwise_cell(
    judge: str,
    pair: str,
    ab: str,
    ba: str,
    repeat: int = 0,
    status: str = "scored",
    wording: int = 0,
) -> dict[str, Any]:
    """A pairwise cell of criterion ``better`` as a scores row, with the winners of its two
    orders (``ab``: answer a shown first), as the run database stores it."""
    orders = {
        order: {"winner": winner, "position": "A" if winner == order[0] else "B"}
        for order, winner in (("ab", ab), ("ba", ba))
    }
    combined = ab if ab == ba else "tie"
    score = {"a": 1.0, "tie": 0.5, "b": 0.0}[combined]
    return {
        "metric": "better",
        "judge": judge,
        "embedding": "",
        "dimension": 0,
        "strictness": 0,
        "sample_id": pair,
        "repeat": repeat,
        "wording": wording,
        "status": status,
        "score": score if status == "scored" else np.nan,
        "answer": score if status == "scored" else np.nan,
        "weighting": "none",
        "details": json.dumps(
            {"orders": orders, "combined": combined, "systems": ["model-x", "model-y"]}
        ),
        "calls": 2,
        "tokens_in": 10,
        "tokens_out": 2,
        "cost": 0.0,
        "latency_s": 0.1,
        "reason": "",
        "error": None if status == "scored" else "failed",
        "finished_at": 0.0,
    }
