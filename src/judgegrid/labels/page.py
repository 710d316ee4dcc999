"""``judgegrid label RUN_DIR``: a local page where a person labels the samples that matter.

The server is the loopback core of ``labels.server`` (127.0.0.1 only, the token printed with
the URL, the Host header checked, a strict CSP), alone or as one page of ``judgegrid view``
(``add_label_routes``). Each answer is committed to the run database before the server replies: an
acknowledged label survives the server being killed. Two annotators may label the same run at
once, from two servers: SQLite's WAL mode and the ``labels`` table's key (sample, metric,
annotator) keep every answer.

The page (``static/``) ships in the package and loads nothing from elsewhere; it puts sample
text into the page as text nodes, never as HTML.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
from aiohttp import web

from judgegrid.analyses import (
    RunFacts,
    label_state_of,
    skipped_words,
)
from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.errors import RunLockedError
from judgegrid.core.pairwise import Order
from judgegrid.core.records import PREFERENCE, Label
from judgegrid.core.sample import Sample
from judgegrid.labels.files import (
    human_labels,
    note_problem,
    people_pairs,
)
from judgegrid.labels.pairwise import (
    answer_titles,
    is_pairwise,
    pair_answer,
    pair_choices,
    shown_answer,
)
from judgegrid.labels.pool import (
    answered,
    record_draws,
)
from judgegrid.labels.queue import next_batch
from judgegrid.labels.server import (
    add_static,
    bad_request,
    bind_loopback,
    error,
    json_body,
    loopback_app,
    only,
    start,
    whole_number,
)
from judgegrid.labels.session import LabelSession, QueueItem
from judgegrid.metrics import METRICS
from judgegrid.metrics.context_precision import average_precision
from judgegrid.metrics.criterion import field_title
from judgegrid.store.lock import RunLock, lock_run
from judgegrid.store.run_db import RunStore

NOTE_CHARS = 4000
LABEL_WAIT_S = 2.0  # how long a label waits for the run's lock before the page is told 409
SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)
PAGE_FILES = {"/": "index.html", "/label.js": "label.js", "/label.css": "label.css"}


# -- what the page reads and writes ------------------------------------------------------------


def sample_view(sample: Sample) -> dict[str, Any]:
    """The texts the page shows (it inserts them as text, never as HTML): the sample's own
    fields and the data set's extra columns the criteria name (``extra``)."""
    return {
        "id": sample.id,
        "user_input": sample.user_input,
        "response": sample.response,
        "retrieved_contexts": list(sample.retrieved_contexts or []),
        "reference": sample.reference,
        "extra": dict(sample.extra or {}),
    }


def pair_view(sample: Sample, spec: CriterionSpec, order: Order, member: int) -> dict[str, Any]:
    """What the page shows of a pairwise criterion's pair for one position (``member`` 0 is
    answer A): the answer as ``answer``, beside the sample's fields without its id, without the
    compared columns, whose names could say which answer is whose, and of the extra columns
    only those the criterion shows (not, say, the columns naming the system behind each)."""
    assert spec.compare is not None
    view = {k: v for k, v in sample_view(sample).items() if k not in ("id", *spec.compare)}
    view["extra"] = {k: v for k, v in view["extra"].items() if k in spec.fields}
    return view | {"answer": shown_answer(sample, spec, order, member)}


def pair_member_view(session: LabelSession, position: int, member: int) -> dict[str, Any] | None:
    """The answer shown first (``member`` 0) or second of the pair at ``position`` in the
    queue, as ``answer`` beside the fields shown with it; None if there is none. A preference
    pair's answers are two samples (their ids left out: they would say which the data set
    prefers); a pairwise criterion's, two columns of one sample in this annotator's order."""
    item = session.queue[position] if position < len(session.queue) else None
    if item is None or member > 1:
        return None
    spec = session.criteria.get(item.metric)
    if is_pairwise(spec) and item.sample_id in session.samples:
        order = session.order(item.sample_id)
        return pair_view(session.samples[item.sample_id], spec, order, member)
    if item.members is None:
        return None
    view = sample_view(session.samples[item.members[member]])
    return {k: v for k, v in view.items() if k != "id"} | {"answer": view["response"]}


def metric_view(
    metric: str, aspect: str = "", criterion: CriterionSpec | None = None
) -> dict[str, Any]:
    """What the page says of a metric and how it is answered: the metric's question on its
    0–1 scale (or ticks of contexts), a preference, or a criterion's own answers."""
    if criterion is not None:
        return criterion_view(criterion)
    if metric == PREFERENCE:
        quality = aspect.replace("_", " ") or "quality"
        return {
            "name": PREFERENCE,
            "title": f"Which answer is better? ({quality})",
            "question": f"Which answer is better on {quality}? Judge only {quality}.",
            "form": PREFERENCE,
            "scale": [],
            "higher_is_better": True,
        }
    cls = METRICS[metric]
    return {
        "name": metric,
        "title": cls.title,
        "question": cls.human_question,
        "form": cls.human_form,
        "scale": list(SCALE),
        "higher_is_better": cls.higher_is_better,
    }


def criterion_view(spec: CriterionSpec) -> dict[str, Any]:
    """A criterion's form: its definition as the question, its steps, the fields its judge sees
    (the page shows only those), and one choice per answer it allows (yes or no; each label;
    each level of the scale with its description). Each choice's ``value`` is what the label
    stores: the answer's score; a pairwise criterion's is a position or a level as shown (the
    server reads it in the pair's own terms), and its two answers are headed ``answers``."""
    view = {
        "name": spec.name,
        "title": spec.name.replace("_", " ").capitalize(),
        "question": spec.definition,
        "steps": list(spec.steps),
        "fields": list(spec.fields),  # the page shows only these: what the judge sees
        "titles": {name: field_title(name) for name in spec.fields},
        "form": "choices",
        "kind": spec.type,
        "choices": pair_choices(spec) if is_pairwise(spec) else criterion_choices(spec),
        "scale": [],
        "higher_is_better": spec.higher_is_better,
    }
    if is_pairwise(spec):
        view["answers"] = answer_titles()
    return view


def criterion_choices(spec: CriterionSpec) -> list[dict[str, Any]]:
    """The answers of a criterion as the page offers them: yes before no; labels best first;
    a scale's levels lowest first, so that on a 1..5 scale key 3 is level 3."""
    if spec.type == "binary":
        answers = [(1.0, "yes", "it meets the criterion"), (0.0, "no", "it does not")]
    elif spec.type == "labels":
        assert spec.labels is not None
        answers = [(float(score), name, "") for name, score in spec.labels.items()]
    else:
        assert spec.scale is not None
        answers = [(float(level), str(level), spec.scale[level]) for level in spec.levels]
    if spec.type == "labels":
        answers.sort(key=lambda answer: answer[0], reverse=spec.higher_is_better)
    return [{"value": v, "text": text, "description": about} for v, text, about in answers]


def state_line(session: LabelSession, store: RunStore, metric: str) -> str:
    """Where labelling ``metric`` stands (``analyses.label_state_of``): labels, verdict, about
    how many more. Blind (no judge named, no score) unless the judges are shown or the person
    has answered the whole queue (stopped labelling). A pairs run's preference: one line per
    metric the judges scored (the pairs rung rates them per metric)."""
    if session.scores.empty:
        return ""
    stored = store.labels_frame()
    answers = human_labels(stored, session.sample_info, session.criteria.values(), skips=True)
    facts = RunFacts(
        sample_info=session.sample_info, criteria=session.criteria, margin=session.margin
    )
    draws = store.draws_frame()
    named = session.show_judges or queue_ended(session, store)
    if metric == PREFERENCE:  # the pairs rung scores a preference on each metric of the run
        people = people_pairs(stored)
        lines = []
        for scored in sorted(session.scores["metric"].unique()):
            found = label_state_of(scored, session.scores, answers, draws, facts, people)
            if found is not None:
                lines.append(f"{scored}: {found.words(named)}")
        return "; ".join(lines) or _given_words(answers, metric)
    found = label_state_of(metric, session.scores, answers, draws, facts)
    if found is None:
        return _given_words(answers, metric)
    return replace(found, uncompared=uncompared_left(session, store, metric)).words(named)


def uncompared_left(session: LabelSession, store: RunStore, metric: str) -> int:
    """The pairs of a pairwise criterion this person has still to label that no judge compared:
    the queue's items of ``metric`` not drawn (``metric_queue``: no probability) nor chosen on
    the view page. Outside the design, they are not among the labels the line says are left."""
    if session.again or not is_pairwise(session.criteria.get(metric)):
        return 0  # asked again: every item is a pair someone labelled
    done = answered(store, session.annotator)
    return sum(
        1
        for item in session.queue
        if item.metric == metric
        and item.probability is None
        and not item.chosen
        and (item.sample_id, metric) not in done
    )


def _given_words(answers: pd.DataFrame, metric: str) -> str:
    """The state line where the rule can read no label of ``metric`` yet: what was given, the
    skips counted as on every other line (``0 labels · no verdict yet · 1 skipped (left
    out)``), a metric's or a pairs run's preference alike."""
    mine = answers[answers["metric"] == metric]
    labels = mine.loc[mine["value"].notna(), "sample_id"].nunique()
    words = f"{labels} label{'s' if labels != 1 else ''} · no verdict yet"
    return words + skipped_words(int(mine["value"].isna().sum()))


def queue_ended(session: LabelSession, store: RunStore) -> bool:
    """Whether the person has answered (or skipped) every item of the queue."""
    done = answered(store, session.annotator)
    return all((item.sample_id, item.metric) in done for item in session.queue)


def items_view(session: LabelSession, store: RunStore) -> list[dict[str, Any]]:
    """The queue as the page reads it: each item, why it is asked (blind unless the judges are
    shown) and whether it is answered."""
    done = answered(store, session.annotator)
    return [
        {
            "sample_id": item.sample_id,
            "metric": item.metric,
            "reason": session.why(item),
            "done": (item.sample_id, item.metric) in done,
            # its answers: /api/pair/{position}/{0,1}, in the order shown to this annotator
            "pair": item.members is not None or is_pairwise(session.criteria.get(item.metric)),
        }
        for item in session.queue
    ]


def state(session: LabelSession, store: RunStore) -> dict[str, Any]:
    return {
        "annotator": session.annotator,
        "run": session.run_dir.name,
        # the command the page ends with must work from any folder: the run's full path
        "path": str(session.run_dir.resolve()),
        "blind": not session.show_judges,
        "items": items_view(session, store),
        "metrics": {
            item.metric: metric_view(item.metric, item.aspect, session.criteria.get(item.metric))
            for item in session.queue
        },
        "states": {
            metric: state_line(session, store, metric)
            for metric in dict.fromkeys(item.metric for item in session.queue)
        },
    }


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
        raise _bad("expected a JSON object")
    sample_id, metric = body.get("sample_id"), body.get("metric")
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > NOTE_CHARS:
        raise _bad(f"note: expected text of at most {NOTE_CHARS} characters")
    if reason := note_problem(note):
        raise _bad(f"note: {reason}")
    if metric == PREFERENCE:
        item = next((i for i in session.queue if i.sample_id == sample_id), None)
        if item is None or item.members is None:
            raise _bad(f"unknown pair {sample_id!r}")
        value, detail = _preference(item, body)
        return Label(item.sample_id, PREFERENCE, session.annotator, value, note, time.time(),
                     "page", detail, not session.show_judges)  # fmt: skip
    if not isinstance(sample_id, str) or sample_id not in session.samples:
        raise _bad(f"unknown sample {sample_id!r}")
    if not isinstance(metric, str) or (metric not in METRICS and metric not in session.criteria):
        raise _bad(f"unknown metric {metric!r}")
    if not any(i.sample_id == sample_id and i.metric == metric for i in session.queue):
        raise _bad(f"sample {sample_id!r} is not in this page's queue for {metric}")
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
        raise _bad(f"choice: expected 0 (answer 1) or 1 (answer 2), got {choice!r}")
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
            raise _bad(f"useful: expected {count} ticks (0 or 1), one per context in rank order")
        return average_precision(useful), {"useful": useful}
    value = body.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise _bad(f"value: expected a number from 0 to 1, got {value!r}")
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
            raise _bad(str(exc)) from None
    return _criterion_score(spec, body), None


def _criterion_score(spec: CriterionSpec, body: dict[str, Any]) -> float:
    value = body.get("value")
    allowed = [c["value"] for c in criterion_choices(spec)]
    if not isinstance(value, int | float) or isinstance(value, bool) or value not in allowed:
        raise _bad(f"value: expected one of {', '.join(f'{v:g}' for v in allowed)}, got {value!r}")
    return criterion_label(spec, value)


_bad = bad_request


# -- the server --------------------------------------------------------------------------------


def make_app(session: LabelSession, store: RunStore) -> web.Application:
    """The page and its API alone, on the shared loopback core (``labels.server``)."""
    app = loopback_app(session.token)
    add_label_routes(app, session, store)
    return app


def add_label_routes(
    app: web.Application, session: LabelSession, store: RunStore, at: str = "/"
) -> None:
    """The labelling page (its index at ``at``) and its API, added to a loopback app: its own,
    or ``judgegrid view``'s, where it is one page of several. The session's new draws are
    stored first, before the page can show any."""
    record_draws(store, session.unrecorded, time.time())
    session.unrecorded = []

    async def get_state(request: web.Request) -> web.StreamResponse:
        only(request, set())
        return web.json_response(state(session, store))

    async def get_sample(request: web.Request) -> web.StreamResponse:
        only(request, set())
        sample = session.samples.get(request.match_info["sample_id"])
        if sample is None:
            return _error(404, f"unknown sample {request.match_info['sample_id']!r}")
        return web.json_response(sample_view(sample))

    async def get_pair_member(request: web.Request) -> web.StreamResponse:
        """One answer of a pair, by position: no sample id, which would say which the data set
        prefers."""
        only(request, set())
        position = whole_number(request.match_info["position"], "position", low=0)
        member = whole_number(request.match_info["member"], "member", low=0)
        view = pair_member_view(session, position, member)
        if view is None:
            return _error(404, "no such pair answer")
        return web.json_response(view)

    async def post_label(request: web.Request) -> web.StreamResponse:
        only(request, set())
        body = await json_body(request, "the label")
        label = label_from_request(session, body)
        try:  # one writer at a time: a `report` or `labels import` may hold the run
            lock = await _run_lock(session.database.parent)
        except RunLockedError as exc:
            return _error(409, f"{exc.problems[0].message}; your label was not saved, try again")
        with lock:
            store.write_labels([label])  # committed before the reply
            grown = next_batch(session, store, label.metric)  # stored before it is shown
        line = state_line(session, store, label.metric)
        reply: dict[str, Any] = {"saved": True, "value": label.value, "state": line}
        if is_pairwise(session.criteria.get(label.metric)) and label.value is not None:
            # the page's own terms: the pair's would tell which answer is compare[0]
            reply["value"] = body["value"]
        if grown:  # the metric's next batch, drawn from the labels so far
            reply["items"] = items_view(session, store)
        return web.json_response(reply)

    files = {path: name for path, name in PAGE_FILES.items() if path != "/"}
    add_static(app, "judgegrid.labels", {**files, at: PAGE_FILES["/"]})
    app.router.add_get("/api/state", get_state)
    app.router.add_get("/api/sample/{sample_id}", get_sample)
    app.router.add_get("/api/pair/{position}/{member}", get_pair_member)
    app.router.add_post("/api/label", post_label)


async def _run_lock(run_dir: Path) -> RunLock:
    """The run's lock for one label's write, waiting a little for it (``LABEL_WAIT_S``): another
    annotator's label is written in milliseconds, a report or an import takes longer (409)."""
    deadline = time.monotonic() + LABEL_WAIT_S
    while True:
        try:
            return lock_run(run_dir)
        except RunLockedError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.05)


async def _close(store: RunStore) -> None:
    store.close()


_error = error


async def serve(session: LabelSession, port: int = 0) -> tuple[web.AppRunner, int]:
    """Start the server on 127.0.0.1 (``port`` 0: a free one); returns it and its port. The run
    database is opened here, in the thread that serves, and closed with the runner."""
    sock = bind_loopback(port)  # a port in use refused before the database is opened to write
    store = RunStore(session.database)
    app = make_app(session, store)
    app.on_cleanup.append(lambda app: _close(store))
    return await start(app, sock)
