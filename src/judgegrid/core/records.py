"""Typed records of a run: one request sent to a model (``CallRecord``), one batch file sent to
a provider's batch API (``BatchRecord``) and one cell's outcome (``ScoreRow``).

``ScoreRow`` is the one definition of the ``scores`` table: the run database's columns, the
API's ``scores`` DataFrame, ``scores.csv`` and every analysis read the same fields, in the order
of ``SCORE_COLUMNS``.
"""

from __future__ import annotations

import dataclasses
import json
import operator
from dataclasses import dataclass, field
from typing import Any, Literal

from judgegrid.core.cells import Cell
from judgegrid.core.usage import Usage

Status = Literal["scored", "failed", "skipped"]


@dataclass
class CallRecord:
    """One request as sent (secrets removed) and what came back."""

    kind: str  # "completion" or "embedding"
    model: str
    label: str
    step_key: str
    attempt: int
    status: str  # "ok", "error"
    request: dict[str, Any]
    response: str | None = None
    error: str | None = None
    http_status: int | None = None
    finish_reason: str | None = None
    started_at: float = 0.0
    usage: Usage = field(default_factory=Usage)
    batch_id: str | None = None  # the provider batch that answered it (batch mode)
    live_cost: float | None = None  # a batched call: what it would have cost live


# A provider's batch statuses after which it changes no more.
BATCH_FINISHED = frozenset({"completed", "expired", "failed", "cancelled"})


@dataclass(frozen=True)
class BatchRecord:
    """One batch file sent to a provider's batch API: which lines it carries and where it is.

    ``status``: ``uploaded`` (file sent, no batch yet), then the provider's (``validating``,
    ``in_progress``, ``completed``, ``expired``, ``failed``, ``cancelled``)."""

    file_id: str
    batch_id: str | None
    label: str
    endpoint: str
    status: str
    custom_ids: tuple[str, ...]
    submitted_at: float
    finished_at: float | None = None
    detail: str | None = None  # the provider's counts or error, as text

    @property
    def pending(self) -> bool:
        """Submitted, not yet answered: the provider is working on it (and will charge it)."""
        return self.batch_id is not None and self.status not in BATCH_FINISHED


@dataclass(frozen=True)
class ScoreRow:
    """One cell's outcome: its coordinates, what happened and what it cost."""

    sample_id: str
    metric: str
    judge: str  # the judge's label
    embedding: str  # the embedding entry's label; "" for a judge-only metric
    dimension: int  # 0: the model's own size, or no embedding
    strictness: int  # 0 for a metric without one
    repeat: int
    wording: int  # a criterion's wording (0: its definition); 0 for a built-in metric
    status: Status  # scored; failed (with error); skipped (the sample lacks a field)
    score: float | None  # set when scored; a criterion's: its answer, or the weighted value
    answer: float | None  # a criterion's category score (pass 1/fail 0, label, level)
    weighting: str | None  # a criterion's: none, logprobs, or missing (asked, none came)
    reason: str | None  # the metric's explanation, where it gives one
    error: str | None  # why the cell failed or was skipped
    details: str | None  # JSON: statements, verdicts, … (or the raw reply of a failure)
    calls: int  # calls the cell used, a shared call counted in every cell that used it
    tokens_in: int | None  # None: unknown (an imported verdict whose source did not say)
    tokens_out: int | None
    cost: float | None  # dollars; None when some call's price is unknown
    latency_s: float | None  # the cell's wall time, queueing included; None: unknown
    finished_at: float  # Unix time

    @classmethod
    def of(
        cls,
        cell: Cell,
        status: Status,
        usage: Usage,
        latency_s: float,
        finished_at: float,
        *,
        score: float | None = None,
        reason: str | None = None,
        error: str | None = None,
        details: dict[str, Any] | None = None,
        answer: float | None = None,
        weighting: str | None = None,
    ) -> ScoreRow:
        """The row of ``cell`` with its outcome and what it used (``details`` kept as JSON)."""
        return cls(
            sample_id=cell.sample_id,
            metric=cell.metric,
            judge=cell.judge,
            embedding=cell.embedding,
            dimension=cell.dimension,
            strictness=cell.strictness,
            repeat=cell.repeat,
            wording=cell.wording,
            status=status,
            score=score,
            answer=answer,
            weighting=weighting,
            reason=reason,
            error=error,
            details=json.dumps(details, ensure_ascii=False) if details else None,
            calls=usage.calls,
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            cost=usage.cost,
            latency_s=latency_s,
            finished_at=finished_at,
        )

    def values(self) -> tuple[Any, ...]:
        """The row's values in column order (its fields are flat: no copy is needed, and
        ``dataclasses.astuple``'s deep copy took 0.2 ms a row, most of an import's writing)."""
        return _SCORE_VALUES(self)


SCORE_COLUMNS = [f.name for f in dataclasses.fields(ScoreRow)]
_SCORE_VALUES = operator.attrgetter(*SCORE_COLUMNS)
# A cell's coordinates among the columns: the table's key, and the order scores.csv is sorted in.
SCORE_KEY = [
    "metric",
    "judge",
    "embedding",
    "dimension",
    "strictness",
    "sample_id",
    "repeat",
    "wording",
]


@dataclass(frozen=True)
class Label:
    """One person's answer about one sample for one metric, on the metric's own 0–1 scale.

    ``value`` None is a skip (the annotator saw the sample and declined), kept so that the page
    does not offer it again. ``detail`` holds what the value was computed from where the form is
    richer than a number (ContextPrecision: the contexts ticked as useful, in rank order).
    ``source``: ``page`` (``judgegrid label``), ``import`` or ``dataset``. ``blind``: whether
    the page hid the judges' scores, names and preferences before the answer (True by default;
    False with ``judgegrid label --show-judges``; None where unknown: imported, the data set's).
    ``probability``: the sample's probability a draw when the queue drew it
    (``analyses.decision.sampling``), so that figures from the labels can be weighted to stand
    for all the run's samples; None where the label was not drawn by a queue of known design
    (imported without one, the data set's): it counts as drawn uniformly. ``chosen``: the
    person chose the sample on ``judgegrid view``'s page instead of a queue drawing it: not a
    probability sample, so the weighted figures and the anytime rule leave it out where no
    draw of its annotator stands behind it (a database older than this column: NULL, read as
    not chosen).
    """

    sample_id: str
    metric: str
    annotator: str
    value: float | None
    note: str = ""
    labelled_at: float = 0.0
    source: str = "page"
    detail: dict[str, Any] | None = None
    blind: bool | None = None
    probability: float | None = None
    chosen: bool = False

    def values(self) -> tuple[Any, ...]:
        """The row in the order of ``LABEL_COLUMNS`` (detail as JSON text; no deep copy of it
        on the way, as ``dataclasses.astuple`` would make)."""
        row = list(_LABEL_VALUES(self))
        if self.detail is not None:
            row[_DETAIL_AT] = json.dumps(self.detail)
        return tuple(row)


LABEL_COLUMNS = [f.name for f in dataclasses.fields(Label)]
_LABEL_VALUES = operator.attrgetter(*LABEL_COLUMNS)
_DETAIL_AT = LABEL_COLUMNS.index("detail")


@dataclass(frozen=True)
class LabelDraw:
    """One draw of an annotator's labelling queue for one metric or criterion, in order.

    The queue draws without replacement, among the samples the annotator has not been asked,
    from a design fixed before the draw (the fixed one, ``analyses.decision.sampling``, or the
    adaptive one, ``analyses.decision.adaptive``, made again from the labels so far before each
    batch), each label weighted by its kind (``analyses.decision.kinds``): ``probability`` is
    stored so that ``1 / (N q)`` is that weight, ``population`` the number of samples in the
    design (``N``); ``bounds`` the largest weights a draw could carry, overall and per pair of
    judges, and the shares of the samples in kinds all labelled, that the anytime rule bets
    within and shifts by (None: a draw stored before draws carried bounds). A draw stored before
    the queue drew without replacement may repeat a sample: it counts that label again. A draw
    not yet answered ends the sequence the analyses read. ``drawn_at``: when it was drawn, or
    taken over from a person who left it unanswered (seconds since the epoch; None: a draw stored
    before draws carried a time), which says whether it is still held for its person
    (``labels.pool``).
    """

    metric: str
    annotator: str
    draw: int
    sample_id: str
    probability: float
    population: int
    bounds: str | None = None
    drawn_at: float | None = None


DRAW_COLUMNS = [f.name for f in dataclasses.fields(LabelDraw)]
# The metric of a preference label (a ``judgegrid pairs`` run): its ``sample_id`` is the pair and
# ``detail`` names the preferred and the other member.
PREFERENCE = "preference"
