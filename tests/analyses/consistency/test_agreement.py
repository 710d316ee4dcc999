"""Agreement between judges and between embedding configurations: alpha, ICC, tau-b and kappa
against their oracles, each judge's offset, and the reasons a statistic is undefined."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.consistency.agreement import (
    agreement_pairs,
    agreement_summary,
    rater_offsets,
)
from judgegrid.analyses.consistency.stability import stability
from judgegrid.analyses.consistency.variance import (
    variance_components,
)
from judgegrid.analyses.decision.card import decision_card
from judgegrid.analyses.decision.ladder import CardSources
from judgegrid.analyses.decision.recommendation import judge_ranking
from judgegrid.analyses.decision.strictness import strictness_tradeoff
from judgegrid.analyses.stats.icc import icc
from judgegrid.outputs.card_markdown import card_markdown
from support.frames import scores_frame, simulated


def test_agreement_between_judges_matches_oracles_on_judge_means():
    frame = simulated(seed=2, samples=25)
    frame.loc[frame.index[:4], "status"] = "failed"  # some failed cells
    frame.loc[frame.index[:4], "score"] = np.nan
    row = agreement_summary(frame).iloc[0]
    means = (
        frame[frame["status"] == "scored"].groupby(["sample_id", "judge"])["score"].mean().unstack()
    )
    alpha = krippendorff.alpha(reliability_data=means.to_numpy().T, level_of_measurement="interval")
    assert row["alpha"] == pytest.approx(alpha)
    assert row["icc2"] == pytest.approx(icc(means.to_numpy())["icc2"])
    assert row["raters"] == 3 and row["samples"] == 25
    assert "pairwise" not in row["icc_missing"] and "listwise" in row["icc_missing"]
    pairs = agreement_pairs(frame)
    assert len(pairs) == 6  # 3 judges, both orders
    ab = pairs[(pairs["rater_a"] == "a") & (pairs["rater_b"] == "b")].iloc[0]
    ba = pairs[(pairs["rater_a"] == "b") & (pairs["rater_b"] == "a")].iloc[0]
    assert ab["tau_b"] == pytest.approx(ba["tau_b"]) and ab["mad"] == pytest.approx(ba["mad"])


def test_offsets_find_the_lenient_judge():
    values = {}
    for i in range(10):
        base = i / 10
        values[("faithfulness", "a", "", 0, 0, f"s{i}", 0)] = base
        values[("faithfulness", "b", "", 0, 0, f"s{i}", 0)] = base
        values[("faithfulness", "lenient", "", 0, 0, f"s{i}", 0)] = base + 0.1
    offsets = rater_offsets(scores_frame(values)).set_index("rater")
    assert offsets.loc["lenient", "offset"] == pytest.approx(0.1)
    assert offsets.loc["a", "offset"] == pytest.approx(-0.05)
    assert offsets.loc["a", "consensus_tau_b"] == pytest.approx(1.0)


def test_agreement_with_one_judge_or_one_sample_is_nan_with_reason():
    one_judge = agreement_summary(simulated(judges=("a",)))
    assert np.isnan(one_judge.iloc[0]["icc2"]) and "raters" in one_judge.iloc[0]["note"]
    one_sample = agreement_summary(simulated(samples=1))
    assert np.isnan(one_sample.iloc[0]["icc2"]) and "samples" in one_sample.iloc[0]["note"]


def test_agreement_between_embedding_configurations():
    values = {}
    for i, d in itertools.product(range(8), (64, 16)):
        values[("response_relevancy", "a", "bow", d, 1, f"s{i}", 0)] = i / 8 + d / 1000
    summary = agreement_summary(scores_frame(values), rater="embedding")
    assert list(summary["judge"]) == ["a"] and summary.iloc[0]["raters"] == 2
    assert summary.iloc[0]["mean_tau_b"] == pytest.approx(1.0)


def test_empty_tables_do_not_crash():
    empty = scores_frame({})
    empty = pd.DataFrame(columns=simulated(samples=1).columns)
    assert stability(empty).empty and agreement_summary(empty).empty
    assert variance_components(empty).empty and strictness_tradeoff(empty).empty
    card = card_of(empty)
    assert card.empty and "no decision to make" in card_markdown(card.reset_index())


def card_of(scores: pd.DataFrame, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """The decision card from the scores (and pairs), without people's labels."""
    pairs = pairs if pairs is not None else pd.DataFrame()
    sources = CardSources(scores=scores, ranking=judge_ranking(scores, pairs), pairs=pairs)
    return decision_card(sources, "RUN").set_index("metric")
