"""Pydantic's validation errors as judgegrid Problems: a path, what was expected, a did-you-mean.

The matrix, the options given in Python, metric parameters and samples are all pydantic models;
this module is the one place that turns their errors into one readable line each, so every door
(the YAML file, ``score_sample``'s keyword arguments, ``Faithfulness(strictnes=2)``) speaks alike.
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar, TypeVar, cast

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from judgegrid.core.errors import DatasetError, InputError, MatrixError, OptionError, Problem
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
    """('judges', 2, 'options', 'temperature') -> 'judges[2].options.temperature'; a mapping's
    key that is no string (YAML's ``yes:`` is True) is shown as written, not as an index."""
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


# pydantic's error types that say "expected a number", where YAML's yes/no was a boolean
NUMBER_ERRORS = frozenset({"int_type", "float_type", "int_parsing", "float_parsing"})


def boolean_hint(value: bool, number_due: bool) -> str:
    """Why a boolean stood where a number or a name was due: YAML 1.1 reads six words as one."""
    said = "yes" if value else "no"
    head = "YAML reads yes/no/on/off/true/false unquoted as a boolean"
    if number_due:
        return f"{head}, not a number: write the number"
    return f"{head}: write '{said}' in quotes"


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
    if loc and loc[-1] == "[key]":  # a mapping's key, not its value, is at fault
        where = format_location(loc[:-2])
        if isinstance(shown, bool):
            hint = boolean_hint(shown, err["type"] in NUMBER_ERRORS)
            return Problem(where, f"a key is the boolean {shown!r}: {hint}")
        message = f"the key {shown!r}: {message}"
    if isinstance(shown, bool) and err["type"] != "bool_type":
        return Problem(where, error_text(err))
    if loc and loc[-1] == "api_key_env":  # refused because it holds a key, not a variable name
        shown = redact_value(shown)
    if isinstance(shown, dict) and (not loc or isinstance(loc[-1], int)):
        return Problem(where, message)  # a whole entry's check: the entry itself says nothing
    return Problem(where, f"{message} (got {redact_secret_fields(shown)!r})")


def error_text(err: Any) -> str:
    """A pydantic error's own words (a validator's message as written); a boolean where a
    number or a name was due says why YAML or JSON gave one."""
    message = str(err["msg"]).removeprefix("Value error, ")
    shown = err.get("input")
    if isinstance(shown, bool) and err["type"] != "bool_type":
        hint = boolean_hint(shown, err["type"] in NUMBER_ERRORS)
        return f"{message}, got the boolean {shown!r}: {hint}"
    return message


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


# -- public models: their constructors raise judgegrid's own errors ---------------------------


class _AlsoValidationError(ValidationError):
    """Mixed into the judgegrid error a public model's constructor raises, so code written when
    ``Criterion(...)`` raised pydantic's ValidationError (``except ValidationError``,
    ``exc.errors()``) still works beside ``except judgegrid.InputError``."""

    source: str | None
    problems: list[Problem]

    def __init__(self, *args: Any) -> None:
        """pydantic's ``from_exception_data`` calls this; ``refusal`` sets the Problems."""

    def __str__(self) -> str:
        return "\n".join(p.render(self.source) for p in self.problems)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class InvalidMatrix(_AlsoValidationError, MatrixError):
    """``Matrix(...)`` given what a matrix file may not hold."""


class InvalidSample(_AlsoValidationError, DatasetError):
    """``Sample(...)`` given what a data set's record may not hold."""


class InvalidOptions(_AlsoValidationError, OptionError):
    """``Criterion(...)``, ``RunOptions(...)`` and the like given a bad argument."""


_REFUSALS: dict[type[InputError], type[_AlsoValidationError]] = {
    MatrixError: InvalidMatrix,
    DatasetError: InvalidSample,
    OptionError: InvalidOptions,
}


def refusal(
    kind: type[BaseModel], exc: ValidationError, error: type[InputError], source: str
) -> InputError:
    """``exc`` as judgegrid's ``error`` (one Problem a fault, a did-you-mean for a typo) that
    is also a pydantic ValidationError carrying the same errors."""
    details = exc.errors()
    again = [  # each error as pydantic gave it, its words kept as written
        InitErrorDetails(
            type=PydanticCustomError(e["type"], e["msg"]), loc=e["loc"], input=e["input"]
        )
        for e in details
    ]
    made = cast(InputError, _REFUSALS[error].from_exception_data(exc.title, again))
    InputError.__init__(made, source, [problem_from(e, kind) for e in details])
    return made


class PublicModel(BaseModel):
    """A pydantic model users build by hand (``judgegrid.Criterion``, ``Sample``, ``Matrix``):
    its constructor raises ``refused_as`` named as ``door``, never pydantic's bare error, which
    would escape ``except judgegrid.JudgegridError``. Models built from files or inside other
    models are validated without the constructor (``model_validate``) and keep their own
    wording of the place."""

    door: ClassVar[str] = ""
    refused_as: ClassVar[type[InputError]] = OptionError

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            cls = type(self)
            raise refusal(cls, exc, cls.refused_as, cls.door or cls.__name__) from None
