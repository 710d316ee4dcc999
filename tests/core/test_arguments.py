"""``checked``: a public function's arguments held to its own annotations, before its body."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from judgegrid.core.arguments import checked, type_text
from judgegrid.core.errors import OptionError

calls: list[str] = []


class Inner(BaseModel):
    n: int


@checked
def door(
    path: str | Path,
    *,
    count: Annotated[int, Field(ge=1)] | None = None,
    names: dict[str, str] | None = None,
) -> str:
    """A door."""
    calls.append(str(path))
    Inner.model_validate({"n": "not a number"})  # the body's own ValidationError
    return "unreachable"


@checked
async def async_door(value: int) -> int:
    return value + 1


def test_wrong_types_are_named_with_the_type_before_the_body_runs():
    calls.clear()
    cases = {
        "path": lambda: door(123),
        "count": lambda: door("x", count="2"),
        "names": lambda: door("x", names={"a": 5}),
    }
    for name, call in cases.items():
        with pytest.raises(OptionError) as refused:
            call()
        assert str(refused.value).startswith(f"door: {name}: expected"), refused.value
    assert calls == []


def test_range_missing_and_misspelt_arguments_are_said():
    with pytest.raises(OptionError, match=r"count: expected int \(≥ 1\) or None, got 0"):
        door("x", count=0)
    with pytest.raises(OptionError, match="path: required argument is missing"):
        door()
    with pytest.raises(OptionError, match="cuont: unknown argument; did you mean 'count'"):
        door("x", cuont=2)


def test_a_validation_error_of_the_body_is_not_an_argument_s():
    with pytest.raises(Exception) as raised:
        door("x", count=1)
    assert not isinstance(raised.value, OptionError)
    assert calls[-1] == "x"


def test_the_values_reach_the_function_as_given_and_coroutines_stay_coroutines():
    assert inspect.iscoroutinefunction(async_door)
    assert asyncio.run(async_door(1)) == 2
    with pytest.raises(OptionError, match="value: expected int, got str"):
        asyncio.run(async_door("1"))
    assert inspect.signature(door).parameters["count"].default is None
    assert door.__doc__ == "A door."


def test_type_text_reads_as_a_sentence():
    assert type_text(int | None) == "int or None"
    assert type_text(Annotated[float, Field(gt=0, lt=1)]) == "float (> 0, < 1)"
    assert type_text(dict[str, str]) == "dict[str, str]"
