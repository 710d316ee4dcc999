"""Per-sample disagreement between judges, against a plain-Python computation of the same rule."""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import fmean

import numpy as np
import pandas as pd

from judgegrid.analyses.consistency.disagreement import MISSING, sample_disagreement
from judgegrid.analyses.frames.tables import repeat_spread
from support.frames import scores_frame, simulated


def by_hand(scores: pd.DataFrame) -> dict[tuple[str, str], tuple[int, float]]:
    """(metric, sample) -> (judges rated, highest minus lowest judge), row by row: a
    configuration's rating is the mean of its scored repeats, a judge's the mean of its
    configurations' ratings."""
    repeats: dict[tuple, list[float]] = defaultdict(list)
    for row in scores.itertuples():
        if row.status == "scored":
            config = (row.metric, row.sample_id, row.judge, row.embedding, row.dimension)
            repeats[(*config, row.strictness)].append(float(row.score))
    configs: dict[tuple, list[float]] = defaultdict(list)
    for (metric, sample, judge, *_), values in repeats.items():
        configs[(metric, sample, judge)].append(fmean(values))
    judges: dict[tuple, list[float]] = defaultdict(list)
    for (metric, sample, _), values in configs.items():
        judges[(metric, sample)].append(fmean(values))
    return {
        key: (len(v), max(v) - min(v) if len(v) >= 2 else math.nan) for key, v in judges.items()
    }


def test_disagreement_matches_a_row_by_row_computation_on_a_grid_with_failures():
    scores = simulated(seed=3, samples=25, judges=("a", "b", "c", "d"), dims=(256, 512))
    rng = np.random.default_rng(7)
    failed = rng.random(len(scores)) < 0.15  # some repeats fail: they must not count
    scores.loc[failed, ["status", "score"]] = ["failed", np.nan]
    table = sample_disagreement(repeat_spread(scores))
    expected = by_hand(scores)
    assert len(table) == len(expected)
    for row in table.itertuples():
        judges, gap = expected[(row.metric, row.sample_id)]
        assert row.judges == judges
        if math.isnan(gap):
            assert math.isnan(row.disagreement)
        else:
            assert math.isclose(row.disagreement, gap, abs_tol=1e-12)
            assert math.isclose(row.high - row.low, gap, abs_tol=1e-12)
    gaps = table["disagreement"].dropna().to_numpy()
    assert (np.diff(gaps) <= 0).all()  # most disagreed first
    assert set(table["missing"]) == {MISSING}


def test_a_sample_one_judge_rated_has_no_disagreement_and_comes_last():
    values = {
        ("faithfulness", "a", "", 0, 0, "both", 0): 1.0,
        ("faithfulness", "b", "", 0, 0, "both", 0): 0.25,
        ("faithfulness", "b", "", 0, 0, "both", 1): 0.75,  # b's rating: 0.5
        ("faithfulness", "a", "", 0, 0, "alone", 0): 0.9,
        ("faithfulness", "b", "", 0, 0, "alone", 0): None,  # failed: b did not rate it
        ("faithfulness", "a", "", 0, 0, "tied", 0): 0.6,
        ("faithfulness", "b", "", 0, 0, "tied", 0): 0.6,
    }
    table = sample_disagreement(repeat_spread(scores_frame(values)))
    assert list(table["sample_id"]) == ["both", "tied", "alone"]
    both = table.iloc[0]
    assert (both.low_judge, both.low, both.high_judge, both.high) == ("b", 0.5, "a", 1.0)
    assert both.disagreement == 0.5
    assert table.iloc[1].disagreement == 0.0
    alone = table.iloc[2]
    assert alone.judges == 1 and math.isnan(alone.disagreement)


def test_nothing_scored_gives_an_empty_table():
    values = {("faithfulness", "a", "", 0, 0, "s", 0): None}
    assert sample_disagreement(repeat_spread(scores_frame(values))).empty
