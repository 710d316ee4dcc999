"""Scores and agreement by language, checked against plain loops and the krippendorff package."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.analyses.languages import (
    UNSET,
    language_agreement,
    language_means,
    language_table,
    languages_of,
)
from support.frames import scores_frame

LANGUAGES = {f"s{i}": lang for i, lang in enumerate(["en"] * 4 + ["vi"] * 4 + ["zh"] * 4)}


def simulated(seed: int = 0) -> pd.DataFrame:
    """Two judges × two embeddings of ResponseRelevancy and a judge-only metric, two repeats;
    the 'mini' embedding scores Vietnamese and Chinese low, as an English-only model would;
    a few cells failed and one sample's every repeat failed for judge b."""
    rng = np.random.default_rng(seed)
    values: dict = {}
    for judge, sample, rep in itertools.product(("a", "b"), LANGUAGES, (0, 1)):
        for emb in ("mini", "e5"):
            low = emb == "mini" and LANGUAGES[sample] != "en"
            score = float(np.clip(rng.normal(0.4 if low else 0.8, 0.1), 0, 1))
            values[("response_relevancy", judge, emb, 384, 1, sample, rep)] = score
        values[("faithfulness", judge, "", 0, 0, sample, rep)] = float(rng.uniform())
    values[("faithfulness", "a", "", 0, 0, "s5", 1)] = None
    values[("faithfulness", "b", "", 0, 0, "s9", 0)] = None
    values[("faithfulness", "b", "", 0, 0, "s9", 1)] = None
    return scores_frame(values)


def test_means_per_language_are_means_of_sample_ratings_over_scored_cells():
    scores = simulated()
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
    scores = simulated()
    assert language_means(scores, dict.fromkeys(LANGUAGES, "en")).empty
    assert language_agreement(scores, dict.fromkeys(LANGUAGES, UNSET)).empty
    assert languages_of({"x": {"language": None}, "y": {}}) == {"x": UNSET, "y": UNSET}


def test_agreement_per_language_matches_krippendorff_on_that_languages_samples():
    scores = simulated(seed=3)
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


def test_the_bundle_and_the_table_name_configurations_and_languages():
    scores = simulated()
    info = {
        sid: {"language": lang, "labels": None, "contrast": None} for sid, lang in LANGUAGES.items()
    }
    analysis = analyse(scores, RunFacts(sample_info=info))
    table = analysis.by_language["response_relevancy"]
    assert list(table.columns) == ["en", "vi", "zh"]
    assert "a / mini @ 384 (s=1)" in table.index
    assert table.loc["a / mini @ 384 (s=1)", "en"].endswith("(n=4)")
    faith = language_table(analysis.table("language_means"), "faithfulness")
    assert faith.loc["b", "zh"].endswith("(n=3, 2 failed)")
    # a one-language run has no such section
    one = {sid: {**i, "language": "en"} for sid, i in info.items()}
    assert analyse(scores, RunFacts(sample_info=one)).by_language == {}
