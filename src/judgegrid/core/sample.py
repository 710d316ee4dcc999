"""A sample to score and a data set of them (value types; ``dataset.py`` reads them from files).

Field names follow Ragas (``user_input``, ``response``, ``retrieved_contexts``, ``reference``); the
legacy names ``question``, ``answer``, ``contexts`` and ``ground_truth`` are accepted too.
``reference_contexts`` (the ideal contexts: DeepEval's ``context``) are kept although no metric
reads them yet, so a data set loses nothing on the way in. A sample may carry human ``labels``, a
``language`` (a BCP 47 tag such as ``vi``; an English name such as ``Vietnamese`` is read as its
tag) in which the judge is asked to write its questions and statements, and, in the demo set, a
``contrast`` saying how it should rank against its siblings. ``extra`` holds the data set's other
columns that a criterion of the matrix names in its ``fields`` (as text), and nothing else. A
sample may lack fields: the runner records it as skipped for the metrics that need them rather
than dropping it. ``formats.py`` maps other tools' field names (DeepEval's, a column map) onto
these.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import langcodes
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from judgegrid.core.errors import DatasetError, InputError
from judgegrid.core.validation import PublicModel
from judgegrid.core.values import Number, Whole

SAMPLE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference")


class Contrast(BaseModel):
    """A sample's place in a deliberate contrast: rank 1 should score best on ``metric``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    group: str
    metric: str
    rank: Whole = Field(ge=1)
    kind: str = Field(description="e.g. grounded, hallucinated, complete, noncommittal")


class ProbeTag(BaseModel):
    """What makes a sample a probe (``inputs/probes.py``): a perturbed copy of the user's sample
    ``base`` for one ``metric``. ``direction`` ``worse``: the probe must score worse than its
    base (directional probes); ``fails``: the judge's verdict on it must be fail (a directional
    probe that a binary criterion's ``fails-when`` names); ``not_better``: it must not score
    better (robustness probes).
    ``language`` is the templates' language; ``fallback`` True when the sample's own language has
    none and English stood in. A tagged sample is never mixed into the data set's analyses."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    metric: str
    name: str
    base: str
    direction: Literal["worse", "fails", "not_better"]
    language: str = "en"
    fallback: bool = False


class Sample(PublicModel):
    """One record of a data set. Built by hand (``judgegrid.Sample(...)``), a bad field is a
    DatasetError (also a pydantic ValidationError, as it was before)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    door: ClassVar[str] = "Sample"
    refused_as: ClassVar[type[InputError]] = DatasetError

    id: str
    user_input: str | None = Field(None, validation_alias=AliasChoices("user_input", "question"))
    response: str | None = Field(None, validation_alias=AliasChoices("response", "answer"))
    retrieved_contexts: list[str] | None = Field(
        None, validation_alias=AliasChoices("retrieved_contexts", "contexts")
    )
    reference: str | None = Field(None, validation_alias=AliasChoices("reference", "ground_truth"))
    reference_contexts: list[str] | None = None
    labels: dict[str, Number | str] | None = None
    contrast: Contrast | None = None
    language: str | None = None
    probe: ProbeTag | None = None  # set only on the probes judgegrid makes, never read from data
    extra: dict[str, str] | None = None  # columns a criterion names: {column: its text}

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        """A whole number is an id as its text (a CSV's 1, 2, 3); a boolean is not one."""
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("id")
    @classmethod
    def _id_is_a_name(cls, value: str) -> str:
        reason = id_problem(value)
        if reason is not None:
            raise ValueError(reason)
        return value

    @field_validator("labels", mode="before")
    @classmethod
    def _labels_are_scores_or_names(cls, value: Any) -> Any:
        """A label is a finite number (a score) or text (an answer's name), said once per
        label: ``.nan`` would leave its cells scored against nothing, and a boolean is YAML's
        or JSON's reading of yes/no/true/false, not 1 or 0."""
        if not isinstance(value, dict):
            return value
        for name, given in value.items():
            if isinstance(given, bool):
                raise ValueError(
                    f"{name}: the boolean {given!r} is no label; write 1 or 0 (a criterion's "
                    "pass or fail), a score, or an answer's name in quotes"
                )
            if isinstance(given, float) and not math.isfinite(given):
                raise ValueError(f"{name}: {given!r} is no label; a score is a finite number")
        return value

    @field_validator("language")
    @classmethod
    def _language_tag(cls, value: str | None) -> str | None:
        return None if value is None else language_tag(value)

    def is_missing(self, field: str) -> bool:
        value = self.value_of(field)
        return value is None or (isinstance(value, str | list) and len(value) == 0)

    def value_of(self, field: str) -> Any:
        """A field's value: one of the sample's own, else an extra column's (None if absent)."""
        if field in type(self).model_fields and field != "extra":
            return getattr(self, field)
        return (self.extra or {}).get(field)


def id_problem(sample_id: str, what: str = "sample") -> str | None:
    """Why ``sample_id`` cannot name a sample (None: it can). An id names the sample in every
    table, file and URL of the view: an empty one (or one of spaces) has a row in the grid but
    no page, and a newline or another control character breaks the line it is written on."""
    if not sample_id.strip():
        return f"the {what} id is empty; give each {what} an id of its own"
    control = [c for c in sample_id if unicodedata.category(c) in ("Cc", "Zl", "Zp")]
    if control:
        return (
            f"the {what} id {sample_id!r} holds the control character {control[0]!r}; an id "
            "is one line of printable text"
        )
    return None


def language_tag(value: str) -> str:
    """The standard BCP 47 tag of a tag or an English language name (``Vietnamese`` → ``vi``);
    ValueError names what is accepted, so a typo is not silently sent to the judge."""
    text = value.strip()
    if langcodes.tag_is_valid(text):
        return langcodes.standardize_tag(text)
    try:
        return str(langcodes.find(text))
    except LookupError:
        raise ValueError(
            f"unknown language {value!r}: give a BCP 47 tag (en, vi, zh, ru, pt-BR) or an "
            "English name (Vietnamese)"
        ) from None


def language_name(tag: str) -> str:
    """A language tag's English name, as a judge prompt says it: ``zh-Hant`` → Chinese
    (Traditional)."""
    return str(langcodes.Language.get(tag).display_name())


@dataclass(frozen=True)
class FieldMapping:
    """How a data set's fields were read: the naming scheme detected (or the user's column map),
    each field's place in a ``Sample``, the fields left out, and how text cells became lists."""

    scheme: str
    fields: tuple[tuple[str, str], ...]  # (the data set's name, the Sample's field)
    ignored: tuple[str, ...] = ()
    delimiter: str | None = None  # splits a list field's text cell; None: a JSON/Python list
    delimiter_given: bool = False  # named by the user, not the scheme's own
    extra: tuple[str, ...] = ()  # columns kept as they are, for the criteria that name them


@dataclass(frozen=True)
class Dataset:
    source: str
    samples: tuple[Sample, ...]
    mapping: FieldMapping | None = None

    def __len__(self) -> int:
        return len(self.samples)

    def __iter__(self) -> Iterator[Sample]:
        return iter(self.samples)

    def by_id(self) -> dict[str, Sample]:
        return {s.id: s for s in self.samples}

    def head(self, n: int | None) -> Dataset:
        return self if n is None else Dataset(self.source, self.samples[:n], self.mapping)
