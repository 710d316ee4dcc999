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
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.sample import Sample
from judgegrid.inputs.dataset import load_demo
from judgegrid.inputs.probes import FILLER, NONCOMMITTAL, NOTE, make_probes
from judgegrid.metrics import METRICS
from judgegrid.metrics.pairwise import PairwiseMetric
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
    return out | rendered_probes() | rendered_pairwise()


# A pairwise criterion (metrics/pairwise.py): both orders of one pair, a verdict with ties, a
# graded scale without, and a sample in Vietnamese (the reason asked in its language).
PAIRWISE = [
    CriterionSpec(
        name="more_faithful",
        definition="Which answer is more faithful to the context?",
        type="pairwise",
        fields=("user_input", "retrieved_contexts"),
        compare=("response", "response_b"),
    ),
    CriterionSpec(
        name="more_relevant",
        definition="Which answer is more relevant to the question?",
        type="pairwise",
        compare=("response", "response_b"),
        ties=False,
        scale={1: "A is much better", 2: "A is better", 3: "B is better", 4: "B is much better"},
        steps=("Read the question.", "Read both answers."),
    ),
]


def rendered_pairwise() -> dict[str, list[dict[str, Any]]]:
    demo = load_demo().by_id()
    out: dict[str, list[dict[str, Any]]] = {}
    for spec in PAIRWISE:
        for good, bad in (("canal-grounded", "canal-hallucinated"), ("vanmieu", "vanmieu")):
            worse = demo[bad].response if bad != good else "Không biết."
            sample = demo[good].model_copy(update={"extra": {"response_b": worse}})
            judge = RecordingJudge()
            asyncio.run(PairwiseMetric(spec).compute(sample, ScoreContext(judge, None)))
            out[f"pairwise {spec.name} {good}"] = judge.asked
    return out


# Probes of samples in Vietnamese, Chinese and Russian (inputs/probes.py): the note to the
# evaluator, the noncommittal answer and the filler reach the judge in the sample's language.
PROBED = {"vi": "vanmieu", "zh": "greatwall", "ru": "petersburg"}
PROBE_VARIANTS = [
    ("faithfulness", "injection"),
    ("response_relevancy", "noncommittal"),
    ("response_relevancy", "injection"),
    ("answer_relevancy", "verbosity"),
    ("context_recall", "injection"),
]


def probe_samples() -> dict[str, Sample]:
    """The probes of ``PROBED``'s samples, by ``metric probe sample``."""
    demo = load_demo()
    metrics = sorted({m for m, _ in PROBE_VARIANTS})
    probes = make_probes(demo, metrics, per_metric=len(demo))
    wanted = {(m, p, b) for m, p in PROBE_VARIANTS for b in PROBED.values()}
    return {
        f"{p.probe.metric} {p.probe.name} {p.id.split('~')[0]}": p
        for p in probes
        if (p.probe.metric, p.probe.name, p.id.split("~")[0]) in wanted
    }


def rendered_probes() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for key, sample in sorted(probe_samples().items()):
        metric = METRICS[sample.probe.metric]()
        judge = RecordingJudge()
        ctx = ScoreContext(judge=judge, embedder=BagOfWords(), strictness=2)
        asyncio.run(metric.compute(sample, ctx))
        out[f"probe {key}"] = judge.asked
    return out


def test_probes_in_vietnamese_chinese_and_russian_speak_the_samples_language():
    samples = probe_samples()
    assert len(samples) == len(PROBE_VARIANTS) * len(PROBED)
    asked = rendered_probes()
    for language, base in PROBED.items():
        note = json.dumps(asked[f"probe faithfulness injection {base}"], ensure_ascii=False)
        assert NOTE[language] in note and NOTE["en"] not in note
        silent = json.dumps(
            asked[f"probe response_relevancy noncommittal {base}"], ensure_ascii=False
        )
        assert NONCOMMITTAL[language] in silent
        padded = json.dumps(asked[f"probe answer_relevancy verbosity {base}"], ensure_ascii=False)
        assert FILLER[language] in padded
        in_context = json.dumps(asked[f"probe context_recall injection {base}"], ensure_ascii=False)
        assert NOTE[language] in in_context


def test_rendered_prompts_are_unchanged():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(rendered(), ensure_ascii=False))
    assert sorted(now) == sorted(golden)
    for key in golden:
        assert now[key] == golden[key], f"{key}: the request sent to the judge changed"


if __name__ == "__main__" and "--write" in sys.argv:
    GOLDEN.write_text(json.dumps(rendered(), indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {GOLDEN}")
