"""The people rung's anytime rule (``decision.anytime``): looked at after every label it names
a wrong judge at most 5% of the time (simulation, weighted and not), finds a clearly better
one, projects what is left, and words the state line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses import (
    AnytimeVerdict,
    anytime_verdict,
    first_rejections,
    label_design,
    labels_to_come,
    state_words,
)
from judgegrid.analyses.decision.anytime import HORIZON, bet_values, count_words, hypotheses_of
from judgegrid.analyses.stats.betting import draws_to_reject, first_rejection

JUDGES = ("a", "b")


def _population(rng: np.random.Generator, quality: tuple[float, ...], n: int = 600):
    return np.column_stack([rng.random(n) < q for q in quality]).astype(float)


def test_equal_judges_are_rarely_told_apart_however_often_one_looks():
    """300 people, 600 draws each, equal judges (the population's accuracies made equal):
    a judge named <= 5% (+2 SE), uniform and with a skewed queue's weights."""
    rng = np.random.default_rng(21)
    right = _population(rng, (0.7, 0.7))
    right[:, 1] = np.roll(right[:, 0], 1)  # the same accuracy over the run, other samples
    disagree = right[:, 0] != right[:, 1]
    plan = label_design(pd.Series(disagree.astype(float)), uniform_share=0.4)
    weight = 1 / (600 * plan.probability)
    named = {"uniform": 0, "weighted": 0}
    for _ in range(300):
        picked = rng.integers(0, 600, 600)
        found = anytime_verdict(JUDGES, right[picked], np.ones(600), 1.0, 0.5, project=False)
        named["uniform"] += found.named is not None
        picked = rng.choice(600, 600, p=plan.probability)
        bounds = {("a", "b"): float(weight[disagree].max())}
        found = anytime_verdict(
            JUDGES,
            right[picked],
            weight[picked],
            float(weight.max()),
            0.5,
            pair_bounds=bounds,
            project=False,
        )
        named["weighted"] += found.named is not None
    for count in named.values():
        assert count / 300 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 300)


def test_a_clearly_better_judge_is_named_and_the_state_says_so():
    rng = np.random.default_rng(22)
    right = _population(rng, (0.92, 0.6), 400)
    found = anytime_verdict(JUDGES, right, np.ones(400), 1.0, 0.5)
    assert found.named == "a" and 0 < found.at <= 400
    words = state_words(found.at, found, JUDGES, 0.0)
    assert words == f"{found.at} labels · a is better than b and chance"


def test_with_one_judge_the_line_speaks_of_chance_alone():
    """A run of one judge: the rule tests it against chance only, and the line must not say
    "solo leads , not yet separated" or "solo is better than  and chance" (no rival)."""
    rng = np.random.default_rng(25)
    good = (rng.random(300) < 0.95).astype(float)[:, None]
    found = anytime_verdict(("solo",), good, np.ones(300), 1.0, 0.5)
    assert found.named == "solo"
    assert state_words(found.at, found, ("solo",), 0.0) == (
        f"{found.at} labels · solo is better than chance"
    )
    coin = np.array([1.0, 0.0] * 6)[:, None]
    found = anytime_verdict(("solo",), coin, np.ones(12), 1.0, 0.5)
    assert found.named is None and found.leader == "solo"
    assert state_words(12, found, ("solo",), np.inf) == (
        "12 labels · solo does not yet beat chance · none in sight at the present difference"
    )


def test_before_a_verdict_the_leader_and_about_n_more_are_given():
    rng = np.random.default_rng(24)
    right = _population(rng, (0.8, 0.65), 25)
    found = anytime_verdict(JUDGES, right, np.ones(25), 1.0, 0.5, seed=3)
    assert found.named is None and found.leader == "a"
    assert 1 < found.about_more < np.inf
    words = state_words(25, found, JUDGES, found.about_more)
    assert words.startswith("25 labels · a leads b, not yet separated · about ")


def test_a_leader_clear_at_the_whole_alpha_but_not_the_rules_needs_one_more_at_least():
    """The projection replays the leader's tests at the whole alpha: where they have crossed
    it already but the rule's alpha / J not, no verdict has come, and the line must not say
    none is left to label."""
    rng = np.random.default_rng(23)
    right = _population(rng, (0.85, 0.65), 25)
    found = anytime_verdict(JUDGES, right, np.ones(25), 1.0, 0.5, seed=3)
    mine = [t for t in hypotheses_of(JUDGES, 1.0, 0.5, 0.05) if t.judge == "a"]
    history = np.column_stack([bet_values(t, JUDGES, right, np.ones(25), 0.5) for t in mine])
    at = [(t.null, t.low, t.high, 0.05) for t in mine]
    assert draws_to_reject(history, at, HORIZON, seed=3) == 0  # crossed at the whole alpha
    assert found.named is None and found.about_more == 1
    assert state_words(25, found, JUDGES, found.about_more).endswith(" · about 1 more")


def test_judges_level_on_the_labels_are_said_level_not_one_leading():
    """Two judges right and wrong on the same labels (the new-user walk: two scripted judges
    that agree on every sample): the line said "a leads b", the first in order taken as the
    leader; the judges at the top are level, and the line must say so."""
    same = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    found = anytime_verdict(JUDGES, same[:, :2], np.ones(4), 1.0, 0.5)
    assert found.named is None
    assert state_words(4, found, JUDGES, np.inf) == (
        "4 labels · a and b are level, not yet separated · none in sight while they stay level"
    )
    judges = ("c", "a", "b")  # c behind the two level ones, and first in order
    found = anytime_verdict(judges, same[:, [2, 0, 1]], np.ones(4), 1.0, 0.5)
    assert state_words(4, found, judges, np.inf) == (
        "4 labels · a and b are level, ahead of c, not yet separated"
        " · none in sight while they stay level"
    )
    # a leader ahead of every rival, by too little: the present difference gets nowhere
    ahead = anytime_verdict(JUDGES, same[:, [0, 2]], np.ones(4), 1.0, 0.5)
    assert ahead.level == () and state_words(4, ahead, JUDGES, np.inf).endswith(
        "a leads b, not yet separated · none in sight at the present difference"
    )


def test_labels_to_come_is_a_label_a_draw_within_the_samples_left():
    assert labels_to_come(50, 12.0) == 12.0
    assert labels_to_come(50, 50.0) == 50.0
    assert labels_to_come(50, 51.0) == np.inf  # more than the run holds: none in sight
    assert labels_to_come(50, np.inf) == np.inf
    assert labels_to_come(0, 12.0) == 0.0  # none left: "no sample left to label"


def test_a_shift_that_leaves_no_room_above_the_null_freezes_the_draw():
    # a kind all labelled fills in at its lowest: the draw's value moves down by the shift, and
    # where the shift leaves nothing above the null the draw bets nothing (capital unchanged)
    shift = np.array([0.0, -0.3, -1.2])
    test = hypotheses_of(("a", "b"), 1.0, 0.5, shifts={("a", "b"): shift})[2]
    assert (test.judge, test.against) == ("a", "b")
    raw = np.array([1.0, 1.0, 1.0])
    assert test.values(raw).tolist() == pytest.approx([1.0, 0.7, 0.0])
    low, high = test.bounds()
    assert np.asarray(low).tolist() == pytest.approx([-1.0, -1.3, -1.0])
    assert np.asarray(high).tolist() == pytest.approx([1.0, 0.7, 1.0])


def test_shifts_lower_the_evidence_never_raise_it():
    rng = np.random.default_rng(5)
    right = np.column_stack([rng.random(300) < 0.85, rng.random(300) < 0.6]).astype(float)
    plain = anytime_verdict(("a", "b"), right, np.ones(300), 1.0, 0.5, project=False)
    gone = np.linspace(0, 0.2, 300)
    shifts = {("a", None): -0.5 * gone, ("b", None): -0.5 * gone}
    shifts |= {("a", "b"): -gone, ("b", "a"): -gone}
    shifted = anytime_verdict(
        ("a", "b"), right, np.ones(300), 1.0, 0.5, project=False, shifts=shifts
    )
    assert plain.named == "a" and shifted.named in ("a", None)
    assert shifted.named is None or shifted.at >= plain.at


def test_each_judges_tests_share_the_error_so_a_wrong_name_has_at_most_alpha():
    """Three judges: each of the nine tests at alpha / 3, so that a judge's own three tests,
    one of which must falsely reject for it to be named wrongly, share at most alpha / 3 each,
    and the three judges that could be named wrongly alpha."""
    tests = hypotheses_of(("a", "b", "c"), 2.0, 0.5, 0.05, {("a", "b"): 0.5})
    assert len(tests) == 3 + 6 and all(t.alpha == pytest.approx(0.05 / 3) for t in tests)
    ab = [t for t in tests if {t.judge, t.against} == {"a", "b"}]
    assert all(t.high == 0.5 for t in ab)


def test_four_judges_are_named_wrongly_at_most_alpha_of_the_time_however_often_one_looks():
    """Where the union bound is tightest: two judges level at the top, far above the other two
    and chance, so that naming either wrongly needs one test to reject falsely (its rival's);
    and all four at chance. 400 people, 400 draws each, a look after every draw: a judge named
    <= 5% (+2 SE). (A rule running each test at 8 alpha / J names one of the top two for about
    9% of people here.)"""
    rng = np.random.default_rng(26)
    judges = ("a", "b", "c", "d")
    for accuracy in ((0.85, 0.85, 0.4, 0.4), (0.5, 0.5, 0.5, 0.5)):
        named = 0
        for _ in range(400):
            right = _population(rng, accuracy, 400)
            found = anytime_verdict(judges, right, np.ones(400), 1.0, 0.5, project=False)
            named += found.named is not None
        assert named / 400 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)


@pytest.mark.parametrize(
    ("samples", "labels", "kind", "words"),
    [
        (23, None, "labels", "23 labels"),
        (1, None, "labels", "1 label"),
        (5, 15, "labels", "5 samples, 15 labels"),
        (24, 24, "labels drawn uniformly", "24 labels drawn uniformly"),
        (1, 1, "labels drawn uniformly", "1 label drawn uniformly"),
        (
            12,
            36,
            "labels weighted by the queue's draw probabilities over 400 samples",
            "12 samples, 36 labels weighted by the queue's draw probabilities over 400 samples",
        ),
    ],
)
def test_one_count_of_labels_serves_the_state_line_and_the_cards_figure(
    samples, labels, kind, words
):
    """The state line's count and the card's "on N labels drawn uniformly" are one helper's:
    the labels' words (starting "labels") take the count, singular for one."""
    assert count_words(samples, labels, kind) == words


def test_about_n_more_projects_the_leaders_own_tests_as_if_it_alone_were_to_be_named():
    """Three judges: the projection replays the leader's three tests (two rivals, chance)
    from the present draws, each at the whole alpha, not at the rule's alpha / 3 (which asks
    for more draws)."""
    rng = np.random.default_rng(25)
    judges = ("a", "b", "c")
    right = _population(rng, (0.8, 0.65, 0.6), 30)
    found = anytime_verdict(judges, right, np.ones(30), 1.0, 0.5, seed=4)
    assert found.named is None and found.leader == "a"
    mine = [t for t in hypotheses_of(judges, 1.0, 0.5, 0.05) if t.judge == "a"]
    history = np.column_stack([bet_values(t, judges, right, np.ones(30), 0.5) for t in mine])
    at = [(t.null, t.low, t.high, 0.05) for t in mine]
    assert np.isfinite(found.about_more) and found.about_more > 0
    assert found.about_more == draws_to_reject(history, at, HORIZON, seed=4)
    rule = [(t.null, t.low, t.high, t.alpha) for t in mine]
    assert all(t.alpha == pytest.approx(0.05 / 3) for t in mine)
    assert draws_to_reject(history, rule, HORIZON, seed=4) > found.about_more


def test_each_tests_first_rejection_is_the_betting_test_run_alone_and_names_as_the_rule_does():
    """``first_rejections`` per test against ``stats.betting.first_rejection`` on the test's own
    values and bounds, and the rule's verdict read from them: the judge whose tests (its rivals
    and chance) all reject, at the last of them."""
    rng = np.random.default_rng(4)
    right = _population(rng, (0.85, 0.6, 0.55), n=400)
    judges = ("a", "b", "c")
    tests = hypotheses_of(judges, 1.0, 0.5, 0.05)
    firsts = first_rejections(tests, judges, right, np.ones(400), 0.5)
    assert set(firsts) == {(t.judge, t.against) for t in tests} and len(firsts) == 9
    for test in tests:
        alone = first_rejection(
            bet_values(test, judges, right, np.ones(400), 0.5),
            test.null,
            test.low,
            test.high,
            test.alpha,
        )
        assert firsts[(test.judge, test.against)] == int(alone)
    mine = [first for (judge, _), first in firsts.items() if judge == "a"]
    assert min(mine) > 0  # a clearly better judge: every one of its tests rejects
    found = anytime_verdict(judges, right, np.ones(400), 1.0, 0.5, project=False)
    assert (found.named, found.at) == ("a", max(mine))


def test_under_a_margin_a_judge_the_margin_below_its_rival_is_shown_within_it_rarely():
    """Non-inferiority at its boundary: ``a`` right on 75% of samples, ``b`` on 85%, a margin
    of 0.1, so "a is at most 0.1 below b" is false (its null holds with equality). 400 people,
    400 draws each, a look after every draw: ``a`` shown within the margin <= 5% (+2 SE), while
    ``b`` is for nearly everyone. (At 8 alpha the same people show ``a`` for about 13%.)"""
    rng = np.random.default_rng(30)
    wrong = shown = 0
    for _ in range(400):
        right = _population(rng, (0.75, 0.85), 400)
        found = anytime_verdict(JUDGES, right, np.ones(400), 1.0, 0.5, project=False, margin=0.1)
        wrong += "a" in found.within
        shown += "b" in found.within
    assert wrong / 400 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)
    assert shown / 400 >= 0.95


def test_under_a_margin_judges_at_chance_are_never_shown_within_it_for_more_than_alpha():
    """A margin is no way round chance: two judges at chance, 0.1 apart at most by luck, each
    shown within the margin of the other yet never above chance, so named <= 5% (+2 SE)."""
    rng = np.random.default_rng(31)
    named = 0
    for _ in range(400):
        right = _population(rng, (0.5, 0.5), 400)
        found = anytime_verdict(JUDGES, right, np.ones(400), 1.0, 0.5, project=False, margin=0.1)
        named += found.named is not None
    assert named / 400 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)


def test_under_a_margin_judges_close_together_are_both_shown_and_the_line_says_so():
    """Two judges 0.02 apart (far apart judges are never "not separated" for long, close ones
    may never be): under a margin of 0.1 both are shown at most 0.1 below the other and above
    chance, the verdict the plain rule cannot reach; and the line says so of both."""
    rng = np.random.default_rng(32)
    right = _population(rng, (0.82, 0.8), 600)
    plain = anytime_verdict(JUDGES, right, np.ones(600), 1.0, 0.5, project=False)
    found = anytime_verdict(JUDGES, right, np.ones(600), 1.0, 0.5, margin=0.1)
    assert plain.named is None
    assert found.within == ("a", "b") and found.named in JUDGES and found.at > 0
    words = state_words(600, found, JUDGES, 0.0)
    assert words == (
        "600 labels · a and b are each at most 0.1 below every other judge and better than chance"
    )


def test_under_a_margin_one_judge_shown_is_named_with_its_rivals():
    """Three judges, one at chance: the two good ones are shown within the margin of each
    other, never of the one at chance's kind; with one good judge, the line names its rivals.
    Here it leads them by far on the labels, and the line says so before what the tests showed
    (at most the margin below them), not that it is better than them (never tested)."""
    rng = np.random.default_rng(33)
    three = ("a", "b", "c")
    right = _population(rng, (0.9, 0.6, 0.5), 400)
    found = anytime_verdict(three, right, np.ones(400), 1.0, 0.5, margin=0.05)
    assert found.within == ("a",) and found.leader == "a" and found.level == ()
    assert state_words(400, found, three, 0.0) == (
        "400 labels · a leads b, c on the labels, shown at most 0.05 below them and better "
        "than chance"
    )


@pytest.mark.parametrize(
    ("leader", "level", "said"),
    [
        ("a", (), "b is at most 0.1 below a and better than chance"),  # a cheaper judge shown
        ("b", ("a",), "b is at most 0.1 below a and better than chance"),  # level: none leads
        ("b", (), "b leads a on the labels, shown at most 0.1 below it and better than chance"),
    ],
)
def test_under_a_margin_the_one_judge_shown_is_said_to_lead_only_where_it_does(leader, level, said):
    """The judge shown within the margin is said to lead only where it is the leader on the
    labels and no judge is level with it; otherwise "at most 0.1 below a" is the whole claim."""
    found = AnytimeVerdict("b", leader, 50, 40, 0.0, level=level, within=("b",), margin=0.1)
    assert state_words(50, found, JUDGES, 0.0) == f"50 labels · {said}"


def test_under_a_margin_the_standing_before_a_verdict_says_what_is_not_yet_shown():
    right = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    found = anytime_verdict(JUDGES, right, np.ones(4), 1.0, 0.5, margin=0.05)
    assert found.named is None
    assert state_words(4, found, JUDGES, 30.0) == (
        "4 labels · a leads b, none yet shown at most 0.05 below the others · about 30 more"
    )


def test_a_margin_moves_each_paired_tests_null_and_leaves_chance_alone():
    tests = hypotheses_of(("a", "b", "c"), 1.0, 0.5, margin=0.1)
    assert {t.null for t in tests if t.against is not None} == {-0.1}
    assert {t.null for t in tests if t.against is None} == {0.0}


def test_under_a_margin_wider_than_the_pairs_reach_the_paired_tests_need_no_luck():
    """Two judges the design shows to differ on little (every draw's ``|w (right_a -
    right_b)|`` at most 0.02, ``pair_bounds``) cannot be 0.1 apart: under that margin the
    paired nulls are false whatever the labels, each draw lies above them (the bet's bounds
    are widened to hold the null), and the tests reject on the draws' evidence alone, where
    the chance tests still need theirs. (Held to their own bounds, the null outside them,
    the tests had no bet at all.)"""
    rng = np.random.default_rng(34)
    same = (rng.random(60) < 0.9).astype(float)
    right = np.column_stack([same, same])
    found = anytime_verdict(
        JUDGES, right, np.ones(60), 1.0, 0.5, pair_bounds={("a", "b"): 0.02}, margin=0.1
    )
    assert {("a", "b"), ("b", "a")} <= found.beaten
    assert found.within == ("a", "b")
    tests = hypotheses_of(JUDGES, 1.0, 0.5, pair_bounds={("a", "b"): 0.02}, margin=0.1)
    low, high = tests[-1].bounds()
    assert low < -0.1 < high  # held strictly inside, as the bet needs


def test_the_leaders_gaps_are_its_weighted_leads_above_each_null():
    """``AnytimeVerdict.gaps``, what the adaptive queue reads: per test of the leader's, the
    mean of ``w (right_leader - right_rival)`` plus the margin, and of ``w (right_leader -
    chance)``, computed here with pandas on the same draws."""
    rng = np.random.default_rng(8)
    right = (rng.random((80, 3)) < [0.85, 0.7, 0.6]).astype(float)
    weight = rng.uniform(0.5, 2.0, 80)
    found = anytime_verdict(("a", "b", "c"), right, weight, 2.0, 0.5, margin=0.05, project=False)
    frame = pd.DataFrame(right, columns=["a", "b", "c"]).mul(weight, axis=0)
    lead = str(frame.mean().idxmax())
    assert found.leader == lead
    for rival in {"a", "b", "c"} - {lead}:
        expected = (frame[lead] - frame[rival]).mean() + 0.05
        assert found.gap(lead, rival) == pytest.approx(expected)
    assert found.gap(lead, None) == pytest.approx((frame[lead] - 0.5 * weight).mean())
    assert found.chance == 0.5


def test_a_verdict_is_immutable_and_two_equal_ones_hash_equal():
    """Two verdicts computed from the same draws compare equal and hash equal (a set holds
    one), their gaps among the fields; a verdict on other draws differs; no field can be set,
    and the gaps are read through ``gap`` (NaN for a test the leader does not have)."""
    rng = np.random.default_rng(3)
    right = (rng.random((40, 3)) < [0.8, 0.7, 0.6]).astype(float)
    weight = rng.uniform(0.5, 2.0, 40)

    def verdict(draws: int) -> AnytimeVerdict:
        return anytime_verdict(("a", "b", "c"), right[:draws], weight[:draws], 2.0, 0.5)

    first, again, fewer = verdict(40), verdict(40), verdict(39)
    assert first.gaps and first is not again
    assert first == again and hash(first) == hash(again)
    assert len({first, again, fewer}) == 2
    assert first != fewer
    assert first.gaps != fewer.gaps  # one draw fewer: other means
    with pytest.raises(AttributeError):
        first.gaps = ()  # type: ignore[misc]
    lead = first.leader
    assert lead is not None
    assert dict(first.gaps)[(lead, None)] == first.gap(lead, None)
    assert np.isnan(first.gap("no such judge", None))
