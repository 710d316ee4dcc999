"""A fault-injection OpenAI-compatible server on 127.0.0.1, for tests and benchmarks.

It serves ``POST /v1/chat/completions`` (with ``n``), ``POST /v1/embeddings`` and OpenAI's files
and batches endpoints (``fault_batches``: a batch's lines get the live answers) and answers every
judge prompt of judgegrid with a schema-valid answer (``judgegrid.plan.placeholders``), unless the
fault plan says otherwise: 429 with ``Retry-After``, 500, malformed JSON content, output cut off
at max_tokens (``finish_reason: "length"``), a reply slower than the client's timeout, no reply
at all (``hang``: the connection accepted and never answered, as at a wrong ``base-url``), or a
fixed HTTP error for one model (e.g. 401). A request that asks for ``logprobs`` gets the score
token's alternatives the plan scripts for its reply (``FaultPlan.alternatives``), or none. The
runner reaches it through litellm's OpenAI provider (``openai/<name>`` with ``api_base`` =
``server.url``), exactly as it would a hosted model.

Faults are drawn per request from a hash of (seed, request body, how often that body was seen),
so a retry of a request is a fresh draw, and the same grid meets the same faults run after run.

    >>> server = start_fault_server(FaultPlan(mix={"429": 0.1, "500": 0.1}, latency_s=0.05))
    >>> server.url                                        # doctest: +SKIP
    'http://127.0.0.1:41234/v1'
    >>> server.stop()
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import web

from judgegrid.plan.placeholders import EMBED_DIM, answer_for_messages, bag_of_words
from judgegrid.testing.fault_batches import BatchDesk, BatchPlan
from judgegrid.testing.logprob_tokens import scripted_logprobs
from judgegrid.testing.schema_answers import instance_of, schema_in_request

# Faults that replace the whole HTTP response, and faults that spoil one choice's content.
REQUEST_FAULTS = ("429", "500", "slow", "hang")
CONTENT_FAULTS = ("malformed", "truncated")
FORCEABLE = {"400", "401", "403", "404", "429", "500", "slow", "hang", "malformed", "truncated"}


@dataclass
class FaultPlan:
    """What the server does. Mutate it (or call ``FaultServer.set_plan``) between runs.

    mix: probability of each fault per request (content faults: per choice); the rest is valid.
    by_model: a fault forced on every request to that model name (``fake-judge``, without
    ``openai/``), e.g. ``{"bad-key": "401"}``.
    batch: what the files and batches endpoints do (``fault_batches.BatchPlan``).
    alternatives(model, text): for a request that asks for ``logprobs``, the alternatives at
    the score token of the reply ``text`` (value → log-probability, the chosen value among
    them), or None: no log-probabilities, as a provider that returns none (the default).
    """

    mix: dict[str, float] = field(default_factory=dict)
    latency_s: float = 0.0
    slow_s: float = 5.0
    retry_after_s: float = 0.01
    by_model: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    embed_dim: int = EMBED_DIM
    batch: BatchPlan = field(default_factory=BatchPlan)
    alternatives: Callable[[str, str], dict[str, float] | None] | None = None

    def __post_init__(self) -> None:
        unknown = (set(self.mix) | set(self.by_model.values())) - FORCEABLE
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; known: {sorted(FORCEABLE)}")
        if sum(self.mix.values()) > 1:
            raise ValueError("the fault probabilities add up to more than 1")


def _draw(*parts: Any) -> float:
    """A uniform number in [0, 1) from the parts, the same every time."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _pick(u: float, mix: dict[str, float], names: tuple[str, ...]) -> str:
    edge = 0.0
    for name in names:
        edge += mix.get(name, 0.0)
        if u < edge:
            return name
    return "ok"


def _error_body(status: int, message: str) -> dict[str, Any]:
    kinds = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    return {"error": {"message": message, "type": kinds.get(status, "server_error"), "code": None}}


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(_error_body(status, message), status=status, headers=headers)


class FaultServer:
    """The server and its counters: ``outcomes[(kind, model, outcome)]``, ``requests``, and
    ``arrivals``, the time (``time.monotonic``) each request came in, to check a rate limit."""

    def __init__(self, plan: FaultPlan | None = None):
        self.batches = BatchDesk(self._chat_answer, self._batch_embedding, _draw)
        self.plan = plan or FaultPlan()
        self.outcomes: Counter[tuple[str, str, str]] = Counter()
        self.requests = 0
        self.arrivals: list[float] = []
        self.keys_seen: set[str] = set()  # bearer tokens received, to show a key got through
        # every model request as it came: (path and query, Authorization header), to show that
        # a URL's credentials reached the server while the tool wrote none of them down
        self.received: list[tuple[str, str]] = []
        self._seen: Counter[str] = Counter()
        self._answered = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The api_base to give litellm."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def plan(self) -> FaultPlan:
        return self._plan

    @plan.setter
    def plan(self, plan: FaultPlan) -> None:
        self._plan = plan
        self.batches.plan, self.batches.seed = plan.batch, plan.seed
        self.batches.retry_after_s = plan.retry_after_s

    def set_plan(self, plan: FaultPlan) -> None:
        self.plan = plan

    def reset_counts(self) -> None:
        self.outcomes.clear()
        self.requests = 0
        self.arrivals.clear()
        self.received.clear()
        self.batches.reset()

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, port: int = 0) -> FaultServer:
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._open(port))
            except BaseException as exc:  # e.g. the port is taken: tell the caller
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._close())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fault-server", daemon=True)
        self._thread.start()
        ready.wait(timeout=30)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            self._loop = self._thread = None

    def __enter__(self) -> FaultServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _open(self, port: int) -> None:
        self._closing = asyncio.Event()  # set when the server stops: hanging requests end
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1", self._joined)
        app.router.add_get("/v1/stats", self._stats)
        self.batches.routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port, backlog=1024)
        await site.start()
        self.port = int(self._runner.addresses[0][1])  # the port the OS gave for port 0

    async def _close(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- handlers --------------------------------------------------------------------------

    def _request_fault(self, request: web.Request, model: str, raw: bytes) -> tuple[str, float]:
        """(fault or 'ok', the draw used for it) for this request."""
        auth = request.headers.get("Authorization", "")
        self.received.append((request.path_qs, auth))
        if auth.startswith("Bearer "):
            self.keys_seen.add(auth.removeprefix("Bearer "))
        digest = hashlib.sha256(raw).hexdigest()
        nth = self._seen[digest]
        self._seen[digest] += 1
        forced = self.plan.by_model.get(model)
        if forced:
            return forced, 0.0
        u = _draw(self.plan.seed, digest, nth)
        return _pick(u, self.plan.mix, REQUEST_FAULTS), u

    async def _fail(self, fault: str, kind: str, model: str) -> web.StreamResponse | None:
        """The response for a request-level fault, or None to answer normally."""
        if fault == "429":
            retry = f"{self.plan.retry_after_s:g}"
            self.outcomes[(kind, model, "429")] += 1
            return _error(429, "rate limit reached (fault server)", {"Retry-After": retry})
        if fault in {"400", "401", "403", "404", "500"}:
            self.outcomes[(kind, model, fault)] += 1
            return _error(int(fault), f"fault server: injected HTTP {fault}")
        if fault == "slow":
            self.outcomes[(kind, model, "slow")] += 1
            await asyncio.sleep(self.plan.slow_s)  # the client has given up by now
        if fault == "hang":  # no byte back until the server stops: only a timeout ends it
            self.outcomes[(kind, model, "hang")] += 1
            await self._closing.wait()
            return _error(503, "fault server: stopped while hanging")
        return None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1  # counted on arrival: a client that gives up early still sent it
        self.arrivals.append(time.monotonic())
        raw = await request.read()
        body = json.loads(raw)
        model = str(body.get("model", ""))
        await asyncio.sleep(self.plan.latency_s)
        fault, u = self._request_fault(request, model, raw)
        failed = await self._fail(fault, "completion", model)
        if failed is not None:
            return failed
        status, answer = self._chat_answer(body, u)
        return web.json_response(answer, status=status)

    async def _joined(self, request: web.Request) -> web.StreamResponse:
        """A request to an api_base with a query string (``…/v1?key=KEY``), which the openai SDK
        joins with the endpoint's path as ``/v1?key=KEY/chat/completions``: served as that
        endpoint, the way gateways that take a key in the query string read it."""
        tail = request.query_string
        if tail.endswith("/chat/completions"):
            return await self._chat(request)
        if tail.endswith("/embeddings"):
            return await self._embeddings(request)
        return _error(404, f"fault server: no endpoint in {request.path_qs}")

    def _chat_answer(self, body: dict[str, Any], u: float) -> tuple[int, dict[str, Any]]:
        """(HTTP status, response body) of a chat request that met no request-level fault: the
        same for a live call and a batch line, so a batch answers as the live server would."""
        model = str(body.get("model", ""))
        messages = body.get("messages") or []
        try:
            answer = json.dumps(answer_for_messages(messages, model), ensure_ascii=False)
        except AssertionError as exc:  # a prompt the scripted answers do not know
            schema = schema_in_request(body)  # another harness's prompt (Ragas' in a bench)
            if schema is None:
                self.outcomes[("completion", model, "unknown prompt")] += 1
                return 400, _error_body(400, f"fault server: {exc}")
            answer = json.dumps(instance_of(schema))
        forced = self.plan.by_model.get(model)
        choices: list[dict[str, Any]] = []
        for j in range(int(body.get("n") or 1)):
            spoil = forced if forced in CONTENT_FAULTS else None
            if spoil is None:
                spoil = _pick(_draw(u, "choice", j), self.plan.mix, CONTENT_FAULTS)
            text, finish = _content(answer, spoil)
            self.outcomes[("completion", model, spoil)] += 1
            choices.append(
                {
                    "index": j,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish,
                    "logprobs": self._logprobs(body, model, text),
                }
            )
        prompt_tokens = chat_tokens(messages)
        completion_tokens = sum(tokens(c["message"]["content"]) for c in choices)
        self._answered += 1
        return 200, {
            "id": f"chatcmpl-fault-{self._answered}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _logprobs(self, body: dict[str, Any], model: str, text: str) -> dict[str, Any] | None:
        """A choice's log-probabilities: only when asked, and as the plan scripts them."""
        if not body.get("logprobs") or self.plan.alternatives is None:
            return None
        alternatives = self.plan.alternatives(model, text)
        return scripted_logprobs(text, alternatives, body.get("top_logprobs"))

    async def _embeddings(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1
        self.arrivals.append(time.monotonic())
        raw = await request.read()
        body = json.loads(raw)
        model = str(body.get("model", ""))
        await asyncio.sleep(self.plan.latency_s)
        fault, _ = self._request_fault(request, model, raw)
        if fault in CONTENT_FAULTS:
            fault = "ok"  # a vector has no content to spoil
        failed = await self._fail(fault, "embedding", model)
        if failed is not None:
            return failed
        return web.json_response(self._embedding_answer(body))

    def _batch_embedding(self, body: dict[str, Any], u: float) -> tuple[int, dict[str, Any]]:
        return 200, self._embedding_answer(body)

    def _embedding_answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The response body of an embedding request (live or a batch line)."""
        model = str(body.get("model", ""))
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        dim = int(body.get("dimensions") or self.plan.embed_dim)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vector = np.asarray(bag_of_words(str(text), dim), dtype=np.float32)
            vector /= np.linalg.norm(vector)
            encoded: Any = (
                base64.b64encode(vector.tobytes()).decode() if as_base64 else vector.tolist()
            )
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        self.outcomes[("embedding", model, "ok")] += 1
        used = sum(tokens(str(t)) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": used, "total_tokens": used},
        }

    async def _models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"object": "list", "data": []})

    async def _stats(self, request: web.Request) -> web.StreamResponse:
        """The request count, for a benchmark whose server runs in a process of its own."""
        return web.json_response({"requests": self.requests})


def tokens(text: str) -> int:
    """Tokens of a text as OpenAI counts them (cl100k_base, the copy litellm ships: offline)."""
    from litellm.litellm_core_utils.default_encoding import encoding

    return len(encoding.encode(text, disallowed_special=()))


def chat_tokens(messages: list[dict[str, Any]]) -> int:
    """A chat request's prompt tokens as OpenAI's cookbook counts them: 3 a message, its role
    and content, and 3 to prime the reply (not chars / 4, which is far off outside English)."""
    return (
        sum(
            3 + tokens(str(m.get("role") or "")) + tokens(str(m.get("content") or ""))
            for m in messages
        )
        + 3
    )


def _content(answer: str, fault: str) -> tuple[str, str]:
    """A choice's (content, finish_reason) under a content fault."""
    if fault == "malformed":
        return "Sure! Here is my verdict: {statements: [oops", "stop"
    if fault == "truncated":
        return answer[: max(1, len(answer) // 2)], "length"
    return answer, "stop"


def start_fault_server(plan: FaultPlan | None = None, port: int = 0) -> FaultServer:
    """Start a server in a background thread (port 0: any free one); ``.url`` is its api_base,
    ``.stop()`` ends it."""
    return FaultServer(plan).start(port)


def main() -> None:
    """``python -m judgegrid.testing.fault_server``: serve in the foreground, in a process of
    its own (so a benchmark's client does not share the server's interpreter lock)."""
    parser = argparse.ArgumentParser(description="judgegrid's fault-injection server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--slow-s", type=float, default=5.0)
    parser.add_argument(
        "--fault", action="append", default=[], metavar="NAME=P", help="e.g. --fault 429=0.05"
    )
    args = parser.parse_args()
    mix = {name: float(p) for name, p in (f.split("=", 1) for f in args.fault)}
    server = start_fault_server(
        FaultPlan(mix=mix, latency_s=args.latency_ms / 1000, slow_s=args.slow_s), args.port
    )
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
