"""What a metric asks a judge: the messages, the schema an answer must fit, the shape requested.

A value type between the metrics, which build questions, and the judge client, which sends them:
neither imports the other.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

Message = dict[str, str]


@dataclass(frozen=True)
class Question:
    """One request to the judge.

    ``schema`` validates the answer. ``request_shape``, when given, is the JSON schema sent to
    the provider instead of the schema's own, to say more about the wanted answer than validation
    demands (e.g. exactly one verdict per statement); a grammar-constrained local model then
    cannot wander off, while the answer of any judge is still validated as leniently as Ragas
    would read it. ``index`` tells apart repeated generations of the same request.
    ``score_field``, when given, names the answer's property whose value is the score token
    (a criterion's verdict, label or level): the request then asks for log-probabilities, and
    the judge hands back the alternatives at that value's first token (``Weighted``).
    """

    step: str
    messages: list[Message]
    schema: type[BaseModel]
    index: int = 0
    request_shape: dict[str, Any] | None = None
    score_field: str | None = None

    def shape(self) -> dict[str, Any]:
        return self.request_shape or schema_of(self.schema)


@functools.cache
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, built once: pydantic rebuilds it on every call (about a
    millisecond), and every judge step needs it for its key and its request.

    The dict is shared: a caller that adjusts it works on ``schema_copy``.
    """
    return model.model_json_schema()


def schema_copy(model: type[BaseModel]) -> dict[str, Any]:
    """A private copy of the model's JSON schema, to adjust for one request."""
    return copy.deepcopy(schema_of(model))
