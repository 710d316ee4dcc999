"""`judgegrid init`: a starter matrix that validates and plans at once, from the keys set."""

from __future__ import annotations

import json
from pathlib import Path

import litellm
import pytest
import yaml
from typer.testing import CliRunner

from judgegrid.cli import app
from judgegrid.run.starter import PROVIDERS, TEMPLATE_SUFFIX

runner = CliRunner()
SPRING = Path(__file__).parents[1] / "data" / "spring_application.yaml"


@pytest.fixture
def no_keys(monkeypatch):
    for provider in PROVIDERS:
        monkeypatch.delenv(provider.key_env, raising=False)
    return monkeypatch


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("model", [m for p in PROVIDERS for m in (p.judge, p.embedding) if m])
def test_every_model_in_the_table_is_in_litellms_model_map(model):
    bare = model.split("/", 1)[1]
    assert model in litellm.model_cost or bare in litellm.model_cost, model


def test_no_key_writes_a_matrix_of_the_local_models_that_validates_and_plans(tmp_path, no_keys):
    path = tmp_path / "judgegrid.yaml"
    out = _ok(["init", str(path)])
    assert "local models" in out
    matrix = yaml.safe_load(path.read_text())
    assert [j["id"] for j in matrix["judges"]] == ["local/gemma-3-270m", "local/smollm2-135m"]
    assert all(e["id"].startswith("local/") for e in matrix["embeddings"])
    template = tmp_path / f"judgegrid{TEMPLATE_SUFFIX}"
    assert matrix["dataset"] == template.name
    assert len(template.read_text().splitlines()) == 2
    assert "ok — 2 judges, 2 embedding models, 3 metrics" in _ok(["validate", str(path)])
    assert "local/gemma-3-270m" in _ok(["plan", str(path)])


def test_every_block_is_explained_by_a_comment(tmp_path, no_keys):
    path = tmp_path / "m.yaml"
    _ok(["init", str(path)])
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line and not line.startswith(("#", " ", "-")):  # a top-level key
            assert lines[i - 1].startswith("#"), line


def test_openai_key_names_openai_models_and_validate_and_plan_succeed(tmp_path, no_keys):
    no_keys.setenv("OPENAI_API_KEY", "dummy")
    path = tmp_path / "judgegrid.yaml"
    out = _ok(["init", str(path)])
    assert "openai (key in OPENAI_API_KEY)" in out
    matrix = yaml.safe_load(path.read_text())
    assert [j["id"] for j in matrix["judges"]] == ["openai/gpt-4o-mini"]
    assert [e["id"] for e in matrix["embeddings"]] == ["openai/text-embedding-3-small"]
    assert matrix["judges"][0]["options"] == {"api-key-env": "OPENAI_API_KEY"}
    assert "dummy" not in path.read_text()
    _ok(["validate", str(path)])
    assert "openai/gpt-4o-mini" in _ok(["plan", str(path)])


def test_refuses_to_overwrite_and_names_the_file(tmp_path, no_keys):
    path = tmp_path / "judgegrid.yaml"
    path.write_text("mine\n")
    result = runner.invoke(app, ["init", str(path)])
    assert result.exit_code == 2
    assert str(path) in result.stderr and "already exists" in result.stderr
    assert path.read_text() == "mine\n"
    assert not (tmp_path / f"judgegrid{TEMPLATE_SUFFIX}").exists()


def test_dataset_writes_the_columns_it_detects(tmp_path, no_keys):
    data = tmp_path / "mine.jsonl"
    rows = [
        {
            "question": "What is the capital of France?",
            "answer": "Paris.",
            "contexts": ["Paris is the capital of France."],
            "ground_truth": "Paris",
        },
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    path = tmp_path / "judgegrid.yaml"
    _ok(["init", str(path), "--dataset", str(data)])
    matrix = yaml.safe_load(path.read_text())
    assert matrix["dataset"] == "mine.jsonl"
    assert matrix["columns"]["user_input"] == "question"
    assert matrix["columns"]["response"] == "answer"
    assert "1 samples from" in _ok(["validate", str(path)]) or "1 sample" in _ok(
        ["validate", str(path)]
    )


def test_from_spring_writes_the_equivalent_matrix(tmp_path, no_keys):
    no_keys.setenv("OPENROUTER_API_KEY", "dummy")
    path = tmp_path / "judgegrid.yaml"
    _ok(["init", str(path), "--from", str(SPRING)])
    text = path.read_text()
    assert "# spring.ai.chat-models.list" in text
    matrix = yaml.safe_load(text)
    assert matrix["judges"][0]["id"] == "openrouter/anthropic/claude-4.5-sonnet"
    assert matrix["defaults"]["judge"]["api_key_env"] == "OPENROUTER_API_KEY"
    assert "dummy" not in text
    spring_plan = _ok(["plan", str(SPRING), "--limit", "3", "--no-cache"])
    written_plan = _ok(["plan", str(path), "--limit", "3", "--no-cache"])
    assert spring_plan.split("cells:")[0] == written_plan.split("cells:")[0]


PROMPTFOO = """
prompts: ["Answer briefly: {{question}}"]
providers: [openai:gpt-4o-mini]
defaultTest:
  assert:
    - type: llm-rubric
      value: Is not apologetic and gives a clear, concise answer
tests:
  - vars: {question: "Why is the sky blue?"}
    assert:
      - type: llm-rubric
        value: Mentions Rayleigh scattering
        metric: physics
      - type: contains
        value: blue
  - vars: {question: "Why is grass green?"}
    assert:
      - type: assert-set
        assert:
          - type: llm-rubric
            value: Mentions Rayleigh scattering
"""


def test_from_promptfoo_writes_its_rubrics_as_binary_criteria(tmp_path, no_keys):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(PROMPTFOO)
    path = tmp_path / "judgegrid.yaml"
    out = _ok(["init", str(path), "--from", str(config)])
    assert "the rubrics of" in out and "local models" in out
    text = path.read_text()
    assert "# The model-graded assertions of" in text
    matrix = yaml.safe_load(text)
    assert matrix["criteria"] == [
        {
            "name": "is_not_apologetic_and_gives_a",
            "type": "binary",
            "definition": "Is not apologetic and gives a clear, concise answer",
            "fields": ["response"],
        },
        {  # the same rubric twice is one criterion
            "name": "physics",
            "type": "binary",
            "definition": "Mentions Rayleigh scattering",
            "fields": ["response"],
        },
    ]
    assert "metrics" not in matrix and "embeddings" not in matrix  # the rubrics are the grid
    assert matrix["dataset"] == f"judgegrid{TEMPLATE_SUFFIX}"  # promptfoo's outputs: yours
    assert "0 metrics, 2 criteria" in _ok(["validate", str(path)])
    assert "local/gemma-3-270m" in _ok(["plan", str(path)])


def test_from_promptfoo_names_the_file_and_the_assertion_at_fault(tmp_path, no_keys):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "tests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions {{topic}}\n"
    )
    path = tmp_path / "judgegrid.yaml"
    result = runner.invoke(app, ["init", str(path), "--from", str(config)])
    assert result.exit_code == 2
    assert f"{config}: tests[0].assert[0]: value uses the test's variables" in result.stderr
    assert not path.exists() and not (tmp_path / f"judgegrid{TEMPLATE_SUFFIX}").exists()


RAG_CONFIG = """
prompts: ["Answer from the context.\\nContext: {{context}}\\nQuestion: {{question}}"]
providers: [echo]
defaultTest:
  assert:
    - type: llm-rubric
      value: Is not apologetic
tests:
  - vars:
      question: What is the capital of France?
      context: Paris is the capital and largest city of France.
      answer: Paris.
      tone: plain
    assert:
      - type: llm-rubric
        value: 'Answers "{{question}}" from the context alone'
        threshold: 0.8
      - type: g-eval
        value: The answer is coherent
        threshold: 0.6
  - vars:
      question: Who wrote Hamlet?
      context: Hamlet is a tragedy by William Shakespeare.
      answer: Shakespeare.
    assert:
      - type: model-graded-closedqa
        value: Names a person
"""


def test_from_promptfoo_writes_its_vars_as_the_data_set_and_says_each_threshold(tmp_path, no_keys):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(RAG_CONFIG)
    path = tmp_path / "judgegrid.yaml"
    result = runner.invoke(app, ["init", str(path), "--from", str(config)])
    assert result.exit_code == 0, result.output
    data = tmp_path / f"judgegrid{TEMPLATE_SUFFIX}"
    assert f"wrote {data} (2 samples from the tests' vars" in result.stdout
    # each threshold said on stderr, naming the file and the assertion, and in the matrix
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert [line.split(": ")[2] for line in warned] == [
        "tests[0].assert[0].threshold",
        "tests[0].assert[1].threshold",
    ]
    assert all(f"warning: {config}: " in line for line in warned)
    assert "note: " in result.stderr and "tone" in result.stderr  # the var not carried
    text = path.read_text()
    assert "# tests[0].assert[0].threshold: 0.8 is not carried" in text
    assert "# tests[0].assert[1].threshold: 0.6 is not carried" in text
    matrix = yaml.safe_load(text)
    assert matrix["dataset"] == data.name
    assert [(c["name"], c["type"], c["fields"]) for c in matrix["criteria"]] == [
        ("is_not_apologetic", "binary", ["response"]),
        ("answers_question_from_the_context_alone", "binary", ["response", "user_input"]),
        ("the_answer_is_coherent", "scale", ["user_input", "response"]),
        ("names_a_person", "binary", ["user_input", "response"]),
    ]
    samples = [json.loads(line) for line in data.read_text().splitlines()]
    assert samples[0] == {
        "id": "test-0",
        "user_input": "What is the capital of France?",
        "response": "Paris.",
        "retrieved_contexts": ["Paris is the capital and largest city of France."],
    }
    assert "2 samples" in _ok(["validate", str(path)])
    assert "local/gemma-3-270m" in _ok(["plan", str(path)])


def test_from_promptfoo_keeps_a_data_set_in_the_way_unless_overwrite(tmp_path, no_keys):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(RAG_CONFIG)
    path = tmp_path / "judgegrid.yaml"
    data = tmp_path / f"judgegrid{TEMPLATE_SUFFIX}"
    data.write_text("mine\n")
    result = runner.invoke(app, ["init", str(path), "--from", str(config)])
    assert result.exit_code == 2
    assert str(data) in result.stderr and "already exists" in result.stderr
    assert data.read_text() == "mine\n" and not path.exists()
    _ok(["init", str(path), "--from", str(config), "--overwrite"])
    assert data.read_text().startswith('{"id": "test-0"')


def test_from_promptfoo_never_writes_over_the_tests_file_it_reads(tmp_path, no_keys):
    (tmp_path / "cases.yaml").write_text("- assert: [{type: llm-rubric, value: Is brief}]\n")
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("tests: file://cases.yaml\n")
    result = runner.invoke(
        app, ["init", str(tmp_path / "cases.yaml"), "--from", str(config), "--overwrite"]
    )
    assert result.exit_code == 2 and "own inputs" in result.stderr
    assert "Is brief" in (tmp_path / "cases.yaml").read_text()


def test_from_a_file_of_neither_kind_says_what_it_expected(tmp_path, no_keys):
    other = tmp_path / "other.yaml"
    other.write_text("name: x\n")
    result = runner.invoke(app, ["init", str(tmp_path / "m.yaml"), "--from", str(other)])
    assert result.exit_code == 2
    assert "neither a Spring AI configuration" in result.stderr and "promptfoo" in result.stderr
