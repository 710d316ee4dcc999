"""Prompts as typed objects: an instruction, an input model, an output model, typed examples.

Every judge step of every metric is one ``Prompt``; ``render`` turns it and one input into the
text the judge reads, the same way for all of them:

    <instruction>
    Write <what the step writes> in <language>.      (only for a sample in another language)
    Reply with JSON: <reply format>.

    <Field title>: <value>          (one line per input field, for each example)
    JSON: <the example's output>

    <Field title>: <value>          (the input to judge)
    JSON:

An input field is labelled by its ``title`` and written as text, or as JSON when it is a list; a
field may format itself with a serializer (a score as ``0.67``). An example's output is written
as the output model dumps it (only the fields the example sets, in the model's order). The text
is what the cross-run cache keys on: ``tests/golden/prompts.json`` pins it byte for byte.

The prompts are English. A step that writes text to be compared with the sample's own (the
question ResponseRelevancy embeds beside the user's, the statements of an answer) or shown to
people (a reason) names what it writes (``writes``); for a sample whose ``language`` is not
English it is asked to write it in that language, so the generated question meets the user's in
one language and the statements quote the answer as it is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from judgegrid.core.question import Message
from judgegrid.core.sample import language_name

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
    writes: str = ""  # the text it writes, e.g. "the question": asked for in the sample's language

    def render(self, data: InputT, language: str | None = None) -> str:
        """The user prompt for one input in the sample's ``language`` (a BCP 47 tag; None or
        English: no language line): instruction, examples, then the input."""
        lines = [self.instruction, *self._language_line(language)]
        lines += [f"Reply with JSON: {self.reply_format}.", ""]
        for example in self.examples:
            output = example.output.model_dump(exclude_unset=True)
            lines += [*_input_lines(example.input), f"JSON: {json.dumps(output)}", ""]
        return "\n".join([*lines, *_input_lines(data), "JSON:"])

    def messages(self, data: InputT, language: str | None = None) -> list[Message]:
        """The two messages a judge step sends: the fixed system line and the rendered prompt."""
        return chat(self.render(data, language))

    def _language_line(self, language: str | None) -> list[str]:
        if not (self.writes and language) or language.split("-")[0] == "en":
            return []
        return [f"Write {self.writes} in {language_name(language)}."]


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
