"""Every YAML the program reads (a matrix, a Spring ``application.yaml``, a promptfoo config and
the test files it names), through one bounded loader.

PyYAML's safe loader keeps an alias as a shared reference, so a document of nested anchors (an
"alias bomb": nine lists of nine aliases, nine deep, is 9^9 values) loads at once and only
blows up when something walks it: validation ran for minutes and gigabytes. Here the composed
document is measured first, each node once, by the number of values it stands for; past
``MAX_VALUES`` it is refused before anything walks it. The anchors people write (shared
defaults, ``<<`` merge keys) stand for a few hundred values and load as before.

A key given twice in one mapping is refused, naming both lines: PyYAML keeps the last and says
nothing (``repeats: 1`` then ``repeats: 3`` ran three repeats). A merge key's entries may still
be overridden by the mapping's own, as YAML means. A key YAML reads as a boolean (``on:``
unquoted) and binary data (``!!binary``) are refused: no file the program reads has a use for
either. Every refusal is a ``yaml.MarkedYAMLError``,
so the callers' "not valid YAML" problem names its line and column.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_VALUES = 200_000  # values a document may stand for once its aliases are expanded
MERGE_TAG = "tag:yaml.org,2002:merge"
BOOL_TAG = "tag:yaml.org,2002:bool"
BINARY_TAG = "tag:yaml.org,2002:binary"


class YamlRefused(yaml.MarkedYAMLError):
    """A document PyYAML would load, refused: a key given twice, too many values once its
    aliases are expanded, an alias inside itself, or nesting too deep to read."""


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and measures the document before building it."""

    def get_single_node(self) -> Node | None:
        node = super().get_single_node()
        if node is not None:
            _expanded_size(node)
        return node

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        _refuse_duplicate_keys(node)
        _refuse_boolean_keys(node)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_binary(self, node: ScalarNode) -> bytes:
        raise YamlRefused(
            problem="binary data (!!binary) has no place in this file; write text",
            problem_mark=node.start_mark,
        )


_BoundedLoader.add_constructor(BINARY_TAG, _BoundedLoader.construct_yaml_binary)


def load_yaml(text: str) -> Any:
    """The YAML document in ``text``, as ``yaml.safe_load`` reads it, or a ``yaml.YAMLError``
    (``YamlRefused`` for what this loader refuses besides the syntax errors)."""
    try:
        return yaml.load(text, Loader=_BoundedLoader)
    except RecursionError:
        raise YamlRefused(
            problem="nested too deep to read (lists or mappings inside each "
            "other thousands of levels down)"
        ) from None


def _refuse_duplicate_keys(node: MappingNode) -> None:
    seen: dict[Any, Node] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, ScalarNode) or key_node.tag == MERGE_TAG:
            continue
        key = (key_node.tag, key_node.value)
        first = seen.setdefault(key, key_node)
        if first is not key_node:
            raise YamlRefused(
                problem=f"the key {key_node.value!r} is given twice (first at line "
                f"{first.start_mark.line + 1}): YAML would keep the last one silently; keep one",
                problem_mark=key_node.start_mark,
            )


def _refuse_boolean_keys(node: MappingNode) -> None:
    """A key YAML 1.1 reads as a boolean (``on:``, ``yes:``, ``no:`` unquoted) names nothing:
    every key of a file the program reads is a name or a number (a scale's levels)."""
    for key_node, _ in node.value:
        if isinstance(key_node, ScalarNode) and key_node.tag == BOOL_TAG:
            raise YamlRefused(
                problem=f"the key {key_node.value!r}: YAML reads yes/no/on/off/true/false "
                f"unquoted as a boolean, not a name: write '{key_node.value}' in quotes",
                problem_mark=key_node.start_mark,
            )


def _expanded_size(root: Node) -> int:
    """How many values ``root`` stands for with every alias expanded, each node measured once
    (an alias is the same node object as its anchor); YamlRefused past ``MAX_VALUES`` or for an
    alias inside its own anchor."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_VALUES:
                raise YamlRefused(
                    problem=f"its aliases expand to more than {MAX_VALUES:,} values (an alias "
                    "bomb?); write the values out or use fewer nested anchors",
                    problem_mark=node.start_mark,
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlRefused(
                problem="an alias refers to its own anchor", problem_mark=node.start_mark
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []
