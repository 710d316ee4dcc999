"""Hypothesis strategies for judgegrid's inputs: valid values drawn from the pydantic models'
own JSON schemas (the matrix's, a sample's), then mutated into the bad inputs a user writes.

Nothing here re-lists a field: a model's properties, types, bounds, patterns and enums come from
``model_json_schema()``. ``pins`` fix the few places whose valid values the schema cannot know
(the judge a test can call, a metric's name, a data set's path), by dotted path. A mutation then
changes one node of the valid tree: a wrong type, a number out of range, a huge value, unicode
digits, an empty value, an unknown key, or a key-shaped string. ``KEY_PREFIX`` starts every
key-shaped string, so a test can look for any of them in what the tool printed or wrote.
"""

from __future__ import annotations

import collections.abc
import json
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel

Pins = Mapping[str, st.SearchStrategy[Any]]
NodePath = tuple[Any, ...]  # keys and list positions from a tree's root

# every key-shaped string drawn here starts so, and its tail is long enough to be found again
KEY_PREFIX = "sk-proj-FUZZ"
KEY_TAIL_CHARS = 24
SMALL_SPAN = 3  # a valid number is drawn within this much of its lower bound: runs stay cheap


def key_shaped() -> st.SearchStrategy[str]:
    """A string shaped like a provider key (``sk-proj-FUZZ…``)."""
    tail = st.text(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=KEY_TAIL_CHARS,
        max_size=KEY_TAIL_CHARS,
    )
    return tail.map(lambda t: KEY_PREFIX + t)


def keys_in(text: str) -> list[str]:
    """The key-shaped strings of ``key_shaped`` that ``text`` holds (an input's, to look for in
    outputs)."""
    found, start = [], text.find(KEY_PREFIX)
    while start >= 0:
        found.append(text[start : start + len(KEY_PREFIX) + KEY_TAIL_CHARS])
        start = text.find(KEY_PREFIX, start + 1)
    return found


# -- valid values from a JSON schema ----------------------------------------------------------


def model_values(
    model: type[BaseModel], pins: Pins | None = None, require: Collection[str] = ()
) -> st.SearchStrategy[Any]:
    """Valid data for ``model`` (a dict, as a YAML or JSON file would load to), from its JSON
    schema; ``pins``: strategies for dotted paths (``judges``, ``defaults.judge.api_key_env``);
    ``require``: dotted paths of optional fields always written (drawn from the schema)."""
    schema = model.model_json_schema()
    return _from_schema(schema, schema.get("$defs", {}), _Pins(pins or {}, set(require)), "")


@dataclass(frozen=True)
class _Pins:
    strategies: Mapping[str, st.SearchStrategy[Any]]
    required: set[str]

    def __contains__(self, path: str) -> bool:
        return path in self.strategies

    def __getitem__(self, path: str) -> st.SearchStrategy[Any]:
        return self.strategies[path]


def _from_schema(
    schema: dict[str, Any], defs: dict[str, Any], pins: _Pins, path: str
) -> st.SearchStrategy[Any]:
    if path in pins:
        return pins[path]
    if "$ref" in schema:
        return _from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, pins, path)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return st.one_of([_from_schema(s, defs, pins, path) for s in schema[union]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_from_schema({**schema, "type": k}, defs, pins, path) for k in kind])
    return _BY_TYPE.get(kind, _anything)(schema, defs, pins, path)


def _integers(schema: dict[str, Any], *_: Any) -> st.SearchStrategy[int]:
    low, high = _bounds(schema)
    low = int(low) + (1 if schema.get("exclusiveMinimum") == low else 0) if low is not None else 0
    top = low + SMALL_SPAN
    if high is not None:
        top = min(top, int(high) - (1 if schema.get("exclusiveMaximum") == high else 0))
    return st.integers(low, top)


def _numbers(schema: dict[str, Any], *_: Any) -> st.SearchStrategy[float]:
    low, high = _bounds(schema)
    low = float(low) if low is not None else 0.0
    top = min(low + SMALL_SPAN, float(high)) if high is not None else low + SMALL_SPAN
    return st.floats(
        low,
        top,
        exclude_min="exclusiveMinimum" in schema,
        exclude_max="exclusiveMaximum" in schema or top != high,
        allow_nan=False,
    )


def _bounds(schema: dict[str, Any]) -> tuple[float | None, float | None]:
    low = next(
        (schema[k] for k in ("minimum", "exclusiveMinimum", "ge", "gt") if k in schema), None
    )
    high = next(
        (schema[k] for k in ("maximum", "exclusiveMaximum", "le", "lt") if k in schema), None
    )
    return low, high


def _strings(schema: dict[str, Any], *_: Any) -> st.SearchStrategy[str]:
    if "pattern" in schema:
        return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) < 12)
    low = schema.get("minLength", 1)
    return st.text("abcdefghijklmnopqrstuvwxyz_", min_size=low, max_size=max(low, 8))


def _arrays(
    schema: dict[str, Any], defs: dict[str, Any], pins: _Pins, path: str
) -> st.SearchStrategy[list[Any]]:
    items = _from_schema(schema.get("items", {}), defs, pins, f"{path}[]")
    low = schema.get("minItems", 0)
    unique = bool(schema.get("uniqueItems"))  # a Distinct list (core.values)
    return st.lists(items, min_size=low, max_size=max(low, 2), unique=unique)


def _objects(
    schema: dict[str, Any], defs: dict[str, Any], pins: _Pins, path: str
) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    prefix = f"{path}." if path else ""
    # a pinned or required property is always written (a value, not null); the others only
    # sometimes (their defaults hold)
    fixed = {
        k: _from_schema(_not_null(v), defs, pins, prefix + k)
        for k, v in properties.items()
        if k in required or prefix + k in pins or prefix + k in pins.required
    }
    optional = {
        k: _from_schema(v, defs, pins, prefix + k) for k, v in properties.items() if k not in fixed
    }
    return st.fixed_dictionaries(fixed, optional=optional)


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional field's schema without its null branch."""
    branches = [b for b in schema.get("anyOf", ()) if b.get("type") != "null"]
    return {**schema, "anyOf": branches} if branches else schema


def _anything(*_: Any) -> st.SearchStrategy[Any]:
    return st.none()


_BY_TYPE: dict[str | None, Callable[..., st.SearchStrategy[Any]]] = {
    "integer": _integers,
    "number": _numbers,
    "string": _strings,
    "boolean": lambda *_: st.booleans(),
    "null": lambda *_: st.none(),
    "array": _arrays,
    "object": _objects,
}


# -- mutations ---------------------------------------------------------------------------------

UNICODE_DIGITS = ["١٢", "３", "²", "߁", "৩", "一", "Ⅻ", "1\u200b", "１e3"]
HUGE = [10**12, 10**20, 10**30, 1e308, float("inf"), -(10**20), "9" * 40, 2**63, 2**64]
EMPTY: list[Any] = ["", [], {}, None, " "]
WRONG_TYPES: list[Any] = [True, 1, -1, 0.5, "x", "yes", [1], ["x"], {"a": 1}, None, "[]", "{}"]
OUT_OF_RANGE: list[Any] = [0, -1, -0.5, 1.5, 21, 3, 10**6 + 1, -(10**6), 1e-9]  # past the bounds


@dataclass(frozen=True)
class Mutation:
    """One change to one node of a valid tree: what was done, where, and the new value."""

    kind: str
    path: NodePath
    value: Any

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "<root>"
        return f"{self.kind} at {where}: {self.value!r}"[:200]


def nodes(tree: Any, path: NodePath = ()) -> list[NodePath]:
    """Every path into a tree of dicts and lists (the root too)."""
    found = [path]
    if isinstance(tree, dict):
        for key, value in tree.items():
            found += nodes(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            found += nodes(value, (*path, i))
    return found


def _replacements(kind: str, keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return {
        "wrong type": st.sampled_from(WRONG_TYPES),
        "out of range": st.sampled_from(OUT_OF_RANGE),
        "huge": st.sampled_from(HUGE),
        "unicode digits": st.sampled_from(UNICODE_DIGITS),
        "empty": st.sampled_from(EMPTY),
        "key-shaped": keys.flatmap(_key_forms),
    }[kind]


def _key_forms(key: str) -> st.SearchStrategy[str]:
    """A key as itself, in a URL's userinfo, or in its query string (as some gateways take it)."""
    return st.sampled_from(
        [key, f"https://user:{key}@127.0.0.1:9/v1", f"http://127.0.0.1:9/v1?key={key}"]
    )


REPLACE_KINDS = ("wrong type", "out of range", "huge", "unicode digits", "empty", "key-shaped")
MUTATION_KINDS = (*REPLACE_KINDS, "unknown key")


@st.composite
def mutated(
    draw: st.DrawFn,
    valid: st.SearchStrategy[Any],
    keep: Callable[[NodePath], bool] = lambda p: True,
) -> tuple[Any, Mutation]:
    """A valid tree with one node changed (``keep``: which paths may be mutated)."""
    tree = json.loads(json.dumps(draw(valid)))  # a plain copy, free to change
    paths = [p for p in nodes(tree) if keep(p)]
    kind = draw(st.sampled_from(MUTATION_KINDS))
    if kind == "key-shaped":  # where text goes: a label, a URL, a name (or an unset option)
        paths = [p for p in paths if isinstance(_at(tree, p), str | None)] or paths
    path = draw(st.sampled_from(paths))
    if kind == "unknown key":
        parent = _at(tree, path)
        if isinstance(parent, dict):
            name = draw(
                st.sampled_from([*_misspellings(parent), "colour", "repeat", "api-key"])
                | key_shaped()
            )
            parent[name] = draw(st.sampled_from(WRONG_TYPES))
            return tree, Mutation(kind, (*path, name), parent[name])
        kind = "wrong type"
    value = draw(_replacements(kind, key_shaped()))
    return _set(tree, path, value), Mutation(kind, path, value)


def _misspellings(mapping: dict[str, Any]) -> list[str]:
    """Each key with its last letter doubled: typos."""
    return [k + k[-1] for k in mapping if isinstance(k, str) and k] or ["x"]


def _at(tree: Any, path: NodePath) -> Any:
    for part in path:
        tree = tree[part]
    return tree


def _set(tree: Any, path: NodePath, value: Any) -> Any:
    if not path:
        return value
    _at(tree, path[:-1])[path[-1]] = value
    return tree


# -- what a value is ---------------------------------------------------------------------------


def conforms(value: Any, annotation: Any) -> bool:
    """Whether ``value`` is of the type ``annotation`` names (a function's parameter type): a
    union, Literal, list/tuple/Mapping of, a class, Callable or Any. A bool is no number here:
    ``workers=True`` is a wrong type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any or annotation is typing.Any:
        return True
    if annotation is None or annotation is type(None):
        return value is None
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if origin is not None and _is_callable_type(origin):
        return callable(value)
    if origin in (list, tuple, set, frozenset, typing.Sequence, collections.abc.Sequence):
        return _collection(value, origin, args)
    if origin is not None and _is_mapping(origin):
        return (
            isinstance(value, Mapping)
            and all(conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items())
            if args
            else isinstance(value, Mapping)
        )
    if isinstance(annotation, type):
        if annotation in (int, float) and isinstance(value, bool):
            return False
        if annotation is float:
            return isinstance(value, int | float)
        return isinstance(value, annotation)
    return True  # an annotation this does not read: no claim


def _collection(value: Any, origin: Any, args: tuple[Any, ...]) -> bool:
    kind = origin if isinstance(origin, type) and origin.__module__ == "builtins" else (list, tuple)
    if isinstance(value, str | bytes) or not isinstance(value, kind):
        return False
    assert isinstance(value, collections.abc.Iterable)
    item = args[0] if args and (len(args) == 1 or args[-1] is Ellipsis) else None
    return item is None or all(conforms(v, item) for v in value)


def _is_callable_type(origin: Any) -> bool:
    return origin is collections.abc.Callable


def _is_mapping(origin: Any) -> bool:
    return isinstance(origin, type) and issubclass(origin, collections.abc.Mapping)
