"""The local models' registry, their facts in preflight, their thread count (no model loaded)."""

from __future__ import annotations

import pytest
import yaml
from typer.testing import CliRunner

from conftest import matrix_dict
from judgegrid.calls.providers import cores, local, local_models
from judgegrid.calls.providers.cores import THREADS_ENV, free_cores, local_threads
from judgegrid.cli import app
from judgegrid.core.errors import OptionError
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.run import preflight

runner = CliRunner()


def test_every_local_model_is_in_one_registry_with_its_facts():
    assert set(local_models.JUDGES) == {"local/gemma-3-270m", "local/smollm2-135m"}
    assert set(local_models.EMBEDDERS) == {"local/all-minilm-l6-v2", "local/multilingual-e5-small"}
    assert local_models.JUDGES["local/smollm2-135m"].chat_template
    assert not local_models.JUDGES["local/gemma-3-270m"].chat_template  # a base model


@pytest.mark.parametrize(
    ("model", "tokens"), [("local/smollm2-135m", 4096), ("local/gemma-3-270m", 4096)]
)
def test_preflight_knows_each_local_judges_window(model, tokens):
    assert preflight._context_tokens(model) == tokens


def test_preflight_refuses_dimensions_above_each_local_embedders_size():
    matrix = parse_matrix(
        yaml.safe_dump(
            matrix_dict(
                judges=[{"id": "local/smollm2-135m"}],
                embeddings=[
                    {"id": "local/multilingual-e5-small", "dimensions": [512, 384]},
                    {"id": "local/all-minilm-l6-v2", "dimensions": [256]},
                ],
            )
        ),
        "m.yaml",
    )
    problems = preflight.matrix_problems(matrix)
    assert [p.render() for p in problems] == [
        "embeddings[0].dimensions: 512 is more than the 384 dimensions "
        "local/multilingual-e5-small has"
    ]


def test_an_unknown_local_model_lists_the_ones_there_are():
    matrix = parse_matrix(yaml.safe_dump(matrix_dict(judges=[{"id": "local/smollm3"}])), "m.yaml")
    (problem,) = preflight.model_problems(matrix)
    assert problem.where == "judges[0].id"
    assert "local/gemma-3-270m, local/smollm2-135m" in problem.message


@pytest.mark.parametrize(
    ("cpus", "load", "threads"),
    [(2, 0.1, 2), (2, 1.6, 1), (2, 5.0, 1), (8, 1.2, 4), (4, 1.4, 3)],
)
def test_threads_follow_the_free_cores(cpus, load, threads):
    assert free_cores(cpus, load) == threads


def test_the_thread_count_can_be_set_and_a_bad_setting_is_refused_by_name():
    assert local_threads({THREADS_ENV: "3"}) == 3
    assert 1 <= local_threads({}) <= 4
    for bad in ("0", "two", "-1", "1.5"):
        with pytest.raises(OptionError, match=THREADS_ENV):
            local_threads({THREADS_ENV: bad})


def test_a_run_with_a_bad_thread_setting_exits_2_before_any_call(
    tmp_path, monkeypatch, scripted_provider
):
    monkeypatch.setenv(THREADS_ENV, "many")
    monkeypatch.setattr(local, "_registered", False)
    path = tmp_path / "m.yaml"
    path.write_text(
        yaml.safe_dump(matrix_dict(judges=[{"id": "local/smollm2-135m"}], repeats=1, limit=1))
    )
    result = runner.invoke(app, ["run", str(path), "--reports-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2, result.output
    assert f"{THREADS_ENV}: expected a whole number of threads" in result.stderr
    assert "Traceback" not in result.output
    assert scripted_provider.calls == []


def test_local_judges_side_by_side_share_the_free_cores(monkeypatch):
    """Two local judges in one matrix run at once: each gets its part of the free cores (not
    all of them, which would put four llama.cpp threads on two cores); a set count stands."""
    monkeypatch.setattr(cores, "free_cores", lambda: 2)
    assert local_threads({}, sharing=1) == 2
    assert local_threads({}, sharing=2) == 1
    assert local_threads({}, sharing=3) == 1  # never 0
    assert local_threads({THREADS_ENV: "2"}, sharing=2) == 2
