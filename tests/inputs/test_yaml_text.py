"""The bounded YAML loader every YAML input goes through (inputs/yaml_text.py): YAML's own
features as a person meets them. An alias bomb, a key given twice, an alias inside itself and
nesting too deep are refused as "not valid YAML" at their line; the anchors and merge keys people
write load as PyYAML loads them."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegrid.core.errors import MatrixError
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.inputs.yaml_text import MAX_VALUES, YamlRefused, load_yaml

MATRIX = "judges: [{id: openai/gpt-4o-mini}]\nmetrics: [faithfulness]\ndataset: demo\n"


def bomb(depth: int = 9) -> str:
    lines = ['l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, depth)]
    return "\n".join(lines) + f"\njudges: *l{depth - 1}\n"


def refusal(text: str) -> str:
    with pytest.raises(MatrixError) as refused:
        parse_matrix(text, "m.yaml")
    return str(refused.value)


def test_an_alias_bomb_is_refused_before_anything_walks_it():
    said = refusal(bomb() + "metrics: [faithfulness]\n")
    assert "m.yaml: line 6, column 5: not valid YAML" in said
    assert f"more than {MAX_VALUES:,} values (an alias bomb?)" in said


def test_a_key_given_twice_is_refused_naming_both_lines():
    said = refusal(MATRIX + "repeats: 1\nname: x\nrepeats: 3\n")
    assert "line 6, column 1" in said and "'repeats' is given twice (first at line 4)" in said


def test_a_second_spring_chat_models_list_is_refused_not_dropped():
    spring = """spring:
  ai:
    chat-models:
      - {model: openai/gpt-4o-mini}
      - {model: openai/gpt-4o}
    chat-models:
      - {model: openai/o3}
"""
    assert "'chat-models' is given twice (first at line 3)" in refusal(spring)


def test_shared_defaults_and_merge_keys_load_as_pyyaml_loads_them():
    text = (
        "base: &base {temperature: 0.3, seed: 1}\n"
        "judges:\n"
        "  - {<<: *base, id: openai/gpt-4o-mini}\n"
        "  - {<<: *base, id: openai/gpt-4o, temperature: 0.5}\n"
    )
    assert load_yaml(text) == yaml.safe_load(text)
    assert load_yaml(text)["judges"][1]["temperature"] == 0.5  # its own key beats the merged


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: &a [*a]\n", "an alias refers to its own anchor"),
        ("[" * 5000 + "]" * 5000, "nested too deep to read"),
    ],
)
def test_an_alias_inside_itself_and_endless_nesting_are_refused(text, words):
    with pytest.raises(YamlRefused, match=words):
        load_yaml(text)


SCALARS = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.text("abc xyz", max_size=5))
KEYS = st.text("abcdefgh", min_size=1, max_size=4)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@st.composite
def shared(draw: st.DrawFn) -> dict:
    """A mapping whose values reuse one another: PyYAML's dumper writes anchors and aliases."""
    parts = draw(st.lists(VALUES, min_size=1, max_size=4))
    picks = draw(st.lists(st.integers(0, len(parts) - 1), min_size=1, max_size=8))
    return {f"k{i}": parts[p] for i, p in enumerate(picks)}


@settings(max_examples=150, deadline=None)
@given(shared())
def test_documents_with_anchors_and_aliases_load_as_pyyaml_loads_them(data):
    text = yaml.safe_dump(data, sort_keys=False)
    assert load_yaml(text) == yaml.safe_load(text)


@settings(max_examples=100, deadline=None)
@given(shared(), st.sampled_from(["k0", "k1"]))
def test_a_key_given_twice_anywhere_is_refused(data, key):
    text = yaml.safe_dump({**data, "k0": 1, "k1": 2}, sort_keys=False) + f"{key}: again\n"
    with pytest.raises(YamlRefused, match=f"'{key}' is given twice"):
        load_yaml(text)


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "true", "False", "ON"])
def test_a_key_yaml_reads_as_a_boolean_is_refused_at_its_line(word):
    said = refusal(MATRIX + f"criteria:\n  - name: polite\n    labels: {{{word}: 1, other: 0}}\n")
    assert "line 6" in said and f"the key '{word}'" in said and f"write '{word}' in quotes" in said


def test_a_quoted_key_and_a_boolean_value_still_load():
    assert load_yaml("'on': 1\nflag: yes\n'yes': no\n") == {"on": 1, "flag": True, "yes": False}


def test_binary_data_is_refused_at_its_line():
    with pytest.raises(YamlRefused, match=r"binary data \(!!binary\)") as refused:
        load_yaml("name: ok\nid: !!binary aGk=\n")
    assert refused.value.problem_mark is not None and refused.value.problem_mark.line == 1
