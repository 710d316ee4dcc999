"""Batch mode: an entry's requests go through the provider's batch API, stage by stage.

A ``BatchQueue`` per batch-mode entry gathers the requests the run has ready: a batch file is
sent once no new request has come for ``gather`` seconds, or once it holds the provider's most
lines or bytes. Every cell runs at once in batch mode, so the first file holds every cell's first
step (statements, generated questions, context verdicts); their answers bring the next step's
requests (one verdict list per statement list), which gather into the next file: the batches
follow the stages.

A file is uploaded (``litellm.acreate_file``), recorded in ``run.sqlite``, submitted
(``litellm.acreate_batch``) and recorded again with its batch id before the run waits for it;
the batch is looked at (``litellm.aretrieve_batch``) at growing intervals until it is done, then
its output and error files are read and every line goes to the request waiting for it by its
``custom_id``. A line's custom id is a digest of the step key and the request, and the attempt:
a resumed run (after a kill) asks the same requests with the same ids, and a batch already
recorded for an id answers it — the batch is looked at again, never sent again. A file recorded
without its batch (killed between the two) is looked for among the provider's batches by its
file id before anything is sent anew.

A line that failed or expired raises ``LineFailed``; ``transport.send`` tries it again under
the retry policy, in the next batch or live (``batch.retry``). Each answered line is priced at
the batch price (litellm's ``*_cost_per_token_batches``, else half the live price, litellm's own
rule) and carries what it would have cost live.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from judgegrid.calls.providers.gateway import (
    batch_token_price,
    call_kwargs,
    litellm_module,
    token_price,
)
from judgegrid.calls.transport import (
    PERMANENT_CODES,
    backoff_seconds,
    describe_failure,
    is_retryable,
    retry_after_seconds,
    status_of,
)
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import JudgegridError
from judgegrid.core.options import BatchMode, ModelOptions, RetryPolicy
from judgegrid.core.records import BATCH_FINISHED, BatchRecord
from judgegrid.store.run_db import RunStore

ENDPOINTS = {"completion": "/v1/chat/completions", "embedding": "/v1/embeddings"}

# Request keys that are litellm's, not the provider's: not written into a batch line.
_NOT_IN_BODY = {"api_base", "timeout", "api_key", "max_retries"}

# A line's outcome: the response body, or why it has none.
Outcome = dict[str, Any] | BaseException


class LineFailed(JudgegridError):
    """A batch line the provider answered with an error, or left undone (expired, cancelled,
    failed batch). ``status_code`` is the line's HTTP status (None: not run), which the retry
    policy reads; ``final``: trying again cannot help (the batch could not be looked at, and
    sending its lines again would pay twice: ``--resume`` looks again)."""

    def __init__(self, message: str, status_code: int | None, final: bool = False):
        super().__init__(message)
        self.status_code, self.final = status_code, final
        self.batch_id: str | None = None


@dataclass
class _Line:
    custom_id: str
    body: dict[str, Any]
    future: asyncio.Future[tuple[dict[str, Any], str]]
    size: int


class BatchQueue:
    """The batch files of one entry (judge or embedding model) of a run."""

    def __init__(
        self,
        label: str,
        model: str,
        kind: str,
        options: ModelOptions,
        mode: BatchMode,
        store: RunStore,
        policy: RetryPolicy,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        api: Any = None,
    ):
        self.label, self.model, self.kind, self.mode = label, model, kind, mode
        self.endpoint = ENDPOINTS[kind]
        self._store, self._policy = store, policy
        self._rng, self._sleep = rng or random.Random(0), sleep
        self._api = api  # litellm, or a stand-in with its five batch functions (tests)
        provider = model.split("/", 1)[0] if "/" in model else "openai"
        self._kwargs: dict[str, Any] = {"custom_llm_provider": provider}
        if options.api_base:
            self._kwargs["api_base"] = options.api_base
        self._kwargs |= call_kwargs(model, options)  # credentials in the api_base as headers
        if options.timeout:
            self._kwargs["timeout"] = options.timeout
        self._open: list[_Line] = []
        self._open_bytes = 0
        self._last_added = 0.0
        self._gatherer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # every line recorded in run.sqlite (this run's and an earlier, killed one's), by id
        self._recorded: dict[str, BatchRecord] = {}
        for record in store.load_batches(label):
            for custom_id in record.custom_ids:
                self._recorded[custom_id] = record
        self._results: dict[str, asyncio.Task[dict[str, Outcome]]] = {}
        self._adoptions: dict[str, asyncio.Task[BatchRecord | None]] = {}
        self.submitted = 0  # batches this process created

    @property
    def api(self) -> Any:
        return self._api if self._api is not None else litellm_module()

    # -- what a request sees ---------------------------------------------------------------

    def line_body(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request as the provider's batch line wants it: the provider's own model name, no
        litellm-only keys."""
        body = {k: v for k, v in request.items() if k not in _NOT_IN_BODY}
        body["model"] = self.model.split("/", 1)[1] if "/" in self.model else self.model
        return body

    async def answer(self, custom_id: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The response body of one line and the batch that answered it; LineFailed else."""
        record = self._recorded.get(custom_id)
        if record is not None and record.batch_id is None:
            record = await self._adopt(record)
        if record is not None and record.batch_id is not None:
            outcome = (await asyncio.shield(self._outcomes(record))).get(custom_id)
            if outcome is None:
                outcome = LineFailed(f"batch {record.batch_id} returned no line {custom_id}", None)
            return _settle(outcome, record.batch_id)
        loop = asyncio.get_running_loop()
        size = len(_line_text(custom_id, self.endpoint, body))
        line = _Line(custom_id, body, loop.create_future(), size)
        if self._open and (
            len(self._open) >= self.mode.max_lines or self._open_bytes + size > self.mode.max_bytes
        ):
            self._flush()  # full: this file goes now, the line starts the next
        self._open.append(line)
        self._open_bytes += size
        self._last_added = loop.time()
        if self._gatherer is None or self._gatherer.done():
            self._gatherer = self._spawn(self._gather())
        return await asyncio.shield(line.future)

    # -- gathering and sending -------------------------------------------------------------

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _gather(self) -> None:
        """Wait until no request has come for ``gather`` seconds, then send what is open."""
        loop = asyncio.get_running_loop()
        while self._open:
            wait = self._last_added + self.mode.gather - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self._flush()

    def _flush(self) -> None:
        lines, self._open, self._open_bytes = self._open, [], 0
        if lines:
            self._spawn(self._send(lines))

    async def _send(self, lines: list[_Line]) -> None:
        """Upload, record, submit, record, wait, route: one batch file's life."""
        try:
            record = await self._submit(lines)
            outcomes = await self._outcomes(record)
        except Exception as exc:
            for line in lines:
                _fail(line.future, exc)
            return
        for line in lines:
            outcome = outcomes.get(line.custom_id)
            if outcome is None:
                message = f"batch {record.batch_id} returned no line {line.custom_id}"
                outcome = LineFailed(message, None)
            try:
                answered = _settle(outcome, str(record.batch_id))
            except Exception as failed:
                _fail(line.future, failed)
                continue
            if not line.future.done():
                line.future.set_result(answered)

    async def _submit(self, lines: list[_Line]) -> BatchRecord:
        text = "".join(_line_text(x.custom_id, self.endpoint, x.body) for x in lines)
        uploaded = await self._retrying(
            "upload a batch file",
            lambda: self.api.acreate_file(
                file=("judgegrid-batch.jsonl", text.encode("utf-8")),
                purpose="batch",
                **self._kwargs,
            ),
        )
        ids = tuple(x.custom_id for x in lines)
        record = BatchRecord(
            uploaded.id, None, self.label, self.endpoint, "uploaded", ids, time.time()
        )
        self._save(record)
        created = await self._retrying("submit a batch", lambda: self._create(record))
        record = _with(record, batch_id=created.id, status=str(created.status or "validating"))
        self._save(record)
        self.submitted += 1
        return record

    async def _create(self, record: BatchRecord) -> Any:
        """Create the batch of an uploaded file, unless the provider already has one for it (a
        submission whose answer was lost): one file is never paid for twice."""
        existing = await self._find_batch(record.file_id)
        if existing is not None:
            return existing
        return await self.api.acreate_batch(
            completion_window=self.mode.completion_window,
            endpoint=self.endpoint,
            input_file_id=record.file_id,
            metadata={"judgegrid_label": self.label[:500]},
            **self._kwargs,
        )

    async def _find_batch(self, file_id: str) -> Any:
        """The provider's batch of this input file, if it lists one."""
        try:
            page = await self.api.alist_batches(limit=100, **self._kwargs)
        except Exception:  # a provider that cannot list: nothing found
            return None
        for batch in getattr(page, "data", None) or []:
            if getattr(batch, "input_file_id", None) == file_id:
                return batch
        return None

    async def _adopt(self, record: BatchRecord) -> BatchRecord | None:
        """A file recorded without its batch (the run was killed in between): its batch if the
        provider has one, else None (the lines are sent anew; an unused file costs nothing)."""
        if record.file_id not in self._adoptions:

            async def find() -> BatchRecord | None:
                batch = await self._find_batch(record.file_id)
                if batch is None:
                    for custom_id in record.custom_ids:
                        self._recorded.pop(custom_id, None)
                    return None
                found = _with(record, batch_id=batch.id, status=str(batch.status))
                self._save(found)
                return found

            self._adoptions[record.file_id] = self._spawn(find())
        return await asyncio.shield(self._adoptions[record.file_id])

    def _save(self, record: BatchRecord) -> None:
        self._store.save_batch(record)
        for custom_id in record.custom_ids:
            self._recorded[custom_id] = record

    async def _retrying(self, what: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        """``fn`` under the retry policy (a 429 on submit waits its Retry-After)."""
        for number in range(1, self._policy.max_attempts + 1):
            try:
                return await fn()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                status = status_of(exc)
                last = number == self._policy.max_attempts
                if status in PERMANENT_CODES or not is_retryable(self._policy, status) or last:
                    message = f"could not {what}: {describe_failure(self.model, exc, status)}"
                    raise LineFailed(message, status) from exc
                wait = retry_after_seconds(exc)
                if wait is None:
                    wait = backoff_seconds(self._policy, number, self._rng)
                await self._sleep(min(wait, self._policy.max_interval))
        raise AssertionError("unreachable: the loop returns or raises")

    # -- waiting and reading ---------------------------------------------------------------

    def _outcomes(self, record: BatchRecord) -> asyncio.Task[dict[str, Outcome]]:
        """The lines of a batch once it is done (looked at once however many lines wait)."""
        batch_id = str(record.batch_id)
        if batch_id not in self._results:
            self._results[batch_id] = self._spawn(self._watch(record))
        return self._results[batch_id]

    async def _watch(self, record: BatchRecord) -> dict[str, Outcome]:
        batch_id = str(record.batch_id)
        interval, failures = self.mode.poll_interval, 0
        batch: Any = None
        while True:
            try:
                batch = await self.api.aretrieve_batch(batch_id=batch_id, **self._kwargs)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures += 1
                status = status_of(exc)
                if failures >= self._policy.max_attempts or status in PERMANENT_CODES:
                    message = (
                        f"batch {batch_id} could not be looked at "
                        f"({describe_failure(self.model, exc, status)}); it may still be "
                        "answered: judgegrid run --resume looks at it again"
                    )
                    raise LineFailed(message, status, final=True) from exc
                batch = None
            if batch is not None and str(batch.status) in BATCH_FINISHED:
                break
            await self._sleep(interval)
            interval = min(interval * 1.5, max(self.mode.max_poll_interval, interval))
        outcomes = await self._read(batch)
        counts: Any = getattr(batch, "request_counts", None)
        detail = json.dumps(
            {
                "counts": counts.model_dump() if counts is not None else None,
                "errors": str(batch.errors) if getattr(batch, "errors", None) else None,
            }
        )
        self._save(_with(record, status=str(batch.status), finished_at=time.time(), detail=detail))
        return outcomes

    async def _read(self, batch: Any) -> dict[str, Outcome]:
        """Every line of a finished batch: its body, or a LineFailed saying why not."""
        outcomes: dict[str, Outcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self._retrying(
                "read a batch's results", functools.partial(self._content, file_id)
            )
            for text in _content_text(content).splitlines():
                if text.strip():
                    line = json.loads(text)
                    outcomes[str(line.get("custom_id"))] = _outcome(line, batch.id)
        status = str(batch.status)
        if status != "completed":  # the lines it holds no answer for were not run
            said = {"expired": "expired", "cancelled": "was cancelled", "failed": "failed"}
            why = f"batch {batch.id} {said.get(status, status)} before the line was run"
            if status == "failed" and getattr(batch, "errors", None):
                why += f": {batch.errors}"
            for custom_id in self._ids_of(batch.id):
                outcomes.setdefault(custom_id, LineFailed(why, None))
        return outcomes

    async def _content(self, file_id: str) -> Any:
        return await self.api.afile_content(file_id=file_id, **self._kwargs)

    def _ids_of(self, batch_id: str) -> list[str]:
        return [c for c, r in self._recorded.items() if r.batch_id == batch_id]


class BatchRequest:
    """One request of a batch-mode entry, as ``transport.send`` sees it (``Deferred``): the
    first attempt goes into a batch, later ones too or live (``batch.retry``)."""

    def __init__(self, queue: BatchQueue, step_key: str, request: dict[str, Any]):
        self._queue = queue
        self.body = queue.line_body(request)
        canonical = json.dumps(self.body, sort_keys=True, ensure_ascii=False, default=str)
        self._id = text_sha(f"{step_key}\x1f{canonical}")[:32]
        self.batch_id: str | None = None
        self.live_cost: float | None = None

    def takes(self, attempt: int) -> bool:
        return attempt == 1 or self._queue.mode.retry == "batch"

    def custom_id(self, attempt: int) -> str:
        return f"{self._id}-{attempt}"

    async def result(self, attempt: int) -> Any:
        """The provider's response, as litellm would have returned it live, priced at the
        batch price (in ``_hidden_params``, which the clients' pricer reads)."""
        self.batch_id = None
        try:
            body, self.batch_id = await self._queue.answer(self.custom_id(attempt), self.body)
        except LineFailed as failed:
            self.batch_id = failed.batch_id
            raise
        litellm = litellm_module()
        usage = body.get("usage") or {}
        tokens_in = int(usage.get("prompt_tokens") or 0)
        tokens_out = int(usage.get("completion_tokens") or 0)
        model = self._queue.model
        if self._queue.kind == "embedding":
            raw = litellm.EmbeddingResponse(**body)
        else:
            raw = litellm.ModelResponse(**body)
        self.live_cost = token_price(model, self._queue.kind, tokens_in, tokens_out)
        hidden = dict(getattr(raw, "_hidden_params", None) or {})
        hidden["response_cost"] = batch_token_price(model, tokens_in, tokens_out)
        hidden["batch_id"] = self.batch_id
        raw._hidden_params = hidden
        return raw


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)
        future.exception()  # marked retrieved: a waiter that was cancelled leaves no warning


def _with(record: BatchRecord, **changes: Any) -> BatchRecord:
    return BatchRecord(**{**record.__dict__, **changes})


def _line_text(custom_id: str, endpoint: str, body: dict[str, Any]) -> str:
    line = {"custom_id": custom_id, "method": "POST", "url": endpoint, "body": body}
    return json.dumps(line, ensure_ascii=False) + "\n"


def _content_text(content: Any) -> str:
    data = getattr(content, "content", content)
    if isinstance(data, bytes | bytearray):
        return data.decode("utf-8")
    return str(getattr(content, "text", data))


def _outcome(line: dict[str, Any], batch_id: str) -> Outcome:
    """One line of an output or error file: the response body, or a LineFailed."""
    response = line.get("response") or {}
    error = line.get("error")
    status = response.get("status_code")
    if status == 200 and not error:
        return dict(response.get("body") or {})
    if error:  # not run: expired, cancelled
        code = error.get("code") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else str(error)
        return LineFailed(f"batch {batch_id}: {code or 'error'}: {message}", None)
    body = response.get("body") or {}
    said = body.get("error", {}).get("message") if isinstance(body.get("error"), dict) else body
    return LineFailed(f"HTTP {status} in batch {batch_id}: {said}", status)


def _settle(outcome: Outcome, batch_id: str) -> tuple[dict[str, Any], str]:
    if isinstance(outcome, LineFailed):
        failed = LineFailed(str(outcome), outcome.status_code, outcome.final)
        failed.batch_id = batch_id
        raise failed
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome, batch_id
