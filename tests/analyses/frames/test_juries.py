"""Juries: panels of judges as virtual judges made from the calls already made."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.analyses.frames.juries import is_jury, jury_name, with_juries
from support.frames import scores_frame, simulated


def test_a_jury_cell_is_the_mean_of_its_members_and_costs_their_sum():
    values = {
        ("faithfulness", "a", "", 0, 0, "s1", 0): 0.2,
        ("faithfulness", "b", "", 0, 0, "s1", 0): 0.8,
        ("faithfulness", "a", "", 0, 0, "s2", 0): None,  # failed: b alone judges s2
        ("faithfulness", "b", "", 0, 0, "s2", 0): 0.6,
        ("faithfulness", "a", "", 0, 0, "s3", 0): None,
        ("faithfulness", "b", "", 0, 0, "s3", 0): None,
        ("faithfulness", "a", "", 0, 0, "s4", 0): 0.5,  # b has no cell: the jury has none
    }
    scores = scores_frame(values)
    out = with_juries(scores, [["a", "b"]])
    jury = out[out["judge"] == jury_name(["a", "b"])].set_index("sample_id")
    assert jury_name(["a", "b"]) == "jury(a + b)" and is_jury("jury(a + b) / e5")
    assert list(jury.index) == ["s1", "s2", "s3"]
    assert jury.loc["s1", "score"] == pytest.approx(0.5)
    assert jury.loc["s2", "score"] == pytest.approx(0.6)
    assert jury.loc["s3", "status"] == "failed" and np.isnan(jury.loc["s3", "score"])
    member_cost = scores[scores["sample_id"] == "s1"]["cost"].sum()
    assert jury.loc["s1", "cost"] == pytest.approx(member_cost)
    assert jury.loc["s1", "latency_s"] == pytest.approx(
        scores[scores["sample_id"] == "s1"]["latency_s"].sum()
    )
    assert len(out) == len(scores) + 3  # no call: rows made from the members' rows only


def test_a_jury_is_compared_beside_its_members_but_not_by_agreement():
    frame = simulated(seed=4, samples=25, judges=("a", "b"), repeats=2)
    result = analyse(frame, RunFacts(jury_panels=[["a", "b"]]))
    judges = set(result.table("config_summary")["judge"])
    assert judges == {"a", "b", "jury(a + b)"}
    assert result.overview.rows == len(frame)  # the run's own cells, not the jury's
    assert "jury(a + b)" not in set(result.table("judge_offsets")["rater"])
    card = result.card.set_index("metric").loc["faithfulness"]
    assert card["verdict"] == "no verdict" and "fewer than 3 judges" in card["reason"]


def test_a_jury_is_ranked_on_preference_pairs_and_can_be_named():
    rng = np.random.default_rng(2)
    labels, values = {}, {}
    for p in range(80):
        labels[f"p{p}-g"] = {"pair": f"p{p}", "preferred": 1, "aspect": "faithfulness"}
        labels[f"p{p}-b"] = {"pair": f"p{p}", "preferred": 0, "aspect": "faithfulness"}
        for judge in ("a", "b", "c"):  # three noisy judges whose mean orders pairs better
            values[("faithfulness", judge, "", 0, 0, f"p{p}-g", 0)] = 0.6 + rng.normal(0, 0.2)
            values[("faithfulness", judge, "", 0, 0, f"p{p}-b", 0)] = 0.4 + rng.normal(0, 0.2)
    info = {sid: {"labels": lab} for sid, lab in labels.items()}
    result = analyse(
        scores_frame(values), RunFacts(sample_info=info, jury_panels=[["a", "b", "c"]])
    )
    ranking = result.table("judge_ranking").set_index("judge")
    jury = "jury(a + b + c)"
    assert ranking.loc[jury, "quality"] > ranking.drop(index=jury)["quality"].max()
    assert ranking.loc[jury, "cost_per_score"] == pytest.approx(
        3 * ranking.loc["a", "cost_per_score"]
    )
    card = result.card.set_index("metric").loc["faithfulness"]
    assert card["verdict"].startswith(jury) and card["basis"] == "preference pairs"
    assert isinstance(result.table("validity_pairs"), pd.DataFrame)
    assert jury in set(result.table("validity_pairs")["judge"])
