"""A promptfoo config read as judgegrid's: its model-graded assertions as criteria (and what of
their thresholds has no place, said), its tests' vars as the samples of a data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgegrid.core.errors import MatrixError
from judgegrid.inputs.promptfoo import criteria_from_promptfoo, read_promptfoo

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


# -- thresholds: carried where the criterion has a place, else said ------------------------------

RAG = """
prompts: ["Answer from the context.\\nContext: {{context}}\\nQuestion: {{question}}"]
providers: [echo]
defaultTest:
  vars:
    context: Paris is the capital of France.
  assert:
    - type: llm-rubric
      value: Is not apologetic
tests:
  - vars: {question: 'What is the capital of France?', answer: Paris.}
    assert:
      - type: llm-rubric
        value: States the capital correctly
        threshold: 0.8
      - type: g-eval
        value: The answer is coherent and well written
        threshold: 0.6
  - vars: {question: 'Who wrote Hamlet?', answer: Shakespeare., context: Hamlet is by Shakespeare.}
    assert:
      - type: model-graded-closedqa
        value: Names a person
"""


def by_where(notices) -> dict[str, str]:
    return {n.where: n.message for n in notices}


def test_each_model_graded_assertion_becomes_the_criterion_promptfoo_grades_by(tmp_path):
    carried = read_promptfoo(write(tmp_path, RAG))
    kinds = {c.name: (c.type, c.fields, c.weighting) for c in carried.criteria}
    assert kinds == {
        "is_not_apologetic": ("binary", ("response",), "none"),
        "states_the_capital_correctly": ("binary", ("response",), "none"),
        # g-eval: the grader writes a level of 0..10 (promptfoo divides it by 10), no weighting
        "the_answer_is_coherent_and_well": ("scale", ("user_input", "response"), "none"),
        # model-graded-closedqa sees the question as well and answers Y or N
        "names_a_person": ("binary", ("user_input", "response"), "none"),
    }
    geval = carried.criteria[2]
    assert geval.levels == tuple(range(11))


def test_a_threshold_no_criterion_can_hold_is_a_warning_naming_the_assertion(tmp_path):
    carried = read_promptfoo(write(tmp_path, RAG))
    warnings = by_where(n for n in carried.notices if n.level == "warning")
    rubric = warnings["tests[0].assert[0].threshold"]
    assert "0.8" in rubric and "states_the_capital_correctly" in rubric
    assert "score" in rubric and "binary" in rubric  # why: a pass or fail has no score
    geval = warnings["tests[0].assert[1].threshold"]
    assert "level 6" in geval and "scale" in geval  # 0.6 of 0..10
    assert set(warnings) == {"tests[0].assert[0].threshold", "tests[0].assert[1].threshold"}


def test_a_g_eval_without_threshold_says_promptfoos_default(tmp_path):
    text = "tests:\n  - assert: [{type: g-eval, value: Is fluent}]\n"
    carried = read_promptfoo(write(tmp_path, text))
    notes = by_where(n for n in carried.notices if n.level == "note")
    assert "0.7" in notes["tests[0].assert[0]"] and "level 7" in notes["tests[0].assert[0]"]
    assert not [n for n in carried.notices if n.level == "warning"]


def test_a_closedqa_threshold_is_said_to_be_promptfoos_no_op(tmp_path):
    text = "tests:\n  - assert: [{type: model-graded-closedqa, value: 'Is it?', threshold: 0.5}]\n"
    carried = read_promptfoo(write(tmp_path, text))
    warning = by_where(carried.notices)["tests[0].assert[0].threshold"]
    assert "model-graded-closedqa" in warning and "Y or N" in warning


def test_a_g_eval_of_several_criteria_is_one_scale_each_and_the_mean_said(tmp_path):
    text = (
        "tests:\n  - assert:\n      - type: g-eval\n"
        "        value: [Is polite, Is concise]\n        threshold: 0.9\n"
    )
    carried = read_promptfoo(write(tmp_path, text))
    assert [c.definition for c in carried.criteria] == ["Is polite", "Is concise"]
    warning = by_where(carried.notices)["tests[0].assert[0].threshold"]
    assert "mean" in warning and "is_polite" in warning and "is_concise" in warning


# -- vars: the data set ---------------------------------------------------------------------------


def test_the_tests_vars_are_the_samples_defaulttest_vars_under_each(tmp_path):
    carried = read_promptfoo(write(tmp_path, RAG))
    assert list(carried.samples) == [
        {
            "id": "test-0",
            "user_input": "What is the capital of France?",
            "response": "Paris.",
            "retrieved_contexts": ["Paris is the capital of France."],  # defaultTest's
        },
        {
            "id": "test-1",
            "user_input": "Who wrote Hamlet?",
            "response": "Shakespeare.",
            "retrieved_contexts": ["Hamlet is by Shakespeare."],  # the test's own wins
        },
    ]
    assert carried.mapping == {
        "question": "user_input",
        "answer": "response",
        "context": "retrieved_contexts",
    }


def test_a_var_the_rubric_reads_is_shown_to_the_judge_and_written_as_a_column(tmp_path):
    text = """
tests:
  - vars: {question: 'Why is the sky blue?', output: Rayleigh scattering., topic: physics}
    assert:
      - type: llm-rubric
        value: 'Answers "{{ question }}" and stays on {{topic}}'
"""
    carried = read_promptfoo(write(tmp_path, text))
    (spec,) = carried.criteria
    assert spec.fields == ("response", "user_input", "topic")
    assert spec.definition == (
        'Answers "the Question given below" and stays on the Topic given below'
    )
    assert list(carried.samples) == [
        {
            "id": "test-0",
            "user_input": "Why is the sky blue?",
            "response": "Rayleigh scattering.",
            "topic": "physics",
        }
    ]


def test_a_var_that_maps_to_nothing_is_left_out_and_named(tmp_path):
    text = """
tests:
  - vars: {question: 'Q?', answer: A., tone: formal, retries: 3}
    assert: [{type: llm-rubric, value: Is formal}]
"""
    carried = read_promptfoo(write(tmp_path, text))
    assert list(carried.samples) == [{"id": "test-0", "user_input": "Q?", "response": "A."}]
    (note,) = [n for n in carried.notices if n.where == "vars"]
    assert note.level == "note" and "tone, retries" in note.message


def test_vars_without_the_output_write_no_data_set_and_say_why(tmp_path):
    carried = read_promptfoo(write(tmp_path, CONFIG))  # questions only: promptfoo makes outputs
    assert carried.samples == ()
    (note,) = [n for n in carried.notices if n.where == "vars"]
    assert "no test's vars hold response" in note.message
    assert "answer, actual_output or output" in note.message  # the names that would be read


def test_a_list_of_texts_in_a_var_is_one_sample_each_as_promptfoo_runs_it(tmp_path):
    text = """
tests:
  - vars: {question: 'Q?', answer: A., context: [first doc, second doc]}
    assert: [{type: llm-rubric, value: Is grounded}]
"""
    carried = read_promptfoo(write(tmp_path, text))
    assert [(s["id"], s["retrieved_contexts"]) for s in carried.samples] == [
        ("test-0-0", ["first doc"]),
        ("test-0-1", ["second doc"]),
    ]


def test_the_files_read_are_named_so_none_is_written_over(tmp_path):
    (tmp_path / "cases.yaml").write_text(
        "- vars: {question: 'Q?', answer: A.}\n  assert: [{type: llm-rubric, value: 'Is it?'}]\n"
    )
    path = write(tmp_path, "tests: file://cases.yaml\n")
    carried = read_promptfoo(path)
    assert carried.files == (path, tmp_path / "cases.yaml")
    assert [s["id"] for s in carried.samples] == ["test-0"]


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        (
            "tests: [{assert: [{type: llm-rubric, value: x, threshold: high}]}]",
            "tests[0].assert[0].threshold",
            "a number from 0 to 1",
        ),
        (
            "tests: [{assert: [{type: llm-rubric, value: x, threshold: 80}]}]",
            "tests[0].assert[0].threshold",
            "outside 0..1",
        ),
        (
            "tests: [{assert: [{type: g-eval, value: x, threshold: yes}]}]",
            "tests[0].assert[0].threshold",
            "write the number",
        ),
        (
            "tests: [{assert: [{type: g-eval, value: x, threshold: .nan}]}]",
            "tests[0].assert[0].threshold",
            "a number from 0 to 1",
        ),
        (
            "tests: [{vars: [question, 'Q?'], assert: [{type: llm-rubric, value: x}]}]",
            "tests[0].vars",
            "a mapping",
        ),
        (
            "defaultTest: {vars: file://vars.yaml}\n"
            "tests: [{assert: [{type: llm-rubric, value: x}]}]",
            "defaultTest.vars",
            "a mapping",
        ),
        (
            "tests: [{vars: {answer: yes}, assert: [{type: llm-rubric, value: x}]}]",
            "tests[0].vars.answer",
            "write 'yes' in quotes",
        ),
        (
            "tests: [{vars: {context: {a: 1}}, assert: [{type: llm-rubric, value: x}]}]",
            "tests[0].vars.context",
            "text",
        ),
        (
            "tests: [{vars: {q: x},"
            " assert: [{type: llm-rubric, value: 'Says {{ name | upper }}'}]}]",
            "tests[0].assert[0]",
            "{{name}}",
        ),
        ("tests: [{assert: [{type: g-eval, value: [x, 3]}]}]", "tests[0].assert[0]", "text"),
    ],
)
def test_what_cannot_be_carried_is_refused_naming_the_field(tmp_path, text, where, says):
    path = write(tmp_path, text)
    with pytest.raises(MatrixError) as err:
        read_promptfoo(path)
    assert err.value.source == str(path)
    assert [p.where for p in err.value.problems] == [where]
    assert says in err.value.problems[0].message


def test_a_test_that_is_no_mapping_is_named_not_skipped_silently(tmp_path):
    text = """
tests:
  - file://more_tests.yaml
  - vars: {question: 'Q?', answer: 1234567890.0, reference: 0.25}
    assert: [{type: llm-rubric, value: Is it right}]
"""
    carried = read_promptfoo(write(tmp_path, text))
    (note,) = [n for n in carried.notices if n.where == "tests[0]"]
    assert "file://more_tests.yaml" in note.message and "not read" in note.message
    # the sample's id is its test's place; a number is its text, in full
    assert list(carried.samples) == [
        {"id": "test-1", "user_input": "Q?", "response": "1234567890", "reference": "0.25"}
    ]


def test_the_note_on_vars_not_written_says_what_the_data_set_needs(tmp_path):
    text = """
tests:
  - vars: {question: 'Q?', topic: physics}
    assert: [{type: llm-rubric, value: 'Stays on {{topic}}'}]
"""
    carried = read_promptfoo(write(tmp_path, text))
    (note,) = [n for n in carried.notices if n.where == "vars"]
    assert "a data set for these criteria holds response, topic" in note.message


def test_a_var_named_like_judgegrids_own_field_is_a_column_of_its_own(tmp_path):
    # `language` is a sample's own field (its language tag): the var's column is another name
    text = """
tests:
  - vars: {question: Good morning, output: Bonjour, language: French}
    assert: [{type: llm-rubric, value: 'Is written in {{language}}'}]
"""
    carried = read_promptfoo(write(tmp_path, text))
    assert carried.criteria[0].fields == ("response", "var_language")
    assert carried.samples[0]["var_language"] == "French"
    assert carried.mapping["language"] == "var_language"
