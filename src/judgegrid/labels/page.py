"""``judgegrid label RUN_DIR``: a local page where a person labels the samples that matter.

The server is the loopback core of ``labels.server`` (127.0.0.1 only, the token printed with
the URL, the Host header checked, a strict CSP), alone or as one page of ``judgegrid view``
(``add_label_routes``). Each answer is committed to the run database before the server replies: an
acknowledged label survives the server being killed. Two annotators may label the same run at
once, from two servers: SQLite's WAL mode and the ``labels`` table's key (sample, metric,
annotator) keep every answer.

The page (``static/``) ships in the package and loads nothing from elsewhere; it puts sample
text into the page as text nodes, never as HTML.

Only the routes live here, on top of what they serve: the session's values
(``labels.session``), what it asks (``labels.queue``), what the page shows (``labels.views``)
and how an answer is read (``labels.answers``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from judgegrid.core.errors import RunLockedError
from judgegrid.labels.answers import label_from_request
from judgegrid.labels.pairwise import is_pairwise
from judgegrid.labels.pool import record_draws
from judgegrid.labels.queue import next_batch
from judgegrid.labels.server import (
    add_static,
    bind_loopback,
    error,
    json_body,
    loopback_app,
    only,
    start,
    whole_number,
)
from judgegrid.labels.session import LabelSession
from judgegrid.labels.views import items_view, pair_member_view, sample_view, state, state_line
from judgegrid.store.lock import RunLock, lock_run
from judgegrid.store.run_db import RunStore

LABEL_WAIT_S = 2.0  # how long a label waits for the run's lock before the page is told 409
PAGE_FILES = {"/": "index.html", "/label.js": "label.js", "/label.css": "label.css"}


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
    record_draws(store, session.unrecorded, time.time(), session.left_after)
    session.unrecorded = []

    async def get_state(request: web.Request) -> web.StreamResponse:
        only(request, set())
        return web.json_response(state(session, store))

    async def get_sample(request: web.Request) -> web.StreamResponse:
        only(request, set())
        sample = session.samples.get(request.match_info["sample_id"])
        if sample is None:
            return error(404, f"unknown sample {request.match_info['sample_id']!r}")
        return web.json_response(sample_view(sample))

    async def get_pair_member(request: web.Request) -> web.StreamResponse:
        """One answer of a pair, by position: no sample id, which would say which the data set
        prefers."""
        only(request, set())
        position = whole_number(request.match_info["position"], "position", low=0)
        member = whole_number(request.match_info["member"], "member", low=0)
        view = pair_member_view(session, position, member)
        if view is None:
            return error(404, "no such pair answer")
        return web.json_response(view)

    async def post_label(request: web.Request) -> web.StreamResponse:
        only(request, set())
        body = await json_body(request, "the label")
        label = label_from_request(session, body)
        try:  # one writer at a time: a `report` or `labels import` may hold the run
            lock = await _run_lock(session.database.parent)
        except RunLockedError as exc:
            return error(409, f"{exc.problems[0].message}; your label was not saved, try again")
        with lock:
            store.write_labels([label])  # committed before the reply
            labels, draws = store.labels_frame(), store.draws_frame()  # read once a request
            grown = next_batch(session, store, label.metric, labels, draws)  # stored first
            if grown:  # the batch's draws, which the state line reads
                draws = store.draws_frame()
        line = state_line(session, label.metric, labels, draws)
        reply: dict[str, Any] = {"saved": True, "value": label.value, "state": line}
        if is_pairwise(session.criteria.get(label.metric)) and label.value is not None:
            # the page's own terms: the pair's would tell which answer is compare[0]
            reply["value"] = body["value"]
        if grown:  # the metric's next batch, drawn from the labels so far
            reply["items"] = items_view(session, labels)
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


async def serve(session: LabelSession, port: int = 0) -> tuple[web.AppRunner, int]:
    """Start the server on 127.0.0.1 (``port`` 0: a free one); returns it and its port. The run
    database is opened here, in the thread that serves, and closed with the runner."""
    sock = bind_loopback(port)  # a port in use refused before the database is opened to write
    store = RunStore(session.database)
    app = make_app(session, store)
    app.on_cleanup.append(lambda app: _close(store))
    return await start(app, sock)
