"""A promptfoo config read as judgegrid's: its model-graded assertions as criteria (and what of
their thresholds has no place, said), its tests' vars as the samples of a data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgegrid.core.errors import MatrixError
from judgegrid.inputs.promptfoo import criteria_from_promptfoo

CONFIG = """
prompts: ["Answer: {{question}}"]
providers: [openai:gpt-4o-mini]
defaultTest:
  assert:
    - type: llm-rubric
      value: Is not apologetic and gives a clear, concise answer
tests:
  - vars: {question: 'Why is the sky blue?'}
    assert:
      - type: contains
        value: scatter
      - type: llm-rubric
        value: Mentions Rayleigh scattering
        metric: Physics
  - vars: {question: 'What is 2+2?'}
    assert:
      - type: assert-set
        assert:
          - type: llm-rubric
            value: Mentions Rayleigh scattering
          - type: llm-rubric
            value: "Is not apologetic and gives a clear answer!"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_promptfoo_llm_rubrics_are_binary_criteria_one_per_distinct_value(tmp_path):
    specs = criteria_from_promptfoo(write(tmp_path, CONFIG))
    assert [s.name for s in specs] == [
        "is_not_apologetic_and_gives_a",
        "physics",
        "is_not_apologetic_and_gives_a_2",
    ]
    assert [s.definition for s in specs] == [
        "Is not apologetic and gives a clear, concise answer",
        "Mentions Rayleigh scattering",
        "Is not apologetic and gives a clear answer!",
    ]
    assert {(s.type, s.fields) for s in specs} == {("binary", ("response",))}


def test_promptfoo_tests_in_a_file_are_read(tmp_path):
    (tmp_path / "cases.yaml").write_text(
        "- assert: [{type: llm-rubric, value: Answers in French}]\n", encoding="utf-8"
    )
    specs = criteria_from_promptfoo(write(tmp_path, "tests: file://cases.yaml\n"))
    assert [(s.name, s.definition) for s in specs] == [("answers_in_french", "Answers in French")]


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        (
            "tests: [{assert: [{type: llm-rubric, value: 'Says {{name}}'}]}]",
            "tests[0].assert[0]",
            "variables",
        ),
        ("tests: [{assert: [{type: llm-rubric}]}]", "tests[0].assert[0]", "rubric's text"),
        ("tests: [{assert: [{type: contains, value: x}]}]", "", "no llm-rubric"),
        ("tests: [1, 2", "line 1, column 13", "not valid YAML"),
        ("tests: file://cases.csv", "tests", "only YAML or JSON"),
    ],
)
def test_promptfoo_what_cannot_be_read_is_refused_naming_the_place(tmp_path, text, where, says):
    path = write(tmp_path, text)
    with pytest.raises(MatrixError) as err:
        criteria_from_promptfoo(path)
    assert err.value.source == str(path)
    assert [p.where for p in err.value.problems] == [where]
    assert says in err.value.problems[0].message
