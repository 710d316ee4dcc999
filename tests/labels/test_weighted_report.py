"""From the run's database to the report: labels that carry the probability their queue drew
them with, and the queue's draws (``label_draws``), make ``judgegrid report`` weight the people
rung and say so; the same labels without draws or probabilities read as drawn uniformly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.core.records import Label, LabelDraw
from judgegrid.store.run_db import RunStore


def _scripted_run(root: Path) -> Path:
    from conftest import matrix_dict
    from support import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    spec = matrix_dict(metrics=["faithfulness"], embeddings=[], strictness=[1], repeats=1)
    (root / "m.yaml").write_text(yaml.safe_dump(spec))
    return run_grid(root / "m.yaml", run_dir=root / "run").run_dir


def _faithfulness_row(run_dir: Path) -> pd.Series:
    assert CliRunner().invoke(app, ["report", str(run_dir)]).exit_code == 0
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv").set_index("metric")
    return card.loc["faithfulness"]


def _true_scores(run_dir: Path) -> pd.DataFrame:
    return pd.read_csv(run_dir / "tables" / "true_score.csv").sort_values("judge")


def test_the_report_weights_labels_by_their_queues_draws_and_says_so(tmp_path):
    run_dir = _scripted_run(tmp_path)
    store = RunStore(run_dir / "run.sqlite")
    samples = sorted(set(store.scores_frame()["sample_id"]))
    n = len(samples)
    hard = set(samples[:4])  # drawn three times as often as the others
    q = {s: (3.0 if s in hard else 1.0) / (3 * len(hard) + n - len(hard)) for s in samples}
    store.write_labels(
        [Label(s, "faithfulness", "ann", float(i % 3) / 2) for i, s in enumerate(samples)]
    )
    store.close()
    uniform = _faithfulness_row(run_dir)
    uniform_true = _true_scores(run_dir)
    assert uniform_true["weights"].str.startswith("uniform").all()
    assert uniform["basis"] == "people"
    assert f"on {n} labels drawn uniformly" in uniform["reason"]

    store = RunStore(run_dir / "run.sqlite")
    store.write_labels(
        [
            Label(s, "faithfulness", "ann", float(i % 3) / 2, probability=q[s])
            for i, s in enumerate(samples)
        ]
    )
    store.write_draws(
        LabelDraw("faithfulness", "ann", k + 1, s, q[s], n) for k, s in enumerate(samples)
    )
    store.close()
    weighted = _faithfulness_row(run_dir)
    words = f"on {n} labels weighted by the queue's draw probabilities over {n} samples"
    assert words in weighted["reason"]
    assert weighted["value"] != uniform["value"]
    weighted_true = _true_scores(run_dir)  # the corrected mean reads the same weights
    assert weighted_true["weights"].eq(words.removeprefix(f"on {n} ")).all()
    assert not np.allclose(weighted_true["people_mean"], uniform_true["people_mean"])
    table = pd.read_csv(run_dir / "tables" / "validity_people_by_judge.csv")
    assert table["ci_method"].str.startswith("weighted by the queue's draw probabilities").all()


PEOPLE_FIGURES = ["spearman", "tau_b", "accuracy", "kappa"]


def _people_figures(run_dir: Path) -> pd.DataFrame:
    table = pd.read_csv(run_dir / "tables" / "validity_people_by_judge.csv")
    return table.set_index("judge")[["n", *PEOPLE_FIGURES]].sort_index()


def test_labels_chosen_on_the_view_page_are_left_out_of_the_weighted_figures_and_said(tmp_path):
    """A person's uniform labels, then two more chosen on the view page (``chosen``): the people
    rung's figures are those of the uniform labels alone (the same run without the chosen
    two), and the card says the two are not counted."""
    run_dir = _scripted_run(tmp_path)
    store = RunStore(run_dir / "run.sqlite")
    samples = sorted(set(store.scores_frame()["sample_id"]))
    drawn, picked = samples[:-2], samples[-2:]
    store.write_labels(
        [Label(s, "faithfulness", "ann", float(i % 3) / 2) for i, s in enumerate(drawn)]
    )
    store.close()
    row = _faithfulness_row(run_dir)
    alone = _people_figures(run_dir)
    assert f"on {len(drawn)} labels drawn uniformly" in row["reason"]

    store = RunStore(run_dir / "run.sqlite")
    store.write_labels([Label(s, "faithfulness", "cy", 1.0, chosen=True) for s in picked])
    store.close()
    chosen_row = _faithfulness_row(run_dir)
    assert (
        "2 labels chosen on the view page are not counted in the weighted figures"
        in (chosen_row["reason"])
    )
    assert chosen_row["value"] == pytest.approx(row["value"])
    with_chosen = _people_figures(run_dir)
    pd.testing.assert_frame_equal(with_chosen, alone)
