"""Every metric's rendered judge requests, pinned byte for byte.

The cross-run cache keys each judge answer on the exact messages and answer shape sent, so a
prompt that changes by one character silently re-asks every judge. ``golden/prompts.json`` holds
what each metric sends for a few samples (messages, step name, requested JSON shape); a change
to a prompt must be made on purpose, by regenerating the file:

    python tests/metrics/test_prompts_pinned.py --write
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from test_metric_steps import BRIDGE

from judgegrid.core.context import ScoreContext
from judgegrid.inputs.dataset import load_demo
from judgegrid.metrics import METRICS
from judgegrid.plan.placeholders import answer_for_messages, bag_of_words

GOLDEN = Path(__file__).parents[1] / "golden" / "prompts.json"

# (metric, parameters): every prompt variant a parameter can select
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("response_relevancy", {}),
    ("faithfulness", {}),
    ("context_precision", {"mode": "reference"}),
    ("context_precision", {"mode": "response"}),
    ("context_recall", {}),
    ("context_entity_recall", {}),
    ("noise_sensitivity", {"mode": "relevant"}),
    ("noise_sensitivity", {"mode": "irrelevant"}),
    ("answer_relevancy", {"include_reason": True}),
    ("answer_relevancy", {"include_reason": False}),
]


class RecordingJudge:
    """Answers as the scripted judge does and keeps every request it was sent."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    async def ask(self, q: Any) -> Any:
        self.asked.append(
            {"step": q.step, "index": q.index, "messages": q.messages, "shape": q.shape()}
        )
        return q.schema.model_validate(answer_for_messages(q.messages, "golden"))

    async def ask_many(self, q: Any, n: int) -> list[Any]:
        return [await self.ask(replace(q, index=i)) for i in range(n)]


class BagOfWords:
    async def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([bag_of_words(t) for t in texts])


def rendered() -> dict[str, list[dict[str, Any]]]:
    demo = load_demo().by_id()
    # English samples, and one in Vietnamese: its prompts ask for text in that language
    samples = [BRIDGE, demo["canal-grounded"], demo["canal-hallucinated"], demo["vanmieu"]]
    out: dict[str, list[dict[str, Any]]] = {}
    for name, params in VARIANTS:
        metric = METRICS[name](**params)
        for sample in samples:
            judge = RecordingJudge()
            ctx = ScoreContext(judge=judge, embedder=BagOfWords(), strictness=2)
            asyncio.run(metric.compute(sample, ctx))
            tag = ",".join(f"{k}={v}" for k, v in params.items())
            out[f"{name}({tag}) {sample.id}"] = judge.asked
    return out


def test_rendered_prompts_are_unchanged():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(rendered(), ensure_ascii=False))
    assert sorted(now) == sorted(golden)
    for key in golden:
        assert now[key] == golden[key], f"{key}: the request sent to the judge changed"


if __name__ == "__main__" and "--write" in sys.argv:
    GOLDEN.write_text(json.dumps(rendered(), indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {GOLDEN}")
