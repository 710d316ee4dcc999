"""The data set most tests run on: the demo set as it was in English alone (12 samples, every
field given, contrasts for faithfulness, response relevancy and context precision), kept here so
the tests' expectations do not move when the bundled demo set grows (it now adds Vietnamese,
Chinese and Russian samples, some with a question and an answer only)."""

from __future__ import annotations

from pathlib import Path

from judgegrid.dataset import load_dataset
from judgegrid.sample import Dataset

ENGLISH_DEMO = Path(__file__).parent / "data" / "demo_english.jsonl"


def english_demo() -> Dataset:
    return load_dataset(ENGLISH_DEMO)
