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

from judgegrid.core.context import ScoreContext, Weighted
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import ScoringError
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import REASON_CHARS, Metric, MetricResult, NoParams, tightened_shape
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
    """The prompt of ``spec`` under its ``wording`` (0: the definition itself), with the
    criterion's ``language`` note under it where the user wrote one (e.g. whose norms of
    politeness apply): the judge reads it, a criterion without one asks as before."""
    head = f"Judge the sample by this criterion: {spec.definitions[wording]}"
    if spec.language:
        head += f"\nLanguage: {spec.language}"
    return rubric_prompt(
        head,
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
    """A sample field as the judge reads it (contexts one a line; an extra column's text)."""
    value = sample.value_of(name)
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
    weights = choice_probabilities(top_logprobs, {str(level): float(level) for level in levels})
    if weights is None:
        return None
    return sum(level * p for level, p in weights.items())


def choice_probabilities(
    top_logprobs: Mapping[str, float], choices: Mapping[str, float]
) -> dict[float, float] | None:
    """The probability of each allowed answer (``choices``: its text → its category score) at
    the score token, renormalised over those present; None when none is.

    A token is the answer's text (quotes and spaces aside, any case), or the first piece of
    only one answer's text (``"p"`` of ``pass``): a piece that begins two answers is no answer's.
    """
    texts = {text.lower(): score for text, score in choices.items()}
    weights: dict[float, float] = {}
    for token, logprob in top_logprobs.items():
        piece = token.strip().strip('"').strip().lower()
        if not piece:
            continue
        exact = texts.get(piece)
        begun = [score for text, score in texts.items() if text.startswith(piece)]
        score = exact if exact is not None else (begun[0] if len(begun) == 1 else None)
        if score is not None:
            weights[score] = weights.get(score, 0.0) + math.exp(logprob)
    total = sum(weights.values())
    if not weights or total <= 0:
        return None
    return {score: p / total for score, p in weights.items()}


# The answer's property that holds the score token, per type.
SCORE_FIELD = {"binary": "verdict", "labels": "label", "scale": "level"}


class CriterionMetric(Metric[NoParams]):
    """A criterion of the user's own, scored like a metric: the judge is asked the criterion's
    prompt under the cell's wording; a binary criterion asks ``strictness`` verdicts and keeps
    the majority. With ``weighting`` logprobs or auto the answer's score token comes with its
    alternatives' log-probabilities, and the score is their expected value (G-Eval); where
    none come back the cell says so (``missing``) and its score is the plain answer."""

    def __init__(self, spec: CriterionSpec):
        super().__init__(NoParams())
        self.spec = spec
        self.name = spec.name
        self.title = spec.name
        self.description = spec.definition
        self.required_fields = spec.fields
        self.higher_is_better = spec.higher_is_better
        self.judge_calls = f"{spec.strictness} (verdicts)" if spec.type == "binary" else "1"

    def default_strictness(self) -> int | None:
        return self.spec.strictness if self.spec.type == "binary" else None

    def question(self, sample: Sample, wording: int) -> Question:
        """What the judge is asked about ``sample`` under the criterion's ``wording``."""
        spec = self.spec
        prompt = criterion_prompt(spec, wording)
        shown = input_model(spec)(**{name: field_text(sample, name) for name in spec.fields})
        shape = tightened_shape(prompt.output, {"reason": REASON_CHARS})
        field = SCORE_FIELD[spec.type] if spec.weighting != "none" else None
        return Question(
            "criterion",
            prompt.messages(shown, sample.language),
            prompt.output,
            request_shape=shape,
            score_field=field,
        )

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        if not 0 <= ctx.wording < len(self.spec.definitions):
            raise ScoringError(f"{self.name} has no wording {ctx.wording}")
        q = self.question(sample, ctx.wording)
        n = (ctx.strictness or self.spec.strictness) if self.spec.type == "binary" else 1
        if q.score_field is None:
            answers = [Weighted(a, None) for a in await ctx.judge.ask_many(q, n)]
        else:
            answers = await ctx.judge.ask_weighted(q, n)
        return criterion_result(self.spec, answers)


def criterion_result(spec: CriterionSpec, answers: Sequence[Weighted]) -> MetricResult:
    """A cell's outcome from the judge's answers (one; a binary criterion's ``strictness``)."""
    choices = spec.choices
    field = SCORE_FIELD[spec.type]
    given = [str(getattr(a.answer, field)) for a in answers]
    details: dict[str, Any] = {}
    if spec.type == "binary":
        verdicts = [int(choices[g]) for g in given]
        winner, share = majority(verdicts)
        answer, shown = float(winner), ("pass" if winner else "fail")
        details |= {"verdicts": verdicts, "pass_share": share}
        voted = zip(answers, verdicts, strict=True)
        reason = next(a.answer.reason for a, verdict in voted if verdict == winner)
    else:
        answer, shown, reason = choices[given[0]], given[0], answers[0].answer.reason
    details["answer"] = int(shown) if spec.type == "scale" else shown
    weighting, score = "none", answer
    if spec.weighting != "none":
        weighted = [
            choice_probabilities(a.top_logprobs, choices) if a.top_logprobs else None
            for a in answers
        ]
        weighting = "missing"
        if weighted and all(p is not None for p in weighted):
            probabilities = _mean_probabilities([p for p in weighted if p is not None])
            score = sum(value * p for value, p in probabilities.items())
            weighting = "logprobs"
            details["probabilities"] = {str(v): p for v, p in sorted(probabilities.items())}
    return MetricResult(score, reason, details, answer=answer, weighting=weighting)


def _mean_probabilities(each: Sequence[dict[float, float]]) -> dict[float, float]:
    """The answers' probabilities averaged over the generations (a binary criterion's
    verdicts: P(pass) is the mean of each verdict's)."""
    values = {value for probabilities in each for value in probabilities}
    return {v: sum(p.get(v, 0.0) for p in each) / len(each) for v in sorted(values)}
