"""The tables of people's preferences weighted as the card's pairs rung weighs them: the run's
``validity_pairs`` (source ``people``) and the judge ranking's pairwise accuracy give, for each
judge, the card's weighted figure (one source of weights: ``preference_weights``), checked
against statsmodels and against numpy on rows replicated by whole weights; every weight 1 leaves
both tables as they are without draws; and a preference with a probability but no draw and no
data set's pairs (no N) counts as drawn uniformly instead of stopping the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.weightstats import DescrStatsW

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.decision.ladder import CardSources, pair_evidence
from judgegrid.analyses.frames.label_weights import UNIFORM_WORDS
from judgegrid.analyses.stats.ruling import Standing, standings
from judgegrid.analyses.validity.pairs import ONCE_WORDS
from support.preference_queue import DISPUTED, IDS, METRIC, SCORES, TRUTH, N, card_sources, queue

WORDS = f"labels weighted by the queue's draw probabilities over {N} pairs"


def _overdrawn() -> np.ndarray:
    q = np.where(np.arange(N) < DISPUTED, 4.0, 1.0)
    return q / q.sum()


def _card(sources: CardSources) -> dict[str, Standing]:
    evidence = pair_evidence(METRIC, sources)
    assert evidence is not None
    return {s.judge: s for s in standings(evidence)}


def _drawn() -> np.ndarray:
    return np.random.default_rng(17).choice(N, 150, p=_overdrawn())


def test_the_tables_give_the_cards_weighted_accuracy_for_each_judge():
    q = _overdrawn()
    drawn = _drawn()
    inputs = queue(drawn, q)
    analysis = analyse(SCORES, RunFacts(), inputs)
    card = analysis.card.set_index("metric").loc[METRIC]
    pairs_table = analysis.table("validity_pairs").set_index("judge")
    ranking = analysis.table("judge_ranking").set_index("judge")
    answered, counts = np.unique(drawn, return_counts=True)
    weights = counts / (N * q[answered])
    # a disputed pair's draw weighs a quarter of another's: in units of it, each weight is
    # whole, and the ratio mean is the mean of the rows replicated by it
    unit = 1 / (N * q.max())
    whole = np.rint(weights / unit).astype(int)
    assert np.allclose(weights / unit, whole)
    for judge in ("a", "b"):
        right = TRUTH[judge][answered]
        independent = DescrStatsW(right, weights=weights).mean
        replicated = float(np.repeat(right, whole).mean())
        row = pairs_table.loc[judge]
        assert row["source"] == "people"
        assert row["accuracy"] == pytest.approx(independent, abs=1e-12)
        assert row["accuracy"] == pytest.approx(replicated, abs=1e-12)
        assert row["accuracy_unweighted"] == pytest.approx(right.mean(), abs=1e-12)
        assert row["accuracy"] != pytest.approx(row["accuracy_unweighted"], abs=1e-3)
        assert row["weighting"] == WORDS
        assert row["n"] == len(answered)  # still a count of preferences
        assert ranking.loc[judge, "quality"] == pytest.approx(row["accuracy"], abs=1e-12)
        assert ranking.loc[judge, "basis"].endswith(f"; {WORDS}")
        # people's preferences alone: human labels, not designed contrasts
        assert ranking.loc[judge, "basis"].startswith("pairwise-preference accuracy (human labels)")
        for side in ("ci_low", "ci_high"):
            assert ranking.loc[judge, side] == pytest.approx(row[side], abs=1e-12)
    assert card["value"] == pytest.approx(pairs_table.loc[card["judge"], "accuracy"], abs=1e-12)
    assert card["low"] == pytest.approx(pairs_table.loc[card["judge"], "ci_low"], abs=1e-12)


def test_the_tables_equal_the_rungs_standings_interval_included():
    """The table's interval is the card's (Wilson at the effective number of pairs), and it is
    narrower than the unweighted Wilson interval at n would make it only where the effective n
    is larger: here, with unequal weights, the effective n is below n, so it is wider."""
    q = _overdrawn()
    inputs = queue(_drawn(), q)
    table = analyse(SCORES, RunFacts(), inputs).table("validity_pairs").set_index("judge")
    ranked = _card(card_sources(inputs))
    for judge, standing in ranked.items():
        row = table.loc[judge]
        assert (row["accuracy"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (standing.quality, standing.low, standing.high), abs=1e-12
        )
        assert standing.effective is not None and standing.effective < row["n"]


def test_every_weight_1_leaves_both_tables_as_without_draws():
    q = np.full(N, 1 / N)
    inputs = queue(np.arange(40), q)
    drawn = analyse(SCORES, RunFacts(), inputs)
    plain = analyse(SCORES, RunFacts(), ValidityInputs(people_pairs=inputs.people_pairs))
    for name in ("validity_pairs", "judge_ranking"):
        pd.testing.assert_frame_equal(drawn.table(name), plain.table(name))
    assert "accuracy_unweighted" not in drawn.table("validity_pairs").columns


def test_a_preference_with_a_probability_and_no_draw_counts_as_drawn_uniformly():
    """No draw and no data set's pairs: nothing says how many pairs the probability was over
    (N of 1 / (N q)), so the preference weighs 1, as a label with no probability, and the
    report says its labels were drawn uniformly instead of raising "no sample count"."""
    q = _overdrawn()
    inputs = queue(_drawn(), q)
    assert inputs.answers is not None
    answers = inputs.answers.assign(probability=0.01)
    undrawn = ValidityInputs(people_pairs=inputs.people_pairs, answers=answers)
    analysis = analyse(SCORES, RunFacts(), undrawn)
    plain = analyse(SCORES, RunFacts(), ValidityInputs(people_pairs=inputs.people_pairs))
    pd.testing.assert_frame_equal(analysis.table("validity_pairs"), plain.table("validity_pairs"))
    card = analysis.card.set_index("metric").loc[METRIC]
    assert f"labels {UNIFORM_WORDS}" not in card["reason"]  # (words say "N labels drawn ...")
    assert UNIFORM_WORDS in card["reason"]


def test_a_data_sets_pairs_beside_weighted_preferences_count_once():
    """The data set's pairs (source labels) beside weighted preferences keep their own rows
    unweighted, and say so, while the people's rows are weighted."""
    q = _overdrawn()
    inputs = queue(_drawn(), q)
    info = {
        f"{pair}-{side}": {"labels": {"pair": pair, "preferred": side == "g", "aspect": METRIC}}
        for pair in IDS[:40]
        for side in "gb"
    }
    table = analyse(SCORES, RunFacts(sample_info=info), inputs).table("validity_pairs")
    by_source = table.set_index(["source", "judge"])
    for judge in ("a", "b"):
        dataset = by_source.loc[("labels", judge)]
        assert dataset["weighting"] == ONCE_WORDS
        assert dataset["accuracy"] == dataset["accuracy_unweighted"]
        assert dataset["accuracy"] == pytest.approx(TRUTH[judge][:40].mean())
        assert by_source.loc[("people", judge), "weighting"] == WORDS
