"""The arguments of a public function checked against its type hints before its body runs.

Every public function of judgegrid is a door: a wrong type there (``workers="2"``,
``columns=["a"]``, ``load_run(123)``) must be refused with the argument's name and the type it
takes, before any directory is made or any model called, not surface later as a TypeError deep
inside. ``checked`` reads the function's own annotations with pydantic's ``validate_call`` in
strict mode (no "2" for 2), so the signature is the one statement of what each argument takes;
ranges are written there too (``Annotated[int, Field(ge=1)]``). The function then runs on the
values exactly as given.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import ConfigDict, ValidationError, validate_call

from judgegrid.core.errors import OptionError, Problem

F = TypeVar("F", bound=Callable[..., Any])

_STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)
# pydantic error types that say a value is out of range rather than of the wrong type: their
# own message ("greater than or equal to 1") is the useful one
_RANGE_ERRORS = (
    "greater_than",
    "greater_than_equal",
    "less_than",
    "less_than_equal",
    "too_short",
    "too_long",
    "string_too_short",
    "string_too_long",
    "finite_number",
    "literal_error",
)


def checked(function: F) -> F:
    """``function`` with its arguments checked first: OptionError naming each bad argument and
    the type (or range) it takes; missing and misspelt keywords are named the same way."""
    check = _argument_checker(function)
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def checked_coroutine(*args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return await function(*args, **kwargs)

        return cast(F, checked_coroutine)

    @functools.wraps(function)
    def checked_function(*args: Any, **kwargs: Any) -> Any:
        check(args, kwargs)
        return function(*args, **kwargs)

    return cast(F, checked_function)


def _argument_checker(
    function: Callable[..., Any],
) -> Callable[[tuple[Any, ...], dict[str, Any]], None]:
    """A callable that validates (args, kwargs) against ``function``'s signature, and only that:
    a ValidationError raised inside the function's body is never mistaken for an argument's."""

    @functools.wraps(function)
    def arguments_only(*args: Any, **kwargs: Any) -> None:
        return None

    arguments_only.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    validator = validate_call(config=_STRICT)(arguments_only)
    names = list(inspect.signature(function).parameters)

    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        try:
            validator(*args, **kwargs)
        except ValidationError as exc:
            bound = _given(function, args, kwargs)
            raise argument_error(function, exc, bound, names) from None

    return check


def _given(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The values given, by parameter name (as far as they can be bound)."""
    try:
        return dict(inspect.signature(function).bind_partial(*args, **kwargs).arguments)
    except TypeError:
        return dict(kwargs)


def argument_error(
    function: Callable[..., Any], exc: ValidationError, given: dict[str, Any], names: list[str]
) -> OptionError:
    """One OptionError with a Problem per bad argument, in the arguments' order."""
    hints = _hints(function)
    problems: dict[str, Problem] = {}
    for err in exc.errors():
        first = err["loc"][0] if err["loc"] else ""
        # a positional argument is located by its index
        name = names[first] if isinstance(first, int) and first < len(names) else str(first)
        if name in problems:
            continue  # a union gives one error per member: one line per argument
        problems[name] = _problem(name, err, given, hints, names)
    return OptionError(function.__name__, list(problems.values()))


def _problem(
    name: str, err: Any, given: dict[str, Any], hints: dict[str, Any], names: list[str]
) -> Problem:
    kind = err["type"]
    if kind.startswith("missing"):  # missing_argument, missing_keyword_only_argument, …
        return Problem(name, "required argument is missing")
    if kind == "unexpected_keyword_argument":
        guess = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean '{guess[0]}'?" if guess else f"expected one of {', '.join(names)}"
        return Problem(name, f"unknown argument; {hint}")
    if kind == "unexpected_positional_argument":
        return Problem("", f"too many positional arguments; takes {', '.join(names)}")
    value = given.get(name, err.get("input"))
    shown = _shown(value)
    out_of_range = any(kind.endswith(r) for r in _RANGE_ERRORS) and len(err["loc"]) == 1
    if name not in hints:
        return Problem(name, f"{err['msg']} (got {shown})")
    got = shown if out_of_range else f"{type(value).__name__} {shown}"
    return Problem(name, f"expected {type_text(hints[name])}, got {got}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _hints(function: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception:  # a name only imported for type checking: the written text will do
        return {k: v for k, v in function.__annotations__.items()}


def type_text(hint: Any) -> str:
    """A type hint as a reader would say it: ``int | None`` -> 'int or None'."""
    if isinstance(hint, str):
        return hint
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(hint)
        return type_text(base) + "".join(_range_text(m) for m in meta)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(type_text(a) for a in typing.get_args(hint)))
    if hint is type(None):
        return "None"
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if origin is not None:
        args = ", ".join(type_text(a) for a in typing.get_args(hint))
        name = getattr(origin, "__name__", str(origin))
        if name == "Callable":
            return "a callable"
        return f"{name}[{args}]" if args else name
    if hint is Any:
        return "anything"
    return getattr(hint, "__name__", str(hint))


_SIGNS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))


def _range_text(meta: Any) -> str:
    """' (≥ 1)' for a Field(ge=1) (pydantic keeps the bounds in its metadata)."""
    said = [
        f"{sign} {getattr(item, bound)}"
        for item in [meta, *getattr(meta, "metadata", [])]
        for bound, sign in _SIGNS
        if getattr(item, bound, None) is not None
    ]
    return f" ({', '.join(said)})" if said else ""
