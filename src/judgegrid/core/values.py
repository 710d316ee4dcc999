"""The value types every input shares: a whole number, a number, a list whose members differ.

YAML (and JSON) hand pydantic values that are not what they look like: ``repeats: true`` or
``repeats: yes`` is a boolean, which pydantic's lax mode reads as 1 (a run of one repeat, a
1-d embedding); ``.nan`` and ``.inf`` are floats that every range check lets through or
misreads. ``Whole`` and ``Number`` refuse both wherever a number is due (an int still does for
a ``Number``), and ``Distinct`` refuses a list that names one value twice where each value is a
grid column, a probe or a row of a table (``dimensions: [64, 64]`` would make one cell twice).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import (
    AllowInfNan,
    BeforeValidator,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    Strict,
    ValidationInfo,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from judgegrid.core.names import repeats

# A whole number: never a boolean (True is 1 to Python), never "3" or 3.0.
Whole = Annotated[int, Strict()]
# A number: an int or a float, never a boolean, NaN or an infinity.
Number = Annotated[float, Strict(), AllowInfNan(False)]


def _not_a_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


# A whole number that may come as its text, as a mapping's key does once written as JSON (a
# scale's levels in a run's matrix.resolved.yaml); still never a boolean.
WholeKey = Annotated[int, BeforeValidator(_not_a_boolean)]

SequenceT = TypeVar("SequenceT", bound=Sequence[Hashable])


def distinct(values: SequenceT, field: str) -> SequenceT:
    """``values`` if no member repeats; ValueError naming the field and both positions."""
    found = repeats(values)
    if found:
        j, i = found[0]
        raise ValueError(
            f"{values[j]!r} is given twice, as {field}[{i}] and {field}[{j}]; name each once"
        )
    return values


def _distinct(values: SequenceT, info: ValidationInfo) -> SequenceT:
    return distinct(values, info.field_name or "")


class _DistinctMembers:
    """``Annotated[list[...], Distinct]``: checked as it is validated, and said in the JSON
    schema (``uniqueItems``), which the matrix reference and the fuzzer's generators read."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.with_info_after_validator_function(_distinct, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), "uniqueItems": True}


# The members of a list that must differ.
Distinct = _DistinctMembers()
