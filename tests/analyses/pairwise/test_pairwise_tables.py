"""A run's pairwise criteria read from its scores table: each cell's two orders as verdict rows,
the people's preferences from their labels, the probes with their worse answer, juries voting
per order, and the card's evidence and flags; checked against counts made by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.pairwise import tables as pairwise_tables
from judgegrid.core.criterion import CriterionSpec
from support.pairwise_judges import pairwise_cell as cell

BETTER = CriterionSpec(
    name="better", definition="Which?", type="pairwise", compare=("response", "response_b")
)
POLITE = CriterionSpec(name="polite", definition="Polite?", type="binary")
CRITERIA = {"better": BETTER, "polite": POLITE}


def labels(preferred):
    return pd.DataFrame(
        [
            {"sample_id": pair, "metric": "better", "annotator": "ann", "value": value}
            for pair, value in preferred.items()
        ]
    )


# people: p0..p5 prefer a, p6..p9 prefer b
PEOPLE = {f"p{k}": 1.0 if k < 6 else 0.0 for k in range(10)}


def scores_frame():
    rows = []
    for k in range(10):
        pair, right = f"p{k}", "a" if k < 6 else "b"
        rows.append(cell("first", pair, "a", "b"))  # always position A
        rows.append(cell("follow", pair, right, right))
        rows.append(cell("follow", pair, "b", "b", repeat=1))  # a later repeat: not read
        rows.append(cell("follow", pair, "b", "b", wording=1))  # another wording: not read
    rows.append(cell("first", "p10", "a", "a", status="failed"))  # no verdict in either order
    return pd.DataFrame(rows)


def test_each_cell_gives_one_verdict_row_per_order_from_wording_0_and_its_lowest_repeat():
    verdicts = pairwise_tables.verdict_rows(scores_frame(), CRITERIA)
    assert len(verdicts) == 2 * 2 * 10  # judges x orders x pairs; the failed cell gives none
    follow = verdicts[verdicts["judge"] == "follow"]
    assert (follow.set_index(["pair", "order"])["winner"].loc[("p0", "ab")]) == "a"
    assert set(verdicts["metric"]) == {"better"}
    failed = scores_frame().assign(status="failed")
    assert pairwise_tables.verdict_rows(failed, CRITERIA).empty  # every cell failed: no rows
    tables, right = pairwise_tables.pairwise_run_tables(failed, labels(PEOPLE), CRITERIA)
    assert right == {} and all(t.empty for t in tables.values())


def test_the_tables_measure_position_bias_validity_and_the_cards_evidence():
    tables, right = pairwise_tables.pairwise_run_tables(
        scores_frame(), labels(PEOPLE), CRITERIA, panels=[["first", "follow"]]
    )
    position = tables["pairwise_position"].set_index("judge")
    assert position.loc["first", "first_rate"] == 1.0 and position.loc["first", "consistency"] == 0
    assert "position bias" in position.loc["first", "flag"]
    assert position.loc["follow", "consistency"] == 1.0 and position.loc["follow", "flag"] == ""
    validity = tables["pairwise_validity"].set_index("judge")
    assert validity.loc["follow", "accuracy_tie_excluded"] == 1.0
    assert validity.loc["first", "ties"] == 10 and validity.loc["first", "decided"] == 0
    # the jury of two: in each order the members' majority; a split (a against b) is a tie
    assert "jury(first + follow)" in position.index
    evidence = right["better"]
    assert evidence.chance == pytest.approx(0.6)  # people's commonest answer, a, on 6 of 10
    assert evidence.right["follow"].sum() == 10 and evidence.right["first"].sum() == 0
    wins = tables["pairwise_win_rates"]
    follow = wins[wins["judge"] == "follow"].set_index("system")
    assert follow.loc["model-x", "wins"] == 6 and follow.loc["model-y", "wins"] == 4
    flags = pairwise_tables.position_flag_words(tables["pairwise_position"], "better")
    assert any(f.startswith("first: position bias") for f in flags)
    assert not any(f.startswith("follow:") for f in flags)


def test_probes_take_their_worse_answer_from_their_bases_people():
    info = {
        "p0~probe~better~verbosity": {
            "probe": {"metric": "better", "name": "verbosity", "base": "p0"}
        },
        "p7~probe~better~injection": {
            "probe": {"metric": "better", "name": "injection", "base": "p7"}
        },
        "p3~probe~polite~injection": {
            "probe": {"metric": "polite", "name": "injection", "base": "p3"}
        },
    }
    people = pairwise_tables.people_preferences(labels(PEOPLE), CRITERIA)
    probes = pairwise_tables.probe_rows(info, people, CRITERIA)
    assert probes.set_index("pair")["worse"].to_dict() == {
        "p0~probe~better~verbosity": "b",
        "p7~probe~better~injection": "a",
    }


def test_the_bundle_puts_pairwise_tables_and_flags_on_the_card_and_keeps_them_out_of_pointwise():
    analysis = analyse(
        scores_frame(), RunFacts(criteria=CRITERIA), ValidityInputs(human_labels=labels(PEOPLE))
    )
    card = analysis.card.set_index("metric")
    assert card.loc["better", "basis"] == "people"
    assert "first: position bias" in card.loc["better", "flags"]
    assert "better" not in set(analysis.table("criterion_validity").get("metric", []))
    assert not analysis.table("pairwise_validity").empty


@pytest.mark.parametrize("odd", [None, "not JSON", '["a list"]', '{"orders": {"ab": 3}}'])
def test_details_pyarrow_cannot_read_are_read_one_by_one_with_the_same_verdicts(odd):
    """The cells' details go through pyarrow's JSON reader together; one it cannot read (no
    text, not JSON, no object, an order that is no object) sends all through ``json.loads``,
    and the verdicts are the same but for that cell, which gives none."""
    scores = scores_frame()
    together = pairwise_tables.verdict_rows(scores, CRITERIA)
    spoiled = scores.copy()
    spoiled.loc[0, "details"] = odd
    one_by_one = pairwise_tables.verdict_rows(spoiled, CRITERIA)
    first = scores.loc[0]
    mine = (together["judge"] == first["judge"]) & (together["pair"] == first["sample_id"])
    assert mine.sum() == 2  # the cell had both orders' verdicts
    expected = together[~mine].reset_index(drop=True)
    pd.testing.assert_frame_equal(one_by_one.reset_index(drop=True), expected)
