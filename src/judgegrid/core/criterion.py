"""A criterion of the user's own: the question a judge answers about a sample, and the kind of
answer it gives (a pass or fail, one of named labels, a level of a rubric's scale, or for
``type: pairwise`` which of two answers is better, A against B, judged in both orders).

The peers let a user write one (Ragas' AspectCritic and RubricsScore, DeepEval's GEval, promptfoo's
llm-rubric); judgegrid then measures which judge to trust for it, as it does for its built-in
metrics. This is the value the matrix's ``criteria:`` entries and the Python API's ``Criterion``
are read into: checked once, here, so every command refuses the same mistakes with the same
words (a definition missing, a scale with gaps, labels without scores, wordings that repeat each
other).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from judgegrid.core.pairwise import Combine
from judgegrid.core.validation import PublicModel
from judgegrid.core.values import Distinct, Number, Whole, WholeKey

CriterionType = Literal["binary", "labels", "scale", "pairwise"]
Weighting = Literal["none", "logprobs", "auto"]
SAMPLE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference")
NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
PASS_WORDS = {"pass": 1.0, "fail": 0.0}
# A pairwise criterion's answers in the pair's own terms (``compare[0]`` is ``a``), as scores.
PAIR_WORDS = {"a": 1.0, "tie": 0.5, "b": 0.0}
# Other names of the sample fields (Ragas' legacy ones, DeepEval's), read as the field itself.
FIELD_ALIASES = {
    "question": "user_input",
    "input": "user_input",
    "answer": "response",
    "actual_output": "response",
    "contexts": "retrieved_contexts",
    "retrieval_context": "retrieved_contexts",
    "ground_truth": "reference",
    "expected_output": "reference",
}
# A sample's own fields that are not its content: never shown to a judge as a criterion's field.
NOT_CONTENT = ("id", "labels", "contrast", "language", "probe", "extra")


class CriterionSpec(PublicModel):
    """One criterion: what the judge is asked, what it sees, and what it may answer.

    Built by hand (``judgegrid.Criterion(...)``), a bad argument is an OptionError (also a
    pydantic ValidationError, as it was before); in a matrix, a MatrixError naming its place."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    door: ClassVar[str] = "Criterion"

    name: str = Field(description="How the criterion is named in every table (lower case, _).")
    definition: str = Field(description="The question the judge answers about each sample.")
    steps: tuple[str, ...] = Field(default=(), description="Evaluation steps given to the judge.")
    fields: tuple[str, ...] = Field(
        default=("user_input", "response"),
        description="The sample fields the judge sees (any extra column of the data set too).",
    )
    type: CriterionType = Field(
        description="binary (pass/fail), labels, scale (a rubric), or pairwise (A against B)."
    )
    labels: dict[str, Number] | None = Field(
        default=None, description="labels: each label's score, e.g. {correct: 1, wrong: 0}."
    )
    scale: dict[WholeKey, str] | None = Field(
        default=None,
        description="scale: each level (consecutive integers) with its description; pairwise: "
        "an optional graded preference, lowest level the strongest for A.",
    )
    compare: tuple[str, str] | None = Field(
        default=None,
        description="pairwise: the two columns holding the answers compared (a, then b), "
        "e.g. [response, response_b]; the judge sees them as answers A and B in both orders.",
    )
    ties: bool = Field(default=True, description="pairwise: whether the judge may answer tie.")
    systems: tuple[str, str] | None = Field(
        default=None,
        description="pairwise: two columns naming, per row, what wrote answer a and answer b "
        "(for win rates); without them the systems are the compared columns' names.",
    )
    combine: Combine = Field(
        default="mt-bench",
        description="pairwise: how a pair's two orders make one verdict: mt-bench (the answer "
        "both orders chose, else a tie) or sum (JudgeBench's: +1 an order for a, -1 for b, a "
        "tie 0; the sign of the sum).",
    )
    strictness: Whole = Field(
        default=1, ge=1, le=15, description="binary: verdicts asked per score; the majority wins."
    )
    higher_is_better: bool = Field(default=True, description="Whether a higher score is better.")
    language: str | None = Field(default=None, description="A note on the language to judge in.")
    weighting: Weighting = Field(
        default="none",
        description="logprobs: the expected score over the levels from the score token's "
        "probabilities (G-Eval); auto: where the provider returns them.",
    )
    wordings: tuple[str, ...] = Field(
        default=(), description="Other phrasings of the definition: a grid axis, like a judge."
    )
    fails_when: Annotated[tuple[str, ...], Distinct] = Field(
        default=(), description="binary: directional probes that must fail the criterion."
    )

    @model_validator(mode="before")
    @classmethod
    def _pairwise_shows_the_question(cls, data: Any) -> Any:
        """A pairwise criterion shows the question by default: its answers are the compared
        columns, so the default ``fields`` (the question and the response) would show one twice."""
        if isinstance(data, dict) and data.get("type") == "pairwise" and "fields" not in data:
            return {**data, "fields": ("user_input",)}
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError("use lower-case letters, digits and _ (a letter first, 64 at most)")
        return value

    @field_validator("definition")
    @classmethod
    def _definition(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty: write the question the judge answers")
        return value.strip()

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("empty: name the sample fields the judge sees")
        named = tuple(FIELD_ALIASES.get(name.strip(), name.strip()) for name in value)
        if any(not name for name in named):
            raise ValueError("a field's name is empty")
        own = [name for name in named if name in NOT_CONTENT]
        if own:
            raise ValueError(
                f"{own[0]} is judgegrid's own field, not the sample's content; name "
                f"{', '.join(SAMPLE_FIELDS)} or a column of the data set"
            )
        twice = [name for name in named if named.count(name) > 1]
        if twice:
            raise ValueError(f"{twice[0]} is named twice")
        return named

    @field_validator("labels", mode="before")
    @classmethod
    def _labels_have_scores(cls, value: object) -> object:
        """``labels: [correct, wrong]`` (names without scores) is said in the user's words."""
        example = "e.g. {correct: 1, partial: 0.5, wrong: 0}"
        if isinstance(value, list | tuple):
            raise ValueError(f"labels without scores: give each label its score, {example}")
        if isinstance(value, dict):
            unscored = [str(name) for name, score in value.items() if score is None]
            if unscored:
                raise ValueError(f"label {unscored[0]!r} has no score; {example}")
        return value

    @field_validator("wordings")
    @classmethod
    def _wordings(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        seen: dict[str, int] = {}
        for k, wording in enumerate(value):
            key = " ".join(wording.lower().split())
            if not key:
                raise ValueError(f"wordings[{k}] is empty")
            if key in seen:
                raise ValueError(f"wordings[{k}] repeats wordings[{seen[key]}]")
            seen[key] = k
        return value

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is not None:
            _check_labels(value)
        return value

    @field_validator("scale")
    @classmethod
    def _scale(cls, value: dict[int, str] | None) -> dict[int, str] | None:
        if value is not None:
            _check_scale(value)
        return value

    @model_validator(mode="after")
    def _wordings_differ_from_the_definition(self) -> CriterionSpec:
        own = " ".join(self.definition.lower().split())
        same = [k for k, w in enumerate(self.wordings) if " ".join(w.lower().split()) == own]
        if same:
            raise ValueError(f"wordings[{same[0]}] repeats the definition")
        return self

    @model_validator(mode="after")
    def _answers_fit_the_type(self) -> CriterionSpec:
        if self.type == "labels" and self.labels is None:
            raise ValueError(
                "type labels: name two labels at least under labels:, each with its score"
            )
        if self.type != "labels" and self.labels is not None:
            raise ValueError(f"labels: only for type labels, not {self.type}")
        if self.type == "scale" and self.scale is None:
            raise ValueError(
                "type scale: give two levels at least under scale:, each with its description"
            )
        if self.type not in ("scale", "pairwise") and self.scale is not None:
            raise ValueError(f"scale: only for type scale or pairwise, not {self.type}")
        self._pairwise_fits()
        if self.type != "binary" and (self.strictness != 1 or self.fails_when):
            raise ValueError("strictness and fails-when: only for type binary")
        if self.strictness % 2 == 0:
            raise ValueError(
                f"strictness {self.strictness}: use an odd number, so a vote has no tie"
            )
        return self

    def _pairwise_fits(self) -> None:
        """``compare`` and ``ties`` belong to pairwise criteria, and a pairwise one needs its two
        answers; its graded scale follows ``pair_scale_problems``."""
        if self.type != "pairwise":
            if (
                self.compare is not None
                or not self.ties
                or self.systems is not None
                or self.combine != "mt-bench"
            ):
                raise ValueError(
                    f"compare, ties, systems and combine: only for type pairwise, not {self.type}"
                )
            return
        if self.compare is None:
            raise ValueError(
                "type pairwise: name the two columns compared under compare:, e.g. "
                "[response, response_b]"
            )
        shown = set(self.fields) & set(self.compare)
        if shown:
            raise ValueError(
                f"{sorted(shown)[0]} is compared; leave it out of fields (the judge sees it "
                "as answer A or B)"
            )
        problems = pair_scale_problems(self.scale, self.ties)
        if problems:
            raise ValueError(problems[0])
        if self.systems is not None and set(self.systems) & set(self.read_fields):
            raise ValueError(
                "systems: name the columns that say what wrote each answer, not a field the "
                "judge reads"
            )

    @field_validator("compare")
    @classmethod
    def _compare(cls, value: tuple[str, str] | None) -> tuple[str, str] | None:
        if value is None:
            return None
        named = tuple(FIELD_ALIASES.get(name.strip(), name.strip()) for name in value)
        if any(not name for name in named):
            raise ValueError("a compared column's name is empty")
        if named[0] == named[1]:
            raise ValueError(f"{named[0]} is compared with itself; name two columns")
        own = [name for name in named if name in NOT_CONTENT]
        if own:
            raise ValueError(f"{own[0]} is judgegrid's own field, not an answer")
        return (named[0], named[1])

    @property
    def levels(self) -> tuple[int, ...]:
        """A scale's levels, lowest first (empty for the other types)."""
        return tuple(sorted(self.scale)) if self.scale else ()

    @property
    def choices(self) -> dict[str, float]:
        """Each answer the judge may give, as written, with its category's score: pass 1.0 and
        fail 0.0; a label's score; a level as a float. The one mapping the judge's answers,
        people's labels and the analyses' categories share."""
        if self.type == "binary":
            return dict(PASS_WORDS)
        if self.type == "labels":
            assert self.labels is not None
            return {name: float(score) for name, score in self.labels.items()}
        if self.type == "pairwise":
            return {w: s for w, s in PAIR_WORDS.items() if self.ties or w != "tie"}
        return {str(level): float(level) for level in self.levels}

    @property
    def read_fields(self) -> tuple[str, ...]:
        """Every field the judge reads: ``fields``, then a pairwise criterion's two answers."""
        return (*self.fields, *(self.compare or ()))

    @property
    def extra_fields(self) -> tuple[str, ...]:
        """The columns of the user's data set kept for the criterion that are not a sample's
        own: the fields read, and a pairwise criterion's ``systems`` columns."""
        own = (*SAMPLE_FIELDS, "reference_contexts")
        kept = (*self.read_fields, *(self.systems or ()))
        return tuple(f for f in kept if f not in own)

    @property
    def definitions(self) -> tuple[str, ...]:
        """The definition, then each other wording: wording 0 is the definition itself."""
        return (self.definition, *self.wordings)


# The public name: ``from judgegrid import Criterion``; ``Criterion(name=…, definition=…,
# type=…)`` goes wherever a metric goes (``score_sample``, a matrix's ``criteria:``).
Criterion = CriterionSpec


def _check_labels(labels: dict[str, float]) -> None:
    if len(labels) < 2:
        raise ValueError("name two labels at least, each with its score")
    blank = [name for name in labels if not name.strip()]
    if blank:
        raise ValueError("a label's name is empty")
    by_score: dict[float, str] = {}
    for name, score in labels.items():
        if score in by_score:
            raise ValueError(
                f"{by_score[score]!r} and {name!r} have the same score {score:g}; a "
                "label's score stands for it in every table, so give each its own"
            )
        by_score[score] = name


def _check_scale(scale: dict[int, str]) -> None:
    if len(scale) < 2:
        raise ValueError("give two levels at least, each with its description")
    levels = sorted(scale)
    gaps = [n for n in range(levels[0], levels[-1] + 1) if n not in scale]
    if gaps:
        raise ValueError(f"levels {levels[0]}..{levels[-1]} miss {gaps}: no gaps")
    if any(not str(text).strip() for text in scale.values()):
        raise ValueError("every level needs a description")


def pair_scale_problems(scale: Mapping[int, str] | None, ties: bool) -> list[str]:
    """What is wrong with a pairwise criterion's graded scale (none: []): two levels at least,
    consecutive, each described; an odd number of levels has a middle one, the tie, so a
    criterion without ties needs an even number."""
    if scale is None:
        return []
    problems = []
    levels = sorted(scale)
    if len(levels) < 2:
        problems.append("scale: give two levels at least, from A much better to B much better")
    elif levels != list(range(levels[0], levels[0] + len(levels))):
        problems.append(f"scale: levels {levels[0]}..{levels[-1]} must be consecutive")
    if any(not str(text).strip() for text in scale.values()):
        problems.append("scale: every level needs a description")
    if not ties and len(levels) % 2 == 1:
        problems.append(
            f"scale: {len(levels)} levels have a middle one (a tie), but ties: false; "
            "give an even number of levels"
        )
    if ties and len(levels) % 2 == 0 and len(levels) >= 2:
        problems.append(
            f"scale: {len(levels)} levels have no middle one for a tie, but ties: true (the "
            "default); give an odd number of levels, the middle one the tie, or set ties: false"
        )
    return problems


def criterion_label(spec: CriterionSpec, value: Any) -> float:
    """A person's answer for a criterion as its category's score, or ValueError saying what
    the criterion accepts: binary 1 or 0 (pass or fail); labels a label's name or its score;
    scale one of its levels; pairwise a, b or tie in the pair's terms (``compare[0]`` is a),
    or its score (1, 0, 0.5). A number may come as text (a CSV column that holds names too)."""
    if spec.type == "binary":
        return _pass_or_fail(value)
    if spec.type == "pairwise":
        return _label_score(spec.choices, value.lower() if isinstance(value, str) else value)
    if spec.type == "labels":
        assert spec.labels is not None
        return _label_score(spec.labels, value)
    return _level(spec.levels, value)


def _pass_or_fail(value: Any) -> float:
    if isinstance(value, str) and value.strip().lower() in PASS_WORDS:
        return PASS_WORDS[value.strip().lower()]
    number = _number(value)
    if number in (0.0, 1.0):
        return float(number)
    raise ValueError(f"expected 1 or 0 (pass or fail), got {value!r}")


def _label_score(labels: Mapping[str, float], value: Any) -> float:
    if isinstance(value, str) and value.strip() in labels:
        return float(labels[value.strip()])
    number = _number(value)
    if number is not None and number in labels.values():
        return float(number)
    named = ", ".join(f"{name} ({score:g})" for name, score in labels.items())
    raise ValueError(f"expected a label or its score: {named}; got {value!r}")


def _level(levels: tuple[int, ...], value: Any) -> float:
    number = _number(value)
    if number is not None and number in levels:
        return float(number)
    raise ValueError(f"expected a level of {levels[0]}..{levels[-1]}, got {value!r}")


def _number(value: Any) -> float | None:
    """A number given as a number or its text; None for anything else (a bool included)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number
