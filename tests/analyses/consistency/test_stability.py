"""Run-to-run stability: the spread of repeats, flips across the threshold, ICC(1) over
repeats against pingouin."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin as pg
import pytest

from judgegrid.analyses.consistency.stability import stability
from support.frames import scores_frame, simulated


def test_stability_sd_flips_and_icc1_over_repeats():
    values = {}
    for i in range(6):
        values[("faithfulness", "steady", "", 0, 0, f"s{i}", 0)] = i / 5
        values[("faithfulness", "steady", "", 0, 0, f"s{i}", 1)] = i / 5
        # 'shaky' straddles 0.5 on samples 0..2 only
        values[("faithfulness", "shaky", "", 0, 0, f"s{i}", 0)] = 0.4 if i < 3 else 0.9
        values[("faithfulness", "shaky", "", 0, 0, f"s{i}", 1)] = 0.6 if i < 3 else 0.8
    values[("faithfulness", "shaky", "", 0, 0, "s5", 1)] = None  # a failed repeat
    table = stability(scores_frame(values)).set_index("judge")
    assert table.loc["steady", "mean_run_sd"] == 0
    assert table.loc["steady", "flip_share"] == 0
    assert table.loc["steady", "icc1"] == pytest.approx(1.0)
    assert table.loc["shaky", "flip_samples"] == 5  # s5 has one scored repeat: no flip verdict
    assert table.loc["shaky", "flip_share"] == pytest.approx(3 / 5)
    assert table.loc["shaky", "icc1_samples"] == 5  # listwise
    assert "listwise" in table.loc["shaky", "missing"]


def test_stability_icc1_matches_pingouin_and_needs_two_repeats():
    frame = simulated(seed=1, judges=("a",), repeats=3)
    row = stability(frame).iloc[0]
    wide = frame.pivot(index="sample_id", columns="repeat", values="score").to_numpy()
    long = pd.DataFrame(
        {
            "t": np.repeat(np.arange(len(wide)), 3),
            "r": np.tile(np.arange(3), len(wide)),
            "s": wide.ravel(),
        }
    )
    oracle = pg.intraclass_corr(long, "t", "r", "s").set_index("Type").loc["ICC(1,1)", "ICC"]
    assert row["icc1"] == pytest.approx(oracle)
    single = stability(simulated(seed=1, judges=("a",), repeats=1)).iloc[0]
    assert np.isnan(single["icc1"]) and "repeats" in single["note"]
