"""`judgegrid pairs`: a human-preference pairs file scored per aspect, with the accuracy table."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

from conftest import SHARED
from judgegrid.analyses import configuration_labels
from judgegrid.analyses.validity.pairs import pairs_from_labels
from judgegrid.cli import app
from judgegrid.metrics import METRICS
from judgegrid.run.pairs import (
    aspect_dataset,
    load_pairs,
    paper_comparison,
    run_pairs,
    write_pairs_outcome,
)
from support.demo_sets import PAIR_RECORDS
from support.frames import scores_frame

runner = CliRunner()
NUMBER = re.compile(r"\d+(?:[./]\d+)*")  # 0.75, 12, 11/16: a cut "11/1…" is another token


@pytest.fixture
def pairs_file(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in PAIR_RECORDS) + "\n")
    return path


def test_each_pair_becomes_two_labelled_samples():
    data = aspect_dataset(PAIR_RECORDS, "faithfulness", "x")
    assert len(data) == 8
    first, second = data.samples[:2]
    assert first.labels == {"pair": "q0:faithfulness", "preferred": 1, "aspect": "faithfulness"}
    assert (
        second.labels["preferred"] == 0 and second.response == PAIR_RECORDS[0]["ungrounded_answer"]
    )
    assert first.retrieved_contexts == [PAIR_RECORDS[0]["context"]]


def test_bad_pairs_file_names_line_and_field(tmp_path, write_matrix):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "question": "Q"}\nnot json\n')
    result = runner.invoke(app, ["pairs", str(write_matrix()), "--pairs", str(path)])
    assert result.exit_code == 2
    assert "bad.jsonl: line 1: missing or empty: context, answer" in result.stderr
    assert "bad.jsonl: line 2: not valid JSON" in result.stderr


def test_pairs_command_writes_the_accuracy_table(tmp_path, write_matrix, pairs_file):
    matrix = write_matrix(repeats=1, strictness=[1])
    result = runner.invoke(
        app,
        [
            "pairs",
            str(matrix),
            "--pairs",
            str(pairs_file),
            "--reports-dir",
            str(tmp_path / "reports"),
            "--judge",
            "a",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    (parent,) = (tmp_path / "reports").iterdir()
    accuracy = pd.read_csv(parent / "pairs_accuracy.csv")
    assert set(accuracy["judge"]) == {"a"}
    faith = accuracy[accuracy["metric"] == "faithfulness"].iloc[0]
    # the scripted judge checks word overlap: grounded answers win every faithfulness pair
    assert (faith["pairs"], faith["accuracy"]) == (4, 1.0)
    relevancy = accuracy[accuracy["metric"] == "response_relevancy"]
    assert len(relevancy) == 2 and (relevancy["pairs"] == 4).all()  # two dimensions
    assert set(accuracy["aspect"]) == {"faithfulness", "answer_relevance"}
    summary = (parent / "pairs_summary.md").read_text()
    assert "no metric of the suite measures context padding" in summary
    assert "0.95" in summary and "0.78" in summary and "0.70" in summary  # the paper's figures
    paper = summary[summary.index("## Beside the Ragas paper") :]
    assert all(f" {column} " in paper for column in ("best", "ci_low", "ci_high", "n"))
    if "answer_relevancy" not in METRICS:
        assert "answer_relevancy: not in this build's metric registry" in summary
    else:
        assert "answer_relevancy" in set(accuracy["metric"])
    # each aspect is a normal run directory: faithfulness cells only in its own run
    faith_scores = pd.read_csv(parent / "faithfulness" / "scores.csv")
    assert set(faith_scores["metric"]) == {"faithfulness"} and len(faith_scores) == 8
    assert (parent / "answer_relevance" / "report.html").exists()


def test_report_rebuilds_a_pairs_directory_without_a_model_call(
    tmp_path, write_matrix, pairs_file, scripted_provider
):
    matrix = write_matrix(repeats=1, strictness=[1])
    reports = tmp_path / "reports"
    args = ["pairs", str(matrix), "--pairs", str(pairs_file), "--reports-dir", str(reports)]
    assert runner.invoke(app, [*args, "--no-progress"]).exit_code == 0
    (parent,) = reports.iterdir()
    before = (parent / "pairs_summary.md").read_text()
    (parent / "pairs_summary.md").unlink()
    (parent / "faithfulness" / "report.html").unlink()
    scripted_provider.calls.clear()
    scripted_provider.fail = lambda model, step, n: 500
    result = runner.invoke(app, ["report", str(parent)])
    assert result.exit_code == 0, result.output
    assert scripted_provider.calls == []
    assert (parent / "pairs_summary.md").read_text() == before
    assert (parent / "faithfulness" / "report.html").exists()


@pytest.mark.parametrize(
    ("judges", "said"),
    [
        (["zz"], "--judge: unknown judge 'zz' in the matrix; known: a, b"),
        (["a "], "--judge: unknown judge 'a ' in the matrix; did you mean 'a'? known: a, b"),
        (["a", "b", "a"], "--judge: judge 'a' is given twice (1st and 3rd)"),
    ],
)
def test_a_judge_named_wrong_or_twice_is_refused(write_matrix, pairs_file, judges, said):
    chosen = [arg for judge in judges for arg in ("--judge", judge)]
    result = runner.invoke(app, ["pairs", str(write_matrix()), "--pairs", str(pairs_file), *chosen])
    assert result.exit_code == 2 and said in result.stderr, result.output


@pytest.mark.skipif(not (SHARED / "validation").exists(), reason="../shared not beside the repo")
def test_the_wikieval_pairs_file_loads():
    records = load_pairs(SHARED / "validation" / "wikieval_pairs.jsonl")
    assert len(records) == 44


def test_a_matrix_sample_limit_does_not_cut_the_pairs(tmp_path, write_matrix, pairs_file):
    # local.yaml carries `limit: 21` for the demo set; a pairs file is limited by --limit alone
    matrix = write_matrix(repeats=1, strictness=[1], limit=1, metrics=["faithfulness"])
    args = ["pairs", str(matrix), "--pairs", str(pairs_file), "--judge", "a", "--no-progress"]
    result = runner.invoke(app, [*args, "--reports-dir", str(tmp_path / "reports")])
    assert result.exit_code == 0, result.output
    (parent,) = (tmp_path / "reports").iterdir()
    accuracy = pd.read_csv(parent / "pairs_accuracy.csv")
    assert (accuracy["pairs"] == 4).all()


def _faithfulness_pairs(judges: dict[str, list[float | None]]):
    """Pairs p0..; each judge's score of the preferred member (the other always 0.5)."""
    labels, values = {}, {}
    for judge, goods in judges.items():
        for p, good in enumerate(goods):
            labels[f"p{p}-g"] = {"pair": f"p{p}", "preferred": 1, "aspect": "faithfulness"}
            labels[f"p{p}-b"] = {"pair": f"p{p}", "preferred": 0, "aspect": "faithfulness"}
            values[("faithfulness", judge, "", 0, 0, f"p{p}-g", 0)] = good
            values[("faithfulness", judge, "", 0, 0, f"p{p}-b", 0)] = 0.5
    return scores_frame(values), pairs_from_labels(labels)


def test_the_paper_comparison_gives_the_interval_and_n_and_counts_unscored_pairs_wrong():
    scores, pairs = _faithfulness_pairs({"j": [0.9] + [None] * 11})  # one pair scored of 12
    row = paper_comparison(scores, pairs).set_index("aspect").loc["faithfulness"]
    assert row["best"] == "j" and (row["n"], row["unscored"]) == (12, 11)
    assert row["accuracy"] == pytest.approx(1 / 12)  # not 1.00 from the one scored pair
    assert row["ci_low"] < row["accuracy"] < row["ci_high"] and not row["paper_inside_ci"]


def test_the_best_configuration_is_a_set_when_mcnemar_does_not_separate_it():
    scores, pairs = _faithfulness_pairs({"a": [0.9] * 10 + [0.1] * 2, "b": [0.9] * 9 + [0.1] * 3})
    row = paper_comparison(scores, pairs).set_index("aspect").loc["faithfulness"]
    assert row["best"] == "a or b: not separated" and row["accuracy"] == pytest.approx(10 / 12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        tuple(proportion_confint(10, 12, method="wilson"))
    )


def _table_cells(markdown: str) -> list[str]:
    """Every cell of every table of a markdown page."""
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    return [cell.strip() for row in rows for cell in row.strip("|").split("|")]


@pytest.fixture(scope="module")
def many_configurations(tmp_path_factory):
    """A pairs directory where 18 configurations and more answer relevance's pairs alike (3
    judges x 3 dimensions x 2 strictness levels): ``root/reports/<pairs>``."""
    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    root = tmp_path_factory.mktemp("many-configurations")
    judges = [{"id": f"scripted/judge-{k}", "label": f"judge-{k}-named-at-length"} for k in "abc"]
    embeddings = [{"id": "scripted/bow", "label": "bow", "dimensions": [64, 32, 16]}]
    matrix = matrix_dict(judges=judges, embeddings=embeddings, strictness=[1, 3], repeats=1)
    (root / "m.yaml").write_text(yaml.safe_dump(matrix, sort_keys=False))
    (root / "pairs.jsonl").write_text("\n".join(json.dumps(r) for r in PAIR_RECORDS) + "\n")
    run_pairs(root / "m.yaml", root / "pairs.jsonl", reports_dir=root / "reports")
    return root


def test_a_large_set_not_separated_is_listed_below_the_table_not_in_one_cell(
    many_configurations,
):
    (parent,) = (many_configurations / "reports").iterdir()
    summary = (parent / "pairs_summary.md").read_text()
    accuracy = pd.read_csv(parent / "pairs_accuracy.csv", keep_default_na=False)
    configurations = set(configuration_labels(accuracy))
    assert len(configurations) >= 18
    assert max(len(cell) for cell in _table_cells(summary)) <= 120, summary
    assert all(name in summary for name in configurations)
    paper = write_pairs_outcome(parent).paper  # the table's rows whole (the file is the same)
    assert (parent / "pairs_summary.md").read_text() == summary
    best = paper.set_index("aspect").loc["answer_relevance", "best"]
    tied = best.removesuffix(": not separated").split(" or ")
    assert len(tied) >= 18
    assert all(f"- {name}\n" in summary for name in tied), summary


def test_report_prints_the_pairs_summary_within_the_terminals_width(
    many_configurations, monkeypatch
):
    monkeypatch.chdir(many_configurations)
    (parent,) = Path("reports").iterdir()
    result = runner.invoke(app, ["report", str(parent)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= 80, result.stdout
    summary = (parent / "pairs_summary.md").read_text()
    assert not Counter(NUMBER.findall(summary)) - Counter(NUMBER.findall(result.stdout))
    shown = " ".join(result.stdout.split())
    accuracy = pd.read_csv(parent / "pairs_accuracy.csv", keep_default_na=False)
    assert all(name in shown for name in configuration_labels(accuracy))
