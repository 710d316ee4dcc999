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
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from aiohttp import web

from judgegrid.analyses import label_queue, preference_queue
from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import OptionError, Problem, RunLockedError
from judgegrid.core.names import given_twice, repeats
from judgegrid.core.pairwise import Order
from judgegrid.core.records import PREFERENCE, Label
from judgegrid.core.sample import Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.pairwise import DEFAULT_SEED
from judgegrid.labels.files import check_annotator_option, note_problem
from judgegrid.labels.pairwise import (
    answer_titles,
    is_pairwise,
    judges_as_shown,
    pair_answer,
    pair_choices,
    pairs_of,
    shown_answer,
    shown_order,
)
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
from judgegrid.metrics import METRICS, run_metric_name
from judgegrid.metrics.context_precision import average_precision
from judgegrid.metrics.criterion import field_title
from judgegrid.store.lock import RunLock, lock_run
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import open_run, stored_dataset

NOTE_CHARS = 4000
LABEL_WAIT_S = 2.0  # how long a label waits for the run's lock before the page is told 409
SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)
# Why the page asks about a pair no judge has scored (a pairwise criterion's run not yet scored,
# or a pair whose cells failed): said the same with or without the judges shown.
UNSCORED_PAIR = "a pair no judge has compared yet"
PAGE_FILES = {"/": "index.html", "/label.js": "label.js", "/label.css": "label.css"}


@dataclass
class QueueItem:
    """One question of the page: a sample for a metric, or (``members`` set) a preference pair,
    whose ``sample_id`` is the pair and ``members`` its two samples in the order shown."""

    sample_id: str
    metric: str
    reason: str  # with the judges' names and scores (shown with --show-judges)
    members: tuple[str, str] | None = None
    aspect: str = ""
    blind_reason: str = ""  # the same without them (shown by default)


@dataclass
class LabelSession:
    """What one ``judgegrid label`` process serves: one annotator's queue over one run."""

    run_dir: Path
    samples: dict[str, Sample]
    annotator: str
    queue: list[QueueItem]
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    show_judges: bool = False  # False: blind, no judge's score, name or preference on the page
    criteria: dict[str, CriterionSpec] = field(default_factory=dict)  # the run's, by name
    seed: int = DEFAULT_SEED  # draws the order each person sees a pair's answers in

    def why(self, item: QueueItem) -> str:
        """Why the page asks about ``item``: blind unless the judges are to be shown."""
        return item.reason if self.show_judges else item.blind_reason or item.reason

    def order(self, pair: str) -> Order:
        """The order this annotator sees a pairwise criterion's pair in (``labels.pairwise``)."""
        return shown_order(pair, self.annotator, self.seed)

    @property
    def database(self) -> Path:
        return self.run_dir / DB_NAME


def answered(store: RunStore, annotator: str) -> set[tuple[str, str]]:
    """(sample, metric) pairs ``annotator`` has answered or skipped."""
    frame = store.labels_frame()
    mine = frame[frame["annotator"] == annotator]
    return set(zip(mine["sample_id"], mine["metric"], strict=True))


def open_session(
    run_dir: str | Path,
    annotator: str,
    metrics: list[str] | None = None,
    n: int = 20,
    show_judges: bool = False,
) -> LabelSession:
    """The run's samples and a queue of ``n`` (sample, metric) items this annotator has not
    answered, most informative first; metrics take turns so each gets its share. The page is
    blind (no judge's score, name or preference before the answer) unless ``show_judges``."""
    check_session_options(annotator, n)
    target, matrix, store = open_run(run_dir)
    try:
        return session_over(target, matrix, store, annotator, metrics, n, show_judges)
    finally:
        store.close()


def check_session_options(annotator: str, n: int) -> None:
    """The options' own errors, raised before the run directory is looked at."""
    if not annotator.strip():
        raise OptionError("--annotator", [Problem("", "a name is needed (who gave the labels)")])
    check_annotator_option(annotator)
    if n < 1:
        raise OptionError("--n", [Problem("", f"expected a whole number ≥ 1, got {n}")])


def session_over(
    target: Path,
    matrix: Matrix,
    store: RunStore,
    annotator: str,
    metrics: list[str] | None,
    n: int,
    show_judges: bool,
) -> LabelSession:
    """``open_session`` over a run already open, for a caller that needs the run's matrix too
    (``judgegrid label``'s viewer) and so opens the run once."""
    criteria = matrix.criteria_by_name
    chosen = chosen_metrics(metrics, matrix.scored_names)
    samples = {s.id: s for s in stored_dataset(store)}
    done = answered(store, annotator.strip())
    pairs = preference_members(samples.values())
    scores = store.scores_frame()
    scores = scores[scores["sample_id"].isin(set(samples))]  # people never label probes
    if pairs:
        queue = build_preference_queue(scores, pairs, done, n)
    else:
        compared = {
            m: pairs_of(samples.values(), criteria[m])
            for m in chosen
            if is_pairwise(criteria.get(m))
        }
        queue = build_queue(scores, chosen, done, n, compared)
    session = LabelSession(
        target, samples, annotator.strip(), queue, show_judges=show_judges, criteria=criteria
    )
    if show_judges:
        for item in queue:
            if is_pairwise(criteria.get(item.metric)):
                order = session.order(item.sample_id)
                said = judges_as_shown(scores, item.metric, item.sample_id, order)
                item.reason = f"{item.blind_reason or item.reason}: {said}" if said else item.reason
    return session


def chosen_metrics(given: list[str] | None, run_names: list[str]) -> list[str]:
    """``--metric``'s names as the run's cells carry them (all of the run's when none is
    given); a name the run does not have, or one metric named twice (in any spelling), is an
    OptionError naming it with the run's own metrics and criteria."""
    if not given:
        return run_names
    chosen: list[str] = []
    problems = []
    for name in given:
        try:
            chosen.append(run_metric_name(name, run_names))
        except ValueError as exc:
            problems.append(Problem(name, str(exc)))
    if problems:
        raise OptionError("--metric", problems)
    for later, first in repeats(chosen):
        message = given_twice("metric", given, later, first)
        problems.append(Problem(given[later], message))
    if problems:
        raise OptionError("--metric", problems)
    return chosen


def build_queue(
    scores: pd.DataFrame,
    metrics: list[str],
    done: set[tuple[str, str]],
    n: int,
    compared: Mapping[str, list[str]] | None = None,
) -> list[QueueItem]:
    """Each metric's queue (``analyses.selection``), taken in turns until ``n`` items; a
    pairwise criterion's (its pairs in ``compared``) ends with the pairs no judge scored."""
    per_metric = [
        metric_queue(
            scores, metric, {s for s, m in done if m == metric}, (compared or {}).get(metric)
        )
        for metric in metrics
    ]
    items: list[QueueItem] = []
    while len(items) < n and any(per_metric):
        for queue in per_metric:
            if queue and len(items) < n:
                items.append(queue.pop(0))
    return items


def metric_queue(
    scores: pd.DataFrame, metric: str, done: set[str], pairs: list[str] | None = None
) -> list[QueueItem]:
    """One metric's items, most informative first. A pairwise criterion's ``pairs`` (the
    samples holding both answers) bound it: the pairs the judges scored first, as for any
    criterion, then the others in the data set's order, so a pairwise criterion can be labelled
    before (or without) its judges' cells."""
    table = label_queue(scores, metric, done)
    if pairs is not None:
        table = table[table["sample_id"].isin(set(pairs))]
    items = [
        QueueItem(str(row.sample_id), metric, str(row.reason), blind_reason=str(row.blind_reason))
        for row in table.itertuples()
    ]
    queued = {item.sample_id for item in items} | done
    items += [QueueItem(p, metric, UNSCORED_PAIR) for p in pairs or [] if p not in queued]
    return items


def preference_members(samples: Iterable[Sample]) -> dict[str, tuple[str, str, str]]:
    """A ``judgegrid pairs`` run's pairs: pair -> (first shown, second shown, aspect). Which
    member the page shows first follows a hash of the pair, not the data set's order (there the
    preferred answer always comes first, and a person would learn that)."""
    grouped: dict[str, list[Sample]] = {}
    for sample in samples:
        labels = sample.labels or {}
        if "pair" in labels and "preferred" in labels:
            grouped.setdefault(str(labels["pair"]), []).append(sample)
    members = {}
    for pair, group in grouped.items():
        if len(group) != 2:
            continue
        first, second = sorted(s.id for s in group)
        if int(text_sha(pair)[:8], 16) % 2:
            first, second = second, first
        aspect = str((group[0].labels or {}).get("aspect", ""))
        members[pair] = (first, second, aspect)
    return members


def build_preference_queue(
    scores: pd.DataFrame,
    pairs: Mapping[str, tuple[str, str, str]],
    done: set[tuple[str, str]],
    n: int,
) -> list[QueueItem]:
    table = preference_queue(
        scores,
        {pair: (a, b) for pair, (a, b, _) in pairs.items()},
        {s for s, m in done if m == PREFERENCE},
        n,
    )
    return [
        QueueItem(pair, PREFERENCE, reason, (first, second), pairs[pair][2], blind)
        for pair, first, second, reason, blind in zip(
            table["pair"],
            table["first"],
            table["second"],
            table["reason"],
            table["blind_reason"],
            strict=True,
        )
    ]


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


def state(session: LabelSession, store: RunStore) -> dict[str, Any]:
    done = answered(store, session.annotator)
    return {
        "annotator": session.annotator,
        "run": session.run_dir.name,
        "blind": not session.show_judges,
        "items": [
            {
                "sample_id": item.sample_id,
                "metric": item.metric,
                "reason": session.why(item),
                "done": (item.sample_id, item.metric) in done,
                # its answers: /api/pair/{position}/{0,1}, in the order shown to this annotator
                "pair": item.members is not None or is_pairwise(session.criteria.get(item.metric)),
            }
            for item in session.queue
        ],
        "metrics": {
            item.metric: metric_view(item.metric, item.aspect, session.criteria.get(item.metric))
            for item in session.queue
        },
    }


def label_from_request(session: LabelSession, body: Any) -> Label:
    """A Label from a POSTed answer, or web.HTTPBadRequest naming what is wrong."""
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
    or ``judgegrid view``'s, where it is one page of several."""

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
        if is_pairwise(session.criteria.get(label.metric)) and label.value is not None:
            # the page's own terms: the pair's would tell which answer is compare[0]
            return web.json_response({"saved": True, "value": body["value"]})
        return web.json_response({"saved": True, "value": label.value})

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
