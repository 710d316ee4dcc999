"""A WikiEval line as two pairwise items, the better answer first in about half of the pairs (a
seeded draw per pair), and the probes of a pair: a note or filler on the worse answer only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from judgegrid.core.errors import DatasetError
from judgegrid.inputs.pairwise import (
    MAX_FILLERS,
    PAIR_NOTE,
    pair_probes,
    people_table,
    person_order,
    probe_table,
    seeded_flip,
    systems_table,
    wikieval_items,
    with_injection,
    with_verbosity,
)
from judgegrid.inputs.probes import FILLER


def record(n: int = 0, **fields) -> dict[str, str]:
    return {
        "id": f"wikieval-{n:02d}",
        "question": "Who founded FoodFutureCo?",
        "context": "FoodFutureCo was founded by Shen Tong in 2016.",
        "answer": "FoodFutureCo was founded by Shen Tong, an activist and investor, in 2016.",
        "ungrounded_answer": "It was founded by Gigi Lee Chang.",
        "poor_answer": "A food accelerator.",
    } | fields


def preferred_text(item) -> str:
    return item.pair.a if item.preferred == "a" else item.pair.b


def test_a_line_makes_a_faithfulness_pair_and_a_relevance_pair():
    faithful, relevant = wikieval_items(record())
    assert (faithful.aspect, relevant.aspect) == ("faithfulness", "answer_relevance")
    assert faithful.pair.id == "wikieval-00:faithfulness"
    assert {faithful.pair.a, faithful.pair.b} == {record()["answer"], record()["ungrounded_answer"]}
    assert {relevant.pair.a, relevant.pair.b} == {record()["answer"], record()["poor_answer"]}
    assert preferred_text(faithful) == preferred_text(relevant) == record()["answer"]
    assert dict(faithful.pair.shown) == {
        "user_input": record()["question"],
        "retrieved_contexts": record()["context"],
    }
    assert dict(relevant.pair.shown) == {"user_input": record()["question"]}
    # what wrote each answer follows the draw
    assert faithful.sources[("a", "b").index(faithful.preferred)] == "answer"


def test_the_preferred_answer_is_first_in_about_half_the_pairs_and_the_draw_is_seeded():
    items = [item for n in range(200) for item in wikieval_items(record(n))]
    first = sum(item.preferred == "a" for item in items) / len(items)
    assert 0.4 < first < 0.6
    again = [item for n in range(200) for item in wikieval_items(record(n))]
    assert [i.preferred for i in items] == [i.preferred for i in again]
    other_seed = [item for n in range(200) for item in wikieval_items(record(n), seed=1)]
    assert [i.preferred for i in items] != [i.preferred for i in other_seed]


def test_a_pairs_draw_does_not_depend_on_the_other_pairs():
    alone = wikieval_items(record(7))
    among = [item for n in (3, 7, 9) for item in wikieval_items(record(n))][2:4]
    assert [i.pair for i in alone] == [i.pair for i in among]


def test_a_missing_field_is_named():
    with pytest.raises(DatasetError) as caught:
        wikieval_items(record(poor_answer=""), source="pairs.jsonl")
    assert "pairs.jsonl" in str(caught.value) and "wikieval-00" in str(caught.value)
    assert "missing or empty: poor_answer" in str(caught.value)


def test_each_person_sees_a_pair_in_their_own_order_the_same_every_visit():
    orders = {person_order("p1", f"person-{k}") for k in range(20)}
    assert orders == {"ab", "ba"}
    assert person_order("p1", "ann") == person_order("p1", "ann")
    assert seeded_flip(0, "x") == seeded_flip(0, "x")


def test_the_injection_note_goes_on_the_worse_answer_only():
    for item in wikieval_items(record()):
        probe = with_injection(item)
        assert probe is not None and probe.probe == "injection" and probe.base == item.pair.id
        assert probe.pair.id == f"{item.pair.id}~probe~injection"
        worse, better = ("b", "a") if item.preferred == "a" else ("a", "b")
        assert getattr(probe.pair, worse).endswith(PAIR_NOTE["en"])
        assert getattr(probe.pair, better) == getattr(item.pair, better)
        assert probe.preferred == item.preferred


def test_the_worse_answer_is_padded_until_it_is_the_longer():
    for item in wikieval_items(record()):
        probe = with_verbosity(item)
        assert probe is not None
        worse, better = ("b", "a") if item.preferred == "a" else ("a", "b")
        padded, original = getattr(probe.pair, worse), getattr(item.pair, worse)
        assert padded.startswith(original) and FILLER["en"] in padded
        assert len(padded) > len(getattr(probe.pair, better))
        assert getattr(probe.pair, better) == getattr(item.pair, better)


def test_padding_stops_at_its_cap():
    long_answer = "word " * 2000
    item = wikieval_items(record(answer=long_answer))[1]
    probe = with_verbosity(item)
    assert probe is not None
    worse = "b" if item.preferred == "a" else "a"
    assert getattr(probe.pair, worse).count(FILLER["en"]) == MAX_FILLERS


def test_probes_speak_the_pairs_language():
    item = wikieval_items(record(language="vi"))[0]
    probe = with_injection(item)
    assert probe is not None
    assert PAIR_NOTE["vi"] in (probe.pair.a + probe.pair.b)


def test_a_pair_without_a_preference_or_a_probe_has_no_probe():
    item = wikieval_items(record())[0]
    assert with_injection(replace(item, preferred="tie")) is None
    assert with_verbosity(replace(item, preferred=None)) is None
    probe = with_injection(item)
    assert probe is not None and with_verbosity(probe) is None  # no probe of a probe


def test_the_tables_the_analyses_read():
    items = wikieval_items(record(1)) + wikieval_items(record(2))
    probes = pair_probes(items)
    assert len(probes) == 8
    everything = items + probes
    people = people_table(everything)
    assert list(people["pair"]) == [i.pair.id for i in items]  # probes carry no people's verdict
    table = probe_table(everything)
    assert set(table["probe"]) == {"injection", "verbosity"}
    assert (
        table["worse"] != people.set_index("pair").loc[table["base"], "preferred"].to_numpy()
    ).all()
    systems = systems_table(everything)
    assert len(systems) == 4 and set(systems["system_a"]) | set(systems["system_b"]) == {
        "answer",
        "ungrounded_answer",
        "poor_answer",
    }
