"""The judge client: one schema-checked JSON answer per step, through ``litellm.acompletion``.

Every step is memoised by content: the judge's label, model id and resolved options, the output
mode, the messages, the answer schema, the repeat and the generation index. Two metrics that send
the same request under the same judge, sample and repeat therefore share one call, while repeat r
and repeat r' never share an answer and two judges never do. Answers are kept in the run database,
so a resumed run does not ask again for a step it already has, and in the cross-run cache
(``cache.py``), so a later run does not either. Several generations of one request (strictness)
use the provider's ``n`` where litellm says it is supported.

A question with a ``score_field`` (a criterion's verdict, label or level) also asks for the
tokens' log-probabilities where litellm does not know the provider to refuse them; the
alternatives at the score token (``logprobs.score_alternatives``) are kept in the stored answer
beside it (``ALTERNATIVES``), so a resumed or cached step hands back the same ``Weighted`` as
the call that made it. Its step key names the field: a weighted step never shares an answer
with an unweighted one, which has no alternatives to give.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgegrid.calls.batches import BatchQueue, BatchRequest
from judgegrid.calls.memo import Deliver, Memo
from judgegrid.calls.providers.gateway import (
    Pricer,
    call_kwargs,
    call_timeout,
    litellm_module,
    logprobs_unsupported,
)
from judgegrid.calls.providers.logprobs import reply_tokens, score_alternatives
from judgegrid.calls.transport import Transport, send
from judgegrid.core.context import Weighted
from judgegrid.core.digest import json_sha
from judgegrid.core.errors import JudgegridError, JudgeOutputError
from judgegrid.core.options import ModelOptions
from judgegrid.core.question import Question
from judgegrid.core.usage import Usage
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore

AnswerT = TypeVar("AnswerT", bound=BaseModel)
T = TypeVar("T")

# How many alternatives a weighted request asks for at each token (OpenAI's most), and the key
# under which a weighted step's stored answer keeps those of its score token (a leading
# underscore: no answer schema can have such a field, and pydantic ignores it on validation).
TOP_LOGPROBS = 20
ALTERNATIVES = "_top_logprobs"

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


@dataclass(frozen=True)
class StepRef:
    """One judge step: its content address (``key``) and what is recorded beside its answer."""

    key: str
    step: str
    label: str
    model: str


# A step's answer as stored (the parsed answer as a dict) and what producing it cost.
Answer = tuple[dict[str, Any], Usage]


@dataclass(frozen=True)
class Reply:
    """One choice of a response: its text, finish reason and per-token log-probabilities
    (None when the provider returned none)."""

    text: str
    finish: str | None
    tokens: list[Any] | None = None


def stored_answer(q: Question, parsed: BaseModel, reply: Reply) -> dict[str, Any]:
    """The answer as the memo keeps it: a weighted question's with its score token's
    alternatives (None: the provider gave none, or the value was not among its tokens)."""
    data = parsed.model_dump()
    if q.score_field is not None:
        data[ALTERNATIVES] = score_alternatives(reply.tokens, q.score_field)
    return data


def split_answer(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float] | None]:
    """A stored answer's fields, and its score token's alternatives if it was weighted."""
    fields = {k: v for k, v in data.items() if k != ALTERNATIVES}
    return fields, data.get(ALTERNATIVES)


def answer_memo(store: RunStore, cache: ResultCache | None = None) -> Memo[StepRef, Answer]:
    """The memo of judge answers: the run database, then the cross-run cache; answers are saved
    to both. A failed step is shared with the other cells of this run that ask it."""

    def find(ref: StepRef) -> Answer | None:
        stored = store.load_step(ref.key)
        if stored is not None or cache is None:
            return stored
        cached = cache.get_answer(ref.key)
        if cached is None:
            return None
        store.save_step(ref.key, ref.step, ref.label, cached[0], Usage())  # no call this run
        return cached[0], Usage()

    def keep(ref: StepRef, answer: Answer) -> None:
        data, usage = answer
        store.save_step(ref.key, ref.step, ref.label, data, usage)
        if cache is not None:
            cache.put_answer(
                ref.key,
                model=ref.model,
                label=ref.label,
                step=ref.step,
                answer=data,
                usage=usage.as_dict(),
            )

    return Memo(find, keep, share_failures=True)


def judge_identity(label: str, model: str, options: ModelOptions, output_mode: str) -> dict:
    """The part of every step key that is the judge's (dumped once per judge, not per step)."""
    return {
        "label": label,
        "model": model,
        # the resolved output mode stands for the option, so "auto" and what it resolves
        # to share answers (and answers cached before the option existed still match)
        "options": options.model_dump(exclude={"api_key_env", "timeout", "output_mode"}),
        "output_mode": output_mode,
    }


def key_of_step(identity: dict, q: Question, repeat: int) -> str:
    """A step's content address: the judge's identity, the request and its repeat."""
    step: dict[str, Any] = {
        "step": q.step,
        "messages": q.messages,
        "shape": q.shape(),
        "repeat": repeat,
        "index": q.index,
    }
    if q.score_field is not None:  # only then: the keys of unweighted steps stay as they were
        step["weighted"] = {"score_field": q.score_field, "top_logprobs": TOP_LOGPROBS}
    return json_sha({**identity, **step})


def step_key(
    label: str, model: str, options: ModelOptions, output_mode: str, q: Question, repeat: int
) -> str:
    """A step's content address, also for ``judgegrid plan``, which looks answers up unasked."""
    return key_of_step(judge_identity(label, model, options, output_mode), q, repeat)


class JudgeModel:
    """One judge of the matrix: its model id, resolved options and the run's shared services."""

    def __init__(
        self,
        label: str,
        model: str,
        options: ModelOptions,
        transport: Transport,
        store: RunStore,
        cache: ResultCache | None = None,
        batch: BatchQueue | None = None,
    ):
        """``batch``: the entry's batch queue in batch mode (its requests go into batches)."""
        self.label, self.model, self.options = label, model, options
        self._transport, self._store, self._batch = transport, store, batch
        self._memo = answer_memo(store, cache)
        self.output_mode = (
            output_mode_of(model) if options.output_mode == "auto" else options.output_mode
        )
        self.supports_n = supports_n(model)
        self.asks_logprobs = not logprobs_unsupported(model)
        self._price = Pricer(model)
        # the part of every step key that is the judge's: dumped once, not per step
        self._identity = judge_identity(label, model, options, self.output_mode)

    def bind(self, sample_id: str, repeat: int, generations: int = 0) -> BoundJudge:
        return BoundJudge(self, sample_id, repeat, generations)

    def step_key(self, q: Question, repeat: int) -> str:
        """The content address of one answer: in the run database and the cross-run cache."""
        return key_of_step(self._identity, q, repeat)

    def _ref(self, q: Question, repeat: int) -> StepRef:
        return StepRef(self.step_key(q, repeat), q.step, self.label, self.model)

    def _name(self, refs: list[StepRef]) -> None:
        """Steps are named before any call, so the calls of a failed step can be read too."""
        for ref in refs:
            self._store.name_step(ref.key, ref.step, ref.label)

    async def answer(self, q: Question, repeat: int) -> tuple[BaseModel, Usage]:
        ref = self._ref(q, repeat)

        async def compute() -> Answer:
            self._name([ref])
            return await self._ask(ref.key, q, repeat)

        data, usage = await self._memo.once(ref, compute)
        return q.schema.model_validate(split_answer(data)[0]), usage

    async def answers(
        self, q: Question, repeat: int, n: int, generations: int = 0
    ) -> list[tuple[BaseModel, Usage]]:
        """Generations 0..n-1 of one request, validated (``stored_answers``)."""
        stored = await self.stored_answers(q, repeat, n, generations)
        return [(q.schema.model_validate(split_answer(data)[0]), usage) for data, usage in stored]

    async def weighted_answers(
        self, q: Question, repeat: int, n: int, generations: int = 0
    ) -> list[tuple[Weighted, Usage]]:
        """Generations 0..n-1 of a weighted request, each with its score token's alternatives
        (as stored: a resumed or cached step gives what the call gave)."""
        out = []
        for data, usage in await self.stored_answers(q, repeat, n, generations):
            fields, alternatives = split_answer(data)
            out.append((Weighted(q.schema.model_validate(fields), alternatives), usage))
        return out

    async def stored_answers(
        self, q: Question, repeat: int, n: int, generations: int = 0
    ) -> list[Answer]:
        """Generations 0..n-1 of one request as stored (``q.index`` is ignored).

        ``generations`` (≥ n) is how many the grid will ever want of this request: they are
        produced together, in one call with the provider's ``n`` where litellm says the model
        supports it, else in separate calls. Generation i is the same step either way, so the
        memo and the cache do not care which way it was made.
        """
        wanted = [replace(q, index=i) for i in range(max(n, generations))]
        refs = [self._ref(x, repeat) for x in wanted]
        keys = [ref.key for ref in refs]

        async def compute(missing: list[int], deliver: Deliver[Answer]) -> None:
            self._name([refs[i] for i in missing])
            if self.supports_n and len(missing) > 1:
                await self._ask_n(keys, wanted, missing, repeat, deliver)
            else:
                await asyncio.gather(
                    *(self._ask_into(deliver, i, keys[i], wanted[i], repeat) for i in missing)
                )

        outcomes = await self._memo.many(refs, compute)
        results = []
        for outcome in outcomes[:n]:
            if isinstance(outcome, BaseException):
                raise outcome
            results.append(outcome)
        return results

    async def _ask(self, key: str, q: Question, repeat: int) -> Answer:
        replies, usage = await self._complete(key, q, q.messages, repeat)
        return await self._parse_or_correct(key, q, repeat, replies[0], usage)

    async def _ask_into(
        self, deliver: Deliver[Answer], i: int, key: str, q: Question, repeat: int
    ) -> None:
        try:
            deliver(i, await self._ask(key, q, repeat))
        except Exception as exc:
            deliver(i, exc)

    async def _ask_n(
        self,
        keys: list[str],
        wanted: list[Question],
        missing: list[int],
        repeat: int,
        deliver: Deliver[Answer],
    ) -> None:
        """One call with ``n`` choices; choice j is generation missing[j]. A choice that does not
        parse gets its own corrective call; choices the provider did not return, their own call."""
        first = wanted[missing[0]]
        replies, usage = await self._complete(
            keys[missing[0]], first, first.messages, repeat, n=len(missing)
        )

        later = []
        for j, i in enumerate(missing):
            if j >= len(replies):  # the provider returned fewer choices than asked for
                later.append(self._ask_into(deliver, i, keys[i], wanted[i], repeat))
                continue
            reply, x = replies[j], wanted[i]
            share = usage if j == 0 else Usage()  # the call's cost is booked once
            try:  # parsed here, in this task: an interrupt now cannot lose an answer in hand
                parsed = parse_answer(reply.text, x.schema, reply.finish)
                deliver(i, (stored_answer(x, parsed, reply), share))
            except JudgeOutputError as exc:
                if exc.truncated:
                    deliver(i, exc)
                else:
                    later.append(self._correct_into(deliver, i, keys[i], x, repeat, reply, share))
        await asyncio.gather(*later)

    async def _correct_into(
        self,
        deliver: Deliver[Answer],
        i: int,
        key: str,
        q: Question,
        repeat: int,
        reply: Reply,
        usage: Usage,
    ) -> None:
        try:
            deliver(i, await self._parse_or_correct(key, q, repeat, reply, usage))
        except Exception as exc:
            deliver(i, exc)

    async def _parse_or_correct(
        self, key: str, q: Question, repeat: int, reply: Reply, usage: Usage
    ) -> Answer:
        """Validate a reply; if it does not fit the schema, ask once more showing the error.
        A weighted answer keeps the alternatives of the reply that was kept."""
        text = reply.text
        try:
            return stored_answer(q, parse_answer(text, q.schema, reply.finish), reply), usage
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
                replies, usage2 = await self._complete(key, q, retry_messages, repeat)
            except JudgegridError as failed:
                failed.usage = Usage.total(usage, failed.usage)
                raise
            second_reply = replies[0]
            total = Usage.total(usage, usage2)
            try:
                parsed = parse_answer(second_reply.text, q.schema, second_reply.finish)
                return stored_answer(q, parsed, second_reply), total
            except JudgeOutputError as second:
                second.args = (f"{second} (after one corrective retry)",)
                second.usage = total
                raise second from None

    async def _complete(
        self, key: str, q: Question, messages: list[dict[str, str]], repeat: int, n: int = 1
    ) -> tuple[list[Reply], Usage]:
        """One request (with its retries): a reply per choice, and the usage."""
        litellm = litellm_module()
        seed = derive_seed(self.options.seed, repeat, q.index)
        request = self._request(messages, q, seed)
        if n > 1:
            request["n"] = n  # the calls table shows which requests used the provider's n
        extra = call_kwargs(self.model, self.options)

        def read(raw: Any) -> tuple[str, Usage, str | None]:
            replies = _choices(raw)
            texts, finishes = [r.text for r in replies], [r.finish for r in replies]
            usage = Usage(
                calls=1,
                tokens_in=_tokens(raw, "prompt_tokens"),
                tokens_out=_tokens(raw, "completion_tokens"),
                cost=self._price(raw),
            )
            shown = texts[0] if len(texts) == 1 else json.dumps(texts, ensure_ascii=False)
            return shown, usage, ",".join(str(f) for f in finishes)

        raw, _, usage = await send(
            kind="completion",
            model=self.model,
            label=self.label,
            step_key=key,
            request=request,
            call=lambda: litellm.acompletion(**(request | extra)),
            read=read,
            transport=self._transport,
            tokens_estimate=_token_guess(messages, self.options.max_tokens, n),
            deferred=BatchRequest(self._batch, key, request) if self._batch else None,
        )
        return _choices(raw), usage

    def _request(
        self, messages: list[dict[str, str]], q: Question, seed: int | None
    ) -> dict[str, Any]:
        """The keyword arguments for litellm, without the key (this dict is logged)."""
        o = self.options
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        for name in ("temperature", "max_tokens", "top_p", "api_base"):
            if getattr(o, name) is not None:
                request[name] = getattr(o, name)
        if (timeout := call_timeout(self.model, o, "completion")) is not None:
            request["timeout"] = timeout  # the calls table shows the timeout each call had
        if seed is not None:
            request["seed"] = seed
        if self.output_mode == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": q.schema.__name__, "schema": q.shape()},
            }
        elif self.output_mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        if q.score_field is not None and self.asks_logprobs:
            request |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        request.update(o.extra)
        return request


class BoundJudge:
    """A judge bound to one sample and repeat, adding up what the cell it serves has used.

    ``generations`` is the most generations of one request any cell of this metric wants (the
    largest strictness): they are made together, whichever cell asks first.
    """

    def __init__(self, model: JudgeModel, sample_id: str, repeat: int, generations: int = 0):
        self._model, self._repeat, self._generations = model, repeat, generations
        self.sample_id = sample_id
        self.usage = Usage()

    async def ask(self, q: Question) -> Any:
        try:
            answer, usage = await self._model.answer(q, self._repeat)
        except JudgegridError as exc:
            self._count_failed(exc)
            raise
        self.usage.add(usage)
        return answer

    async def ask_many(self, q: Question, n: int) -> list[Any]:
        return await self._counted(self._model.answers(q, self._repeat, n, self._generations))

    async def ask_weighted(self, q: Question, n: int = 1) -> list[Weighted]:
        """Generations 0..n-1 of a request with ``q.score_field`` set, as ``ask_many``, each
        with its score token's alternatives (None where the provider gave none)."""
        if q.score_field is None:
            raise ValueError(f"step {q.step!r}: a weighted question names its score_field")
        pending = self._model.weighted_answers(q, self._repeat, n, self._generations)
        return await self._counted(pending)

    async def _counted(self, pending: Awaitable[list[tuple[T, Usage]]]) -> list[T]:
        """The answers of several generations, their usage added to the cell's."""
        try:
            results = await pending
        except JudgegridError as exc:
            self._count_failed(exc)
            raise
        for _, usage in results:
            self.usage.add(usage)
        return [answer for answer, _ in results]

    def _count_failed(self, exc: JudgegridError) -> None:
        """The calls a failed step made count for the cell too."""
        if exc.usage is not None:
            self.usage.add(exc.usage)


def output_mode_of(model: str) -> str:
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


def supports_n(model: str) -> bool:
    """Whether litellm says the provider takes ``n`` (several choices from one request)."""
    if model.startswith("local/"):
        return False
    litellm = litellm_module()
    try:
        return "n" in (litellm.get_supported_openai_params(model=model) or [])
    except Exception:
        return False


def _choices(raw: Any) -> list[Reply]:
    return [
        Reply(c.message.content or "", getattr(c, "finish_reason", None), reply_tokens(c))
        for c in raw.choices
    ]


def _token_guess(messages: list[dict[str, str]], max_tokens: int | None, n: int) -> int:
    """Tokens a request may use, for a tokens-per-minute limit: ~4 characters a token in, and
    max_tokens (or 256) out per choice. The provider's count corrects it after the call."""
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    return chars // 4 + (max_tokens or 256) * n


def _tokens(raw: Any, name: str) -> int:
    usage = getattr(raw, "usage", None)
    return int(getattr(usage, name, 0) or 0) if usage is not None else 0
