"""Exit codes a CI job can use, a refused connection named as one, and no secret echoed."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import Faithfulness, run_grid, score_sample
from judgegrid.cli import (
    EXIT_BAD_INPUT,
    EXIT_BELOW_FAIL_UNDER,
    EXIT_FAILED_CELLS,
    EXIT_OK,
    app,
)
from judgegrid.core.errors import MatrixError

runner = CliRunner()
SAMPLE = {"user_input": "Who?", "response": "Ann.", "retrieved_contexts": ["Ann."]}
KEY = "sk-proj-Qw3rTy7890PlantedKeyZx5"


def run_cli(matrix: Path, tmp_path: Path, *extra: str):
    args = ["run", str(matrix), "--reports-dir", str(tmp_path / "reports"), "--no-progress"]
    return runner.invoke(app, [*args, *extra])


@pytest.fixture
def small(write_matrix):
    return write_matrix(metrics=["response_relevancy", "faithfulness"], repeats=1, strictness=[1])


def test_a_clean_run_exits_0(small, tmp_path):
    result = run_cli(small, tmp_path, "--limit", "2")
    assert result.exit_code == EXIT_OK, result.output
    assert "why cells were" not in result.output


def test_an_all_failed_run_exits_3_with_its_grouped_cause(small, tmp_path, scripted_provider):
    scripted_provider.fail = lambda model, step, n: 400
    result = run_cli(small, tmp_path, "--limit", "2")
    assert result.exit_code == EXIT_FAILED_CELLS, result.output
    assert "why cells were failed:" in result.output
    assert "HTTP 400" in result.output
    # it ends with the command that scores the failed cells again, the real run directory in it
    run_dir = re.search(r"run directory: (\S+)", result.output).group(1)
    last = result.output.strip().splitlines()[-1].strip()
    assert last == f"judgegrid run --resume {run_dir} --retry-failed"
    again = runner.invoke(app, [*shlex.split(last)[1:], "--no-progress"])
    assert again.exit_code == EXIT_FAILED_CELLS and again.output.strip().endswith(last)


def test_a_partly_failed_run_with_and_without_fail_under(small, tmp_path, scripted_provider):
    # the NLI verdicts fail for good: faithfulness cells fail (4 of 12), response relevancy scores
    scripted_provider.fail = lambda model, step, n: 400 if step == "verdicts" else None
    plain = run_cli(small, tmp_path, "--limit", "2")
    assert plain.exit_code == EXIT_FAILED_CELLS, plain.output
    enough = run_cli(small, tmp_path, "--limit", "2", "--fail-under", "0.6")
    assert enough.exit_code == EXIT_OK, enough.output
    short = run_cli(small, tmp_path, "--limit", "2", "--fail-under", "0.9")
    assert short.exit_code == EXIT_BELOW_FAIL_UNDER, short.output


def test_fail_under_outside_0_to_1_is_bad_input(small, tmp_path):
    assert run_cli(small, tmp_path, "--fail-under", "1.5").exit_code == EXIT_BAD_INPUT


def test_a_refused_connection_is_called_a_connection_error(write_matrix, tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGEGRID_TEST_KEY", KEY)
    matrix = write_matrix(
        judges=[
            {
                "id": "openai/some-judge",
                "label": "closed",
                # port 9 (discard) on loopback: nothing listens, the connection is refused
                "options": {
                    "api-base": "http://127.0.0.1:9/v1",
                    "api-key-env": "JUDGEGRID_TEST_KEY",
                },
            }
        ],
        metrics=["faithfulness"],
        repeats=1,
        embeddings=[],
    )
    result = run_cli(matrix, tmp_path, "--limit", "1")
    assert result.exit_code == EXIT_FAILED_CELLS, result.output
    assert "connection error" in result.output
    assert "HTTP 500" not in result.output
    # the key was used for the calls and written nowhere
    assert KEY not in result.output
    for path in (tmp_path / "reports").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_a_key_written_into_the_matrix_is_refused_and_never_echoed(tmp_path, cache_dir):
    matrix = tmp_path / "key.yaml"
    matrix.write_text(
        yaml.safe_dump(
            {
                "judges": [
                    {"id": "openai/gpt-4o-mini", "options": {"api-key-env": KEY}},
                    {"id": "openai/gpt-4o", "options": {"extra": {"api_key": KEY}}},
                ],
                "metrics": ["faithfulness"],
            }
        )
    )
    for command in ("validate", "run"):
        result = runner.invoke(app, [command, str(matrix), "--reports-dir", str(tmp_path / "r")]
                               if command == "run" else [command, str(matrix)])  # fmt: skip
        assert result.exit_code == EXIT_BAD_INPUT
        assert "api_key_env" in result.output and "sk-…Zx5" not in result.output
        assert KEY not in result.output and KEY[4:20] not in result.output
    with pytest.raises(MatrixError) as raised:
        run_grid(matrix, reports_dir=tmp_path / "r")
    assert KEY not in str(raised.value) and KEY[4:20] not in str(raised.value)
    with pytest.raises(MatrixError) as raised:
        score_sample(Faithfulness(), SAMPLE, judge="openai/x", judge_options={"api-key-env": KEY})
    assert KEY not in str(raised.value) and KEY[4:20] not in str(raised.value)
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*"))
    # every file written anywhere (the matrix itself aside) — run outputs, cache, crash logs
    written = [p for root in (tmp_path, cache_dir) for p in root.rglob("*") if p.is_file()]
    for path in written:
        if path != matrix:
            assert KEY[4:20].encode() not in path.read_bytes(), path


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("judgegrid ")
    assert os.environ.get("JUDGEGRID_TEST_KEY") != KEY  # monkeypatch undid the variable
