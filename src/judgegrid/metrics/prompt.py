"""Prompts as typed objects: an instruction, an input model, an output model, typed examples.

Every judge step of every metric is one ``Prompt``; ``render`` turns it and one input into the
text the judge reads, the same way for all of them:

    <instruction>
    Reply with JSON: <reply format>.

    <Field title>: <value>          (one line per input field, for each example)
    JSON: <the example's output>

    <Field title>: <value>          (the input to judge)
    JSON:

An input field is labelled by its ``title`` and written as text, or as JSON when it is a list; a
field may format itself with a serializer (a score as ``0.67``). An example's output is written
as the output model dumps it (only the fields the example sets, in the model's order). The text
is what the cross-run cache keys on: ``tests/golden/prompts.json`` pins it byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from judgegrid.question import Message

InputT = TypeVar("InputT", bound=BaseModel)
OutputT = TypeVar("OutputT", bound=BaseModel)

SYSTEM_PROMPT = (
    "You are a careful evaluator of question-answering systems. "
    "Reply with one JSON object that matches the requested format, and nothing else."
)


@dataclass(frozen=True)
class Example(Generic[InputT, OutputT]):
    """One few-shot example: an input and the answer a good judge gives to it."""

    input: InputT
    output: OutputT


@dataclass(frozen=True)
class Prompt(Generic[InputT, OutputT]):
    """A judge step's prompt. ``output`` is the answer schema, ``reply_format`` the JSON shape
    spelled out for the judge (small models follow an example better than a schema)."""

    instruction: str
    input: type[InputT]
    output: type[OutputT]
    reply_format: str
    examples: tuple[Example[InputT, OutputT], ...] = ()

    def render(self, data: InputT) -> str:
        """The user prompt for one input: instruction, examples, then the input."""
        lines = [self.instruction, f"Reply with JSON: {self.reply_format}.", ""]
        for example in self.examples:
            output = example.output.model_dump(exclude_unset=True)
            lines += [*_input_lines(example.input), f"JSON: {json.dumps(output)}", ""]
        return "\n".join([*lines, *_input_lines(data), "JSON:"])

    def messages(self, data: InputT) -> list[Message]:
        """The two messages a judge step sends: the fixed system line and the rendered prompt."""
        return chat(self.render(data))


def chat(user_prompt: str) -> list[Message]:
    """A fixed system line and the task prompt."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_prompt},
    ]


def _input_lines(data: BaseModel) -> list[str]:
    values = data.model_dump()
    return [
        f"{field.title or name}: {_as_text(values[name])}"
        for name, field in type(data).model_fields.items()
    ]


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
