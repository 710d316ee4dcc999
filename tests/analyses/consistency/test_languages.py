"""Scores and agreement by language, checked against plain loops and the krippendorff package."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from judgegrid.analyses.consistency.languages import (
    UNSET,
    language_agreement,
    language_means,
    languages_of,
)
from support.frames import LANGUAGES, multilingual


def test_means_per_language_are_means_of_sample_ratings_over_scored_cells():
    scores = multilingual()
    means = language_means(scores, LANGUAGES)
    for row in means.itertuples():
        cells = scores[
            (scores["metric"] == row.metric)
            & (scores["judge"] == row.judge)
            & (scores["embedding"] == row.embedding)
            & (scores["sample_id"].map(LANGUAGES) == row.language)
        ]
        per_sample = [
            np.mean([c.score for c in block.itertuples() if c.status == "scored"])
            for _, block in cells.groupby("sample_id")
            if (block["status"] == "scored").any()
        ]
        assert row.samples == len(per_sample)
        assert row.mean == pytest.approx(np.mean(per_sample))
        assert row.failed == int((cells["status"] == "failed").sum())
    # the designed effect shows: MiniLM low outside English, e5 not
    rr = means[(means["metric"] == "response_relevancy") & (means["judge"] == "a")]
    mini = rr[rr["embedding"] == "mini"].set_index("language")["mean"]
    e5 = rr[rr["embedding"] == "e5"].set_index("language")["mean"]
    assert mini["vi"] < 0.6 < e5["vi"] and mini["en"] > 0.6
    # a sample whose every repeat failed is not rated, and its failures are counted
    zh_b = means[(means["metric"] == "faithfulness") & (means["judge"] == "b")]
    assert zh_b.set_index("language").loc["zh", ["samples", "failed"]].tolist() == [3, 2]


def test_one_language_or_none_has_nothing_to_break_down():
    scores = multilingual()
    assert language_means(scores, dict.fromkeys(LANGUAGES, "en")).empty
    assert language_agreement(scores, dict.fromkeys(LANGUAGES, UNSET)).empty
    assert languages_of({"x": {"language": None}, "y": {}}) == {"x": UNSET, "y": UNSET}


def test_agreement_per_language_matches_krippendorff_on_that_languages_samples():
    scores = multilingual(seed=3)
    table = language_agreement(scores, LANGUAGES)
    judges = table[(table["between"] == "judges") & (table["metric"] == "faithfulness")]
    assert sorted(judges["language"]) == ["en", "vi", "zh"]
    for row in judges.itertuples():
        block = scores[
            (scores["metric"] == "faithfulness")
            & (scores["sample_id"].map(LANGUAGES) == row.language)
            & (scores["status"] == "scored")
        ]
        wide = block.groupby(["judge", "sample_id"])["score"].mean().unstack()
        expected = krippendorff.alpha(
            reliability_data=wide.to_numpy(float), level_of_measurement="interval"
        )
        assert row.alpha == pytest.approx(expected, abs=1e-9)
    embeddings = table[table["between"] == "embeddings of a"]
    assert set(embeddings["metric"]) == {"response_relevancy"}
    for row in embeddings.itertuples():
        block = scores[
            (scores["metric"] == "response_relevancy")
            & (scores["judge"] == "a")
            & (scores["sample_id"].map(LANGUAGES) == row.language)
        ]
        wide = block.groupby(["embedding", "sample_id"])["score"].mean().unstack()
        expected = krippendorff.alpha(
            reliability_data=wide.to_numpy(float), level_of_measurement="interval"
        )
        assert row.alpha == pytest.approx(expected, abs=1e-9)
