"""Pairwise judges measured: scripted judges shown every pair in both orders (through the prompt's
own swap), then position bias, the combined verdicts, validity, juries, probes and win rates.

- a judge that always picks the first answer: consistency 0, first-position rate 1, flagged;
- a judge that follows the people: accuracy 1, kappa 1, no flag;
- a random judge: first-position interval and accuracy interval around 0.5, kappa's around 0;
- a judge that prefers the longer answer: caught by the verbosity probe, not by the injection;
- FastChat's rule (show_result.py) on a table of verdict pairs; Wilson against statsmodels,
  kappa against scikit-learn, McNemar against statsmodels, Kendall's tau on a worked example.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from judgegrid.analyses.frames.juries import jury_name
from judgegrid.analyses.pairwise.tables import position_flag_words
from judgegrid.analyses.pairwise.verdicts import (
    combined,
    comparisons,
    jury_verdicts,
    position_bias,
    probe_moves,
    ranking_agreement,
    right_table,
    validity,
    win_rates,
)
from judgegrid.inputs.pairwise import (
    PAIR_NOTE,
    PairwiseItem,
    pair_probes,
    people_table,
    probe_table,
    systems_table,
)
from judgegrid.metrics.pairwise import Pair, PairwiseCriterion, Position, presentations, winner_of

CRITERION = PairwiseCriterion("Which answer is more relevant to the question?")
# a scripted judge: (answer A, answer B, the item) -> its verdict
Judge = Callable[[str, str, PairwiseItem], Position]


def items(n: int = 120, seed: int = 3) -> list[PairwiseItem]:
    """Pairs whose better answer is the longer one, a or b at random (seeded)."""
    rng = random.Random(seed)
    made = []
    for k in range(n):
        better = (
            f"Answer {k}: a full answer that says what was asked, with the facts behind it, "
            "the sources it drew them from, and what they leave open."
        )
        worse = f"Answer {k}: off topic."
        first = rng.random() < 0.5
        a, b = (better, worse) if first else (worse, better)
        systems = ("good", "bad") if first else ("bad", "good")
        pair = Pair(id=f"p{k}", a=a, b=b, shown={"user_input": f"question {k}"})
        made.append(PairwiseItem(pair, "relevance", "a" if first else "b", systems))
    return made


def judged(judges: dict[str, Judge], pairs: list[PairwiseItem]) -> pd.DataFrame:
    """Every judge on every pair in both orders, its verdicts read back in the pair's terms."""
    rows = []
    for name, judge in judges.items():
        for item in pairs:
            for order, shown in presentations(item.pair, CRITERION):
                verdict = judge(shown.answer_a, shown.answer_b, item)
                rows.append(
                    {
                        "judge": name,
                        "pair": item.pair.id,
                        "order": order,
                        "winner": winner_of(verdict, order),
                    }
                )
    return pd.DataFrame(rows)


def always_first(a: str, b: str, item: PairwiseItem) -> Position:
    return "A"


def always_second(a: str, b: str, item: PairwiseItem) -> Position:
    return "B"


def follows_people(a: str, b: str, item: PairwiseItem) -> Position:
    preferred = item.pair.a if item.preferred == "a" else item.pair.b
    return "A" if a == preferred else "B"


def random_judge(seed: int) -> Judge:
    rng = random.Random(seed)
    return lambda a, b, item: rng.choice(["A", "B", "tie"])


def prefers_longer(a: str, b: str, item: PairwiseItem) -> Position:
    return "A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie"


def obeys_notes(a: str, b: str, item: PairwiseItem) -> Position:
    if PAIR_NOTE["en"] in a:
        return "A"
    return "B" if PAIR_NOTE["en"] in b else follows_people(a, b, item)


JUDGES = {
    "first": always_first,
    "people": follows_people,
    "random": random_judge(11),
    "longer": prefers_longer,
}
PAIRS = items()
PEOPLE = people_table(PAIRS)
VERDICTS = judged(JUDGES, PAIRS)
BOTH = combined(VERDICTS)


def row(table: pd.DataFrame, judge: str) -> pd.Series:
    return table.set_index("judge").loc[judge]


def test_a_judge_that_always_picks_the_first_answer_is_inconsistent_and_flagged():
    bias = row(position_bias(VERDICTS), "first")
    assert bias["pairs"] == len(PAIRS) and bias["consistency"] == 0.0
    assert bias["first_rate"] == 1.0 and bias["ci_low"] > 0.5
    assert "position bias: prefers the first answer" in bias["flag"]
    assert "inconsistent: 0%" in bias["flag"]
    assert (BOTH[BOTH["judge"] == "first"]["combined"] == "tie").all()  # MT-Bench: a tie


def test_each_of_a_judges_card_flags_names_the_judge():
    """The card shows one flag a line: a judge with two reasons gets two flags, each naming it
    (JudgeBench's o1-mini showed `! inconsistent: 69% …` under its bias flag, naming no one)."""
    table = position_bias(VERDICTS).assign(metric="preferred")
    words = position_flag_words(table, "preferred")
    first = [w for w in words if w.startswith("first: ")]
    assert len(first) == 2, words
    assert all(";" not in w for w in words)
    assert {w.split(": ", 2)[1] for w in first} == {"position bias", "inconsistent"}


def test_a_judge_that_always_picks_the_second_answer_is_flagged_the_other_way():
    bias = row(position_bias(judged({"second": always_second}, PAIRS)), "second")
    assert bias["first_rate"] == 0.0 and "prefers the second answer" in bias["flag"]


def test_a_judge_that_follows_the_people_is_right_consistent_and_not_flagged():
    bias = row(position_bias(VERDICTS), "people")
    assert bias["consistency"] == 1.0 and bias["flag"] == ""
    assert bias["ci_low"] <= 0.5 <= bias["ci_high"]  # its first answers win as often as chance
    valid = row(validity(BOTH, PEOPLE), "people")
    assert valid["accuracy_tie_excluded"] == 1.0 and valid["accuracy_half_credit"] == 1.0
    assert valid["kappa"] == pytest.approx(1.0) and valid["ties"] == 0
    assert valid["decided"] == valid["pairs"] == len(PAIRS)


def test_a_random_judge_is_at_chance():
    bias = row(position_bias(VERDICTS), "random")
    assert bias["ci_low"] <= 0.5 <= bias["ci_high"]
    assert bias["consistency"] < 0.8 and "inconsistent" in bias["flag"]
    valid = row(validity(BOTH, PEOPLE), "random")
    assert valid["ci_low"] <= 0.5 <= valid["ci_high"]
    assert valid["half_credit_low"] <= 0.5 <= valid["half_credit_high"]
    assert valid["kappa_low"] <= 0.0 <= valid["kappa_high"]


def test_the_always_first_judges_ties_are_stated_both_ways():
    valid = row(validity(BOTH, PEOPLE), "first")
    assert valid["ties"] == len(PAIRS) and valid["decided"] == 0
    assert np.isnan(valid["accuracy_tie_excluded"])
    assert valid["accuracy_half_credit"] == 0.5
    assert valid["accuracy"] == 0.0  # the card's figure: a tie against a preference is wrong


def test_the_cards_accuracy_counts_ties_wrong_with_statsmodels_wilson_interval():
    valid = validity(BOTH, PEOPLE).set_index("judge")
    merged = BOTH.merge(PEOPLE[["pair", "preferred"]], on="pair")
    for judge, mine in merged.groupby("judge"):
        right = int((mine["combined"] == mine["preferred"]).sum())
        low, high = proportion_confint(right, len(mine), alpha=0.05, method="wilson")
        assert valid.loc[judge, "accuracy"] == pytest.approx(right / len(mine))
        assert valid.loc[judge, "accuracy_low"] == pytest.approx(low)
        assert valid.loc[judge, "accuracy_high"] == pytest.approx(high)


def test_the_first_position_interval_is_wilsons_as_statsmodels_computes_it():
    bias = position_bias(VERDICTS)
    for _, r in bias.iterrows():
        low, high = proportion_confint(r["first"], r["verdicts"], alpha=0.05, method="wilson")
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((low, high), abs=1e-9)


def test_kappa_is_scikit_learns():
    both = BOTH[BOTH["judge"] == "random"].merge(PEOPLE, on="pair")
    expected = cohen_kappa_score(both["combined"], both["preferred"])
    assert row(validity(BOTH, PEOPLE), "random")["kappa"] == pytest.approx(expected)


def test_judges_are_compared_on_the_same_pairs_by_mcnemar_and_holm():
    both = BOTH[BOTH["judge"].isin(["people", "random", "first"])]
    table = comparisons(both, PEOPLE).set_index("other")
    assert set(table["top"]) == {"people"}  # the most accurate, compared with each other
    right = right_table(BOTH, PEOPLE)
    for other in ("random", "first"):
        both = np.column_stack([right["people"], right[other]]).astype(bool)
        counts = [
            [int((both[:, 0] & both[:, 1]).sum()), int((both[:, 0] & ~both[:, 1]).sum())],
            [int((~both[:, 0] & both[:, 1]).sum()), int((~both[:, 0] & ~both[:, 1]).sum())],
        ]
        assert table.loc[other, "p"] == pytest.approx(mcnemar(counts, exact=True).pvalue)
        assert table.loc[other, "test"] == "exact McNemar"
    p = table["p"].sort_values()
    assert table["p_holm"].max() == pytest.approx(min(1.0, max(p.iloc[1], len(p) * p.iloc[0])))


def test_a_failed_order_leaves_the_pair_out():
    verdicts = VERDICTS.copy()
    failed = (
        (verdicts["judge"] == "people") & (verdicts["pair"] == "p0") & (verdicts["order"] == "ba")
    )
    verdicts.loc[failed, "winner"] = None
    both = combined(verdicts)
    assert "p0" not in set(both[both["judge"] == "people"]["pair"])
    bias = row(position_bias(verdicts), "people")
    assert bias["pairs"] == len(PAIRS) - 1 and bias["verdicts"] == 2 * len(PAIRS) - 1
    assert row(validity(both, PEOPLE), "people")["unjudged"] == 1


def test_a_jury_is_the_majority_of_its_members():
    verdicts = pd.concat([VERDICTS, judged({"people2": follows_people}, PAIRS)])
    jury = jury_verdicts(verdicts, ["people", "people2", "random"])
    assert set(jury["judge"]) == {jury_name(["people", "people2", "random"])}
    both = combined(jury)
    assert (
        row(validity(both, PEOPLE), jury_name(["people", "people2", "random"]))[
            "accuracy_tie_excluded"
        ]
        == 1.0
    )
    split = jury_verdicts(VERDICTS, ["first", "people"]).merge(PEOPLE, on="pair")
    # the two agree where people's answer is shown first; elsewhere one vote each: a tie
    shown_first = split["order"].str[0] == split["preferred"]
    assert (split["winner"] == split["preferred"].where(shown_first, "tie")).all()


def test_a_jury_cell_fails_only_when_every_member_failed():
    verdicts = VERDICTS[VERDICTS["judge"].isin(["people", "random"])].copy()
    p0 = verdicts["pair"] == "p0"
    verdicts.loc[p0 & (verdicts["judge"] == "random"), "winner"] = None
    jury = jury_verdicts(verdicts, ["people", "random"])
    assert (
        jury[jury["pair"] == "p0"]["winner"] == PEOPLE.set_index("pair").loc["p0", "preferred"]
    ).all()
    verdicts.loc[p0, "winner"] = None
    jury = jury_verdicts(verdicts, ["people", "random"])
    assert jury[jury["pair"] == "p0"]["winner"].isna().all()


def test_the_verbosity_probe_catches_the_judge_that_prefers_longer_answers():
    probes = pair_probes(PAIRS)
    judges = {"longer": prefers_longer, "people": follows_people, "notes": obeys_notes}
    verdicts = judged(judges, PAIRS + probes)
    moves = probe_moves(combined(verdicts), probe_table(probes)).set_index(["judge", "probe"])
    assert moves.loc[("longer", "verbosity"), "rate"] == 1.0
    assert moves.loc[("longer", "verbosity"), "ci_low"] > 0.5
    assert moves.loc[("longer", "injection"), "rate"] == 0.0  # the note does not outgrow it
    assert moves.loc[("notes", "injection"), "rate"] == 1.0
    assert moves.loc[("notes", "verbosity"), "rate"] == 0.0
    assert (moves.loc["people", "rate"] == 0.0).all()
    assert (moves["n"] == len(PAIRS)).all()


def test_fastchats_rule_on_a_table_of_verdict_pairs():
    """Cases written from show_result.py's logic (display_result_pairwise): g1 is the verdict
    in the order (model_1, model_2), g2 in the swapped order read back; a match counts as a tie
    for both when g1 is a tie or g1 != g2, and is dropped when either is an error."""
    cases = [  # (g1, g2, combined) with model_1 = a, model_2 = b
        ("a", "a", "a"),
        ("b", "b", "b"),
        ("a", "b", "tie"),
        ("b", "a", "tie"),
        ("tie", "tie", "tie"),
        ("tie", "a", "tie"),
        ("a", "tie", "tie"),
        ("b", "tie", "tie"),
        ("a", None, None),  # an error in one order: dropped
    ]
    rows = []
    for k, (g1, g2, _) in enumerate(cases):
        rows += [
            {"judge": "j", "pair": f"m{k}", "order": "ab", "winner": g1},
            {"judge": "j", "pair": f"m{k}", "order": "ba", "winner": g2},
        ]
    both = combined(pd.DataFrame(rows)).set_index("pair")
    for k, (_, _, expected) in enumerate(cases):
        if expected is None:
            assert f"m{k}" not in both.index
        else:
            assert both.loc[f"m{k}", "combined"] == expected
    # systems x (model_1) and y (model_2) in every match: x wins 1, loses 1, ties 6 of 8
    systems = pd.DataFrame(
        {"pair": [f"m{k}" for k in range(len(cases))], "system_a": "x", "system_b": "y"}
    )
    rates = win_rates(both.reset_index(), systems).set_index("system")
    assert rates.loc["x", ["wins", "losses", "ties", "pairs"]].tolist() == [1, 1, 6, 8]
    assert rates.loc["x", "win_rate"] == pytest.approx(1 / 8)  # win / (win + loss + tie)
    assert rates.loc["x", "win_rate_adjusted"] == pytest.approx((1 + 0.5 * 6) / 8)
    assert rates.loc["y", "win_rate_adjusted"] == pytest.approx((1 + 0.5 * 6) / 8)


def test_win_rates_of_systems_under_each_judge_and_their_agreement():
    both = BOTH[BOTH["judge"].isin(["people", "longer", "first"])]
    rates = win_rates(both, systems_table(PAIRS))
    good = rates.set_index(["judge", "system"]).loc[("people", "good")]
    assert good["win_rate"] == 1.0 and good["pairs"] == len(PAIRS)
    assert good["ci_low"] < 1.0 and good["adjusted_high"] == 1.0
    first = rates.set_index(["judge", "system"]).loc[("first", "good")]
    assert first["ties"] == len(PAIRS) and first["win_rate_adjusted"] == 0.5
    tau = ranking_agreement(rates).set_index(["first", "second"])
    assert tau.loc[("longer", "people"), "tau"] == pytest.approx(1.0)
    assert np.isnan(tau.loc[("first", "longer"), "tau"])  # first ranks nothing: all tied


def test_kendalls_tau_between_rankings_on_a_worked_example():
    """Four systems; the second judge swaps the top two: of the 6 pairs of systems 5 are
    concordant and 1 discordant, tau = (5 - 1) / 6."""
    rates = pd.DataFrame(
        {
            "judge": ["j1"] * 4 + ["j2"] * 4,
            "system": list("wxyz") * 2,
            "win_rate_adjusted": [0.8, 0.6, 0.4, 0.2, 0.6, 0.8, 0.4, 0.2],
        }
    )
    tau = ranking_agreement(rates).iloc[0]
    assert tau["systems"] == 4 and tau["tau"] == pytest.approx(2 / 3)


def test_a_judge_whose_every_cell_failed_has_no_figures_and_no_flag():
    verdicts = VERDICTS.copy()
    verdicts.loc[verdicts["judge"] == "random", "winner"] = None
    bias = row(position_bias(verdicts), "random")
    assert bias["pairs"] == 0 and bias["verdicts"] == 0
    assert np.isnan(bias["consistency"]) and np.isnan(bias["first_rate"]) and bias["flag"] == ""
    assert "random" not in set(validity(combined(verdicts), PEOPLE)["judge"])
    assert "random" not in set(comparisons(combined(verdicts), PEOPLE)["other"])


def test_no_judged_pair_gives_empty_tables_with_their_columns():
    failed = VERDICTS.assign(winner=None)
    both = combined(failed)
    assert both.empty
    systems = systems_table(PAIRS)
    tables = {
        "validity": validity(both, PEOPLE),
        "comparisons": comparisons(both, PEOPLE),
        "win_rates": win_rates(both, systems),
        "ranking": ranking_agreement(win_rates(both, systems)),
        "probes": probe_moves(both, probe_table(pair_probes(PAIRS))),
    }
    assert {name: len(t) for name, t in tables.items()} == dict.fromkeys(tables, 0)
    assert "win_rate_adjusted" in tables["win_rates"] and "rate" in tables["probes"]
    assert len(position_bias(failed)) == len(JUDGES)  # every judge listed, with no figure
