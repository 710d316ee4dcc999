"""Classes the long fuzz campaign (benches/fuzz.py) found after the merge, each a row here: a
matrix named like a key (it names the run directory and titles the report) and a data set's
label outside a metric's 0–1 scale (a crash in the analyses) are refused before anything runs."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from conftest import matrix_dict
from judgegrid.cli import app

KEY = "sk-proj-FUZZ000000000000000000000000"


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_a_matrix_named_like_a_key_is_refused(tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    matrix = tmp_path / "m.yaml"
    matrix.write_text(yaml.safe_dump(matrix_dict(name=KEY)))
    result = CliRunner().invoke(app, [command, str(matrix)])
    assert result.exit_code == 2, result.output
    assert "name: looks like an API key" in result.stderr and KEY not in result.output
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("value", [-1_000_000, 1.5])
@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_a_metrics_label_outside_0_to_1_is_refused(tmp_path, write_matrix, command, value):
    data = tmp_path / "d.jsonl"
    sample = {"id": "s0", "user_input": "q", "response": "r", "retrieved_contexts": ["c"]}
    data.write_text(json.dumps(sample | {"labels": {"faithfulness": value}}) + "\n")
    matrix = write_matrix(metrics=["faithfulness"], dataset=str(data))
    args = [command, str(matrix), "--reports-dir", str(tmp_path / "reports")]
    result = CliRunner().invoke(app, args[:2] if command != "run" else args)
    assert result.exit_code == 2, result.output
    assert "sample 's0'.labels.faithfulness: a metric's label is from 0 to 1" in result.stderr
    assert not (tmp_path / "reports").exists()
    assert yaml.safe_load(matrix.read_text())["metrics"] == ["faithfulness"]
