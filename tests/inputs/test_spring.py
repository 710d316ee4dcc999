"""A Spring AI application.yaml (seed 002's shape) read as a matrix, as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ROOT
from judgegrid import api
from judgegrid.cli import app
from judgegrid.core.errors import MatrixError
from judgegrid.inputs.matrix import load_matrix, parse_matrix

runner = CliRunner()
SPRING = Path(__file__).parents[1] / "data" / "spring_application.yaml"
# ../shared beside the clone (or beside the worktrees' folder).
SEEDS = next(
    (p / "shared" / "seeds" for p in ROOT.parents[:2] if (p / "shared" / "seeds").is_dir()),
    ROOT.parent / "shared" / "seeds",
)


def _plan_calls(plan) -> list[tuple[str, str, int, int, int]]:
    return sorted((r.model, r.step, r.calls, r.prompt_tokens, r.output_tokens) for r in plan.rows)


@pytest.mark.skipif(
    not list(SEEDS.glob("002_*")), reason="../shared/seeds is not beside this clone"
)
def test_committed_copy_is_the_seeds_block_verbatim():
    text = next(SEEDS.glob("002_*")).read_text(encoding="utf-8")
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert SPRING.read_text(encoding="utf-8") == block


def test_seed_file_translates_to_the_hand_written_matrix(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    spring = load_matrix(SPRING)
    hand = load_matrix(ROOT / "model_matrices" / "openrouter.yaml")
    assert [j.id for j in spring.judges] == [j.id for j in hand.judges]
    assert [e.id for e in spring.embeddings] == [e.id for e in hand.embeddings]
    assert spring.defaults.judge == hand.defaults.judge
    assert spring.defaults.embedding == hand.defaults.embedding
    assert [spring.embedding_dimensions(e) for e in spring.embeddings] == [[3072], [1024]]
    assert spring.retry.on_http_codes == [429]
    assert (spring.retry.initial_interval, spring.retry.max_interval) == (2.0, 30.0)
    assert spring.retry.max_attempts == 10  # Spring AI's default; the file names none
    assert len(spring.metrics) == 7


def test_seed_plan_makes_the_same_calls_as_openrouter_yaml(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    hand = load_matrix(ROOT / "model_matrices" / "openrouter.yaml")
    # The Spring file has no word for metrics, strictness or repeats: give it the hand
    # translation's, the rest comes from the file as it is.
    spring = load_matrix(SPRING).model_copy(
        update={"metrics": hand.metrics, "strictness": hand.strictness, "repeats": hand.repeats}
    )
    spring_plan = api.plan_grid(spring, "demo", limit=4, use_cache=False)
    hand_plan = api.plan_grid(hand, "demo", limit=4, use_cache=False)
    assert _plan_calls(spring_plan) == _plan_calls(hand_plan)
    assert sum(r.calls for r in spring_plan.rows) > 0


def test_validate_and_plan_accept_the_seed_file(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    result = runner.invoke(app, ["validate", str(SPRING)])
    assert result.exit_code == 0, result.output
    assert "4 judges, 2 embedding models, 7 metrics" in result.stdout
    plan = runner.invoke(app, ["plan", str(SPRING), "--limit", "2"])
    assert plan.exit_code == 0, plan.output
    assert "openrouter/" in plan.stdout or "claude-4.5-sonnet" in plan.stdout


def test_the_key_stays_in_the_environment(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-secret-value")
    matrix = load_matrix(SPRING)
    assert matrix.defaults.judge.api_key_env == "OPENROUTER_API_KEY"
    assert "sk-secret-value" not in matrix.model_dump_json()


def test_other_openai_compatible_server_gets_openai_prefix_and_api_base():
    matrix = parse_matrix("""
spring:
  ai:
    openai: {base-url: "http://127.0.0.1:8000", api-key: "${LOCAL_KEY:none}"}
    chat-models:
      list: [{id: my-model, options: {temperature: 0.2}}]
judgegrid: {metrics: [faithfulness]}
""")
    (judge,) = matrix.judges
    assert judge.id == "openai/my-model"
    options = matrix.judge_options(judge)
    assert options.api_base == "http://127.0.0.1:8000/v1"
    assert options.api_key_env == "LOCAL_KEY"
    assert options.temperature == 0.2
    assert [m.name for m in matrix.metrics] == ["faithfulness"]


def test_no_embedding_models_leaves_out_the_metrics_that_need_them():
    matrix = parse_matrix("spring: {ai: {chat-models: {list: [{id: gpt-4o-mini}]}}}")
    assert matrix.judges[0].id == "openai/gpt-4o-mini"
    assert "response_relevancy" not in [m.name for m in matrix.metrics]


def test_errors_name_the_spring_path():
    with pytest.raises(MatrixError) as exc:
        parse_matrix("""
spring:
  ai:
    openai: {api-key: sk-literal}
    chat-models:
      default-options: {temperature: 9}
      list: [{id: a}, {id: b}, {model: c}]
""")
    text = str(exc.value)
    assert "spring.ai.chat-models.list[2].id: missing" in text
    assert "spring.ai.openai.api-key: write the key as a ${ENV_VAR} placeholder" in text
    assert "sk-literal" not in text
    assert "spring.ai.chat-models.default-options.temperature" in text


def test_run_scores_a_spring_file_against_an_openai_compatible_server(
    tmp_path, server, monkeypatch
):
    """`judgegrid run` takes the Spring file as it is: the fault server stands in for any
    OpenAI-compatible base-url (Spring appends /v1; so does the translation)."""
    monkeypatch.setenv("JUDGEGRID_SPRING_KEY", "sk-test")
    monkeypatch.setenv("JUDGEGRID_CACHE_DIR", str(tmp_path / "cache"))
    base_url = server.url.removesuffix("/v1")
    path = tmp_path / "application.yaml"
    path.write_text(f"""
spring:
  ai:
    retry: {{on-http-codes: [429], max-attempts: 2, backoff: {{initial-interval: 1ms}}}}
    openai: {{base-url: "{base_url}", api-key: "${{JUDGEGRID_SPRING_KEY}}"}}
    chat-models:
      default-options: {{temperature: 0.0}}
      list: [{{id: judge-a}}, {{id: judge-b}}]
judgegrid: {{metrics: [faithfulness], limit: 2}}
""")
    result = runner.invoke(app, ["run", str(path), "--reports-dir", str(tmp_path / "reports")])
    assert result.exit_code == 0, result.output
    (run_dir,) = (tmp_path / "reports").iterdir()
    resolved = (run_dir / "matrix.resolved.yaml").read_text()
    assert "openai/judge-a" in resolved and "sk-test" not in resolved
    assert server.requests > 0  # the calls went to the server the base-url names
