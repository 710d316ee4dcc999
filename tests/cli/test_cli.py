"""The command line as a user meets it: validate, metrics, run, kill and resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess

import pandas as pd
import pytest
from typer.testing import CliRunner

from conftest import ROOT
from judgegrid.cli import app
from support.killed_runs import cells, database_when, resume, run_and_kill, run_args, run_whole

runner = CliRunner()


def test_validate_reports_each_problem_on_one_line_and_calls_nothing(tmp_path, scripted_provider):
    bad = tmp_path / "bad.yaml"
    bad.write_text("""
judges:
  - id: scripted/a
    options: {temprature: 0.1}
  - id: openai/gpt-4o-mini
    options: {api-key-env: JUDGEGRID_TEST_MISSING_KEY}
metrics: [faithfulness, contxt_recall]
""")
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3, lines
    assert "judges[0].options.temprature: unknown field; did you mean 'temperature'?" in lines[0]
    assert "metrics[1].name: unknown metric 'contxt_recall'" in lines[1]
    assert "JUDGEGRID_TEST_MISSING_KEY is not set" in lines[2]
    assert "Traceback" not in result.output
    assert scripted_provider.calls == []


def test_validate_accepts_the_shipped_local_matrix():
    result = runner.invoke(app, ["validate", str(ROOT / "model_matrices" / "local.yaml")])
    assert result.exit_code == 0, result.output
    assert "cells" in result.stdout


def test_validate_counts_one_of_a_kind_in_the_singular(tmp_path):
    """A first matrix has one judge and one repeat: the ok line reads as a sentence."""
    path = tmp_path / "m.yaml"
    path.write_text("judges: [{id: local/smollm2-135m}]\nmetrics: [faithfulness]\nlimit: 1\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first == (
        f"{path}: ok — 1 judge, 0 embedding models, 1 metric, 1 repeat; 1 sample from demo: 1 cell"
    )


def test_validate_unknown_model_provider(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("judges: [{id: gpt-4o-mni-typo}]\nmetrics: [faithfulness]\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert "judges[0].id: litellm cannot tell which provider serves 'gpt-4o-mni-typo'" in (
        result.stderr
    )


def test_validate_offers_the_hosted_model_a_mistyped_id_is_close_to(tmp_path, monkeypatch):
    """A hosted id litellm does not know validates (new models come out), but its note says
    which known model it is close to; a self-served id (an api-base) is the server's own."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghijklmnopqrstuv")
    path = tmp_path / "m.yaml"
    path.write_text(
        "judges:\n  - {id: openai/gpt-4o-minii}\n"
        "  - {id: openai/gpt-4o-minij, options: {api-base: 'http://127.0.0.1:8000/v1'}}\n"
        "metrics: [faithfulness]\nlimit: 1\n"
    )
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stdout.splitlines() if line.startswith("not checked")]
    assert notes == [
        "not checked: the context window of openai/gpt-4o-minii (litellm does not know it; if "
        "the name is mistyped, did you mean openai/gpt-4o-mini?): sample fields are held to "
        "200,000 characters instead",
        "not checked: the context window of openai/gpt-4o-minij (litellm does not know it): "
        "sample fields are held to 200,000 characters instead",
    ]


def test_validate_bad_dataset_is_named(tmp_path, write_matrix):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "x", "user_input": "Q", "contexts": 3}\n')
    result = runner.invoke(app, ["validate", str(write_matrix()), "--dataset", str(data)])
    assert result.exit_code == 2
    assert "d.jsonl: line 1 (sample 'x'), field contexts" in result.stderr


def test_metrics_lists_fields_and_parameters():
    result = runner.invoke(app, ["metrics"])
    assert result.exit_code == 0
    assert "response_relevancy (ResponseRelevancy)" in result.stdout
    assert "needs: user_input, response, retrieved_contexts" in result.stdout
    assert "parameters: strictness=unset" in result.stdout
    for name in (
        "faithfulness (Faithfulness)",
        "context_precision (ContextPrecision)",
        "context_recall (ContextRecall)",
        "context_entity_recall (ContextEntityRecall)",
        "noise_sensitivity (NoiseSensitivity)",
        "answer_relevancy (AnswerRelevancy)",
    ):
        assert name in result.stdout
    assert "needs: user_input, response, retrieved_contexts, reference" in result.stdout
    assert "threshold=0.5" in result.stdout and "strict_mode=False" in result.stdout
    assert "mode=relevant" in result.stdout and "lower is better" in result.stdout


def test_run_writes_the_run_directory_without_secrets(
    tmp_path, write_matrix, scripted_provider, monkeypatch, cache_dir
):
    planted = "sk-PLANTED-judgegrid-0123456789"
    monkeypatch.setenv("JUDGEGRID_TEST_KEY", planted)
    matrix = write_matrix(
        defaults={
            "judge": {"temperature": 0.0, "seed": 3, "api_key_env": "JUDGEGRID_TEST_KEY"},
            "embedding": {"api_key_env": "JUDGEGRID_TEST_KEY"},
        }
    )
    result = runner.invoke(
        app,
        [
            "run",
            str(matrix),
            "--limit",
            "2",
            "--reports-dir",
            str(tmp_path / "reports"),
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "score rows: 40; the matrix implies: 40" in result.stdout
    (run_dir,) = (tmp_path / "reports").iterdir()
    names = {p.name for p in run_dir.iterdir()}
    assert {"run.sqlite", "scores.csv", "summary.md", "matrix.resolved.yaml"} <= names
    assert len(pd.read_csv(run_dir / "scores.csv")) == 40
    summary = (run_dir / "summary.md").read_text()
    assert "## ResponseRelevancy" in summary and "## Faithfulness" in summary
    # the key reached the provider, and nothing on disk holds it
    assert {c["api_key"] for c in scripted_provider.calls} == {planted}
    assert list(cache_dir.iterdir())
    for path in [*run_dir.rglob("*"), *cache_dir.rglob("*")]:
        if path.is_file():
            assert planted.encode() not in path.read_bytes(), path
    assert "JUDGEGRID_TEST_KEY" in (run_dir / "matrix.resolved.yaml").read_text()


def test_missing_matrix_file_is_one_line(tmp_path):
    result = runner.invoke(app, ["run", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"{tmp_path / 'nope.yaml'}: file not found"


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_a_matrix_dataset_that_is_missing_names_the_matrix_and_where_it_looked(tmp_path, command):
    """A relative ``dataset:`` is read from the matrix's folder, not the working one: the
    error names the matrix and its field, the path looked at, and what to do."""
    matrix = tmp_path / "grids" / "m.yaml"
    matrix.parent.mkdir()
    matrix.write_text(
        "dataset: data/nope.jsonl\njudges: [{id: local/smollm2-135m}]\nmetrics: [faithfulness]\n"
    )
    result = runner.invoke(app, [command, str(matrix)])
    assert result.exit_code == 2
    expected = (
        f"{matrix}: dataset: file not found: data/nope.jsonl (looked for "
        f"{tmp_path.resolve() / 'grids' / 'data' / 'nope.jsonl'}, relative to the matrix's "
        "folder); fix the path, or give the data set with --dataset"
    )
    assert result.stderr.strip() == expected
    assert not (tmp_path / "reports").exists()


def test_killed_run_resumes_to_the_same_cells(tmp_path, write_matrix):
    """A real process, killed with SIGKILL mid-run, then resumed from its directory."""
    args = run_args(write_matrix(), "--limit", "4")
    full_dir = run_whole(args, tmp_path / "full")
    db = run_and_kill(args, tmp_path / "killed", lambda done: len(done) >= 20)
    partial = cells(db)
    assert 20 <= len(partial) < len(cells(full_dir / "run.sqlite"))
    with sqlite3.connect(db) as con:
        finished_steps = {key for (key,) in con.execute("SELECT key FROM steps")}
    assert finished_steps

    resumed = resume(db.parent)
    assert resumed.returncode == 0, resumed.stderr
    assert cells(db) == cells(full_dir / "run.sqlite")
    with sqlite3.connect(db) as con:
        answered = con.execute(
            "SELECT step_key, count(*) FROM calls WHERE status = 'ok' AND "
            "kind = 'completion' GROUP BY step_key"
        ).fetchall()
    # a step finished before the kill is never asked again (one killed between its answer and
    # its save may be: no cell had used it)
    assert {key: n for key, n in answered if key in finished_steps and n > 1} == {}
    assert len(answered) == len(finished_steps | {key for key, _ in answered})


def test_metrics_lists_judge_calls_per_sample():
    result = runner.invoke(app, ["metrics"])
    assert result.stdout.count("judge calls per sample:") == 7
    assert "2K+3 for K contexts" in result.stdout


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_a_kill_stops_a_run_with_exit_130_and_it_resumes(tmp_path, write_matrix, signum):
    """The way a person stops a run: Ctrl-C (SIGINT) or a kill (SIGTERM) — exit 130, finished
    cells saved, and the printed --resume command finishes the run."""
    env = {**os.environ, "SCRIPTED_DELAY_S": "0.02"}
    proc = subprocess.Popen(
        [*run_args(write_matrix(), "--limit", "4"), "--reports-dir", str(tmp_path / "r")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as in a terminal: a job started in the background (CI's) inherits SIGINT ignored,
        # and Ctrl-C reaches only a foreground process, whose SIGINT is at its default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    db = database_when(tmp_path / "r", lambda done: len(done) >= 10)
    assert db is not None, "the run never wrote 10 cells"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert f"judgegrid run --resume {db.parent}" in err and "Traceback" not in err
    resumed = resume(db.parent)
    assert resumed.returncode == 0, resumed.stderr
