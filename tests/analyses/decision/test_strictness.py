"""What a larger strictness buys and costs, per judge."""

from __future__ import annotations

import itertools

import pytest

from judgegrid.analyses.decision.strictness import strictness_tradeoff
from support.frames import scores_frame


def test_strictness_tradeoff_per_judge_and_strictness():
    values = {}
    for s, i, r in itertools.product((1, 3), range(5), range(2)):
        values[("response_relevancy", "a", "bow", 64, s, f"s{i}", r)] = 0.5 + (r - 0.5) / (s * 5)
    table = strictness_tradeoff(scores_frame(values)).set_index("strictness")
    assert table.loc[3, "mean_run_sd"] < table.loc[1, "mean_run_sd"]
    assert table.loc[3, "calls_per_score"] == 5 and table.loc[1, "calls_per_score"] == 3
    assert table.loc[3, "cost_per_score"] == pytest.approx(0.004)
