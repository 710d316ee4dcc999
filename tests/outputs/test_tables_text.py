"""The analyses' tables as text for people: a configuration by language table of means, each
cell with its samples and failed cells; none for a data set in one language."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from frames import scores_frame
from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.outputs.tables_text import language_table, means_by_language

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


def test_the_bundle_and_the_table_name_configurations_and_languages():
    scores = simulated()
    info = {
        sid: {"language": lang, "labels": None, "contrast": None} for sid, lang in LANGUAGES.items()
    }
    analysis = analyse(scores, RunFacts(sample_info=info))
    table = means_by_language(analysis.table("language_means"))["response_relevancy"]
    assert list(table.columns) == ["en", "vi", "zh"]
    assert "a / mini @ 384 (s=1)" in table.index
    assert table.loc["a / mini @ 384 (s=1)", "en"].endswith("(n=4)")
    faith = language_table(analysis.table("language_means"), "faithfulness")
    assert faith.loc["b", "zh"].endswith("(n=3, 2 failed)")
    # a one-language run has no such section
    one = {sid: {**i, "language": "en"} for sid, i in info.items()}
    alone = analyse(scores, RunFacts(sample_info=one)).table("language_means")
    assert means_by_language(alone) == {}
