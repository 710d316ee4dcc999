"""`judgegrid export`: the run's scores, read back by pandas, match the scores table of the run.

The expected values are computed here from ``load_run``'s rows with plain loops (mean of the
scored repeats per configuration and sample), not with the export's own pandas code.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import export_run, load_run, run_grid
from judgegrid.cli import app
from judgegrid.core.errors import OptionError
from support.demo_sets import english_demo

runner = CliRunner()
LIMIT = 3


@pytest.fixture
def run_dir(tmp_path, write_matrix, scripted_provider) -> Path:
    """2 judges × (faithfulness; response_relevancy at 2 dimensions × 2 strictness) × 2 repeats
    over 3 demo samples; judge b's faithfulness verdicts always fail, so its cells are failed."""
    scripted_provider.fail = lambda model, step, n: (
        400 if model.endswith("judge-b") and step == "verdicts" else None
    )
    result = run_grid(write_matrix(), limit=LIMIT, run_dir=tmp_path / "run")
    assert (result.scores["status"] == "failed").sum() == LIMIT * 2  # 3 samples × 2 repeats
    return result.run_dir


def expected_means(run_dir: Path) -> dict[tuple, float]:
    """{(metric, judge, embedding, dimension, strictness, sample_id): mean of scored repeats}."""
    scores, _ = load_run(run_dir)
    found: dict[tuple, list[float]] = defaultdict(list)
    for row in scores.itertuples():
        key = (row.metric, row.judge, row.embedding, row.dimension, row.strictness, row.sample_id)
        if row.status == "scored":
            found[key].append(row.score)
        else:
            found.setdefault(key, [])
    return {k: (sum(v) / len(v) if v else math.nan) for k, v in found.items()}


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-12


def test_ragas_format_read_back_matches_the_scores(run_dir, tmp_path):
    out = tmp_path / "ragas.csv"
    result = runner.invoke(app, ["export", str(run_dir), "--format", "ragas", "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert list(table.columns[:6]) == [
        "user_input",
        "retrieved_contexts",
        "response",
        "reference",
        "response_relevancy",
        "faithfulness",
    ]
    # 2 judges × 2 embedding configurations × 2 strictness values × 3 samples
    assert len(table) == 2 * 2 * 2 * LIMIT
    means = expected_means(run_dir)
    dims = {"bow @ 64": 64, "bow @ 16": 16}
    for row in table.itertuples():
        dim = dims[row.embedding]
        rr = means[("response_relevancy", row.judge, "bow", dim, row.strictness, row.sample_id)]
        faith = means[("faithfulness", row.judge, "", 0, 0, row.sample_id)]
        assert same(row.response_relevancy, rr) and same(row.faithfulness, faith)
        assert row.failed == (2 if row.judge == "b" else 0)  # judge b's faithfulness repeats
    assert table.loc[table["judge"] == "b", "faithfulness"].isna().all()
    assert table.loc[table["judge"] == "a", "faithfulness"].notna().all()
    # the samples' own fields, as the data set has them; lists as JSON
    demo = english_demo().by_id()
    first = table.iloc[0]
    assert json.loads(first["retrieved_contexts"]) == demo[first["sample_id"]].retrieved_contexts
    assert "failed" in result.output and str(out) in result.output


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_wide_format_read_back_matches_the_scores(run_dir, tmp_path, suffix):
    out = tmp_path / f"wide{suffix}"
    result = runner.invoke(app, ["export", str(run_dir), "--format", "wide", "-o", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(out) if suffix == ".parquet" else pd.read_json(out, lines=True)
    assert len(table) == LIMIT and list(table.columns[:5]) == [
        "sample_id",
        "user_input",
        "retrieved_contexts",
        "response",
        "reference",
    ]
    means = expected_means(run_dir)
    columns = 0
    for (metric, judge, emb, dim, s, sample_id), mean in means.items():
        name = " | ".join(
            [metric, judge] + ([f"{emb} @ {dim}"] if emb else []) + ([f"s={s}"] if s else [])
        )
        value = table.set_index("sample_id").loc[sample_id, name]
        assert same(float(value), mean), (name, sample_id)
        columns += sample_id == table["sample_id"][0]
    assert columns == 2 * (1 + 2 * 2)  # per judge: faithfulness, and 4 relevancy settings
    assert list(table["failed"]) == [2] * LIMIT


def test_export_to_stdout_and_through_the_api(run_dir):
    result = runner.invoke(app, ["export", str(run_dir)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("user_input,retrieved_contexts,response,reference,")
    assert len(export_run(run_dir, "wide")) == LIMIT
    with pytest.raises(OptionError, match="unknown format 'excel'"):
        export_run(run_dir, "excel")
