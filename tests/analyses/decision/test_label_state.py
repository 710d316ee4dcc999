"""The labelling state line (``decision.label_state``): the draws read in order (labels from
elsewhere first, as uniform draws; an annotator's sequence up to the first unanswered draw; a
skip left out and counted), the card's right/wrong for a built-in metric the same as the
people validity's accuracy, and the words blind or named."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses import DrawBounds, anytime_verdict, bounds_text, label_design
from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse, label_state_of
from judgegrid.analyses.decision.label_state import (
    draw_sequence,
    label_state,
    metric_state,
    read_sequence,
    threshold_right,
)
from judgegrid.analyses.validity.criteria import PeopleRight
from judgegrid.analyses.validity.people import validity_by_judge
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.scales import PLAIN
from support.frames import scores_frame
from support.pairwise_judges import pairwise_cell

DRAW_COLUMNS = ["metric", "annotator", "draw", "sample_id", "probability", "population"]


def _answers(rows):
    return pd.DataFrame(rows, columns=["sample_id", "metric", "annotator", "value"])


def _draws(rows):
    return pd.DataFrame(rows, columns=DRAW_COLUMNS)


def test_the_sequence_reads_labels_from_elsewhere_first_then_each_annotators_draws_in_order():
    answers = _answers(
        [
            ("s9", "m", "dataset", 1.0),  # no draw behind it: a uniform draw
            ("s1", "m", "ann", 0.0),
            ("s2", "m", "ann", None),  # a skip
            ("s3", "m", "ann", 1.0),  # drawn after an unanswered draw: not read yet
            ("s1", "other", "ann", 1.0),  # another metric
        ]
    )
    draws = _draws(
        [
            ("m", "ann", 1, "s1", 0.2, 10),
            ("m", "ann", 2, "s1", 0.2, 10),  # drawn again: the label counts again
            ("m", "ann", 3, "s2", 0.05, 10),
            ("m", "ann", 4, "s4", 0.1, 10),  # not answered: the sequence ends here
            ("m", "ann", 5, "s3", 0.1, 10),
        ]
    )
    sequence, skipped = draw_sequence(draws, answers, "m", 10)
    assert list(sequence["sample_id"]) == ["s9", "s1", "s1"]
    assert list(sequence["probability"]) == pytest.approx([0.1, 0.2, 0.2])
    assert skipped == 1


def _right(values: dict[str, tuple[float, float]], chance: float = 0.5) -> PeopleRight:
    table = pd.DataFrame.from_dict(values, orient="index", columns=["alpha", "beta"])
    return PeopleRight(table, chance)


def _two_judges(
    seed: int, n: int, accuracies: tuple[float, float]
) -> tuple[list[str], np.ndarray, np.ndarray, PeopleRight]:
    """``n`` samples where alpha and beta are right at random with these accuracies."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i:02d}" for i in range(n)]
    alpha, beta = ((rng.random(n) < a).astype(float) for a in accuracies)
    return ids, alpha, beta, _right({s: (a, b) for s, a, b in zip(ids, alpha, beta, strict=True)})


def test_uniform_labels_give_the_anytime_rule_on_the_labels_in_order_with_weight_one():
    ids, alpha, beta, right = _two_judges(3, 40, (0.9, 0.5))
    answers = _answers([(s, "m", "dataset", 1.0) for s in ids])
    sequence, skipped = draw_sequence(_draws([]), answers, "m", 100)
    found = label_state("m", right, sequence, None, skipped)
    assert found is not None
    expected = anytime_verdict(
        ("alpha", "beta"), np.column_stack([alpha, beta]), np.ones(40), 1.0, 0.5
    )
    assert found.verdict == expected
    assert found.labels == 40


def test_the_words_name_no_judge_while_blind_and_the_leader_once_named():
    ids = [f"s{i}" for i in range(8)]
    right = _right({s: (1.0, float(i % 2)) for i, s in enumerate(ids)})
    answers = _answers([(s, "m", "ann", 1.0) for s in ids] + [("s8", "m", "ann", None)])
    draws = _draws([("m", "ann", k + 1, s, 0.1, 10) for k, s in enumerate([*ids, "s8"])])
    sequence, skipped = draw_sequence(draws, answers, "m", 10)
    found = label_state("m", right, sequence, None, skipped)
    assert found is not None and found.verdict.named is None
    blind, named = found.words(named=False), found.words(named=True)
    assert blind.startswith("8 labels · no verdict yet · ")
    assert blind.endswith(" · 1 skipped (left out)")
    assert "alpha" not in blind and "beta" not in blind
    assert named.startswith("8 labels · alpha leads beta, not yet separated · ")


def test_after_a_first_label_both_judges_got_right_the_line_says_what_would_move_it():
    """A new user's first answer, on a sample both judges got right: "none in sight at the
    present difference" read as "labelling will not help"; what stands in the way is that the
    judges are level, so the line says no verdict comes while they stay level (blind: "the
    leading judges", naming none). Under a margin level judges can each be shown within it,
    so there the line keeps the plain words."""
    ids = [f"s{i}" for i in range(40)]
    right = _right({"s0": (1.0, 1.0)})
    answers = _answers([("s0", "m", "ann", 1.0)])
    sequence, _ = draw_sequence(_draws([]), answers, "m", 40)
    found = label_state("m", right, sequence, label_design(pd.Series(1.0, index=ids)))
    assert found is not None and found.verdict.level == ("beta",) and found.more == np.inf
    assert found.words(named=True) == (
        "1 label · alpha and beta are level, not yet separated · none in sight while they stay "
        "level"
    )
    assert found.words(named=False) == (
        "1 label · no verdict yet · none in sight while the leading judges stay level"
    )
    under_margin = replace(found, verdict=replace(found.verdict, margin=0.1))
    assert under_margin.words(named=False).endswith(" · none in sight at the present difference")


def test_a_clearly_better_judge_is_named_and_the_blind_line_only_says_a_verdict_is_reached():
    ids = [f"s{i:03d}" for i in range(200)]
    rng = np.random.default_rng(5)
    right = _right({s: (1.0, float(rng.random() < 0.3)) for s in ids})
    answers = _answers([(s, "m", "ann", 1.0) for s in ids])
    found = label_state("m", right, draw_sequence(_draws([]), answers, "m", 200)[0], None)
    assert found is not None and found.verdict.named == "alpha" and found.more == 0
    assert found.words(named=False) == "200 labels · a verdict is reached"
    assert found.words(named=True) == "200 labels · alpha is better than beta and chance"


def test_with_every_sample_labelled_the_line_says_none_is_left_even_with_no_verdict_in_sight():
    """Every sample of the design labelled, alpha right on 5 of 10 and beta on 4: the present
    difference would reach no verdict (no bet against chance can win at 0.5), but no label is
    left to ask for either, and that is what the line must say (as docs/labels.md and the
    card's "every sample is labelled" do), not "none in sight", which reads as "go on"."""
    ids = [f"s{i}" for i in range(10)]
    right = _right({s: (float(i >= 5), float(i >= 6)) for i, s in enumerate(ids)})
    answers = _answers([(s, "m", "ann", 1.0) for s in ids])
    sequence, _ = draw_sequence(_draws([]), answers, "m", 10)
    design = label_design(pd.Series(1.0, index=ids))
    found = label_state("m", right, sequence, design)
    assert found is not None and found.verdict.leader == "alpha"
    assert found.verdict.about_more == np.inf  # the present difference gets nowhere
    assert found.more == 0
    assert found.words(named=True) == (
        "10 labels · alpha leads beta, not yet separated · no sample left to label"
    )
    assert found.words(named=False) == "10 labels · no verdict yet · no sample left to label"
    fewer = label_state("m", right, sequence, label_design(pd.Series(1.0, index=[*ids, "s10"])))
    assert fewer is not None and fewer.words(named=False).endswith(
        " · none in sight at the present difference"
    )
    # a pairwise criterion's one pair no judge compared, still on the page: not "none left"
    one_left = replace(found, uncompared=1)
    assert one_left.words(named=True) == (
        "10 labels · alpha leads beta, not yet separated · every pair the judges compared is "
        "labelled; the 1 other adds no evidence until a judge compares it"
    )


def test_a_built_in_metrics_right_is_the_people_validitys_accuracy_at_its_threshold():
    """Checked against ``validity_by_judge``'s accuracy (its own pass/fail count, Wilson's
    input), a different path through the same rule."""
    rng = np.random.default_rng(11)
    values = {}
    for i in range(30):
        for judge, noise in (("alpha", 0.1), ("beta", 0.4)):
            score = float(np.clip(0.5 + rng.normal(0, noise), 0, 1))
            values[("faithfulness", judge, "", 0, 1, f"s{i:02d}", 0)] = score
    scores = scores_frame(values)
    labels = _answers(
        [(f"s{i:02d}", "faithfulness", "ann", float(rng.random() < 0.5)) for i in range(30)]
    )
    found = threshold_right(scores, labels, "faithfulness", PLAIN.threshold("faithfulness"))
    assert found is not None
    validity = validity_by_judge(scores, labels).set_index("judge")
    for judge in ("alpha", "beta"):
        assert found.right[judge].mean() == pytest.approx(validity.loc[judge, "accuracy"])
    state = metric_state("faithfulness", found, scores, labels, _draws([]))
    assert state is not None and state.labels == 30 and state.judges == ("alpha", "beta")


def test_no_state_without_a_label_of_the_metric():
    scores = scores_frame({("faithfulness", "alpha", "", 0, 1, "s1", 0): 0.5})
    labels = _answers([("s1", "other", "ann", 1.0)])
    assert threshold_right(scores, labels, "faithfulness", 0.5) is None
    assert metric_state("faithfulness", None, scores, labels, _draws([])) is None


def test_three_peoples_labels_of_one_sample_are_one_draw_of_it_and_the_line_says_both_counts():
    """Labels from elsewhere count as a uniform draw of their sample, once: three people who
    labelled the same five samples did not draw fifteen samples, and counting them so would
    let the rule reach a verdict on evidence it does not have."""
    answers = _answers(
        [(f"s{i}", "m", person, 1.0) for person in ("ann", "bob", "cy") for i in range(5)]
    )
    sequence, skipped = draw_sequence(_draws([]), answers, "m", 10)
    assert sorted(sequence["sample_id"]) == [f"s{i}" for i in range(5)] and skipped == 0
    right = PeopleRight(
        pd.DataFrame({"a": [1.0] * 5, "b": [0.0] * 5}, index=[f"s{i}" for i in range(5)]), 0.5
    )
    found = label_state("m", right, sequence, None, given=15, measure="pass/fail at 0.5")
    assert found is not None and found.verdict.draws == 5
    assert found.words(named=False).startswith("5 samples, 15 labels · ")
    named = found.words(named=True)
    assert named.startswith("5 samples, 15 labels · pass/fail at 0.5: a leads b")


def _timed(rows):
    return pd.DataFrame(rows, columns=["sample_id", "metric", "annotator", "value", "labelled_at"])


def test_two_peoples_draws_are_read_in_the_order_they_were_answered_not_by_name():
    """zed labels first and amy after, then each once more: the rule reads zed, amy, zed,
    amy, as the labels came (by name it would read amy's two before zed's two). A draw
    answered out of turn is read once the draw before it is answered."""
    answers = _timed(
        [
            ("s1", "m", "zed", 1.0, 100.0),
            ("s2", "m", "amy", 0.0, 200.0),
            ("s4", "m", "amy", 1.0, 250.0),  # amy's second draw, answered before her first?
            ("s3", "m", "zed", 1.0, 300.0),  # no: s4 is her second; this is zed's second
        ]
    )
    draws = _draws(
        [
            ("m", "amy", 1, "s2", 0.1, 10),
            ("m", "amy", 2, "s4", 0.4, 10),
            ("m", "zed", 1, "s1", 0.2, 10),
            ("m", "zed", 2, "s3", 0.3, 10),
        ]
    )
    sequence, _ = draw_sequence(draws, answers, "m", 10)
    assert list(sequence["sample_id"]) == ["s1", "s2", "s4", "s3"]
    assert list(sequence["probability"]) == pytest.approx([0.2, 0.1, 0.4, 0.3])

    # amy answers her second draw (s4) at 150, before her first (s2, at 200): it is read at 200
    answers.loc[answers["sample_id"] == "s4", "labelled_at"] = 150.0
    sequence, _ = draw_sequence(draws, answers, "m", 10)
    assert list(sequence["sample_id"]) == ["s1", "s2", "s4", "s3"]

    # labels given at the same moment: by annotator, then draw (stable whatever the row order)
    answers["labelled_at"] = 5.0
    first = draw_sequence(draws, answers, "m", 10)[0]
    again = draw_sequence(draws.iloc[::-1], answers.iloc[::-1], "m", 10)[0]
    assert list(first["sample_id"]) == list(again["sample_id"]) == ["s2", "s4", "s1", "s3"]


def test_labels_from_elsewhere_take_their_place_in_time_and_the_data_sets_come_first():
    answers = _timed(
        [
            ("s1", "m", "ann", 1.0, 10.0),
            ("s7", "m", "import", 1.0, 20.0),  # imported after ann's first label
            ("s9", "m", "dataset", 1.0, 0.0),
            ("s2", "m", "ann", 1.0, 30.0),
        ]
    )
    draws = _draws([("m", "ann", 1, "s1", 0.2, 10), ("m", "ann", 2, "s2", 0.2, 10)])
    sequence, _ = draw_sequence(draws, answers, "m", 10)
    assert list(sequence["sample_id"]) == ["s9", "s1", "s7", "s2"]


def test_the_verdict_depends_on_the_order_and_follows_the_time_order():
    """The rule's bets are made in sequence: the same draws in name order and in time order
    give different capital paths, and the state follows the time order's."""
    ids = [f"s{i:02d}" for i in range(30)]
    rng = np.random.default_rng(7)
    alpha = (rng.random(30) < 0.95).astype(float)
    beta = (rng.random(30) < 0.4).astype(float)
    right = _right({s: (a, b) for s, a, b in zip(ids, alpha, beta, strict=True)})
    # amy (first by name) labels the second half later in time; zed the first half earlier
    people = ["zed"] * 15 + ["amy"] * 15
    given = list(enumerate(zip(ids, people, strict=True)))
    answers = _timed([(s, "m", p, 1.0, float(k)) for k, (s, p) in given])
    q = np.linspace(0.01, 0.2, 30)
    draws = _draws([("m", p, k + 1, s, float(q[k]), 30) for k, (s, p) in given])
    sequence, _ = draw_sequence(draws, answers, "m", 30)
    assert list(sequence["sample_id"]) == ids  # time order, not amy's fifteen first
    found = label_state("m", right, sequence, None)
    assert found is not None
    weight = 1.0 / (30 * q)
    values = np.column_stack([alpha, beta])
    in_time = anytime_verdict(("alpha", "beta"), values, weight, float(weight.max()), 0.5)
    by_name = np.r_[15:30, 0:15]
    named_first = anytime_verdict(
        ("alpha", "beta"), values[by_name], weight[by_name], float(weight.max()), 0.5
    )
    assert found.verdict == in_time != named_first


CHOSEN_COLUMNS = ["sample_id", "metric", "annotator", "value", "labelled_at", "chosen"]


def _drawn_and_chosen(drawn: int, population: int):
    """``ann``'s ``drawn`` labels of the queue's draws, then ``cy``'s two labels chosen on the
    view page (``c1``, ``c2``, no draw behind them), and two judges' scores of every sample:
    (the drawn samples, their right/wrong, the answers, the draws, the scores)."""
    ids = [f"s{i}" for i in range(drawn)]
    right = _right({s: (1.0, float(i % 2)) for i, s in enumerate([*ids, "c1", "c2"])})
    given = [(s, "m", "ann", 1.0, float(k), False) for k, s in enumerate(ids)]
    chosen = [("c1", "m", "cy", 1.0, 3.5, True), ("c2", "m", "cy", 1.0, 4.5, True)]
    answers = pd.DataFrame(given + chosen, columns=CHOSEN_COLUMNS)
    draws = _draws([("m", "ann", k + 1, s, 0.1, population) for k, s in enumerate(ids)])
    scores = scores_frame(
        {("m", j, "", 0, 1, s, 0): 0.5 for j in ("alpha", "beta") for s in [*ids, "c1", "c2"]}
    )
    return ids, right, answers, draws, scores


def test_a_label_chosen_on_the_view_page_is_no_draw_and_the_line_says_so():
    """Chosen labels (``chosen``) with no draw behind them are left out of the rule: the state
    is the one of the drawn labels alone, and the line counts the chosen ones."""
    ids, right, answers, draws, scores = _drawn_and_chosen(8, 10)
    read = read_sequence(draws, answers, "m", 10)
    assert list(read.rows["sample_id"]) == ids
    assert len(read.chosen) == 2
    state = metric_state("m", right, scores, answers, draws)
    without = metric_state("m", right, scores, answers[~answers["chosen"]], draws)
    assert state is not None and without is not None
    assert state.verdict == without.verdict and state.chosen == 2
    assert state.words(named=False).endswith(
        " · 2 labels chosen on the view page, left out (not drawn)"
    )


def test_the_line_counts_the_labels_the_rule_reads_and_the_chosen_ones_apart():
    """10 drawn labels and 2 chosen on the view page: the line says 10 labels (as the card's
    figures count them), then the 2 apart; a label chosen on a sample the queue drew is a
    second opinion of a drawn sample, counted."""
    _, right, answers, draws, scores = _drawn_and_chosen(10, 20)
    state = metric_state("m", right, scores, answers, draws)
    assert state is not None and (state.labels, state.given, state.chosen) == (10, 10, 2)
    tail = " · 2 labels chosen on the view page, left out (not drawn)"
    for named in (False, True):
        line = state.words(named=named)
        assert line.startswith("10 labels · ") and line.endswith(tail), line
    second = pd.DataFrame([("s3", "m", "cy", 1.0, 5.5, True)], columns=CHOSEN_COLUMNS)
    both = metric_state("m", right, scores, pd.concat([answers, second]), draws)
    assert both is not None and (both.labels, both.given, both.chosen) == (10, 11, 2)
    assert both.words(named=False).startswith("10 samples, 11 labels · ")
    one = metric_state("m", right, scores, answers.iloc[:-1], draws)
    assert one is not None and one.words(named=False).endswith(
        " · 1 label chosen on the view page, left out (not drawn)"
    )


def test_a_draws_shares_gone_shift_the_rule_as_stored_with_it():
    # a queue without replacement stores, with each draw, the shares of the run in kinds all
    # labelled before it (``decision.kinds``): the rule reads them as shifts of its tests, the
    # lowest a label of those kinds could give (-chance against chance, -1 where the two differ)
    ids, alpha, beta, right = _two_judges(8, 60, (0.95, 0.55))
    gone = np.linspace(0.0, 0.5, 60)
    apart = gone / 3
    texts = [
        bounds_text(DrawBounds(2.0, {("alpha", "beta"): 1.5}, g, {("alpha", "beta"): a}))
        for g, a in zip(gone, apart, strict=True)
    ]
    rows = [("m", "ann", k + 1, s, 1 / 30, 60) for k, s in enumerate(ids)]  # weight 0.5
    draws = _draws(rows).assign(bounds=texts)
    answers = _answers([(s, "m", "ann", 1.0) for s in ids])
    sequence, _ = draw_sequence(draws, answers, "m", 60)
    found = label_state("m", right, sequence, None)
    assert found is not None
    values = np.column_stack([alpha, beta])
    shifts = {("alpha", None): -0.5 * gone, ("beta", None): -0.5 * gone}
    shifts |= {("alpha", "beta"): -apart, ("beta", "alpha"): -apart}
    pair = {("alpha", "beta"): np.full(60, 1.5)}
    expected = anytime_verdict(
        ("alpha", "beta"),
        values,
        np.full(60, 0.5),
        np.full(60, 2.0),
        0.5,
        pair_bounds=pair,
        shifts=shifts,
    )
    assert found.verdict == expected
    unshifted = anytime_verdict(
        ("alpha", "beta"), values, np.full(60, 0.5), np.full(60, 2.0), 0.5, pair_bounds=pair
    )
    assert unshifted.beaten != expected.beaten or unshifted.at != expected.at  # the shift bites


def _pairwise_card_line(pairs: list[str] | None) -> str:
    """The card's state line of a pairwise criterion ``better`` over the data set's ``pairs``:
    judges steady and mixed compared p00..p05 (all labelled by ann); p06 no judge compared, ann
    labelled it; p07's one cell failed and bob skipped it; p08 and on, nobody touched."""
    better = CriterionSpec(
        name="better", definition="Which?", type="pairwise", compare=("response", "response_b")
    )
    compared = [f"p{k:02d}" for k in range(6)]
    cells = [pairwise_cell("steady", p, "a", "a") for p in compared]
    cells += [pairwise_cell("mixed", p, w, w) for p, w in zip(compared, "aabbab", strict=True)]
    cells.append(pairwise_cell("steady", "p07", "a", "a", status="failed"))
    said = zip(compared, "aaaabb", strict=True)  # people: a on four, b on two
    answers = _answers(
        [(p, "better", "ann", 1.0 if w == "a" else 0.0) for p, w in said]
        + [("p06", "better", "ann", 1.0), ("p07", "better", "bob", None)]
    )
    known = None if pairs is None else {"better": pairs}
    facts = RunFacts(criteria={"better": better}, criterion_pairs=known)
    inputs = ValidityInputs(human_labels=answers[answers["value"].notna()], answers=answers)
    card = analyse(pd.DataFrame(cells), facts, inputs).card.set_index("metric")
    return str(card.loc["better", "label_state"])


def test_the_cards_line_names_the_data_sets_pairs_no_judge_compared_and_nobody_labelled():
    """Every pair the judges compared is labelled. Of the data set's p00..p08, p07 (its cell
    failed, only skipped) and p08 are left to label: the card said "no sample left to label",
    untrue while a person could still label them; it must say what the labelling page says.
    With the data set ending at p06 (labelled), none is left."""
    two_left = _pairwise_card_line([f"p{k:02d}" for k in range(9)])
    assert two_left == (
        "6 labels · steady leads mixed, not yet separated · every pair the judges compared is "
        "labelled; the 2 others add no evidence until a judge compares them · 1 skipped (left out)"
    )
    none_left = _pairwise_card_line([f"p{k:02d}" for k in range(7)])
    assert none_left == (
        "6 labels · steady leads mixed, not yet separated · no sample left to label · "
        "1 skipped (left out)"
    )


def test_where_the_data_sets_pairs_are_not_known_the_line_says_so_not_that_none_is_left():
    """An old run whose samples cannot be read again (``RunFacts.criterion_pairs`` None): the
    card cannot count the pairs no judge compared, and must not claim none is left."""
    assert _pairwise_card_line(None) == (
        "6 labels · steady leads mixed, not yet separated · every pair the judges compared is "
        "labelled; the data set's other pairs are not known (its samples cannot be read) · "
        "1 skipped (left out)"
    )


def _close_judges_run(n: int = 300) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A built-in metric, two judges 0.02 apart in pass/fail accuracy (alpha right on 82% of
    the samples, beta on 80%), every sample labelled by ann (pass or fail, half each: chance,
    the no-information rate, about one half)."""
    rng = np.random.default_rng(41)
    truth = rng.random(n) < 0.5
    values = {}
    for i in range(n):
        for judge, accuracy in (("alpha", 0.82), ("beta", 0.8)):
            says = truth[i] == (rng.random() < accuracy)
            values[("faithfulness", judge, "", 0, 1, f"s{i:03d}", 0)] = 0.9 if says else 0.1
    labels = _answers([(f"s{i:03d}", "faithfulness", "ann", float(t)) for i, t in enumerate(truth)])
    return scores_frame(values), labels


def test_under_the_cards_margin_the_line_shows_close_judges_within_it_card_and_page_alike():
    """With ``decision: {margin: 0.1}`` the card's line and the labelling page's (blind) read
    the margin: two judges 0.02 apart, not separated by the plain rule, are each shown at most
    0.1 below the other on 300 labels; without it the same labels reach no verdict."""
    scores, labels = _close_judges_run()
    inputs = ValidityInputs(human_labels=labels, answers=labels)

    def card_line(margin: float | None) -> str:
        card = analyse(scores, RunFacts(margin=margin), inputs).card.set_index("metric")
        return str(card.loc["faithfulness", "label_state"])

    assert card_line(None) == (
        "300 labels · pass/fail at 0.5: alpha and beta are level, not yet separated · "
        "no sample left to label"
    )
    assert card_line(0.1) == (
        "300 labels · pass/fail at 0.5: alpha and beta are each at most 0.1 below every other "
        "judge and better than chance"
    )
    page = label_state_of("faithfulness", scores, labels, _draws([]), RunFacts(margin=0.1))
    assert page is not None and page.words(named=False) == "300 labels · a verdict is reached"
    plain = label_state_of("faithfulness", scores, labels, _draws([]), RunFacts())
    assert plain is not None and "no verdict yet" in plain.words(named=False)


def test_a_label_of_a_drawn_sample_from_elsewhere_is_no_draw_of_its_own():
    """ann's queue drew s1 and s2; cy's imported label of s1 and the data set's of s2 are more
    labels of samples a draw stands behind, not uniform draws of them: each sample is read
    once, as the draw; an imported label of s3, which no draw stands behind, is a draw."""
    answers = _timed(
        [
            ("s2", "m", "dataset", 1.0, 0.0),
            ("s1", "m", "ann", 1.0, 10.0),
            ("s1", "m", "cy", 0.0, 15.0),
            ("s3", "m", "cy", 1.0, 16.0),
            ("s2", "m", "ann", 1.0, 20.0),
        ]
    )
    draws = _draws([("m", "ann", 1, "s1", 0.2, 10), ("m", "ann", 2, "s2", 0.05, 10)])
    sequence, _ = draw_sequence(draws, answers, "m", 10)
    assert list(sequence["sample_id"]) == ["s1", "s3", "s2"]
    assert list(sequence["probability"]) == pytest.approx([0.2, 0.1, 0.05])
    # a preference's items are each person's: cy's of s1 is an item of its own
    per_person, _ = draw_sequence(draws, answers, "m", 10, per_person=True)
    assert len(per_person) == 5


def test_no_state_while_the_only_sample_a_judge_rated_waits_for_its_draws_answer():
    """The data set labels s1 and s2, a judge rated s1 alone, ann's queue drew s1 and she has
    not answered: the rule reads s2 (no judge rated it) and not s1's label (its draw comes
    first), so no judge can be measured yet; once she answers, s1 is read as her draw."""
    scores = scores_frame(
        {("faithfulness", judge, "", 0, 1, "s1", 0): v for judge, v in (("a", 0.9), ("b", 0.1))}
    )
    labels = _timed(
        [("s1", "faithfulness", "dataset", 1.0, 0.0), ("s2", "faithfulness", "dataset", 1.0, 0.0)]
    )
    draws = pd.DataFrame(
        [("faithfulness", "ann", 1, "s1", 0.5, 1)],
        columns=["metric", "annotator", "draw", "sample_id", "probability", "population"],
    )
    assert label_state_of("faithfulness", scores, labels, draws, RunFacts()) is None
    answered = pd.concat([labels, _timed([("s1", "faithfulness", "ann", 1.0, 5.0)])])
    found = label_state_of("faithfulness", scores, answered, draws, RunFacts())
    assert found is not None and found.verdict.draws == 1
