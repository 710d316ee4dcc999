"""The decision card's error rates on a smaller run of the benchmark's scenario bank
(benches/bench_decision.py runs 200 seeds a scenario; here 40, so the goals get a tolerance of
about two binomial standard errors: wrong pick <= 5% + 0.07, power >= 80% - 0.13, and a judge
at chance taken where a better one exists <= 5% + 0.07)."""

from __future__ import annotations

import pytest

from judgegrid.testing.decision_bank import (
    BANK,
    POWER_GOAL,
    WRONG_PICK_GOAL,
    Decision,
    Scenario,
    scenario_figures,
    take_at_chance,
    wrong_pick,
)

SEEDS = range(1000, 1040)  # not the benchmark's seeds


@pytest.mark.parametrize("scenario", BANK, ids=[s.name for s in BANK])
def test_the_card_rarely_names_a_wrong_judge_and_finds_a_clearly_better_one(scenario):
    figures = scenario_figures(scenario, SEEDS)
    assert figures["wrong_pick"] <= WRONG_PICK_GOAL + 0.07, figures
    assert figures["take_at_chance"] <= WRONG_PICK_GOAL + 0.07, figures
    if scenario.power and scenario.power_reachable:
        assert figures["power"] >= POWER_GOAL - 0.13, figures


def test_what_counts_as_a_wrong_pick():
    gap = Scenario("gap", "pairs", {"a": 0.9, "b": 0.7}, 60)
    assert wrong_pick(gap, Decision("named", "b", ("b",)))
    assert not wrong_pick(gap, Decision("named", "a", ("a",)))
    assert not wrong_pick(gap, Decision("set", "b", ("a", "b")))  # the set holds the best
    assert not wrong_pick(gap, Decision("chance", None, ()))
    bad = Scenario("bad", "pairs", {"a": 0.5, "b": 0.5}, 60)
    assert wrong_pick(bad, Decision("set", "a", ("a", "b")))  # nothing to name
    margin = Scenario("m", "pairs", {"dear": 0.85, "cheap": 0.83}, 60, margin=0.05)
    assert not wrong_pick(margin, Decision("margin", "cheap", ("dear", "cheap")))
    # a set is judged on every judge it says the top is not separated from
    assert not wrong_pick(gap, Decision("set", "b", ("b",), ("a",)))


def test_what_counts_as_taking_a_judge_at_chance():
    cheap = Scenario("cheap", "pairs", {"dear": 0.95, "cheap": 0.5}, 10)
    assert take_at_chance(cheap, Decision("set", "cheap", ("dear", "cheap")))
    assert not take_at_chance(cheap, Decision("set", "dear", ("dear",), ("cheap",)))
    assert not take_at_chance(cheap, Decision("chance", None, ()))
    bad = Scenario("bad", "pairs", {"a": 0.5, "b": 0.5}, 60)  # nothing better: a wrong pick
    assert not take_at_chance(bad, Decision("named", "a", ("a",)))
