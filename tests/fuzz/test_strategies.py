"""The strategies themselves (``judgegrid.testing.strategies``): valid values are valid for the
models they were read from, a mutation changes one node, and type checks read annotations."""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st

from judgegrid.core.options import BatchMode, Execution, ModelOptions, RetryPolicy
from judgegrid.core.sample import SAMPLE_FIELDS, Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.testing.strategies import (
    KEY_PREFIX,
    conforms,
    key_shaped,
    keys_in,
    model_values,
    mutated,
    nodes,
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
