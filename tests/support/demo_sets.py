"""The data set most tests run on: the demo set as it was in English alone (12 samples, every
field given, contrasts for faithfulness, response relevancy and context precision), kept here so
the tests' expectations do not move when the bundled demo set grows (it now adds Vietnamese,
Chinese and Russian samples, some with a question and an answer only)."""

from __future__ import annotations

from pathlib import Path

from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.dataset import load_dataset

ENGLISH_DEMO = Path(__file__).resolve().parents[1] / "data" / "demo_english.jsonl"


# the demo matrix's metrics that a report test keeps: the five that read the samples' contexts
# or compare answers (the two others add nothing those tests look at, and their minutes)
DEMO_REPORT_METRICS = [
    "response_relevancy",
    "faithfulness",
    "context_precision",
    "context_recall",
    "noise_sensitivity",
]


def english_demo() -> Dataset:
    return load_dataset(ENGLISH_DEMO)


HOSTILE = "<script>alert('x')</script> & what is <b>bold</b>?"


HOSTILE_SAMPLE = Sample(
    id="hostile<script>",
    user_input=HOSTILE,
    response="Bold is <b>a font weight</b>.",
    retrieved_contexts=["Bold is a font weight used for emphasis."],
    reference="Bold is a font weight.",
)


def demo_with_hostile_sample() -> Dataset:
    return Dataset("mem", (*english_demo().samples, HOSTILE_SAMPLE))


# Preference pairs in WikiEval's format: a grounded answer against an ungrounded one, a full
# answer against a poor one, a tight context against a noisy one.
PAIR_RECORDS = [
    {
        "id": f"q{i}",
        "question": f"When did the {thing} open?",
        "context": f"The {thing} opened in {1900 + i} in the old town.",
        "answer": f"The {thing} opened in {1900 + i} in the old town.",
        "ungrounded_answer": f"The {thing} was closed by pirates from Mars in {2400 + i}.",
        "poor_answer": "I am not sure.",
        "context_v1": f"The {thing} opened in {1900 + i}.",
        "context_v2": f"The {thing} opened in {1900 + i}. Bananas are yellow.",
    }
    for i, thing in enumerate(["museum", "bridge", "library", "stadium"])
]
