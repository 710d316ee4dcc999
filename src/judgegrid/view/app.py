"""The ``judgegrid view`` app: its pages, its read-only API, and the labelling page mounted in it.

One aiohttp application on the loopback core of ``labels.server`` (127.0.0.1, the token, the
Host check, the CSP, the size limits). ``judgegrid view`` puts the viewer at ``/`` and the
labelling page at ``/label``; ``judgegrid label`` puts the labelling page at ``/`` (as it always
was) and the viewer at ``/view``. Every parameter is checked before any SQL runs: a bad one is a
400 that names it, and nothing is written by any view endpoint (only the labelling page writes,
labels, as before).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from aiohttp import web

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.names import did_you_mean
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.tasks import with_probes
from judgegrid.labels.files import check_annotator_option
from judgegrid.labels.page import add_label_routes
from judgegrid.labels.queue import session_over
from judgegrid.labels.server import (
    add_static,
    bad_request,
    bind_loopback,
    error,
    json_body,
    loopback_app,
    once,
    only,
    query_number,
    start,
)
from judgegrid.labels.session import DEFAULT_ASK, LabelSession, QueueItem, SessionAsk
from judgegrid.metrics import METRICS
from judgegrid.outputs.card_short import count_words, figure_words, flag_list, short_verdict
from judgegrid.outputs.forest import forest_svg
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import open_run, stored_dataset
from judgegrid.view.details import compare, criterion_items, items
from judgegrid.view.probes import probe_detail
from judgegrid.view.queries import (
    FOLDS,
    PER_PAGE_MAX,
    SORTS,
    STATUSES,
    Filters,
    RunView,
    answer_names,
    wording_name,
)

VIEW_FILES = {"/view.js": "view.js", "/view.css": "view.css"}
SEARCH_CHARS = 200
CARD_TABLE = Path("tables") / "decision_card.csv"
EVIDENCE_TABLE = Path("tables") / "decision_evidence.csv"
WORDING_TABLE = Path("tables") / "wording_flags.csv"
WEIGHTING_TABLE = Path("tables") / "weighting.csv"
# why the view does not queue a probe for labelling (the analyses never read a probe's label)
PROBES_UNLABELLED = "people label the data set's own samples; a probe's score must move a known way"


@dataclass
class ViewSession:
    """What one server shows: the run (read-only), the labelling session, where each page is."""

    run_dir: Path
    run: RunView
    labels: LabelSession
    front: str = "view"  # which page is at "/": "view" or "label"

    @property
    def has_viewer(self) -> bool:
        """The viewer is served unless it would unblind the labelling page."""
        return self.front == "view" or self.labels.show_judges

    @property
    def token(self) -> str:
        return self.labels.token

    @property
    def view_path(self) -> str:
        return "/" if self.front == "view" else "/view"

    @property
    def label_path(self) -> str:
        return "/" if self.front == "label" else "/label"


def open_view(run_dir: str | Path, annotator: str) -> ViewSession:
    """``judgegrid view``: the run, and a labelling session whose queue fills with the samples
    a person chooses to label from the viewer. ``annotator`` is checked as `judgegrid label`
    checks it: a blank name, or one shaped like a key (it would be stored with each label,
    exported and shown in reports), is refused."""
    check_annotator_option(annotator)
    target, matrix, store = open_run(run_dir)
    try:
        samples = {s.id: s for s in stored_dataset(store)}
    finally:
        store.close()
    # labels given from the viewer are not blind: the person has seen the judges' answers
    criteria = matrix.criteria_by_name
    labels = LabelSession(
        target, samples, annotator.strip(), [], show_judges=True, criteria=criteria
    )
    return ViewSession(target, _run_view(target, matrix, samples), labels, "view")


def open_label_view(
    run_dir: str | Path,
    annotator: str,
    metrics: list[str] | None = None,
    ask: SessionAsk = DEFAULT_ASK,
) -> ViewSession:
    """``judgegrid label``: its session as always (the queue of the most informative samples,
    as ``ask`` says: ``labels.session.SessionAsk``). The labelling page is blind unless the
    judges are shown; only then is the viewer beside it at ``/view`` (it shows every judge's
    answers, which a blind annotator must not see)."""
    ask.check(annotator)
    target, matrix, store = open_run(run_dir)  # once: the session and the viewer read it
    try:
        labels = session_over(target, matrix, store, annotator, metrics, ask)
    finally:
        store.close()
    return ViewSession(target, _run_view(target, matrix, labels.samples), labels, "label")


def _run_view(target: Path, matrix: Matrix, samples: dict[str, Sample]) -> RunView:
    """The run as the view reads it: the user's ``samples`` and the probes the matrix made of
    them (made again: the run keeps the user's samples only), so every sample the grid lists
    opens."""
    criteria = matrix.criteria_by_name
    metrics = matrix.scored_names
    models = {matrix.embedding_label(i): e.id for i, e in enumerate(matrix.embeddings)}
    probed = with_probes(matrix, Dataset(target.name, tuple(samples.values())))
    return RunView(target / DB_NAME, probed.by_id(), metrics, models, criteria)


# -- parameters, checked -----------------------------------------------------------------------


def _one(query: Any, name: str, allowed: list[str] | tuple[str, ...] | None = None) -> str:
    value = once(query, name) or ""
    if value and allowed is not None and value not in allowed:
        raise bad_request(_not_in_run(name, value, allowed))
    return value


def _not_in_run(name: str, value: str, allowed: Sequence[str]) -> str:
    """A filter's value the run does not have: the closest it has, and all of them."""
    have = ", ".join(allowed) or "none"
    return f"{name}: {value!r} is not in this run; {did_you_mean(value, allowed)}it has {have}"


def _many(query: Any, name: str, allowed: list[str]) -> tuple[str, ...]:
    values = tuple(v for v in query.getall(name, []) if v)
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise bad_request(_not_in_run(name, unknown[0], allowed))
    return values


def _metric(session: ViewSession, query: Any) -> str:
    metric = _one(query, "metric") or session.run.metrics[0]
    if metric not in session.run.metrics:
        raise bad_request(_not_in_run("metric", metric, session.run.metrics))
    return metric


def _wordings(session: ViewSession, query: Any, metric: str) -> tuple[int, ...]:
    """The ``wording`` values asked for: a criterion's wordings by number (0: its definition);
    a metric of one wording has only 0."""
    count = session.run.wordings(metric)
    have = [str(k) for k in range(count)]
    values = tuple(v for v in query.getall("wording", []) if v)
    unknown = [v for v in values if v not in have]
    if unknown:
        kind = "criterion" if metric in session.run.criteria else "built-in metric"
        raise bad_request(
            f"wording: {unknown[0]!r} is not a wording of {metric}; this {kind} has "
            f"{', '.join(have)} (0: its definition)"
        )
    return tuple(sorted({int(v) for v in values}))


def parse_filters(session: ViewSession, query: Any) -> Filters:
    """A Samples page request, or a 400 naming the parameter that is wrong."""
    known = {"metric", "sort", "judge", "embedding", "language", "status", "q", "page", "per_page"}
    known |= {"wording", "fold"}
    unknown = sorted(set(query) - known)
    if unknown:
        raise bad_request(f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(known))}")
    run = session.run
    text = _one(query, "q")
    if len(text) > SEARCH_CHARS:
        raise bad_request(f"q: search text longer than {SEARCH_CHARS} characters")
    metric = _metric(session, query)
    filters = Filters(
        metric=metric,
        sort=_one(query, "sort", SORTS) or "disagreement",
        judges=_many(query, "judge", run.judges()),
        embeddings=_many(query, "embedding", run.embeddings()),
        wordings=_wordings(session, query, metric),
        fold=_one(query, "fold", FOLDS),
        language=_one(query, "language", run.languages()),
        status=_one(query, "status", STATUSES),
        text=text.strip(),
        per_page=query_number(query, "per_page", high=PER_PAGE_MAX, default=50),
    )
    filters.page = query_number(query, "page")
    return filters


def _sample_id(session: ViewSession, request: web.Request) -> str:
    sample_id = request.match_info["sample_id"]
    if not session.run.has_sample(sample_id):
        raise web.HTTPNotFound(
            text=json.dumps({"error": f"unknown sample {sample_id!r}"}),
            content_type="application/json",
        )
    return sample_id


# -- what the pages read -----------------------------------------------------------------------


def meta(session: ViewSession) -> dict[str, Any]:
    run = session.run
    return {
        "run": session.run_dir.name,
        "annotator": session.labels.annotator,
        "metrics": [metric_meta(session, m) for m in run.metrics],
        "judges": run.judges(),
        "embeddings": run.embeddings(),
        "languages": run.languages(),
        "statuses": list(STATUSES),
        "sorts": list(SORTS),
        "view_path": session.view_path,
        "label_path": session.label_path,
    }


def metric_meta(session: ViewSession, metric: str) -> dict[str, Any]:
    """A metric as the pages name it; a criterion with what its cells need to be read: its
    type, its wordings (0: the definition), its answers in order and its range of scores."""
    spec = session.run.criteria.get(metric)
    if spec is None:
        return {"name": metric, "title": METRICS[metric].title, "criterion": None}
    return {"name": metric, "title": metric, "criterion": criterion_meta(spec)}


def criterion_meta(spec: CriterionSpec) -> dict[str, Any]:
    scores = answer_names(spec)
    return {
        "type": spec.type,
        "definition": spec.definition,
        "wordings": [
            {"wording": k, "name": wording_name(k), "text": text}
            for k, text in enumerate(spec.definitions)
        ],
        "answers": list(scores.values()),
        "low": min(scores),
        "high": max(scores),
        "higher_is_better": spec.higher_is_better,
        "weighting": spec.weighting,
    }


def sample_detail(session: ViewSession, sample_id: str, metric: str) -> dict[str, Any]:
    """One sample and one metric: its fields, and every configuration × repeat with its score,
    status, cause, intermediate answers (as rows), tokens, cost and latency; a criterion's
    cells with their wording, the judge's answer and the weighting each got."""
    sample = session.run.samples[sample_id]
    cells = session.run.sample_cells(sample_id, metric)
    spec = session.run.criteria.get(metric)
    names = {f"{score:g}": name for score, name in answer_names(spec).items()} if spec else {}
    for cell in cells:
        if spec is not None:
            cell["items"] = criterion_items(cell["details"], cell["reason"], names)
            known = 0 <= cell["wording"] < len(spec.definitions)
            cell["wording_text"] = spec.definitions[cell["wording"]] if known else ""
        else:
            cell["items"] = items(metric, cell["details"])
        if metric == "response_relevancy" and cell["embedding"] and cell["items"]:
            cosines = session.run.cosines(
                cell["embedding"],
                cell["dimension"],
                sample.user_input or "",
                [row["text"].strip() for row in cell["items"]],
            )
            for row, cosine in zip(cell["items"], cosines, strict=True):
                row["note"] = "" if cosine is None else f"cosine {cosine:.3f}"
        raw = (cell["details"] or {}).get("raw")
        cell["raw"] = raw if isinstance(raw, str) else None
        cell.pop("details")
    return {
        "id": sample.id,
        "metric": metric,
        "title": metric_meta(session, metric)["title"],
        "criterion": criterion_meta(spec) if spec is not None else None,
        "fields": {
            "user_input": sample.user_input,
            "response": sample.response,
            "retrieved_contexts": list(sample.retrieved_contexts or []),
            "reference": sample.reference,
            "language": sample.language,
            "extra": dict(sample.extra or {}),  # the data set's columns a criterion reads
        },
        "cells": cells,
        "probe": probe_detail(session.run, sample, metric),
    }


def side_by_side(
    session: ViewSession, sample_id: str, metric: str, a: str, b: str, repeat: int
) -> dict[str, Any]:
    """Two configurations of one sample and metric at one repeat, rows lined up by text."""
    detail = sample_detail(session, sample_id, metric)
    configs = {c["config"] for c in detail["cells"]}
    for name, key in (("a", a), ("b", b)):
        if key not in configs:
            raise bad_request(f"{name}: {key!r} is not a configuration of {metric} here")
    pick = {
        key: next(
            (c for c in detail["cells"] if c["config"] == key and c["repeat"] == repeat), None
        )
        for key in (a, b)
    }
    left, right = pick[a], pick[b]
    if left is None or right is None:
        raise bad_request(f"repeat: no repeat {repeat} of both configurations")
    return {
        "id": sample_id,
        "metric": metric,
        "title": detail["title"],
        "criterion": detail["criterion"],
        "fields": detail["fields"],
        "repeat": repeat,
        "repeats": sorted({c["repeat"] for c in detail["cells"]}),
        "a": {k: v for k, v in left.items() if k != "items"},
        "b": {k: v for k, v in right.items() if k != "items"},
        "rows": compare(left["items"], right["items"]),
    }


def _table(session: ViewSession, name: Path) -> pd.DataFrame:
    path = session.run_dir / name
    return pd.read_csv(path) if path.exists() else pd.DataFrame()


def decision(session: ViewSession) -> dict[str, Any]:
    """The card as the report wrote it (``tables/decision_card.csv``), each metric with its
    verdict in short, its chips and its forest plot (``tables/decision_evidence.csv``); a
    criterion's row with the criterion and, per judge, whether its verdict changes with the
    wording (``wording_flags.csv``) and the weighting its cells got (``weighting.csv``)."""
    path = session.run_dir / CARD_TABLE
    if not path.exists():
        return {"card": [], "note": f"no card yet: run  {_report_command(session)}"}
    card = pd.read_csv(path, keep_default_na=False)
    evidence = _table(session, EVIDENCE_TABLE)
    wording, weighting = _table(session, WORDING_TABLE), _table(session, WEIGHTING_TABLE)
    entries = []
    for record in card.to_dict("records"):
        entry = decision_entry(record, evidence)
        spec = session.run.criteria.get(str(record["metric"]))
        entry["criterion"] = criterion_meta(spec) if spec is not None else None
        if spec is not None:
            entry["judges"] = criterion_judges(spec.name, wording, weighting)
        entries.append(entry)
    return {"card": entries, "note": _stale_card_note(session, path)}


def _stale_card_note(session: ViewSession, card: Path) -> str:
    """A card older than the newest label does not count it (the view reads what the report
    wrote): say so and how to make it again, so that a person who labels and looks here does
    not read the old card as the new one."""
    newest = session.run.last_labelled()
    if newest is None or newest <= card.stat().st_mtime:
        return ""
    return (
        "labels were given after this card was written: it does not count them yet; "
        f"{_report_command(session)} makes it again"
    )


def _report_command(session: ViewSession) -> str:
    """The command that writes the run's card, with the run's full path: it must work from any
    folder, not only from where ``judgegrid view`` was typed (as the labelling page's end)."""
    return f"judgegrid report {session.run_dir.resolve()}"


def criterion_judges(
    metric: str, wording: pd.DataFrame, weighting: pd.DataFrame
) -> list[dict[str, Any]]:
    """Per judge of a criterion, as the report counted them: the samples whose modal answer
    changed with the wording (of those answered under two wordings or more) and whether the
    report flags it; the scored cells weighted by log-probabilities and those that got none."""
    rows: dict[str, dict[str, Any]] = {}
    if not wording.empty:
        for r in wording[wording["metric"] == metric].to_dict("records"):
            rows.setdefault(str(r["judge"]), {"judge": str(r["judge"])}).update(
                changed=_whole(r.get("changed")),
                samples=_whole(r.get("samples")),
                flagged=str(r.get("flagged")) == "True",  # NaN (not measured) is no flag
            )
    if not weighting.empty:
        for r in weighting[weighting["metric"] == metric].to_dict("records"):
            rows.setdefault(str(r["judge"]), {"judge": str(r["judge"])}).update(
                cells=_whole(r.get("cells")),
                logprobs=_whole(r.get("logprobs")),
                without_logprobs=_whole(r.get("without_logprobs")),
            )
    return [rows[judge] for judge in sorted(rows)]


def _whole(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def decision_entry(record: dict[Hashable, Any], evidence: pd.DataFrame) -> dict[str, Any]:
    """One metric's row of the card, with what the page shows at a glance."""
    block = evidence[evidence["metric"] == record["metric"]] if not evidence.empty else evidence
    svg = forest_svg(block)
    flags = flag_list(record)
    return {
        **{
            k: record.get(k, "")
            for k in ("metric", "verdict", "basis", "reason", "next_step", "detail", "label_state")
        },
        "badge": short_verdict(record),
        "figure": f"{figure_words(record)} · n {count_words(record.get('n'))}",
        "flags": flags,
        "forest": "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
        if svg
        else "",
    }


def queue_for_labelling(session: ViewSession, sample_id: str, metric: str) -> int:
    """Put (sample, metric) first in the labelling page's queue; returns its position. A sample
    the queue drew keeps its draw; one the person picks here is marked chosen (its label is no
    probability sample: ``records.Label.chosen``)."""
    queue = session.labels.queue
    for k, item in enumerate(queue):
        if item.sample_id == sample_id and item.metric == metric and item.members is None:
            queue.insert(0, queue.pop(k))
            return 0
    queue.insert(0, QueueItem(sample_id, metric, "chosen in judgegrid view", chosen=True))
    return 0


# -- the server --------------------------------------------------------------------------------


def make_view_app(session: ViewSession, store: RunStore) -> web.Application:
    app = loopback_app(session.token)
    add_label_routes(app, session.labels, store, at=session.label_path)
    if not session.has_viewer:
        return app
    add_static(app, "judgegrid.view", {session.view_path: "index.html", **VIEW_FILES})

    async def get_meta(request: web.Request) -> web.StreamResponse:
        only(request, set())
        return web.json_response(meta(session))

    async def get_samples(request: web.Request) -> web.StreamResponse:
        filters = parse_filters(session, request.query)
        return web.json_response(session.run.samples_page(filters))

    async def get_sample(request: web.Request) -> web.StreamResponse:
        sample_id = _sample_id(session, request)
        only(request, {"metric"})
        return web.json_response(sample_detail(session, sample_id, _metric(session, request.query)))

    async def get_compare(request: web.Request) -> web.StreamResponse:
        sample_id = _sample_id(session, request)
        only(request, {"metric", "a", "b", "repeat"})
        metric = _metric(session, request.query)
        a, b = _one(request.query, "a"), _one(request.query, "b")
        if not a or not b:
            raise bad_request("a and b: name two configurations to compare")
        repeat = query_number(request.query, "repeat", low=0, default=0)
        return web.json_response(side_by_side(session, sample_id, metric, a, b, repeat))

    async def get_calls(request: web.Request) -> web.StreamResponse:
        sample_id = _sample_id(session, request)
        only(request, {"judge", "page"})
        judge = _one(request.query, "judge", session.run.judges())
        if not judge:
            raise bad_request("judge: name the judge whose calls to show")
        page = query_number(request.query, "page")
        return web.json_response(session.run.calls(sample_id, judge, page))

    async def get_decision(request: web.Request) -> web.StreamResponse:
        only(request, set())
        return web.json_response(decision(session))

    async def post_queue(request: web.Request) -> web.StreamResponse:
        only(request, set())
        body = await json_body(request, "the request")
        if not isinstance(body, dict):
            return error(400, "expected a JSON object")
        sample_id, metric = body.get("sample_id"), body.get("metric")
        if not isinstance(sample_id, str) or not session.run.has_sample(sample_id):
            return error(400, f"unknown sample {sample_id!r}")
        if session.run.samples[sample_id].probe is not None:
            return error(400, f"{sample_id!r} is a probe: {PROBES_UNLABELLED}")
        if metric not in session.run.metrics:
            return error(400, f"metric: {metric!r} is not in this run")
        position = queue_for_labelling(session, sample_id, str(metric))
        return web.json_response({"queued": True, "position": position})

    app.router.add_get("/api/view/meta", get_meta)
    app.router.add_get("/api/view/samples", get_samples)
    app.router.add_get("/api/view/sample/{sample_id}", get_sample)
    app.router.add_get("/api/view/compare/{sample_id}", get_compare)
    app.router.add_get("/api/view/calls/{sample_id}", get_calls)
    app.router.add_get("/api/view/decision", get_decision)
    app.router.add_post("/api/view/label", post_queue)
    return app


async def _close(store: RunStore, run: RunView) -> None:
    """The read-only connection first: the writer, closed last, folds the -wal file into the
    database and removes it and the -shm file (a read-only connection cannot)."""
    run.close()
    store.close()


async def serve(session: ViewSession, port: int = 0) -> tuple[web.AppRunner, int]:
    """Start the app on 127.0.0.1 (``port`` 0: a free one); the run database is opened here, in
    the thread that serves, and closed with the runner. Every metric's grid is folded before
    the server listens, so the first Samples page does not wait for it."""
    session.run.fold()
    sock = bind_loopback(port)  # a port in use refused before the database is opened to write
    store = RunStore(session.labels.database)
    app = make_view_app(session, store)
    app.on_cleanup.append(lambda app: _close(store, session.run))
    return await start(app, sock)
