"""The benchmark grid: synthetic samples, the full model matrix, and two ways to count its calls.

``ragas_pattern_calls`` is what Ragas's (and DeepEval's) documented call pattern would send for
the same cells, metric by metric; ``judgegrid_calls`` reads what a judgegrid run really sent
from its run database. Both are pure functions of their inputs, so the test suite can check the
counting on a small grid while the benchmark applies it to the full one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

JUDGE_ONLY = (
    "faithfulness",
    "context_precision",
    "context_recall",
    "context_entity_recall",
    "noise_sensitivity",
    "answer_relevancy",
)
ALL_METRICS = ("response_relevancy", *JUDGE_ONLY)

_TOPICS = [
    ("canal", "Panama Canal", "1914", "the United States"),
    ("tower", "Eiffel Tower", "1889", "Gustave Eiffel"),
    ("bridge", "Golden Gate Bridge", "1937", "Joseph Strauss"),
    ("railway", "Trans-Siberian Railway", "1916", "the Russian Empire"),
    ("telescope", "Hubble Telescope", "1990", "NASA"),
]


def synthetic_samples(n: int, contexts: int = 4) -> list[dict[str, Any]]:
    """``n`` samples with ``contexts`` retrieved contexts each; no two samples share a text.

    Every text carries the sample's number: judgegrid shares a judge step between prompts that
    are identical, so repeated texts would make it look cheaper than a real data set does.
    Two statements per response and reference, the first context relevant and the others
    noise, so every metric has work to do and the scripted judge answers each one sensibly.
    """
    samples = []
    for i in range(n):
        key, thing, year, maker = _TOPICS[i % len(_TOPICS)]
        tag = f"case {i}"
        relevant = f"The {thing} ({tag}) was completed in {year} by {maker}."
        noise = [
            f"Unrelated note {j} for {tag}: Lisbon trams run on narrow gauge track."
            for j in range(1, contexts)
        ]
        samples.append(
            {
                "id": f"{key}-{i}",
                "user_input": f"Who completed the {thing} ({tag}) and when?",
                "response": f"{maker.capitalize()} completed the {thing} ({tag}). "
                f"It opened in {year}.",
                "retrieved_contexts": [relevant, *noise],
                "reference": f"The {thing} ({tag}) was completed by {maker}. "
                f"It was completed in {year}.",
            }
        )
    return samples


def write_jsonl(path: Path, samples: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    return path


@dataclass(frozen=True)
class GridShape:
    """The axes of a grid, as far as counting calls is concerned."""

    judges: int
    embedding_dimensions: int  # (embedding model, dimension) pairs
    strictness: tuple[int, ...]
    repeats: int
    contexts: tuple[int, ...]  # retrieved contexts of each sample
    metrics: tuple[str, ...] = ALL_METRICS
    include_reason: bool = True


def ragas_pattern_calls(shape: GridShape, n_per_call: bool) -> dict[str, int]:
    """LLM calls per metric under Ragas's documented pattern (DeepEval's for answer_relevancy).

    Ragas scores each cell on its own: nothing is shared between metrics, embedding models,
    dimensions or strictness values. ResponseRelevancy regenerates its questions for every
    (embedding, dimension, strictness) cell: ``strictness`` calls, or one call with ``n`` where
    the provider takes ``n`` (``n_per_call``). Per score: Faithfulness 2 (statements, verdicts),
    ContextPrecision K (one per context), ContextRecall 1, ContextEntityRecall 2, NoiseSensitivity
    2K+3, DeepEval AnswerRelevancy 2 (+1 for the reason).
    """
    runs = shape.judges * shape.repeats  # every (judge, repeat) scores every sample
    samples = len(shape.contexts)
    k_total = sum(shape.contexts)
    per_metric = {
        "response_relevancy": runs
        * samples
        * shape.embedding_dimensions
        * sum(1 if n_per_call else n for n in shape.strictness),
        "faithfulness": runs * samples * 2,
        "context_precision": runs * k_total,
        "context_recall": runs * samples,
        "context_entity_recall": runs * samples * 2,
        "noise_sensitivity": runs * (2 * k_total + 3 * samples),
        "answer_relevancy": runs * samples * (3 if shape.include_reason else 2),
    }
    return {m: per_metric[m] for m in shape.metrics}


def ragas_embedding_calls(shape: GridShape) -> int:
    """Ragas's ResponseRelevancy embeds the question and the generated questions per score."""
    if "response_relevancy" not in shape.metrics:
        return 0
    cells = (
        shape.judges
        * shape.repeats
        * len(shape.contexts)
        * shape.embedding_dimensions
        * len(shape.strictness)
    )
    return 2 * cells


def judgegrid_calls(
    scores: pd.DataFrame, calls: pd.DataFrame, step_names: pd.DataFrame
) -> dict[str, Any]:
    """The judge calls a run sent, per metric and in total.

    ResponseRelevancy's are the calls of its own step. A judge-only metric's count is the sum of
    its cells' calls: what the metric costs on its own, since each cell counts the steps it used,
    including those it shares with other metrics (the statements of the response are one call for
    Faithfulness, NoiseSensitivity and AnswerRelevancy together). ``total`` counts every
    completion request once, so it is less than the sum of the metrics by what sharing saved.
    """
    completions = calls[calls["kind"] == "completion"]
    steps = completions.merge(step_names, left_on="step_key", right_on="key", how="left")
    per_metric: dict[str, int] = {}
    for metric in scores["metric"].unique():
        if metric == "response_relevancy":
            own = steps["step"].astype(str).str.startswith("response_relevancy.")
            per_metric[metric] = int(own.sum())
        else:
            per_metric[metric] = int(scores.loc[scores["metric"] == metric, "calls"].sum())
    return {
        "per_metric": per_metric,
        "total": len(completions),
        "embedding": int((calls["kind"] == "embedding").sum()),
        "by_step": steps["step"].fillna("?").value_counts().sort_index().to_dict(),
    }


def matrix_dict(
    judges: Sequence[dict[str, Any]],
    embeddings: Sequence[dict[str, Any]],
    dataset: str,
    *,
    strictness: Sequence[int] = (1, 3, 5),
    repeats: int = 3,
    metrics: Sequence[str] = ALL_METRICS,
    concurrency: int = 64,
    name: str = "bench",
) -> dict[str, Any]:
    """A model matrix for the benchmarks: no retry waits, one concurrency for all."""
    return {
        "name": name,
        "dataset": dataset,
        "defaults": {"judge": {"temperature": 0.0, "max_tokens": 400, "seed": 1}},
        "retry": {"initial_interval": "1ms", "max_interval": "5ms", "max_attempts": 3},
        "concurrency": {"total": concurrency, "per_model": concurrency},
        "judges": list(judges),
        "embeddings": list(embeddings),
        "metrics": list(metrics),
        "strictness": list(strictness),
        "repeats": repeats,
    }


def shape_of(matrix: dict[str, Any], samples: Sequence[dict[str, Any]]) -> GridShape:
    return GridShape(
        judges=len(matrix["judges"]),
        embedding_dimensions=sum(len(e["dimensions"]) for e in matrix["embeddings"]),
        strictness=tuple(matrix["strictness"]),
        repeats=matrix["repeats"],
        contexts=tuple(len(s["retrieved_contexts"]) for s in samples),
        metrics=tuple(matrix["metrics"]),
    )
