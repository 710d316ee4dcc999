"""The card's pairs rung weighted by the preference queue's draws: people's preferences stand
for all the data set's pairs, as people's labels stand for all the samples. Every weight 1 leaves
the figures as the data set's pairs give them; a queue that overdraws the pairs where the judges
disagree is unbiased for a judge's pairwise accuracy weighted, where it is not unweighted; and
the card says what its preferences stand for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.weightstats import DescrStatsW

from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.analyses.decision.ladder import CardSources, pair_evidence
from judgegrid.analyses.stats.ruling import WEIGHTED_TEST, binary_evidence, standings
from support.preference_queue import DISPUTED, IDS, METRIC, SCORES, TRUTH, N
from support.preference_queue import card_sources as _sources
from support.preference_queue import queue as _queue


def _accuracy(sources: CardSources, judge: str = "a") -> float:
    evidence = pair_evidence(METRIC, sources)
    assert evidence is not None
    return next(s.quality for s in standings(evidence) if s.judge == judge)


def test_the_overdrawing_queue_is_unbiased_weighted_and_off_unweighted():
    """120 queues of 120 draws that draw the disputed pairs four times as often: a's weighted
    pairwise accuracy misses its accuracy on all N pairs by less than 3 standard errors on
    average; the unweighted one (today's: the share of the answered pairs it is right on), by
    far more. Each weighted figure is statsmodels' weighted mean of the answered pairs'
    right/wrong at weights (draws of the pair) / (N q)."""
    rng = np.random.default_rng(42)
    q = np.where(np.arange(N) < DISPUTED, 4.0, 1.0)
    q /= q.sum()
    truth = float(TRUTH["a"].mean())
    errors: dict[str, list[float]] = {"weighted": [], "unweighted": []}
    for k in range(120):
        drawn = rng.choice(N, 120, p=q)
        inputs = _queue(drawn, q)
        weighted = _accuracy(_sources(inputs))
        pairs, counts = np.unique(drawn, return_counts=True)
        independent = DescrStatsW(TRUTH["a"][pairs], weights=counts / (N * q[pairs])).mean
        assert weighted == pytest.approx(independent, abs=1e-12)
        unweighted = float(TRUTH["a"][pairs].mean())
        if k < 3:  # the rung without the weights is that share
            assert _accuracy(_sources(inputs, weighted=False)) == pytest.approx(unweighted)
        errors["weighted"].append(weighted - truth)
        errors["unweighted"].append(unweighted - truth)
    bias = {k: float(np.mean(v)) for k, v in errors.items()}
    se = {k: float(np.std(v, ddof=1) / np.sqrt(len(v))) for k, v in errors.items()}
    assert abs(bias["weighted"]) < 3 * se["weighted"], (bias, se)
    assert bias["unweighted"] < -0.1 and abs(bias["unweighted"]) > 20 * se["unweighted"]


def test_every_weight_1_gives_the_figures_the_data_sets_pairs_give():
    """A queue that drew each pair once, uniformly: every preference weighs 1, and the rung's
    figures are exactly the unweighted ones of the same pairs given by the data set."""
    drawn = np.arange(40)
    q = np.full(N, 1 / N)
    inputs = _queue(drawn, q)
    sources = _sources(inputs)
    evidence = pair_evidence(METRIC, sources)
    assert evidence is not None and evidence.weighting is None
    assert evidence.sampling == "labels drawn uniformly"
    assert inputs.people_pairs is not None
    dataset = inputs.people_pairs.assign(source="labels", pair=IDS[:40])
    today = pair_evidence(METRIC, CardSources(SCORES, pd.DataFrame(), pairs=dataset))
    assert today is not None and today.sampling == "" and today.weighting is None
    assert standings(evidence) == standings(today)


def test_every_weight_1_leaves_the_card_as_the_data_sets_pairs_make_it():
    drawn = np.arange(40)
    q = np.full(N, 1 / N)
    people = analyse(SCORES, RunFacts(), _queue(drawn, q)).card.set_index("metric").loc[METRIC]
    info = {
        f"{pair}-{side}": {"labels": {"pair": pair, "preferred": side == "g", "aspect": METRIC}}
        for pair in IDS[:40]
        for side in "gb"
    }
    dataset = analyse(SCORES, RunFacts(sample_info=info)).card.set_index("metric").loc[METRIC]
    for column in ("basis", "judge", "value", "low", "high", "n", "verdict"):
        assert people[column] == dataset[column], column
    assert "on 40 labels drawn uniformly" in people["reason"]
    assert people["reason"].replace("labels drawn uniformly", "pairs") == dataset["reason"]


def test_the_card_says_its_preferences_are_weighted_and_by_what():
    rng = np.random.default_rng(3)
    q = np.where(np.arange(N) < DISPUTED, 4.0, 1.0)
    q /= q.sum()
    drawn = rng.choice(N, 150, p=q)
    answered = len(set(drawn.tolist()))
    card = analyse(SCORES, RunFacts(), _queue(drawn, q)).card.set_index("metric").loc[METRIC]
    assert card["basis"] == "preference pairs"
    words = f"on {answered} labels weighted by the queue's draw probabilities over {N} pairs"
    assert words in card["reason"]
    assert WEIGHTED_TEST in card["reason"]
    assert card["n"] == answered  # the chip's count: the preferences, each once
    assert str(card["label_state"]).startswith(f"{answered} labels · ")
    unweighted = _accuracy(_sources(_queue(drawn, q), weighted=False), str(card["judge"]))
    assert card["value"] != pytest.approx(unweighted, abs=1e-6)


def test_the_data_sets_pairs_alone_are_not_weighted_and_say_nothing_of_labels():
    pairs = pd.DataFrame(
        {
            "source": "labels",
            "pair": IDS,
            "aspect": METRIC,
            "metric": METRIC,
            "preferred": [f"{p}-g" for p in IDS],
            "other": [f"{p}-b" for p in IDS],
        }
    )
    evidence = pair_evidence(METRIC, CardSources(SCORES, pd.DataFrame(), pairs=pairs))
    assert evidence is not None
    assert evidence.weighting is None and evidence.sampling == ""
    right = pd.DataFrame(TRUTH, index=IDS)
    assert standings(evidence) == standings(binary_evidence(right))
