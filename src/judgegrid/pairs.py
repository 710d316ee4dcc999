"""Validity runs on a human-preference pairs file (the WikiEval format of the Ragas paper).

Each line holds a question, a context and pairs of answers or contexts that annotators ranked:
``answer`` is preferred to ``ungrounded_answer`` on faithfulness and to ``poor_answer`` on
answer relevance; ``context_v1`` is preferred to ``context_v2`` (padded) on context relevance.
Every pair becomes two samples carrying labels (``pair``, ``preferred``, ``aspect``), scored by
the metrics that measure that aspect only, one run directory per aspect. No metric of the suite
measures context padding, so the context-relevance pairs are reported as not scored, never
forced onto a metric that answers another question.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.analyses.validity import (
    ASPECT_METRICS,
    NO_METRIC_NOTE,
    accuracy_table,
    pair_accuracy,
)
from judgegrid.errors import DatasetError, Problem
from judgegrid.matrix import Matrix, MetricSpec
from judgegrid.metrics import METRICS
from judgegrid.sample import Dataset, Sample

# aspect -> (preferred field, other field); both answers are read against the same context
ANSWER_ASPECTS = {
    "faithfulness": ("answer", "ungrounded_answer"),
    "answer_relevance": ("answer", "poor_answer"),
}
REQUIRED = ("id", "question", "context", "answer", "ungrounded_answer", "poor_answer")

# Table 1 of the Ragas paper (Es et al. 2023, arXiv 2309.15217): agreement with annotators,
# gpt-3.5-turbo-16k as judge.
RAGAS_PAPER = {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70}


def load_pairs(path: str | Path) -> list[dict[str, Any]]:
    """The pairs file's records; every bad line or missing field is named."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(str(path), [Problem("", "file not found")])
    records, problems = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"line {number}", f"not valid JSON ({exc.msg})"))
            continue
        missing = [f for f in REQUIRED if not isinstance(record.get(f), str) or not record[f]]
        if missing:
            problems.append(Problem(f"line {number}", f"missing or empty: {', '.join(missing)}"))
            continue
        records.append(record)
    if problems:
        raise DatasetError(str(path), problems)
    if not records:
        raise DatasetError(str(path), [Problem("", "the file has no pairs")])
    return records


def aspect_dataset(records: list[dict[str, Any]], aspect: str, source: str) -> Dataset:
    """Two samples per pair: the preferred answer and the other, labelled with the pair."""
    better, worse = ANSWER_ASPECTS[aspect]
    samples = []
    for record in records:
        pair = f"{record['id']}:{aspect}"
        for field, preferred in ((better, 1), (worse, 0)):
            samples.append(
                Sample(
                    id=f"{pair}:{'preferred' if preferred else 'other'}",
                    user_input=record["question"],
                    response=record[field],
                    retrieved_contexts=[record["context"]],
                    labels={"pair": pair, "preferred": preferred, "aspect": aspect},
                )
            )
    return Dataset(f"{source} ({aspect} pairs)", tuple(samples))


def aspect_metrics(matrix: Matrix, aspect: str) -> tuple[list[MetricSpec], list[str]]:
    """The metrics that measure an aspect (the matrix's own spec if it lists one, else the
    defaults), and the names not available in this build (skipped, with a note)."""
    listed = {spec.name: spec for spec in matrix.metrics}
    specs, unavailable = [], []
    for name in ASPECT_METRICS[aspect]:
        if name not in METRICS:
            unavailable.append(name)
            continue
        specs.append(listed.get(name, MetricSpec(name=name)))
    return specs, unavailable


def unavailable_metrics() -> list[str]:
    """Metrics an aspect maps to that this build's registry lacks (their pairs: not scored)."""
    names = [n for aspect in ANSWER_ASPECTS for n in ASPECT_METRICS[aspect]]
    return [n for n in names if n not in METRICS]


@dataclass
class PairsOutcome:
    accuracy: pd.DataFrame  # per source, aspect and configuration (tidy)
    table: pd.DataFrame  # configuration x aspect -> 'acc [CI] n'
    notes: list[str]


def pairs_outcome(
    scores: pd.DataFrame, sample_info: dict[str, dict[str, Any]], unavailable: list[str]
) -> PairsOutcome:
    from judgegrid.analyses.bundle import preference_pairs

    pairs = preference_pairs(sample_info)
    accuracy = pair_accuracy(scores, pairs)
    notes = [f"context relevance pairs: {NO_METRIC_NOTE['context_relevance']}."]
    notes += [
        f"{name}: not in this build's metric registry, so its pairs were not scored"
        for name in unavailable
    ]
    return PairsOutcome(accuracy, accuracy_table(accuracy), notes)


def paper_comparison(accuracy: pd.DataFrame) -> pd.DataFrame:
    """Per aspect: the best and the mean accuracy of this run's configurations beside the
    Ragas paper's figure."""
    rows = []
    for aspect, paper in RAGAS_PAPER.items():
        block = accuracy[accuracy["aspect"] == aspect] if not accuracy.empty else accuracy
        rows.append(
            {
                "aspect": aspect,
                "configurations": len(block),
                "best_accuracy": block["accuracy"].max() if len(block) else float("nan"),
                "mean_accuracy": block["accuracy"].mean() if len(block) else float("nan"),
                "ragas_paper_gpt-3.5": paper,
            }
        )
    return pd.DataFrame(rows)


def outcome_markdown(outcome: PairsOutcome, title: str) -> str:
    lines = [
        f"# {title}",
        "",
        "Pairwise-preference accuracy (Ragas paper protocol): share of "
        "pairs where the preferred member scores strictly higher; ties count as "
        "disagreement; [95% Wilson interval]; pairs with both members scored.",
        "",
    ]
    lines += [outcome.table.to_markdown() if not outcome.table.empty else "(no scored pairs)", ""]
    lines += ["## Beside the Ragas paper (gpt-3.5-turbo-16k as judge)", ""]
    lines += [paper_comparison(outcome.accuracy).to_markdown(index=False, floatfmt=".2f"), ""]
    lines += [f"- {note}" for note in outcome.notes]
    return "\n".join(lines) + "\n"
