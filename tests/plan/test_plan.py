"""`judgegrid plan` against what the run then does on the fault server: the same calls per judge
and step, tokens and cost close, and no call made by the plan itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import api
from judgegrid.cli import app
from judgegrid.inputs.dataset import load_demo
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.plan.estimate import GridPlan, make_plan
from judgegrid.plan.requests import plan_requests
from judgegrid.plan.table import render_plan
from judgegrid.store.run_dir import open_run
from judgegrid.testing.fault_server import FaultServer, start_fault_server
from support.fault_matrices import ALL_METRICS, KEY_ENV, PLANTED, fault_matrix

ROOT = Path(__file__).resolve().parents[2]
# Prices for the fault server's models, so both the plan and the run have a cost to compare.
PRICES = {
    "chat": {"input_cost_per_token": 2e-7, "output_cost_per_token": 8e-7},
    "embedding": {"input_cost_per_token": 1e-8, "output_cost_per_token": 0.0},
}
PRICED = {f"{prefix}{name}": "chat" for name in ("fake-a", "fake-b") for prefix in ("", "openai/")}
PRICED |= {"fake-embed": "embedding", "openai/fake-embed": "embedding"}


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    srv = start_fault_server()
    yield srv
    srv.stop()


@pytest.fixture
def priced() -> Iterator[None]:
    """litellm's price map knows the fault server's models, for this test only: the entries,
    the provider's model list and litellm's lookup caches are as they were afterwards (a stale
    cache once kept the prices for the tests that ran next)."""
    saved = {name: litellm.model_cost.get(name) for name in PRICED}
    chat_models = set(litellm.open_ai_chat_completion_models)
    litellm.register_model(
        {
            name: {**PRICES[mode], "litellm_provider": "openai", "mode": mode}
            for name, mode in PRICED.items()
        }
    )
    yield
    for name, entry in saved.items():
        if entry is None:
            litellm.model_cost.pop(name, None)
        else:
            litellm.model_cost[name] = entry
    litellm.open_ai_chat_completion_models.intersection_update(chat_models)
    litellm.utils._invalidate_model_cost_lowercase_map()  # what register_model calls after it


def write(tmp_path: Path, matrix: dict[str, Any]) -> Path:
    path = tmp_path / "matrix.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


def actual_by_step(run_dir: Path) -> pd.DataFrame:
    """The run's calls, tokens and cost by judge (or embedding model) and step."""
    _, _, store = open_run(run_dir)
    try:
        calls, names = store.calls_frame(), store.step_names_frame()
    finally:
        store.close()
    step = calls["step_key"].map(names.drop_duplicates("key").set_index("key")["step"])
    calls = calls.assign(step=step.where(calls["kind"] == "completion", "embedding"))
    return calls.groupby(["label", "step"]).agg(
        calls=("id", "count"),
        tokens_in=("tokens_in", "sum"),
        tokens_out=("tokens_out", "sum"),
        cost=("cost", "sum"),
    )


def planned_by_step(plan: GridPlan) -> pd.DataFrame:
    rows = [
        {
            "label": r.label,
            "step": r.step if r.kind == "completion" else "embedding",
            "calls": r.calls,
            "tokens_in": r.prompt_tokens,
            "tokens_out": r.output_tokens,
            "cost": r.cost,
        }
        for r in plan.rows
    ]
    return pd.DataFrame(rows).groupby(["label", "step"]).sum()


def off(planned: float, actual: float) -> float:
    return abs(planned - actual) / actual


def test_plan_matches_the_run_on_the_fault_server(server, priced, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, PLANTED)
    server.reset_counts()
    # no fault is asked for here, and a retry after a timeout is a call no plan can foresee: on
    # a loaded machine 500 ms was too short (15 question calls made, 8 planned)
    matrix = fault_matrix(server.url, timeout="30s", metrics=ALL_METRICS, repeats=2)
    path = write(tmp_path, matrix)

    plan = api.plan_grid(path, limit=4)
    assert server.requests == 0  # the plan asked nothing

    api.run_grid(path, limit=4, run_dir=tmp_path / "run")
    actual, planned = actual_by_step(tmp_path / "run"), planned_by_step(plan)
    assert server.requests == int(actual["calls"].sum())  # every request is in the calls table

    assert planned["calls"].to_dict() == actual["calls"].to_dict()
    totals = {
        name: off(float(planned[name].sum()), float(actual[name].sum()))
        for name in ("tokens_in", "tokens_out", "cost")
    }
    with capsys.disabled():
        print(
            f"\nplan vs run: {int(actual['calls'].sum())} calls equal; "
            + ", ".join(f"{name} {share:+.1%}" for name, share in totals.items())
        )
    assert totals["tokens_in"] <= 0.05
    assert totals["tokens_out"] <= 0.25
    assert totals["cost"] <= 0.25


def test_a_second_plan_counts_the_cache_hits(server, tmp_path, monkeypatch):
    """After the run every answer and vector is in the cross-run cache: the plan says so."""
    monkeypatch.setenv(KEY_ENV, PLANTED)
    path = write(tmp_path, fault_matrix(server.url))
    matrix, data = parse_matrix(path.read_text()), load_demo().head(2)
    first = plan_requests(matrix, data)
    api.run_grid(path, limit=2, run_dir=tmp_path / "run")
    server.reset_counts()
    again = api.plan_grid(path, limit=2)
    assert server.requests == 0
    assert again.total("calls") == 0
    first_answers = sum(len(r.answers or r.messages) for r in first.requests)
    assert again.total("cache_hits") == first_answers
    assert again.cost == 0.0  # nothing left to pay for, even unpriced

    # the run's own database
    resumed = api.prepare_resume(tmp_path / "run", api.ResumeOptions(use_cache=False))
    try:
        from_run = make_plan(resumed.matrix, resumed.data, use_cache=False, store=resumed.store)
    finally:
        resumed.store.close()
    assert from_run.total("calls") == 0 and from_run.total("cache_hits") == first_answers
    assert server.requests == 0


def test_plan_of_the_openrouter_matrix_without_a_key(monkeypatch):
    """Priced judges get a cost, the others "unknown" (never 0); no key needed, nothing sent."""
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    sent: list[Any] = []
    monkeypatch.setattr(litellm, "acompletion", lambda *a, **k: sent.append(k))
    monkeypatch.setattr(litellm, "aembedding", lambda *a, **k: sent.append(k))
    plan = api.plan_grid(ROOT / "model_matrices/openrouter.yaml", limit=2)
    assert not sent
    cost = {r.label: r.cost for r in plan.rows if r.kind == "completion"}
    assert cost["claude-4.5-sonnet"] is None
    assert all(cost[j] and cost[j] > 0 for j in ("gemini-2.5-flash", "gpt-4o-mini"))
    assert plan.cost is None
    table = render_plan(plan)
    assert "unknown" in table and "$" in table
    assert "openrouter/anthropic/claude-4.5-sonnet" in table.split("cost unknown:")[1]
    # OpenRouter has no batch API: no half price is promised for it
    assert all(not r.batchable for r in plan.rows)
    rows = [line for line in table.splitlines() if line.startswith(("gemini", "gpt-4o-mini"))]
    assert rows and all(line.endswith("no batch API") for line in rows)  # priced, yet no batch
    assert "openrouter has no batch API" in table


def test_run_refuses_above_max_cost_off_a_terminal(tmp_path, monkeypatch):
    """Not a terminal: above --max-cost, or with an unknown estimate, run refuses (exit 2)."""
    monkeypatch.setenv("OPENROUTER_API_KEY", "not-a-key")  # the keys are checked before the plan
    matrix = ROOT / "model_matrices/openrouter.yaml"
    args = ["run", str(matrix), "--limit", "1", "--reports-dir", str(tmp_path), "--max-cost"]
    result = CliRunner().invoke(app, [*args, "1000"])
    assert result.exit_code == 2
    assert "estimated cost is unknown" in result.output
    assert "claude-4.5-sonnet" in result.output
    assert not list(tmp_path.iterdir())  # refused before the run directory was made


def test_run_refuses_a_missing_key_before_printing_the_plan(tmp_path, monkeypatch):
    """Every refusal comes before the plan table: a run that would be refused prints none."""
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    matrix = ROOT / "model_matrices/openrouter.yaml"
    result = CliRunner().invoke(
        app, ["run", str(matrix), "--limit", "1", "--reports-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "OPENROUTER_API_KEY" in result.output
    assert "prompt tok" not in result.output and "cells:" not in result.output
    assert not list(tmp_path.iterdir())


def test_run_refuses_a_priced_plan_above_max_cost(server, priced, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, PLANTED)
    server.reset_counts()
    path = write(tmp_path, fault_matrix(server.url))
    args = ["run", str(path), "--limit", "1", "--reports-dir", str(tmp_path / "reports")]
    result = CliRunner().invoke(app, [*args, "--max-cost", "0.0000001"])
    assert result.exit_code == 2, result.output
    assert "is above --max-cost" in result.output and "no terminal" in result.output
    assert server.requests == 0
    assert "est. cost" in result.output  # the plan was shown first


def test_plan_command_calls_nothing(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, PLANTED)
    server.reset_counts()
    path = write(tmp_path, fault_matrix(server.url))
    result = CliRunner().invoke(app, ["plan", str(path), "--limit", "2"])
    assert result.exit_code == 0, result.output
    assert "response_relevancy.question" in result.output and "est. time" in result.output
    assert server.requests == 0


@pytest.mark.parametrize(("answer", "code"), [("n\n", 2), ("y\n", 0)])
def test_run_asks_on_a_terminal_above_max_cost(server, priced, tmp_path, monkeypatch, answer, code):
    monkeypatch.setenv(KEY_ENV, PLANTED)
    monkeypatch.setattr("judgegrid.cli.run.on_terminal", lambda: True)
    server.reset_counts()
    path = write(tmp_path, fault_matrix(server.url))
    args = ["run", str(path), "-n", "1", "--reports-dir", str(tmp_path / "r"), "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--max-cost", "0.0000001"], input=answer)
    assert "run anyway?" in result.output
    assert result.exit_code == code, result.output
    assert (server.requests > 0) == (code == 0)
