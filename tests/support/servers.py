"""The loopback servers of the labelling page and the viewer, for their tests: an app served from
a thread of the test's own process, or the `judgegrid label` / `judgegrid view` command as a
process of its own, and plain HTTP to either, sent as the pages' script sends it (the token
header, a Host header)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import re
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from judgegrid.view.app import open_view, serve

PRINTED_URL = re.compile(r"http://127\.0\.0\.1:\d+/\?token=\S+")
Serve = Callable[[Any, int], Awaitable[tuple[web.AppRunner, int]]]


@contextlib.contextmanager
def in_thread(serve: Serve, session: Any) -> Iterator[tuple[web.AppRunner, int]]:
    """``serve(session, 0)`` on an event loop in a thread of its own until the block ends, so
    the test's thread is free to send requests; yields the runner and its port."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        runner, port = asyncio.run_coroutine_threadsafe(serve(session, 0), loop).result(20)
        try:
            yield runner, port
        finally:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextlib.contextmanager
def command_server(*args: str) -> Iterator[str]:
    """``judgegrid ARGS`` (``label`` or ``view``) as a process, and the URL it prints once it
    listens; the process is killed (SIGKILL, as a crash would) when the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from judgegrid.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = ""
        while not url and process.stdout:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else "the server stopped"
            url = next(iter(PRINTED_URL.findall(line)), "")
        yield url
    finally:
        process.kill()
        process.wait(10)


@dataclass
class LoopbackServer:
    """A running server of ``session`` (whose token it sends) at ``port``."""

    session: Any
    port: int
    runner: web.AppRunner | None = None

    def get(
        self, path: str, *, token: str | None = "default", host: str | None = None
    ) -> tuple[int, dict[str, Any]]:
        return self.request("GET", path, token=token, host=host)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = "default",
        host: str | None = None,
        content_type: str = "application/json",
        raw: bytes | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """The status and the JSON answer (a text answer as ``{"text": ...}``). ``token`` None
        sends none, ``host`` another Host header, ``raw`` a body as it is (not as JSON)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        headers = {"Host": host or f"127.0.0.1:{self.port}", "Content-Type": content_type}
        if token is not None:
            headers["X-Judgegrid-Token"] = self.session.token if token == "default" else token
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        conn.request(method, path, body=data, headers=headers)
        reply = conn.getresponse()
        text = reply.read().decode()
        conn.close()
        try:
            return reply.status, json.loads(text)
        except json.JSONDecodeError:
            return reply.status, {"text": text}


@dataclass
class LabelServer(LoopbackServer):
    """A running labelling page (``judgegrid label``), answered as the page answers."""

    def label(self, sample_id: str, metric: str, **answer: Any) -> tuple[int, dict[str, Any]]:
        return self.request(
            "POST", "/api/label", {"sample_id": sample_id, "metric": metric, **answer}
        )


@contextlib.contextmanager
def serving(session: Any) -> Iterator[LoopbackServer]:
    """The app of ``session`` (``judgegrid view``'s, or a page of its) on a free port, in a
    thread of its own, until the block ends."""
    with in_thread(serve, session) as (runner, port):
        yield LoopbackServer(session, port, runner)


@dataclass(frozen=True)
class Viewed:
    """What the viewer answered about a run: its samples page for one metric, the first
    sample's detail, and the decision page."""

    samples: dict[str, Any]
    detail: dict[str, Any]
    decision: dict[str, Any]


def view_of_run(run_dir: Any, metric: str) -> Viewed:
    """``judgegrid view`` opened on ``run_dir`` (an imported run, say) and asked what its page
    asks first: the samples of ``metric``, the first one's detail, the decision; each must
    answer 200."""
    with serving(open_view(run_dir, "ann")) as server:
        status, samples = server.get(f"/api/view/samples?metric={metric}&sort=id")
        assert status == 200, samples
        first = samples["rows"][0]["id"]
        status, detail = server.get(f"/api/view/sample/{first}?metric={metric}")
        assert status == 200, detail
        status, decision = server.get("/api/view/decision")
        assert status == 200, decision
    return Viewed(samples, detail, decision)
