"""Runs with probes on the scripted judge: the plan counts the probes' calls as the run makes
them, the probes' rows stay out of the data set's tables, and a run killed with SIGKILL and
resumed ends with the same cells, probes included."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from conftest import CELL_KEY, matrix_dict
from judgegrid import api
from support.killed_runs import cells, resume, run_and_kill, run_args, run_whole


def probe_matrix(**overrides) -> dict:
    fields = {
        "dataset": "demo",
        "metrics": ["faithfulness", "context_recall", "response_relevancy", "noise_sensitivity"],
        "strictness": [1],
        "repeats": 1,
        "probes": {"per-metric": 2},
    }
    return matrix_dict(**{**fields, **overrides})


def assert_calls_as_planned(plan, calls: pd.DataFrame) -> None:
    """The judges' calls exactly as planned; the embedding calls within two of the plan. A text
    is embedded once per model and dimension, but how the texts are grouped into calls follows
    the order concurrent cells reach the embedder: cells asking {t1}, {t2} and {t1, t2} make two
    calls in that order and one in the reverse (docs: plan-and-cost). One run in ten on a loaded
    machine grouped one text apart from the plan's order."""
    planned = {"completion": 0, "embedding": 0}
    for row in plan.rows:
        planned[row.kind] += row.calls
    made = calls["kind"].value_counts().to_dict()
    assert made.get("completion", 0) == planned["completion"]
    assert abs(made.get("embedding", 0) - planned["embedding"]) <= 2


def write(tmp_path: Path, data: dict, name: str = "matrix.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_the_plans_probe_calls_equal_the_runs(tmp_path):
    with_probes = write(tmp_path, probe_matrix(), "with.yaml")
    bare = write(tmp_path, {**probe_matrix(), "probes": None}, "bare.yaml")
    plan = api.plan_grid(with_probes, limit=12, use_cache=False)
    plan_bare = api.plan_grid(bare, limit=12, use_cache=False)
    run = api.run_grid(with_probes, limit=12, use_cache=False, run_dir=tmp_path / "with")
    run_bare = api.run_grid(bare, limit=12, use_cache=False, run_dir=tmp_path / "bare")
    assert plan.probes is not None and plan.probes.calls > 0
    made_by_probes = len(run.calls) - len(run_bare.calls)
    assert abs(plan.probes.calls - made_by_probes) <= 4  # two embedding calls in each run
    assert_calls_as_planned(plan, run.calls)
    assert_calls_as_planned(plan_bare, run_bare.calls)
    assert plan.probes.cells == len(run.scores) - len(run_bare.scores)
    assert run.complete and len(run.scores) == run.expected_cells


def test_probe_repeats_apart_from_the_grids_are_planned_and_run_alike(tmp_path):
    """``probes: {repeats: 1}`` under ``repeats: 2``: each probe cell once, each own cell twice,
    and the plan, the run and the closed-form count agree."""
    matrix = probe_matrix(repeats=2, probes={"per-metric": 2, "repeats": 1})
    path = write(tmp_path, matrix)
    plan = api.plan_grid(path, limit=12, use_cache=False)
    run = api.run_grid(path, limit=12, use_cache=False, run_dir=tmp_path / "run")
    probe_rows = run.scores["sample_id"].str.contains("~probe~")
    assert set(run.scores.loc[probe_rows, "repeat"]) == {0}
    assert set(run.scores.loc[~probe_rows, "repeat"]) == {0, 1}
    assert run.complete and len(run.scores) == run.expected_cells
    assert_calls_as_planned(plan, run.calls)
    assert plan.probes is not None and plan.probes.cells == int(probe_rows.sum())


def test_probes_stay_out_of_the_data_sets_tables(tmp_path):
    run = api.run_grid(write(tmp_path, probe_matrix()), limit=12, run_dir=tmp_path / "run")
    assert run.scores["sample_id"].str.contains("~probe~").any()
    tables = tmp_path / "run" / "tables"
    for name in ("config_summary", "repeat_spread", "agreement_judge_pairs", "language_means"):
        table = pd.read_csv(tables / f"{name}.csv")
        assert "sample_id" not in table or not table["sample_id"].str.contains("~probe~").any()
    summary = pd.read_csv(tables / "config_summary.csv")
    attempted = summary["scored"] + summary["failed"] + summary["skipped"]
    assert (attempted == 12).all()  # each configuration's cells: the 12 samples, no probe
    probes = pd.read_csv(tables / "probes.csv")
    assert set(probes["metric"]) == {
        "faithfulness",
        "context_recall",
        "response_relevancy",
        "noise_sensitivity",
    }
    assert {"injection", "foreign_contexts", "planted_noise"} <= set(probes["probe"])
    exported = api.export_run(tmp_path / "run")
    assert not exported.astype(str).apply(lambda c: c.str.contains("~probe~")).any().any()


def test_run_probes_flag_is_the_default_probes(tmp_path):
    bare = write(tmp_path, {**probe_matrix(), "probes": None})
    run = api.run_grid(bare, limit=6, run_dir=tmp_path / "run", probes=True)
    assert run.scores["sample_id"].str.contains("~probe~").any()
    resolved = yaml.safe_load((tmp_path / "run" / api.RESOLVED_MATRIX).read_text())
    assert resolved["probes"] == {"names": "all", "per_metric": 4, "seed": 0}


def test_a_killed_run_with_probes_resumes_to_the_same_cells(tmp_path):
    args = run_args(write(tmp_path, probe_matrix()), "--limit", "12")
    everything = cells(run_whole(args, tmp_path / "full") / "run.sqlite")
    probes_done = lambda done: sum("~probe~" in cell[5] for cell in done) >= 3  # noqa: E731
    db = run_and_kill(args, tmp_path / "killed", probes_done, "--no-cache")
    assert len(cells(db)) < len(everything)

    resumed = resume(db.parent)
    assert resumed.returncode == 0, resumed.stderr
    assert cells(db) == everything
    assert (db.parent / "tables" / "probes.csv").exists()


def test_probes_on_workers_make_the_same_cells(tmp_path):
    """Shards of whole samples carry the probes to the workers like any other sample."""
    path = write(tmp_path, probe_matrix())
    here = api.run_grid(path, limit=8, run_dir=tmp_path / "here", use_cache=False)
    there = api.run_grid(path, limit=8, run_dir=tmp_path / "there", use_cache=False, workers=2)
    assert set(map(tuple, there.scores[CELL_KEY].to_numpy().tolist())) == set(
        map(tuple, here.scores[CELL_KEY].to_numpy().tolist())
    )
    assert there.scores["sample_id"].str.contains("~probe~").any()
    assert there.complete
