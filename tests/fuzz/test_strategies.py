"""The strategies themselves (``judgegrid.testing.strategies``): valid values are valid for the
models they were read from, a mutation changes one node, and type checks read annotations."""

from __future__ import annotations

import json
import math
from typing import Any, Literal

import yaml
from hypothesis import find, given, settings
from hypothesis import strategies as st

from judgegrid.core.options import BatchMode, Execution, ModelOptions, RetryPolicy
from judgegrid.core.sample import SAMPLE_FIELDS, Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.testing.strategies import (
    BOMB_DEPTH,
    BOMB_WIDTH,
    KEY_PREFIX,
    Pairs,
    YamlFeature,
    alias_bomb,
    conforms,
    deep_nesting,
    emit_yaml,
    key_shaped,
    keys_in,
    model_values,
    mutated,
    nodes,
    yaml_documents,
)
from support.fuzz_targets import ci_settings, matrix_pins


@ci_settings(max_examples=40)
@given(st.sampled_from([BatchMode, Execution, ModelOptions, RetryPolicy]).flatmap(
    lambda model: st.tuples(st.just(model), model_values(model))))  # fmt: skip
def test_values_drawn_from_a_models_schema_are_valid_for_it(pair: tuple[Any, dict[str, Any]]):
    model, data = pair
    model.model_validate(data)


@ci_settings(max_examples=20)
@given(model_values(Matrix, matrix_pins()))
def test_a_pinned_matrix_is_a_valid_matrix(data: dict[str, Any]):
    assert Matrix.model_validate(data).judges[0].id.startswith("scripted/")


# A language is a BCP 47 tag or a language's English name, which no schema can list
LANGUAGES = {"language": st.sampled_from(["en", "vi", "zh", "ru", "pt-BR", "Vietnamese"])}


@ci_settings(max_examples=20)
@given(model_values(Sample, {**LANGUAGES, "probe.language": LANGUAGES["language"]}, SAMPLE_FIELDS))
def test_required_fields_are_always_written(data: dict[str, Any]):
    sample = Sample.model_validate({**data, "id": "s"})
    assert all(getattr(sample, f) is not None for f in SAMPLE_FIELDS)


@ci_settings(max_examples=40)
@given(mutated(model_values(RetryPolicy)))
def test_a_mutation_leaves_its_value_where_it_says(pair: tuple[Any, Any]):
    tree, mutation = pair
    assert mutation.path in nodes(tree)
    node = tree
    for part in mutation.path:
        node = node[part]
    if mutation.kind == "duplicate member":  # the path is the list's, the value its twin's
        node = node[0]
    assert node == mutation.value or node != node  # NaN is not equal to itself


@ci_settings(max_examples=10)
@given(key_shaped())
def test_key_shaped_strings_are_found_again(key: str):
    assert key.startswith(KEY_PREFIX)
    assert keys_in(f"https://user:{key}@host/v1") == [key]


def test_conforms_reads_annotations():
    assert conforms(1, int | None) and conforms(None, int | None)
    assert not conforms(True, int) and not conforms("2", int)
    assert conforms(["a"], list[str]) and not conforms("ab", list[str])
    assert conforms({"a": 1}, dict[str, Any]) and not conforms([("a", 1)], dict[str, Any])
    assert conforms("auto", Literal["auto", "native"]) and not conforms(-1, Literal["auto"])
    assert conforms(print, Any) and conforms(len, Any)


# -- YAML written as YAML (issue 39) -----------------------------------------------------------


class _PairsLoader(yaml.SafeLoader):
    """A plain loader that keeps a mapping's pairs as they are written (a key twice: twice)."""


_PairsLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    lambda loader, node: [
        (loader.construct_object(k), loader.construct_object(v)) for k, v in node.value
    ],
)


@ci_settings(max_examples=30)
@given(model_values(Matrix, matrix_pins()))
def test_a_plain_tree_is_written_as_yaml_that_loads_back_to_itself(tree: dict[str, Any]):
    assert yaml.safe_load(emit_yaml(tree)) == json.loads(json.dumps(tree))


def test_a_key_given_twice_is_in_the_text_twice_and_a_plain_loader_keeps_the_last():
    text = emit_yaml(
        {"judges": [{"id": "a"}], "retry": Pairs((("max_attempts", 1), ("max_attempts", 3)))}
    )
    retry = dict(_PairsLoader(text).get_single_data())["retry"]
    assert retry == [("max_attempts", 1), ("max_attempts", 3)]
    assert yaml.safe_load(text)["retry"] == {"max_attempts": 3}


@ci_settings(max_examples=20)
@given(yaml_documents(model_values(Matrix, matrix_pins()), ["duplicate key"]))
def test_a_drawn_duplicate_key_loads_as_a_duplicate(drawn: tuple[Any, str, YamlFeature]):
    _tree, text, feature = drawn
    node: Any = _PairsLoader(text).get_single_data()
    for part in feature.path:
        node = dict(node)[part] if isinstance(part, str) else node[part]
    keys = [k for k, _ in node]
    assert len(keys) == len(set(keys)) + 1


@ci_settings(max_examples=20)
@given(yaml_documents(model_values(Matrix, matrix_pins()), ["anchor and alias", "merge key"]))
def test_anchors_aliases_and_merge_keys_are_in_the_text_and_change_nothing(drawn):
    tree, text, _feature = drawn
    assert ("&shared" in text and "*shared" in text) or "<<:" in text
    assert yaml.safe_load(text) == tree


@ci_settings(max_examples=30)
@given(yaml_documents(model_values(Matrix, matrix_pins()), [
    "boolean where a number is due", "special float where a number is due",
    "boolean where a name is due"]))  # fmt: skip
def test_booleans_and_special_floats_load_where_they_were_placed(drawn):
    _tree, text, feature = drawn
    node = yaml.safe_load(text)
    for part in feature.path:
        node = node[part]
    if "boolean" in feature.kind:
        assert isinstance(node, bool)
    else:
        assert isinstance(node, float) and not math.isfinite(node)


def _leaves(node: Any) -> int:
    return sum(map(_leaves, node)) if isinstance(node, list) else 1


def test_an_alias_bomb_stands_for_width_to_the_depth_values_in_a_short_text():
    bomb = alias_bomb(3, 4)
    assert _leaves(yaml.safe_load(f"x: {bomb.text}")["x"]) == 3**4
    assert len(alias_bomb(BOMB_WIDTH, BOMB_DEPTH).text) < 400  # 10**6 values


def test_deep_nesting_is_as_deep_as_asked():
    node = yaml.safe_load(deep_nesting(50).text)
    depth = 0
    while isinstance(node, list):
        node, depth = (node[0] if node else None), depth + 1
    assert depth == 50
    assert yaml.safe_load(deep_nesting(3, mapping=True).text) == {"a": {"a": {"a": 1}}}


@ci_settings(max_examples=40)
@given(mutated(model_values(Matrix, matrix_pins())))
def test_a_mutation_that_must_be_refused_says_why(pair: tuple[Any, Any]):
    tree, mutation = pair
    if mutation.kind in ("boolean for a number", "non-finite number", "misspelt key"):
        assert mutation.refusal_due
    if mutation.kind == "boolean for a number":
        assert mutation.value in (True, False)
    if mutation.kind == "duplicate member":
        node = tree
        for part in mutation.path:
            node = node[part]
        assert node[0] == mutation.value and node.count(mutation.value) >= 2
    if mutation.kind == "misspelt key":  # the misspelt key is in the tree, at any depth
        *parents, misspelt = mutation.path
        node = tree
        for part in parents:
            node = node[part]
        assert misspelt in node and misspelt[:-1] not in node


def test_a_key_misspelt_at_the_top_is_in_the_tree():
    """A top-level key (the matrix's `dataset`) misspelt: the tree handed on holds the typo
    (the renamed root was dropped, so the campaign fed the valid tree and called it accepted)."""
    tree, _ = find(
        mutated(st.just({"dataset": None, "name": "x"})),
        lambda pair: pair[1].kind == "misspelt key" and pair[1].path == ("datasett",),
        settings=settings(database=None, max_examples=2000),
    )
    assert tree == {"datasett": None, "name": "x"}
