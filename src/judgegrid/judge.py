"""The judge client: one schema-checked JSON answer per step, through ``litellm.acompletion``.

Every step is memoised by content: the judge's label and resolved options, the messages, the
answer schema, the repeat and the generation index. Two metrics that send the same request under
the same judge, sample and repeat therefore share one call, while repeat r and repeat r' never
share an answer and two judges never do. Answers are kept in the run database, so a resumed run
does not ask again for a step it already has.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgegrid.errors import JudgegridError, JudgeOutputError
from judgegrid.matrix import ModelOptions, RetryPolicy
from judgegrid.metrics.base import Question
from judgegrid.providers import litellm_module
from judgegrid.store import RunStore
from judgegrid.transport import Limits, Usage, send

AnswerT = TypeVar("AnswerT", bound=BaseModel)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def extract_json(text: str) -> Any:
    """The first JSON object in a reply, tolerating code fences and prose around it."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        pass
    start = cleaned.find("{")
    if start < 0:
        raise JudgeOutputError("the reply contains no JSON object", raw=text)
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(cleaned[start:])
    except json.JSONDecodeError as exc:
        raise JudgeOutputError(f"the reply is not valid JSON ({exc.msg})", raw=text) from None
    return value


# Finish reasons that mean the reply was cut short, and how a failure caused by them is reported.
CUT_OFF = {
    "length": "the reply was cut off at max_tokens",
    "repetition": "the reply was cut off because the model kept repeating itself",
}


def parse_answer(text: str, schema: type[AnswerT], finish_reason: str | None = None) -> AnswerT:
    """Validate a reply against the answer schema; say when truncation is the cause."""
    cut = CUT_OFF.get(finish_reason or "")
    truncated = cut is not None
    try:
        return schema.model_validate(extract_json(text))
    except JudgeOutputError as exc:
        if cut:
            raise JudgeOutputError(f"{cut} ({exc})", raw=text, truncated=True) from None
        raise
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = f"the reply does not fit the {schema.__name__} schema: {where}: {first['msg']}"
        raise JudgeOutputError(message, raw=text, truncated=truncated) from None


def derive_seed(base: int | None, repeat: int, index: int) -> int | None:
    """Distinct, reproducible seeds per repeat and generation, so repeats are real repeats."""
    return None if base is None else base + 1000 * repeat + index


class StepMemo:
    """Each step computed once per run: in-flight requests are shared, finished ones stored."""

    def __init__(self, store: RunStore):
        self._store = store
        self._inflight: dict[str, asyncio.Future[tuple[dict[str, Any], Usage]]] = {}

    async def once(
        self,
        key: str,
        step: str,
        label: str,
        compute: Callable[[], Awaitable[tuple[dict[str, Any], Usage]]],
    ) -> tuple[dict[str, Any], Usage]:
        if key in self._inflight:
            return await asyncio.shield(self._inflight[key])
        stored = self._store.load_step(key)
        if stored is not None:
            return stored
        self._store.name_step(key, step, label)
        future: asyncio.Future[tuple[dict[str, Any], Usage]] = (
            asyncio.get_running_loop().create_future()
        )
        self._inflight[key] = future
        try:
            answer, usage = await compute()
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                del self._inflight[key]  # an interrupted step is asked again on resume
                future.cancel()
            else:
                future.set_exception(exc)
                future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        self._store.save_step(key, step, label, answer, usage)
        future.set_result((answer, usage))
        return answer, usage


class JudgeModel:
    """One judge of the matrix: its model id, resolved options and the run's shared services."""

    def __init__(
        self,
        label: str,
        model: str,
        options: ModelOptions,
        policy: RetryPolicy,
        limits: Limits,
        store: RunStore,
        memo: StepMemo,
        rng: random.Random,
    ):
        self.label, self.model, self.options = label, model, options
        self._policy, self._limits, self._store, self._memo, self._rng = (
            policy,
            limits,
            store,
            memo,
            rng,
        )
        self.output_mode = _output_mode(model)

    def bind(self, sample_id: str, repeat: int) -> BoundJudge:
        return BoundJudge(self, sample_id, repeat)

    def step_key(self, q: Question, repeat: int) -> str:
        identity = {
            "label": self.label,
            "model": self.model,
            "options": self.options.model_dump(exclude={"api_key_env", "timeout"}),
            "step": q.step,
            "messages": q.messages,
            "shape": q.shape(),
            "repeat": repeat,
            "index": q.index,
        }
        blob = json.dumps(identity, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    async def answer(self, q: Question, repeat: int) -> tuple[BaseModel, Usage]:
        key = self.step_key(q, repeat)

        async def compute() -> tuple[dict[str, Any], Usage]:
            parsed, usage = await self._ask_with_one_correction(key, q, repeat)
            return parsed.model_dump(), usage

        data, usage = await self._memo.once(key, q.step, self.label, compute)
        return q.schema.model_validate(data), usage

    async def _ask_with_one_correction(
        self, key: str, q: Question, repeat: int
    ) -> tuple[BaseModel, Usage]:
        """Ask; on an answer that does not fit the schema, ask once more showing the error."""
        text, finish, usage = await self._complete(key, q, q.messages, repeat)
        try:
            return parse_answer(text, q.schema, finish), usage
        except JudgeOutputError as first:
            first.usage = usage
            if first.truncated:
                raise
            retry_messages = [
                *q.messages,
                {"role": "assistant", "content": text},
                {
                    "role": "user",
                    "content": f"That reply was not usable: {first}. "
                    "Reply again with only the JSON object.",
                },
            ]
            try:
                text2, finish2, usage2 = await self._complete(key, q, retry_messages, repeat)
            except JudgegridError as failed:
                failed.usage = _plus(usage, failed.usage)
                raise
            usage.add(usage2)
            try:
                return parse_answer(text2, q.schema, finish2), usage
            except JudgeOutputError as second:
                second.args = (f"{second} (after one corrective retry)",)
                second.usage = usage
                raise second from None

    async def _complete(
        self, key: str, q: Question, messages: list[dict[str, str]], repeat: int
    ) -> tuple[str, str | None, Usage]:
        litellm = litellm_module()
        seed = derive_seed(self.options.seed, repeat, q.index)
        request = self._request(messages, q, seed)
        secret = (
            {"api_key": os.environ[self.options.api_key_env]}
            if (self.options.api_key_env and self.options.api_key_env in os.environ)
            else {}
        )

        def read(raw: Any) -> tuple[str, Usage, str | None]:
            choice = raw.choices[0]
            text = choice.message.content or ""
            usage = Usage(
                calls=1,
                tokens_in=_tokens(raw, "prompt_tokens"),
                tokens_out=_tokens(raw, "completion_tokens"),
                cost=self._cost(raw),
            )
            return text, usage, getattr(choice, "finish_reason", None)

        raw, text, usage = await send(
            kind="completion",
            model=self.model,
            label=self.label,
            step_key=key,
            request=request,
            call=lambda: litellm.acompletion(**request, **secret),
            read=read,
            policy=self._policy,
            limits=self._limits,
            recorder=self._store,
            rng=self._rng,
        )
        return text, getattr(raw.choices[0], "finish_reason", None), usage

    def _request(
        self, messages: list[dict[str, str]], q: Question, seed: int | None
    ) -> dict[str, Any]:
        """The keyword arguments for litellm, without the key (this dict is logged)."""
        o = self.options
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        for name in ("temperature", "max_tokens", "top_p", "api_base", "timeout"):
            if getattr(o, name) is not None:
                request[name] = getattr(o, name)
        if seed is not None:
            request["seed"] = seed
        if self.output_mode == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": q.schema.__name__, "schema": q.shape()},
            }
        elif self.output_mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        request.update(o.extra)
        return request

    def _cost(self, raw: Any) -> float | None:
        if self.model.startswith("local/"):
            return 0.0
        litellm = litellm_module()

        try:
            return float(litellm.completion_cost(completion_response=raw))
        except Exception:  # litellm raises for a model missing from its price table
            return None


class BoundJudge:
    """A judge bound to one sample and repeat, adding up what the cell it serves has used."""

    def __init__(self, model: JudgeModel, sample_id: str, repeat: int):
        self._model, self._repeat = model, repeat
        self.sample_id = sample_id
        self.usage = Usage()

    async def ask(self, q: Question) -> Any:
        try:
            answer, usage = await self._model.answer(q, self._repeat)
        except JudgegridError as exc:  # the calls a failed step made count for the cell too
            if exc.usage is not None:
                self.usage.add(exc.usage)
            raise
        self.usage.add(usage)
        return answer


def _plus(a: Usage, b: Usage | None) -> Usage:
    total = Usage()
    total.add(a)
    if b is not None:
        total.add(b)
    return total


def _output_mode(model: str) -> str:
    """json_schema where the provider enforces a schema, json_object where only JSON mode exists."""
    if model.startswith("local/"):
        return "json_schema"
    litellm = litellm_module()

    try:
        if litellm.supports_response_schema(model=model):
            return "json_schema"
        params = litellm.get_supported_openai_params(model=model) or []
        return "json_object" if "response_format" in params else "instructions"
    except Exception:  # unknown to litellm's tables: rely on the prompt's instructions
        return "instructions"


def _tokens(raw: Any, name: str) -> int:
    usage = getattr(raw, "usage", None)
    return int(getattr(usage, name, 0) or 0) if usage is not None else 0
