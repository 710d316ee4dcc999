"""What the tests of pairwise criteria share: a criterion comparing ``response`` with
``response_b``, the scripted judges that answer it, and the shared WikiEval pairs file.

The scripted judges: ``judge-first`` always picks answer A (the first shown); ``judge-follow``
picks the answer that says GOOD (the people's choice in the tests' pairs); ``judge-long`` picks
the longer answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
