"""Judges ranked by validity (pairs) or by consensus, and the paragraph that names none when
chance is not excluded."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.decision.card import decision_card
from judgegrid.analyses.decision.ladder import CardSources
from judgegrid.analyses.decision.recommendation import judge_ranking
from judgegrid.analyses.validity.pairs import pairs_from_labels
from support.frames import scores_frame, simulated


def test_ranking_and_paragraph_without_labels_use_consensus():
    frame = simulated(seed=9, samples=20, judges=("good", "also", "noisy"))
    noisy = frame["judge"] == "noisy"
    frame.loc[noisy, "score"] = np.random.default_rng(0).random(noisy.sum())
    frame.loc[frame["judge"] == "good", "cost"] = 0.01
    ranking = judge_ranking(frame, pd.DataFrame())
    assert ranking.iloc[-1]["judge"] == "noisy"
    assert ranking["basis"].str.contains("consensus").all()
    row = card_of(frame).loc["faithfulness"]
    assert row["basis"] == "other judges" and "(by agreement only)" in row["verdict"]
    assert "noisy" not in row["verdict"].split(":")[0]
    assert "vs runner-up" in row["reason"] and "paired bootstrap" in row["reason"]
    assert "95% CI" in row["reason"] and "judgegrid label RUN" in row["next_step"]
    assert "ranks first" in row["detail"] and "not validity" in row["detail"]


def test_ranking_with_pairs_uses_validity():
    labels, values = {}, {}
    for p in range(12):
        labels[f"p{p}-g"] = {"pair": f"p{p}", "preferred": 1, "aspect": "faithfulness"}
        labels[f"p{p}-b"] = {"pair": f"p{p}", "preferred": 0, "aspect": "faithfulness"}
        values[("faithfulness", "right", "", 0, 0, f"p{p}-g", 0)] = 0.9
        values[("faithfulness", "right", "", 0, 0, f"p{p}-b", 0)] = 0.1
        values[("faithfulness", "wrong", "", 0, 0, f"p{p}-g", 0)] = 0.1 if p % 3 else 0.9
        values[("faithfulness", "wrong", "", 0, 0, f"p{p}-b", 0)] = 0.5
    ranking = judge_ranking(scores_frame(values), pairs_from_labels(labels)).set_index("judge")
    assert ranking.loc["right", "quality"] == 1 and ranking.loc["right", "rank"] == 1
    assert ranking.loc["wrong", "quality"] == pytest.approx(4 / 12)
    assert ranking.loc["right", "pareto"]
    row = card_of(scores_frame(values), pairs_from_labels(labels)).loc["faithfulness"]
    assert (row["verdict"], row["basis"]) == ("right", "preference pairs")
    assert "12 pairs" in row["reason"] and "right ranks first" in row["detail"]
    assert "vs runner-up wrong" in row["reason"] and "exact McNemar" in row["reason"]


def test_no_judge_is_recommended_when_chance_is_not_excluded():
    labels = {
        "p1-g": {"pair": "p1", "preferred": 1, "aspect": "faithfulness"},
        "p1-b": {"pair": "p1", "preferred": 0, "aspect": "faithfulness"},
    }
    values = {
        ("faithfulness", "weak", "", 0, 0, "p1-g", 0): 0.2,
        ("faithfulness", "weak", "", 0, 0, "p1-b", 0): 0.9,
        ("faithfulness", "broken", "", 0, 0, "p1-g", 0): None,
        ("faithfulness", "broken", "", 0, 0, "p1-b", 0): None,
    }
    row = card_of(scores_frame(values), pairs_from_labels(labels)).loc["faithfulness"]
    assert row["verdict"] == "no verdict" and "does not exclude chance" in row["reason"]
    assert "ranks first" not in row["detail"] and "support no judge yet" in row["detail"]


def card_of(scores: pd.DataFrame, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """The decision card from the scores (and pairs), without people's labels."""
    pairs = pairs if pairs is not None else pd.DataFrame()
    sources = CardSources(scores=scores, ranking=judge_ranking(scores, pairs), pairs=pairs)
    return decision_card(sources, "RUN").set_index("metric")


def test_a_judge_whose_time_is_unknown_reads_unknown_time_not_nan():
    """An import whose source kept no latency: the paragraph says the time is unknown, as it
    says of an unknown cost, and never prints ``nan s``."""
    frame = simulated(seed=9, samples=20, judges=("good", "also", "noisy"))
    frame["latency_s"] = np.nan
    frame["cost"] = np.nan
    row = card_of(frame).loc["faithfulness"]
    assert "unknown time per score" in row["detail"] and "unknown cost" in row["detail"]
    assert "nan" not in row["detail"]


def test_judges_level_on_the_figure_are_said_level_by_the_card_and_its_detail():
    """Judges level on the figure: the card breaks the tie by the judges' order, its detail by
    cost, so each named a different "best" (a walk through the labelling loop met "the best, a"
    beside "the best, b"); both now say who is level with the one they name, and the two name
    the same judges between them."""
    frame = simulated(seed=4, samples=6, judges=("a", "b", "c"))
    for judge in ("b", "c"):  # three judges scoring alike: level on any figure
        frame.loc[frame["judge"] == judge, "score"] = frame.loc[
            frame["judge"] == "a", "score"
        ].to_numpy()
    row = card_of(frame).loc["faithfulness"]
    said = {}
    for field in ("reason", "detail"):
        found = re.search(r"the best, (\w+) \(level with ([\w, ]+)\)", row[field])
        assert found, row[field]
        said[field] = {found.group(1), *found.group(2).split(", ")}
    assert said["reason"] == said["detail"] == {"a", "b", "c"}
    alone = simulated(seed=9, samples=20, judges=("good", "also", "noisy"))
    assert "level with" not in " ".join(card_of(alone).loc["faithfulness", ["reason", "detail"]])
