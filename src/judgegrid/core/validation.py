"""Pydantic's validation errors as judgegrid Problems: a path, what was expected, a did-you-mean.

The matrix, the options given in Python, metric parameters and samples are all pydantic models;
this module is the one place that turns their errors into one readable line each, so every door
(the YAML file, ``score_sample``'s keyword arguments, ``Faithfulness(strictnes=2)``) speaks alike.
"""

from __future__ import annotations

import difflib
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judgegrid.core.errors import InputError, Problem
from judgegrid.core.redaction import redact_secret_fields, redact_value

ModelT = TypeVar("ModelT", bound=BaseModel)


def validate(
    kind: type[ModelT], data: Any, source: str, error: type[InputError] = InputError
) -> ModelT:
    """``data`` read as ``kind`` (kebab- or snake_case keys), or ``error`` naming every fault."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise error(source, [Problem("", f"expected a mapping, got {type(data).__name__}")])
    try:
        return kind.model_validate(snake_keys(data))
    except ValidationError as exc:
        raise error(source, [problem_from(e, kind) for e in exc.errors()]) from None


# Mappings whose keys are the user's own names, not settings: provider arguments (``extra``), a
# criterion's label names and scale levels.
AS_WRITTEN = frozenset({"extra", "labels", "scale"})


def snake_keys(value: Any, under_extra: bool = False) -> Any:
    """Accept Spring-style kebab-case keys; the keys under ``AS_WRITTEN`` stay as written, at
    every depth (``extra: {extra_headers: {x-api-key: …}}`` is the header a server expects)."""
    if isinstance(value, dict):
        return {
            (k if under_extra else str(k).replace("-", "_")): snake_keys(
                v, under_extra or k in AS_WRITTEN
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [snake_keys(v, under_extra) for v in value]
    return value


def format_location(loc: tuple[int | str, ...]) -> str:
    """('judges', 2, 'options', 'temperature') -> 'judges[2].options.temperature'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def problem_from(err: Any, root: type[BaseModel]) -> Problem:
    """One pydantic error as a Problem; an unknown field gets the closest known name."""
    loc = tuple(err["loc"])
    where = format_location(loc)
    if err["type"] == "extra_forbidden":
        known = known_fields(loc[:-1], root)
        guess = difflib.get_close_matches(str(loc[-1]), known, n=1)
        if guess:
            hint = f"; did you mean '{guess[0]}'?"
        else:
            hint = f"; expected one of {', '.join(known)}" if known else "; none may be set here"
        return Problem(where, f"unknown field{hint}")
    if err["type"] == "missing":
        return Problem(where, "required field is missing")
    message = err["msg"].removeprefix("Value error, ")
    shown = err.get("input")
    if loc and loc[-1] == "api_key_env":  # refused because it holds a key, not a variable name
        shown = redact_value(shown)
    return Problem(where, f"{message} (got {redact_secret_fields(shown)!r})")


def known_fields(loc: tuple[int | str, ...], root: type[BaseModel]) -> list[str]:
    """The field names allowed at a location inside ``root``, for 'did you mean' hints."""
    model: type[BaseModel] | None = root
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field else None
    return sorted(model.model_fields) if model else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found:
            return found
    return None
