"""The model matrix: schema, defaults, precise errors, credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from judgegrid.core.errors import MatrixError
from judgegrid.core.options import duration_words, parse_duration
from judgegrid.inputs.matrix import inspect_matrix, load_matrix, parse_matrix
from judgegrid.run.preflight import credential_problems

MINIMAL = """
judges:
  - id: scripted/judge-a
metrics: [faithfulness]
"""


@pytest.mark.parametrize("name", ["local", "openrouter", "openai", "ollama", "criteria"])
def test_shipped_matrices_validate(name):
    matrix = load_matrix(ROOT / "model_matrices" / f"{name}.yaml")
    assert matrix.judges and (matrix.metrics or matrix.criteria)


def test_openrouter_matrix_is_the_seed_002_setup():
    m = load_matrix(ROOT / "model_matrices" / "openrouter.yaml")
    ids = [j.id for j in m.judges]
    assert ids == [
        "openrouter/anthropic/claude-4.5-sonnet",
        "openrouter/google/gemini-2.5-flash",
        "openrouter/openai/gpt-4o-mini",
        "openrouter/deepseek/deepseek-v3.2",
    ]
    options = m.judge_options(m.judges[0])
    assert (options.temperature, options.max_tokens, options.top_p) == (0.0, 1000, 1.0)
    assert m.retry.on_http_codes == [429]
    assert (m.retry.initial_interval, m.retry.max_interval, m.retry.multiplier) == (2, 30, 2)
    dims = {e.id: m.embedding_dimensions(e) for e in m.embeddings}
    assert dims == {
        "openrouter/openai/text-embedding-3-large": [3072],
        "openrouter/qwen/qwen3-embedding-8b": [1024],
    }


def test_defaults_merge_and_entries_override():
    m = parse_matrix("""
defaults:
  judge: {temperature: 0.0, max-tokens: 500, extra: {a: 1}}
judges:
  - id: scripted/x
  - id: scripted/x
    label: hot
    options: {temperature: 0.9, extra: {b: 2}}
metrics: [faithfulness]
""")
    cold, hot = (m.judge_options(j) for j in m.judges)
    assert (cold.temperature, cold.max_tokens) == (0.0, 500)
    assert (hot.temperature, hot.max_tokens) == (0.9, 500)
    assert hot.extra == {"a": 1, "b": 2}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2000ms", 2.0), ("2s", 2.0), ("1m", 60.0), ("1.5h", 5400.0), (3, 3.0), ("0.5", 0.5)],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


def problems_of(text: str) -> list[str]:
    with pytest.raises(MatrixError) as info:
        parse_matrix(text, "m.yaml")
    return str(info.value).splitlines()


def test_misspelt_field_names_the_path_and_suggests():
    lines = problems_of("""
judges:
  - id: scripted/a
  - id: scripted/b
  - id: scripted/c
    options: {temperture: 0.2}
metrics: [faithfulness]
""")
    assert lines == [
        "m.yaml: judges[2].options.temperture: unknown field; did you mean 'temperature'?"
    ]


def test_wrong_value_says_what_was_expected():
    (line,) = problems_of("""
judges:
  - id: scripted/a
    options: {temperature: hot}
metrics: [faithfulness]
""")
    assert line.startswith("m.yaml: judges[0].options.temperature: ")
    assert "number" in line and "'hot'" in line


def test_unknown_metric_lists_the_known_ones():
    (line,) = problems_of(MINIMAL.replace("[faithfulness]", "[faithfullness]"))
    assert "metrics[0].name: unknown metric 'faithfullness'; did you mean 'faithfulness'?" in line


def test_metric_names_in_ragas_spelling_are_accepted():
    m = parse_matrix(MINIMAL.replace("[faithfulness]", "[Faithfulness]"))
    assert m.metrics[0].name == "Faithfulness"


def test_one_fault_does_not_hide_the_next():
    matrix, problems = inspect_matrix("""
judges:
  - id: scripted/a
    options: {temprature: 0}
metrics: [faithfulness, answer_correctness]
""")
    assert matrix is not None
    assert [p.where for p in problems] == ["judges[0].options.temprature", "metrics[1].name"]


def test_duplicate_labels_are_refused():
    (line,) = problems_of("judges: [{id: scripted/a}, {id: scripted/a}]\nmetrics: [faithfulness]")
    assert "judges[1].label: 'scripted/a' is used by judges[0] too" in line


def test_keys_in_the_matrix_are_refused():
    (line,) = problems_of("""
judges:
  - id: scripted/a
    options: {extra: {api_key: sk-123}}
metrics: [faithfulness]
""")
    assert "api_key must not be written in the matrix" in line


def test_embedding_metric_without_embedding_model():
    (line,) = problems_of(MINIMAL.replace("[faithfulness]", "[response_relevancy]"))
    assert "response_relevancy needs an embedding model" in line


def test_not_yaml_points_at_the_line():
    (line,) = problems_of("judges: [\n  - id: x\n metrics: ]")
    assert line.startswith("m.yaml: line ")


def test_missing_key_variable_is_found_before_any_call():
    m = parse_matrix("""
judges:
  - id: openai/gpt-4o-mini
    options: {api-key-env: MY_TEST_KEY}
  - id: scripted/free
metrics: [faithfulness]
""")
    (problem,) = credential_problems(m, environ={})
    assert "MY_TEST_KEY is not set" in problem.message
    assert credential_problems(m, environ={"MY_TEST_KEY": "x"}) == []


def test_unreadable_file(tmp_path: Path):
    with pytest.raises(MatrixError, match=r"missing\.yaml: file not found"):
        load_matrix(tmp_path / "missing.yaml")


def test_decision_margin_and_juries_are_read_and_checked():
    two = MINIMAL.replace("judges:\n", "judges:\n  - id: scripted/judge-b\n")
    matrix = parse_matrix(two + "decision: {margin: 0.05}\njuries: true\n")
    assert matrix.decision.margin == 0.05
    assert matrix.jury_panels == [["scripted/judge-b", "scripted/judge-a"]]
    assert parse_matrix(two).jury_panels == [] and parse_matrix(two).decision.margin is None
    listed = parse_matrix(two + "juries: [[scripted/judge-a, scripted/judge-b]]\n")
    assert listed.jury_panels == [["scripted/judge-a", "scripted/judge-b"]]
    with pytest.raises(MatrixError) as bad_margin:
        parse_matrix(two + "decision: {margin: 1.5}\n")
    assert "decision.margin" in str(bad_margin.value)
    with pytest.raises(MatrixError) as unknown:
        parse_matrix(two + "juries: [[scripted/judge-a, nobody]]\n")
    assert "juries[0]: unknown judge 'nobody' in the matrix" in str(unknown.value)
    assert "known: scripted/judge-b, scripted/judge-a" in str(unknown.value)
    with pytest.raises(MatrixError) as alone:
        parse_matrix(two + "juries: [[scripted/judge-a]]\n")
    assert "two different judges" in str(alone.value)


@pytest.mark.parametrize(
    ("juries", "said"),
    [
        ("[[a, b], [b, a]]", "juries[1]: the same jury as juries[0] (a, b), in another order"),
        ("[[a, b, a]]", "juries[0]: judge 'a' is given twice (1st and 3rd)"),
    ],
)
def test_a_jury_given_twice_is_refused_in_any_order(juries, said):
    two = "judges: [{id: scripted/judge-a, label: a}, {id: scripted/judge-b, label: b}]\n"
    with pytest.raises(MatrixError) as twice:
        parse_matrix(two + "metrics: [faithfulness]\njuries: " + juries + "\n")
    assert said in str(twice.value)


@pytest.mark.parametrize("second", ["faithfulness", "Faithfulness", "{name: faithfulness}"])
def test_a_metric_named_twice_is_refused_in_any_spelling(second):
    with pytest.raises(MatrixError) as twice:
        parse_matrix(f"judges: [{{id: scripted/judge-a}}]\nmetrics: [faithfulness, {second}]\n")
    said = str(twice.value)
    assert "metrics[1].name" in said and "1st" in said and "2nd" in said and "give it once" in said


CRITERIA = """
judges:
  - id: scripted/judge-a
criteria:
  - name: correct
    definition: Is the reply correct?
    type: labels
    labels: {fully-right: 1, half-right: 0.5, wrong: 0}
    higher-is-better: true
  - name: on_topic
    definition: Does the reply answer the question?
    type: binary
    strictness: 3
    fails-when: [foreign_response]
    weighting: auto
"""


def test_criteria_read_with_dashes_and_their_label_names_as_written():
    matrix = parse_matrix(CRITERIA)
    correct, on_topic = matrix.criteria
    assert matrix.metrics == []  # a matrix of criteria alone is a matrix
    assert correct.labels == {"fully-right": 1, "half-right": 0.5, "wrong": 0}
    assert correct.higher_is_better and on_topic.fails_when == ("foreign_response",)
    assert set(matrix.scorers()) == {"correct", "on_topic"}
    assert matrix.generations() == {"on_topic": 3}


@pytest.mark.parametrize(
    ("edit", "where", "words"),
    [
        (("name: correct", "name: faithfulness"), "criteria[0].name", "built-in metric"),
        (("name: correct", "name: contextentityrecall"), "criteria[0].name", "built-in"),
        (("name: on_topic", "name: correct"), "criteria[1].name", "criteria[0] too"),
        (("name: correct", "name: preference"), "criteria[0].name", "preference labels"),
        (("[foreign_response]", "[verbosity]"), "criteria[1].fails_when", "not a directional"),
    ],
)
def test_a_criterion_that_cannot_be_told_apart_is_refused(edit, where, words):
    _, problems = inspect_matrix(CRITERIA.replace(*edit))
    assert [p.where for p in problems] == [where]
    assert words in problems[0].message


def test_a_matrix_with_nothing_to_score_is_refused():
    _, problems = inspect_matrix("judges: [{id: scripted/judge-a}]\n")
    assert [p.where for p in problems] == ["metrics"]
    assert "criteria:" in problems[0].message


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (3600, "an hour"),
        (1200, "20 minutes"),
        (9000, "2.5 hours"),
        (60, "1 minute"),
        (30, "30 seconds"),
    ],
)
def test_durations_in_words(seconds, words):
    assert duration_words(seconds) == words
