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
import re
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from hypothesis import assume
from hypothesis import strategies as st
from pydantic import BaseModel

Pins = Mapping[str, st.SearchStrategy[Any]]
NodePath = tuple[Any, ...]  # keys and list positions from a tree's root

# every key-shaped string drawn here starts so, and its tail is long enough to be found again
KEY_PREFIX = "sk-proj-FUZZ"
KEY_TAIL_CHARS = 24
SMALL_SPAN = 3  # a valid number is drawn within this much of its lower bound: runs stay cheap


def key_shaped() -> st.SearchStrategy[str]:
    """A string shaped like a provider key (``sk-proj-FUZZ…``). Its tail mixes letters and a
    digit, as a real key's does (a random 24-character key holds a digit 98.5% of the time);
    the program's rule (``core.redaction.looks_like_key``) leaves all-letter tokens alone, so
    that model names such as ``hf-mistralinstruct`` are not masked."""
    letters = st.text(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=KEY_TAIL_CHARS - 1,
        max_size=KEY_TAIL_CHARS - 1,
    )
    digit = st.sampled_from("0123456789")
    return st.tuples(letters, digit).map(lambda t: KEY_PREFIX + t[0] + t[1])


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
    """One change to one node of a valid tree: what was done, where, and the new value;
    ``refusal_due``: why the tool must refuse it (empty: it may accept or refuse)."""

    kind: str
    path: NodePath
    value: Any
    refusal_due: str = ""

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
# issue 39: what YAML and JSON read where a number is due, a list member given twice, an id a
# person cannot see, and a key that names nothing (a misspelt metric in a sample's labels)
ODD_NAMES = ["", " ", "\n", "s\n0", "\t", "s0\r\n"]
NUMBER_KINDS = ("boolean for a number", "non-finite number")
MUTATION_KINDS = (
    *REPLACE_KINDS,
    "unknown key",
    *NUMBER_KINDS,
    "duplicate member",
    "odd name",
    "misspelt key",
)
FREE_KEYS = {"extra", "extra_headers", "columns"}  # mappings whose keys are the user's own


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
    targeted = _targeted_paths(kind, tree, paths)
    if kind in _TARGETED:
        if targeted:
            return _targeted(draw, kind, tree, draw(st.sampled_from(targeted)))
        kind = "wrong type"
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
    due = "a boolean where a number is due" if _bool_for_number(_at(tree, path), value) else ""
    return _set(tree, path, value), Mutation(kind, path, value, due)


def _bool_for_number(old: Any, new: Any) -> bool:
    return isinstance(new, bool) and isinstance(old, int | float) and not isinstance(old, bool)


_TARGETED: dict[str, Callable[[Any, NodePath], bool]] = {
    "boolean for a number": lambda tree, p: _is_number(_at(tree, p)),
    "non-finite number": lambda tree, p: _is_number(_at(tree, p)),
    "duplicate member": lambda tree, p: isinstance(_at(tree, p), list) and bool(_at(tree, p)),
    "odd name": lambda tree, p: isinstance(_at(tree, p), str) and bool(p),
    "misspelt key": lambda tree, p: (
        bool(p) and isinstance(p[-1], str) and not FREE_KEYS & {str(q) for q in p[:-1]}
    ),
}


def _targeted_paths(kind: str, tree: Any, paths: list[NodePath]) -> list[NodePath]:
    """The paths a targeted kind applies to (a number, a list, a name, a key of a mapping)."""
    test = _TARGETED.get(kind)
    return [p for p in paths if test(tree, p)] if test else []


def _targeted(draw: st.DrawFn, kind: str, tree: Any, path: NodePath) -> tuple[Any, Mutation]:
    """One targeted mutation at ``path``, with the refusal it makes due."""
    node = _at(tree, path)
    if kind == "boolean for a number":
        value: Any = draw(st.booleans())
        return _set(tree, path, value), Mutation(
            kind, path, value, "a boolean where a number is due"
        )
    if kind == "non-finite number":
        value = draw(st.sampled_from([float("nan"), float("inf"), float("-inf")]))
        due = "NaN or infinity where a number is due"
        return _set(tree, path, value), Mutation(kind, path, value, due)
    if kind == "duplicate member":
        copy = draw(st.sampled_from(node))
        node.insert(0, json.loads(json.dumps(copy)))  # the twin first: another order
        return tree, Mutation(kind, path, copy)
    if kind == "odd name":
        value = draw(st.sampled_from(ODD_NAMES))
        record_id = len(path) == 2 and isinstance(path[0], int) and path[1] == "id"
        due = "an empty or multi-line sample id" if record_id else ""
        return _set(tree, path, value), Mutation(kind, path, value, due)
    parent, key = _at(tree, path[:-1]), path[-1]
    misspelt = key + key[-1] if key else "x"
    renamed = {misspelt if k == key else k: v for k, v in parent.items()}
    tree = _set(tree, path[:-1], renamed)  # at the top, the renamed mapping is the tree
    # a record's own fields may be any column (a criterion reads them); every other key names
    # a field, a metric or a criterion
    due = "" if len(path) == 2 and isinstance(path[0], int) else "a key that names nothing"
    return tree, Mutation(kind, (*path[:-1], misspelt), node, due)


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


# -- YAML written as YAML ----------------------------------------------------------------------
#
# ``yaml.safe_dump`` of a tree never writes a key twice, an anchor, a merge key, an unquoted
# ``yes`` or a tag: the features where a person's YAML goes wrong. A tree is rendered here as
# block-style text, node by node, so one feature can be placed at any node of it.


@dataclass(frozen=True)
class Raw:
    """Text written as it is in a node's place (``yes``, ``.nan``, ``*a``, ``!!str 3``, a flow
    collection)."""

    text: str


@dataclass(frozen=True)
class Anchored:
    """A node written with an anchor before it (``&name``)."""

    name: str
    node: Any


@dataclass(frozen=True)
class Pairs:
    """A mapping as a list of (key, value) pairs: a key may come twice, a key may be ``<<``."""

    items: tuple[tuple[Any, Any], ...]


MERGE_KEY = Raw("<<")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_INDENT = "  "


def emit_yaml(tree: Any) -> str:
    """``tree`` (dicts, lists, scalars, and ``Raw``/``Anchored``/``Pairs`` nodes) as block-style
    YAML text: a plain tree loads back equal to itself."""
    return "\n".join(_block(tree, 0)) + "\n"


def _block(node: Any, depth: int) -> list[str]:
    """The lines of a node that stands alone at ``depth`` (a document or a nested block)."""
    pad = _INDENT * depth
    if isinstance(node, Anchored):
        inner = _block(node.node, depth)
        if _is_collection(node.node) and _length(node.node):
            return [f"{pad}&{node.name}", *inner]
        return [f"{pad}&{node.name} {inner[0].strip()}"]
    if isinstance(node, dict | Pairs) and _length(node):
        lines: list[str] = []
        for key, value in _items(node):
            lines += _entry(f"{pad}{_key(key)}:", value, depth)
        return lines
    if isinstance(node, list) and node:
        lines = []
        for value in node:
            lines += _entry(f"{pad}-", value, depth)
        return lines
    return [pad + _scalar(node)]


def _entry(head: str, value: Any, depth: int) -> list[str]:
    """``key:`` or ``-`` and its value: inline for a scalar, the block indented below else."""
    anchor = ""
    if isinstance(value, Anchored):
        anchor, value = f" &{value.name}", value.node
    if _is_collection(value) and _length(value):
        return [head + anchor, *_block(value, depth + 1)]
    return [f"{head}{anchor} {_scalar(value)}"]


def _is_collection(node: Any) -> bool:
    return isinstance(node, dict | list | Pairs)


def _length(node: Any) -> int:
    return len(node.items) if isinstance(node, Pairs) else len(node)


def _items(node: dict[Any, Any] | Pairs) -> list[tuple[Any, Any]]:
    return list(node.items) if isinstance(node, Pairs) else list(node.items())


def _key(key: Any) -> str:
    if isinstance(key, Raw):
        return key.text
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key) and yaml.safe_load(key) == key:
        return key
    return _scalar(key)


def _scalar(value: Any) -> str:
    """One value on one line: a Raw as written, a string double-quoted (JSON's escapes are
    YAML's), anything else as PyYAML writes it (``.nan``, ``1.0e-09``, ``{}``)."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Anchored):
        return f"&{value.name} {_scalar(value.node)}"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{_key(k)}: {_scalar(v)}" for k, v in value.items) + "}"
    if isinstance(value, list) and value:
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, dict) and value:
        return "{" + ", ".join(f"{_key(k)}: {_scalar(v)}" for k, v in value.items()) + "}"
    return (
        yaml.safe_dump(value, default_flow_style=True, width=1 << 30)
        .removesuffix("\n...\n")
        .strip()
    )


def alias_bomb(width: int, depth: int) -> Raw:
    """A flow list of nested anchors that stands for ``width ** depth`` values once its aliases
    are expanded, each level defined inline on its first use: ``[&b1 [&b0 [x, x], *b0], *b1]``.
    Small exponents only (10**6): a program that expands it must not take the machine down."""
    text = "[" + ", ".join(["lol"] * width) + "]"
    for level in range(depth - 1):
        text = f"[&b{level} {text}" + f", *b{level}" * (width - 1) + "]"
    return Raw(text)


def deep_nesting(levels: int, mapping: bool = False) -> Raw:
    """Lists (or mappings) ``levels`` deep, as flow text."""
    if mapping:
        return Raw("{a: " * levels + "1" + "}" * levels)
    return Raw("[" * levels + "]" * levels)


YAML_BOOLEANS = ("yes", "no", "on", "off", "true", "false", "True", "NO")  # PyYAML: not y, n
YAML_SPECIAL_FLOATS = (".nan", ".inf", "-.inf", ".NaN", ".Inf")
HOSTILE_TAGS = (
    "!!python/object/apply:os.system ['true']",
    "!!python/name:os.getcwd",
    "!fuzz 1",
    "!!binary aGk=",
)
BOMB_WIDTH, BOMB_DEPTH = 10, 6  # 10**6 values once expanded: past any bound, in 200 bytes
NESTING_LEVELS = 5000

# what a YAML feature does to a document that was accepted: "hostile" ones must be refused,
# "benign" ones (the anchors and merge keys people write, an explicit tag of the node's own
# type) must change nothing
HOSTILE_FEATURES = (
    "duplicate key",
    "boolean where a number is due",
    "special float where a number is due",
    "boolean as a mapping key",
    "foreign tag",
    "alias bomb",
    "deep nesting",
)
NAME_FEATURES = ("boolean where a name is due",)  # refused, and the message says to quote
BENIGN_FEATURES = ("anchor and alias", "merge key", "own-type tag")
YAML_FEATURES = (*HOSTILE_FEATURES, *NAME_FEATURES, *BENIGN_FEATURES)


@dataclass(frozen=True)
class YamlFeature:
    """One YAML feature placed at one node: what, where, and the text it became."""

    kind: str
    path: NodePath
    text: str = ""

    @property
    def hostile(self) -> bool:
        return self.kind in HOSTILE_FEATURES

    @property
    def benign(self) -> bool:
        return self.kind in BENIGN_FEATURES

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "<root>"
        return f"{self.kind} at {where}: {self.text[:120]}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _feature_paths(kind: str, tree: Any) -> list[NodePath]:
    """The nodes ``kind`` can be placed at (empty: nowhere in this tree)."""
    every = nodes(tree)
    at: dict[str, Callable[[NodePath], bool]] = {
        "duplicate key": lambda p: isinstance(_at(tree, p), dict) and bool(_at(tree, p)),
        "boolean where a number is due": lambda p: _is_number(_at(tree, p)),
        "special float where a number is due": lambda p: _is_number(_at(tree, p)),
        "boolean where a name is due": lambda p: bool(p) and _is_name(_at(tree, p)),
        "boolean as a mapping key": lambda p: isinstance(_at(tree, p), dict) and bool(_at(tree, p)),
        "foreign tag": lambda p: bool(p),
        "alias bomb": lambda p: bool(p),
        "deep nesting": lambda p: bool(p),
        "merge key": lambda p: isinstance(_at(tree, p), dict) and len(_at(tree, p)) >= 1,
        "own-type tag": lambda p: (
            isinstance(_at(tree, p), str | int | float) and not isinstance(_at(tree, p), bool)
        ),
    }
    if kind == "anchor and alias":
        return [q for _, q in _equal_pairs(tree)]
    return [p for p in every if at[kind](p)]


def _equal_pairs(tree: Any) -> list[tuple[NodePath, NodePath]]:
    """Pairs of nodes with equal values, the first before the second in the text and neither
    inside the other: the second can be written as an alias of the first."""
    order = [p for p in nodes(tree) if p]
    seen: dict[str, NodePath] = {}
    pairs = []
    for path in order:
        value = json.dumps(_at(tree, path), sort_keys=True, default=str)
        first = seen.setdefault(value, path)
        if first is not path and path[: len(first)] != first:
            pairs.append((first, path))
    return pairs


def _sibling_value(value: Any) -> Any:
    """A value of the same kind as ``value`` but another (a key's second, differing value)."""
    if isinstance(value, bool):
        return not value
    if _is_number(value):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, *value[:1]] if value else ["x"]
    if isinstance(value, dict):
        return {}
    return "x"


@st.composite
def yaml_documents(
    draw: st.DrawFn, valid: st.SearchStrategy[Any], kinds: Collection[str] = YAML_FEATURES
) -> tuple[Any, str, YamlFeature]:
    """A valid tree, and its YAML text with one feature of ``kinds`` placed at one of its nodes
    (a kind with no place in the tree is drawn again); the tree is returned so a test can load
    its plain rendering beside."""
    tree = json.loads(json.dumps(draw(valid)))
    choices = [k for k in kinds if _feature_paths(k, tree)]
    assume(bool(choices))  # no node of this tree takes the kind: another tree
    kind = draw(st.sampled_from(choices))
    path = draw(st.sampled_from(_feature_paths(kind, tree)))
    featured, text = _place(kind, tree, path, draw)
    return tree, emit_yaml(featured), YamlFeature(kind, path, text)


def _place(kind: str, tree: Any, path: NodePath, draw: st.DrawFn) -> tuple[Any, str]:
    """``tree`` (a copy) with ``kind`` written at ``path``, and the text of what was written."""
    tree = json.loads(json.dumps(tree))
    node = _at(tree, path)
    if kind == "duplicate key":
        key = draw(st.sampled_from(list(node)))
        items = list(node.items())
        twice = Pairs((*items, (key, _sibling_value(node[key]))))
        return _set(tree, path, twice), f"{key} given twice"
    if kind == "boolean as a mapping key":
        key = draw(st.sampled_from(list(node)))
        word = Raw(draw(st.sampled_from(YAML_BOOLEANS)))
        pairs = Pairs(tuple((word if k == key else k, v) for k, v in node.items()))
        return _set(tree, path, pairs), f"{word.text}: in place of {key}"
    if kind == "anchor and alias":
        first = next(f for f, q in _equal_pairs(tree) if q == path)
        _set(tree, first, Anchored("shared", _at(tree, first)))
        return _set(tree, path, Raw("*shared")), f"&shared at {first}, *shared here"
    if kind == "merge key":
        keys = list(node)
        cut = draw(st.integers(1, len(keys)))
        merged = Pairs(
            ((MERGE_KEY, {k: node[k] for k in keys[:cut]}), *((k, node[k]) for k in keys[cut:]))
        )
        return _set(tree, path, merged), f"<<: {keys[:cut]}"
    raw = _raw_for(kind, node, draw)
    return _set(tree, path, raw), raw.text[:200]


def _raw_for(kind: str, node: Any, draw: st.DrawFn) -> Raw:
    if kind in ("boolean where a number is due", "boolean where a name is due"):
        return Raw(draw(st.sampled_from(YAML_BOOLEANS)))
    if kind == "special float where a number is due":
        return Raw(draw(st.sampled_from(YAML_SPECIAL_FLOATS)))
    if kind == "foreign tag":
        return Raw(draw(st.sampled_from(HOSTILE_TAGS)))
    if kind == "alias bomb":
        return alias_bomb(BOMB_WIDTH, BOMB_DEPTH)
    if kind == "deep nesting":
        return deep_nesting(NESTING_LEVELS, mapping=draw(st.booleans()))
    assert kind == "own-type tag", kind
    tag = "!!str" if isinstance(node, str) else "!!int" if isinstance(node, int) else "!!float"
    return Raw(f"{tag} {_scalar(node)}")
