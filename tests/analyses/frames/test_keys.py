"""Key columns as categories inside the consistency half (``frames.keys``): the same tables as
on text, and text again on the way out."""

from __future__ import annotations

import pandas as pd
import pytest

from judgegrid.analyses import bundle
from judgegrid.analyses.frames.keys import TEXT_KEYS, with_category_keys, with_text_keys
from judgegrid.analyses.frames.ratings import choice_ratings, pooled_by_choice, ratings
from judgegrid.analyses.frames.tables import repeat_spread
from support.frames import multilingual, simulated


def test_category_keys_round_trip_to_the_same_frame():
    scores = simulated()
    keyed = with_category_keys(scores)
    assert {c for c in keyed if isinstance(keyed[c].dtype, pd.CategoricalDtype)} == {
        c for c in TEXT_KEYS if c in scores
    }
    pd.testing.assert_frame_equal(with_text_keys(keyed), scores)


@pytest.mark.parametrize("scores", [simulated(), multilingual()], ids=["simulated", "languages"])
def test_the_consistency_tables_on_category_keys_are_those_on_text(scores):
    run = bundle.run_scores(scores)
    keyed = bundle.consistency_tables(run)
    plain = bundle._consistency_tables(run, None)  # the same work with the keys as text
    assert keyed.keys() == plain.keys()
    for name, table in keyed.items():
        assert not any(isinstance(t, pd.CategoricalDtype) for t in table.dtypes), name
        pd.testing.assert_frame_equal(table, plain[name], check_dtype=False, obj=name)
        assert [str(t) for t in table.dtypes] == [str(t) for t in plain[name].dtypes], name


def test_choice_ratings_are_the_ratings_with_their_spread():
    scores = simulated()
    made = choice_ratings(scores)
    pooled = pooled_by_choice(scores)
    by_rating = ratings(pooled)
    pd.testing.assert_frame_equal(made[by_rating.columns.tolist()], by_rating)
    assert made["sd"].equals(repeat_spread(pooled)["sd"])
