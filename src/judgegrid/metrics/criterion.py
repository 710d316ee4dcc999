"""The judge's side of a criterion: its prompt, the answer it may give, and the arithmetic.

The judge answers in one JSON object, the verdict (or label, or level) first and a short reason
after: a probability-weighted score reads the probabilities of the first token the judge writes
as its answer, which is then the score token. Scoring is pure:

- ``majority``: a binary criterion asks ``strictness`` verdicts and keeps the majority, as Ragas'
  AspectCritic does; the share of passes is kept beside it;
- ``expected_level``: G-Eval's score, the expected level under the probabilities the judge gave
  the allowed levels' tokens (renormalised over them); None where no allowed level is among the
  tokens the provider returned, so a caller records that the plain answer was used instead.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from pydantic import BaseModel, Field, create_model

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import REASON_CHARS
from judgegrid.metrics.prompt import Prompt

FIELD_TITLES = {
    "user_input": "Question",
    "response": "Response",
    "retrieved_contexts": "Contexts",
    "reference": "Reference",
}


def answer_model(spec: CriterionSpec) -> type[BaseModel]:
    """The answer schema: the verdict, label or level (only those allowed), then a reason."""
    reason = (str, Field(max_length=300))
    if spec.type == "binary":
        return create_model("Verdict", verdict=(one_of(("pass", "fail")), ...), reason=reason)
    if spec.type == "labels":
        assert spec.labels is not None
        return create_model("Labelled", label=(one_of(tuple(spec.labels)), ...), reason=reason)
    return create_model("Rated", level=(one_of(spec.levels), ...), reason=reason)


def one_of(values: tuple[Any, ...]) -> Any:
    """``Literal[values]``, made at run time from the criterion's own labels or levels."""
    return cast(Any, Literal)[values]


def input_model(spec: CriterionSpec) -> type[BaseModel]:
    """What the judge reads: the criterion's fields, each under its title."""
    fields: dict[str, Any] = {name: (str, Field(title=field_title(name))) for name in spec.fields}
    return create_model("CriterionInput", **fields)


def field_title(name: str) -> str:
    """How the judge sees a field named: 'Question', or 'Plan summary' for ``plan_summary``."""
    return FIELD_TITLES.get(name, name.replace("_", " ").capitalize())


def criterion_prompt(spec: CriterionSpec, wording: int = 0) -> Prompt[Any, Any]:
    """The prompt of ``spec`` under its ``wording`` (0: the definition itself)."""
    return rubric_prompt(
        f"Judge the sample by this criterion: {spec.definitions[wording]}",
        spec.steps,
        _answer_lines(spec),
        (input_model(spec), answer_model(spec), _reply_format(spec)),
    )


def rubric_prompt(
    head: str,
    steps: Sequence[str],
    answer_lines: list[str],
    schema: tuple[type[BaseModel], type[BaseModel], str],
) -> Prompt[Any, Any]:
    """A criterion's prompt (pointwise or pairwise): its question, its evaluation steps, how to
    answer, a reason of a few words; ``schema``: the input model, the answer model and the reply
    format spelled out."""
    lines = [head]
    if steps:
        lines += ["Evaluation steps:", *(f"{k}. {step}" for k, step in enumerate(steps, 1))]
    lines += answer_lines
    lines.append(f"Give a reason of at most {REASON_CHARS // 6} words.")
    data, answer, reply_format = schema
    return Prompt(
        instruction="\n".join(lines),
        input=data,
        output=answer,
        reply_format=reply_format,
        writes="the reason",
    )


def _answer_lines(spec: CriterionSpec) -> list[str]:
    if spec.type == "binary":
        return ["Answer pass if the sample meets the criterion, fail if it does not."]
    if spec.type == "labels":
        assert spec.labels is not None
        return ["Answer with one label: " + ", ".join(spec.labels) + "."]
    assert spec.scale is not None
    return ["Rate it on this scale:", *(f"{level}: {spec.scale[level]}" for level in spec.levels)]


def _reply_format(spec: CriterionSpec) -> str:
    if spec.type == "binary":
        return '{"verdict": "pass" or "fail", "reason": "..."}'
    if spec.type == "labels":
        assert spec.labels is not None
        return (
            '{"label": ' + " or ".join(f'"{name}"' for name in spec.labels) + ', "reason": "..."}'
        )
    return '{"level": ' + " or ".join(str(level) for level in spec.levels) + ', "reason": "..."}'


def field_text(sample: Sample, name: str) -> str:
    """A sample field as the judge reads it (contexts one a line)."""
    value = getattr(sample, name, None)
    if isinstance(value, list | tuple):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def majority(verdicts: Sequence[int]) -> tuple[int, float]:
    """The majority verdict of an odd number of pass (1) / fail (0) verdicts, and the share of
    passes (Ragas' AspectCritic keeps the first; the share says how close the vote was)."""
    if not verdicts:
        raise ValueError("no verdict to count")
    winner = Counter(verdicts).most_common(1)[0][0]
    return int(winner), sum(verdicts) / len(verdicts)


def expected_level(top_logprobs: Mapping[str, float], levels: Sequence[int]) -> float | None:
    """G-Eval's probability-weighted score: sum of level x p over the allowed levels among the
    tokens, p renormalised over them; None when none of them is there."""
    weights: dict[int, float] = {}
    for token, logprob in top_logprobs.items():
        text = token.strip()
        if text.lstrip("-").isdigit() and int(text) in levels:
            weights[int(text)] = weights.get(int(text), 0.0) + math.exp(logprob)
    total = sum(weights.values())
    if not weights or total <= 0:
        return None
    return sum(level * p for level, p in weights.items()) / total


def label_score(spec: CriterionSpec, label: str) -> float:
    """A label's score as the criterion gives it."""
    assert spec.labels is not None
    return float(spec.labels[label])
