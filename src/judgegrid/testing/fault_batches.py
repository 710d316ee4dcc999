"""The fault server's files and batches endpoints, shaped as OpenAI's Batch API.

``POST /v1/files`` (multipart, ``purpose=batch``), ``GET /v1/files/{id}``,
``GET /v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches/{id}``,
``GET /v1/batches`` and ``POST /v1/batches/{id}/cancel``. A batch's lines are answered by the
server's own chat and embedding code, so a line gets the answer the same request would get live.
The ``BatchPlan`` says how long a batch takes, which share of lines fail (drawn from the line's
``custom_id``, so a test meets the same failures every time), which batches expire (their
finished lines in the output file, the rest expired in the error file), and how many submissions
answer 429 first. Every upload and submission is logged, so a test can check that no file was
submitted twice.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# (body, draw) -> (HTTP status, response body): the server's answer to one request.
Answerer = Callable[[dict[str, Any], float], tuple[int, dict[str, Any]]]
Draw = Callable[..., float]


@dataclass
class BatchPlan:
    """What the batch endpoints do.

    delay_s: a batch is ``in_progress`` this long after it is created, then finished.
    failed_lines: the share of lines answered with HTTP 500 in the error file, drawn on the
        line's body and how many times that body came before (never on its custom id, which
        carries the server's port: a share of a small grid would then fail none on some ports).
    expire: the numbers (1 = the first batch created) of the batches that expire;
    expired_done: the share of an expiring batch's lines finished before it expired.
    submit_429: this many ``POST /v1/batches`` answer 429 (with Retry-After) before any succeeds.
    """

    delay_s: float = 0.0
    failed_lines: float = 0.0
    expire: tuple[int, ...] = ()
    expired_done: float = 0.5
    submit_429: int = 0


@dataclass
class _Batch:
    number: int
    body: dict[str, Any]
    created: float  # time.monotonic
    created_at: int  # Unix time
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    finished_at: int | None = None


class BatchDesk:
    """Files and batches of one fault server; ``log`` holds every upload and submission."""

    def __init__(self, answer_chat: Answerer, answer_embedding: Answerer, draw: Draw):
        self._answer_chat, self._answer_embedding, self._draw = answer_chat, answer_embedding, draw
        self.plan = BatchPlan()
        self.seed = 0
        self.retry_after_s = 0.01
        self.reset()

    def reset(self) -> None:
        """Forget every file, batch and count (between tests)."""
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.batches: dict[str, _Batch] = {}
        self.log: list[tuple[str, str, str]] = []  # (event, id, detail)
        self.created_for: Counter[str] = Counter()  # batches created per input file
        self.lines_submitted: Counter[str] = Counter()  # custom ids submitted in a created batch
        self.bodies_seen: Counter[str] = Counter()  # each line body's answers so far
        self.submits = 0  # POST /v1/batches received, 429s included

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{id}", self._file)
        app.router.add_get("/v1/files/{id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches", self._list)
        app.router.add_get("/v1/batches/{id}", self._retrieve)
        app.router.add_post("/v1/batches/{id}/cancel", self._cancel)

    @property
    def pending(self) -> int:
        """Batches created and not yet finished (as far as anyone has looked)."""
        return sum(1 for b in self.batches.values() if b.status == "in_progress")

    # -- files -----------------------------------------------------------------------------

    def _new_file(self, purpose: str, filename: str, data: bytes) -> dict[str, Any]:
        file_id = f"file-fault-{len(self.files) + 1}"
        meta = {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[file_id] = (meta, data)
        return meta

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        upload = form.get("file")
        purpose = str(form.get("purpose") or "")
        if upload is None or not hasattr(upload, "file"):
            return _error(400, "no file in the upload")
        data = upload.file.read()
        meta = self._new_file(purpose, str(getattr(upload, "filename", "") or "input.jsonl"), data)
        self.log.append(("file", meta["id"], hashlib.sha256(data).hexdigest()))
        return web.json_response(meta)

    async def _file(self, request: web.Request) -> web.StreamResponse:
        found = self.files.get(request.match_info["id"])
        return web.json_response(found[0]) if found else _error(404, "no such file")

    async def _content(self, request: web.Request) -> web.StreamResponse:
        found = self.files.get(request.match_info["id"])
        if found is None:
            return _error(404, "no such file")
        return web.Response(body=found[1], content_type="application/octet-stream")

    # -- batches ---------------------------------------------------------------------------

    async def _create(self, request: web.Request) -> web.StreamResponse:
        self.submits += 1
        if self.submits <= self.plan.submit_429:
            self.log.append(("429", "", ""))
            return _error(429, "rate limit reached (fault server)", self.retry_after_s)
        body = await request.json()
        input_file = str(body.get("input_file_id") or "")
        if input_file not in self.files:
            return _error(400, f"no such file: {input_file}")
        batch_id = f"batch-fault-{len(self.batches) + 1}"
        batch = _Batch(len(self.batches) + 1, body, time.monotonic(), int(time.time()))
        self.batches[batch_id] = batch
        self.created_for[input_file] += 1
        for line in _lines(self.files[input_file][1]):
            self.lines_submitted[str(line.get("custom_id"))] += 1
        self.log.append(("batch", batch_id, input_file))
        return web.json_response(self._shape(batch_id, batch))

    async def _retrieve(self, request: web.Request) -> web.StreamResponse:
        batch_id = request.match_info["id"]
        batch = self.batches.get(batch_id)
        if batch is None:
            return _error(404, "no such batch")
        if batch.status == "in_progress" and time.monotonic() - batch.created >= self.plan.delay_s:
            self._finish(batch)
        return web.json_response(self._shape(batch_id, batch))

    async def _list(self, request: web.Request) -> web.StreamResponse:
        data = [self._shape(i, b) for i, b in reversed(self.batches.items())]
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
                "has_more": False,
            }
        )

    async def _cancel(self, request: web.Request) -> web.StreamResponse:
        batch_id = request.match_info["id"]
        batch = self.batches.get(batch_id)
        if batch is None:
            return _error(404, "no such batch")
        if batch.status == "in_progress":
            self._finish(batch, cancelled=True)
        return web.json_response(self._shape(batch_id, batch))

    def _finish(self, batch: _Batch, cancelled: bool = False) -> None:
        """Answer the batch's lines now: output, failed lines and expired ones."""
        expired = cancelled or batch.number in self.plan.expire
        url = str(batch.body.get("endpoint") or "/v1/chat/completions")
        answer = self._answer_embedding if url.endswith("/embeddings") else self._answer_chat
        output: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for k, line in enumerate(_lines(self.files[batch.body["input_file_id"]][1])):
            custom_id = str(line.get("custom_id"))
            head: dict[str, Any] = {"id": f"batch_req_{batch.number}_{k}", "custom_id": custom_id}
            if expired and (
                cancelled or self._draw(self.seed, "done", custom_id) >= self.plan.expired_done
            ):
                code = "batch_cancelled" if cancelled else "batch_expired"
                message = "the batch was cancelled" if cancelled else "the batch expired"
                errors.append(
                    {**head, "response": None, "error": {"code": code, "message": message}}
                )
                continue
            if self._fails(line) < self.plan.failed_lines:
                fail = {"error": {"message": "fault server: failed line", "type": "server_error"}}
                response = {"status_code": 500, "request_id": head["id"], "body": fail}
                errors.append({**head, "response": response, "error": None})
                continue
            body = dict(line.get("body") or {})
            u = self._draw(self.seed, json.dumps(body, sort_keys=True), custom_id)
            status, answered = answer(body, u)
            response = {"status_code": status, "request_id": head["id"], "body": answered}
            (output if status == 200 else errors).append(
                {**head, "response": response, "error": None}
            )
        batch.status = "cancelled" if cancelled else "expired" if expired else "completed"
        batch.finished_at = int(time.time())
        if output:
            batch.output_file_id = self._new_file("batch_output", "output.jsonl", _jsonl(output))[
                "id"
            ]
        if errors:
            batch.error_file_id = self._new_file("batch_output", "errors.jsonl", _jsonl(errors))[
                "id"
            ]
        failed = sum(1 for e in errors if e["error"] is None)
        batch.counts = {
            "total": len(output) + len(errors),
            "completed": len(output),
            "failed": failed,
        }
        self.log.append((batch.status, f"batch-fault-{batch.number}", ""))

    def _fails(self, line: dict[str, Any]) -> float:
        """The draw that fails a line: its body's, the nth time that body is answered."""
        body = json.dumps(line.get("body") or {}, sort_keys=True)
        self.bodies_seen[body] += 1
        return self._draw(self.seed, "fail", body, self.bodies_seen[body])

    def _shape(self, batch_id: str, batch: _Batch) -> dict[str, Any]:
        lines = len(_lines(self.files[batch.body["input_file_id"]][1]))
        finished = batch.finished_at
        return {
            "id": batch_id,
            "object": "batch",
            "endpoint": batch.body.get("endpoint"),
            "errors": None,
            "input_file_id": batch.body.get("input_file_id"),
            "completion_window": batch.body.get("completion_window", "24h"),
            "status": batch.status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": batch.created_at,
            "in_progress_at": batch.created_at,
            "expires_at": batch.created_at + 86400,
            "completed_at": finished if batch.status == "completed" else None,
            "expired_at": finished if batch.status == "expired" else None,
            "cancelled_at": finished if batch.status == "cancelled" else None,
            "request_counts": batch.counts or {"total": lines, "completed": 0, "failed": 0},
            "metadata": batch.body.get("metadata"),
        }


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in data.decode("utf-8").splitlines() if x.strip()]


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def _error(status: int, message: str, retry_after: float | None = None) -> web.Response:
    kind = {429: "rate_limit_error", 404: "not_found_error"}.get(status, "invalid_request_error")
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else None
    body = {"error": {"message": message, "type": kind, "code": None}}
    return web.json_response(body, status=status, headers=headers)
