"""A person's answer as the page POSTs it, read into a ``Label``: checked against the session's
queue and the form the page offered (``labels.views``), or a 400 naming what is wrong.

The one place the page's input is read: the routes hand it the body and store what it returns.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.records import PREFERENCE, Label
from judgegrid.core.sample import Sample
from judgegrid.labels.files import note_problem
from judgegrid.labels.pairwise import is_pairwise, pair_answer
from judgegrid.labels.server import bad_request
from judgegrid.labels.session import LabelSession, QueueItem
from judgegrid.labels.views import criterion_choices
from judgegrid.metrics import METRICS
from judgegrid.metrics.context_precision import average_precision

NOTE_CHARS = 4000


def label_from_request(session: LabelSession, body: Any) -> Label:
    """A Label from a POSTed answer, with the probability its queue drew it with (or whether
    the person chose it on the view page), or web.HTTPBadRequest naming what is wrong."""
    label = _answer(session, body)
    item = next(
        (i for i in session.queue if (i.sample_id, i.metric) == (label.sample_id, label.metric)),
        None,
    )
    if item is None:
        return label
    return replace(label, probability=item.probability, chosen=item.chosen)


def _answer(session: LabelSession, body: Any) -> Label:
    if not isinstance(body, dict):
        raise bad_request("expected a JSON object")
    sample_id, metric = body.get("sample_id"), body.get("metric")
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > NOTE_CHARS:
        raise bad_request(f"note: expected text of at most {NOTE_CHARS} characters")
    if reason := note_problem(note):
        raise bad_request(f"note: {reason}")
    if metric == PREFERENCE:
        item = next((i for i in session.queue if i.sample_id == sample_id), None)
        if item is None or item.members is None:
            raise bad_request(f"unknown pair {sample_id!r}")
        value, detail = _preference(item, body)
        return Label(item.sample_id, PREFERENCE, session.annotator, value, note, time.time(),
                     "page", detail, not session.show_judges)  # fmt: skip
    if not isinstance(sample_id, str) or sample_id not in session.samples:
        raise bad_request(f"unknown sample {sample_id!r}")
    if not isinstance(metric, str) or (metric not in METRICS and metric not in session.criteria):
        raise bad_request(f"unknown metric {metric!r}")
    if not any(i.sample_id == sample_id and i.metric == metric for i in session.queue):
        raise bad_request(f"sample {sample_id!r} is not in this page's queue for {metric}")
    blind = not session.show_judges
    if metric in session.criteria:
        answer, about = _criterion_value(session, session.criteria[metric], sample_id, body)
        return Label(
            sample_id, metric, session.annotator, answer, note, time.time(), "page", about, blind
        )
    value, detail = _value(session.samples[sample_id], metric, body)
    return Label(
        sample_id, metric, session.annotator, value, note, time.time(), "page", detail, blind
    )


def _preference(item: QueueItem, body: dict[str, Any]) -> tuple[float | None, dict[str, Any]]:
    """A preference: value 1 with the preferred and the other member named (None: skipped)."""
    assert item.members is not None
    detail: dict[str, Any] = {"pair": item.sample_id, "aspect": item.aspect}
    if body.get("skip") is True:
        return None, detail
    choice = body.get("choice")
    if choice not in (0, 1) or isinstance(choice, bool):
        raise bad_request(f"choice: expected 0 (answer 1) or 1 (answer 2), got {choice!r}")
    preferred, other = item.members if choice == 0 else item.members[::-1]
    return 1.0, detail | {"preferred": preferred, "other": other}


def _value(sample: Sample, metric: str, body: dict[str, Any]) -> tuple[float | None, Any]:
    if body.get("skip") is True:
        return None, None
    if METRICS[metric].human_form == "contexts":
        useful = body.get("useful")
        count = len(sample.retrieved_contexts or [])
        if (
            not isinstance(useful, list)
            or len(useful) != count
            or any(v not in (0, 1) or isinstance(v, float) for v in useful)
        ):
            raise bad_request(
                f"useful: expected {count} ticks (0 or 1), one per context in rank order"
            )
        return average_precision(useful), {"useful": useful}
    value = body.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise bad_request(f"value: expected a number from 0 to 1, got {value!r}")
    return float(value), None


def _criterion_value(
    session: LabelSession, spec: CriterionSpec, sample_id: str, body: dict[str, Any]
) -> tuple[float | None, dict[str, Any] | None]:
    """A criterion's answer: one of its choices' values (None: skipped), and for a pairwise
    criterion the answer in the pair's own terms with its detail (``labels.pairwise``)."""
    if body.get("skip") is True:
        return None, None
    if is_pairwise(spec):
        try:
            return pair_answer(spec, session.order(sample_id), body.get("value"))
        except ValueError as exc:
            raise bad_request(str(exc)) from None
    return _criterion_score(spec, body), None


def _criterion_score(spec: CriterionSpec, body: dict[str, Any]) -> float:
    value = body.get("value")
    allowed = [c["value"] for c in criterion_choices(spec)]
    if not isinstance(value, int | float) or isinstance(value, bool) or value not in allowed:
        raise bad_request(
            f"value: expected one of {', '.join(f'{v:g}' for v in allowed)}, got {value!r}"
        )
    return criterion_label(spec, value)
