"""Bad input through either door (CLI, Python API): judgegrid's own error, naming the culprit,
nothing written and no traceback; an unexpected error says "please report" and logs the rest."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from conftest import ROOT
from judgegrid import Faithfulness, api, cli, run_grid, score_sample
from judgegrid.cli import EXIT_BAD_INPUT, app
from judgegrid.core.errors import InputError, MatrixError, OptionError

runner = CliRunner()
LOCAL = str(ROOT / "model_matrices" / "local.yaml")
SAMPLE = {"user_input": "Who?", "response": "Ann did.", "retrieved_contexts": ["Ann did it."]}


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_data_file_that_is_not_utf8_names_the_line(tmp_path, suffix):
    data = tmp_path / f"bad{suffix}"
    data.write_bytes(b'[\n{"id": "a",\n "user_input": "caf\xe9"}]\n')
    result = runner.invoke(app, ["validate", LOCAL, "--dataset", str(data)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert f"bad{suffix}: line 3: byte 0xe9 is not UTF-8" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["report"], ["run", "--resume"]])
def test_a_run_database_that_is_not_a_database(tmp_path, command, write_matrix):
    run = run_grid(write_matrix(repeats=1, strictness=[1]), limit=1, run_dir=tmp_path / "run")
    (run.run_dir / "run.sqlite").write_bytes(b"not sqlite at all" * 100)
    for stale in run.run_dir.glob("run.sqlite-*"):
        stale.unlink()
    result = runner.invoke(app, [*command, str(run.run_dir)])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert "run.sqlite: not a run database" in result.stderr


@pytest.mark.parametrize("limit", [-1, 0, 1.5, True])
def test_run_grid_refuses_a_limit_below_one(tmp_path, write_matrix, limit):
    with pytest.raises(OptionError, match=r"limit: expected int \(≥ 1\) or None, got"):
        run_grid(write_matrix(), limit=limit, reports_dir=tmp_path / "reports")
    assert not (tmp_path / "reports").exists()


def test_score_sample_reads_options_as_a_matrix_does():
    result = score_sample(
        Faithfulness(), SAMPLE, judge="scripted/judge-a", judge_options={"max-tokens": 50}
    )
    assert result.calls[0]["request"].count('"max_tokens": 50') == 1
    with pytest.raises(MatrixError, match="temprature: unknown field; did you mean 'temperature'"):
        score_sample(Faithfulness(), SAMPLE, judge="scripted/x", judge_options={"temprature": 1})
    with pytest.raises(MatrixError, match=r"retry\.max_attempts: Input should be greater"):
        score_sample(Faithfulness(), SAMPLE, judge="scripted/x", retry={"max-attempts": 0})


def test_an_unexpected_error_says_please_report_and_logs_the_traceback(
    tmp_path, monkeypatch, capsys, cache_dir
):
    def broken(run_dir, *options, **keywords):
        raise RuntimeError("a bug, sk-proj-AAAABBBBCCCCDDDD1234 inside")

    monkeypatch.setattr(api, "rebuild_report", broken)
    monkeypatch.setattr(sys, "argv", ["judgegrid", "report", str(tmp_path)])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert "unexpected error (please report it): RuntimeError" in err
    assert "Traceback" not in err and "AAAABBBBCCCC" not in err
    (log,) = (cache_dir / "crash-logs").glob("*.log")
    text = log.read_text()
    assert "Traceback" in text and "broken" in text and "AAAABBBBCCCC" not in text


def test_no_verdict_says_why_without_miscounting_judges():
    import pandas as pd

    from judgegrid.analyses.decision.card import decision_card
    from judgegrid.analyses.decision.ladder import CardSources
    from judgegrid.analyses.decision.recommendation import judge_ranking
    from support.frames import scores_frame

    flat = {("faithfulness", j, "", 0, 0, f"s{i}", 0): 0.5 for j in "ab" for i in range(12)}
    scores = scores_frame(flat)
    sources = CardSources(scores=scores, ranking=judge_ranking(scores, pd.DataFrame()))
    row = decision_card(sources, "RUN").iloc[0]
    assert row["verdict"] == "no verdict"
    assert "fewer than two judges" not in row["reason"] + row["detail"]
    assert "no two judges scored alike" in row["reason"]
    assert "do not vary enough across samples" in row["detail"]


def test_validate_checks_urls_and_dimensions_without_calling(tmp_path, scripted_provider):
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        """
judges:
  - {id: scripted/a, options: {api-base: "localhost:8000"}}
embeddings:
  - {id: local/all-minilm-l6-v2, dimensions: [512, 128]}
metrics: [response_relevancy]
"""
    )
    result = runner.invoke(app, ["validate", str(matrix)])
    assert result.exit_code == EXIT_BAD_INPUT
    assert "judges[0].options.api_base: not an http(s) URL: 'localhost:8000'" in result.stderr
    assert "embeddings[0].dimensions: 512 is more than the 384 dimensions" in result.stderr
    with pytest.raises(MatrixError, match="not an http"):
        run_grid(matrix, reports_dir=tmp_path / "reports")
    assert scripted_provider.calls == []


def test_a_sample_too_long_for_any_judge_is_refused_before_a_call(
    tmp_path, write_matrix, scripted_provider
):
    from judgegrid.core.sample import Dataset, Sample
    from judgegrid.run.preflight import FIELD_CHARS_CAP

    huge = Sample(id="huge", user_input="q", response="x" * (FIELD_CHARS_CAP + 1))
    with pytest.raises(InputError, match=r"sample 'huge'.response: 200,001 characters"):
        run_grid(write_matrix(), Dataset("mem", (huge,)), reports_dir=tmp_path / "reports")
    assert scripted_provider.calls == []
    data = tmp_path / "huge.jsonl"
    data.write_text(huge.model_dump_json() + "\n")
    result = runner.invoke(app, ["validate", str(write_matrix()), "--dataset", str(data)])
    assert result.exit_code == EXIT_BAD_INPUT and "sample 'huge'.response" in result.stderr


def test_the_default_matrix_is_found_beside_the_install_or_named_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no model_matrices/ here
    found = runner.invoke(app, ["validate"])
    assert found.exit_code == 0, found.output
    assert str(cli.INSTALLED_MATRIX) in found.output
    monkeypatch.setattr(cli.common, "INSTALLED_MATRIX", tmp_path / "nowhere.yaml")
    missing = runner.invoke(app, ["validate"])
    assert missing.exit_code == EXIT_BAD_INPUT
    assert "name one: judgegrid run PATH/TO/matrix.yaml" in missing.stderr
    run = runner.invoke(app, ["run", "--no-progress"])
    assert run.exit_code == EXIT_BAD_INPUT and "name one" in run.stderr
    assert not (tmp_path / "reports").exists()
