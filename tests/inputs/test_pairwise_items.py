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


# -- a data set's pairs: the WikiEval file read for pairwise criteria, and the pair probes ----


def test_a_wikieval_line_is_one_sample_with_both_pairs_in_their_seeded_order():
    from judgegrid.inputs.pairwise import wikieval_columns, wikieval_sample_record

    assert "more_faithful_a" not in wikieval_sample_record(record(3))  # no criterion reads it
    row = wikieval_sample_record(record(3), wikieval_columns())
    items = {item.aspect: item for item in wikieval_items(record(3))}
    assert row["user_input"] == record(3)["question"]
    assert row["retrieved_contexts"] == [record(3)["context"]]
    assert row["response"] == record(3)["answer"]  # pointwise metrics read it as before
    faithful = items["faithfulness"]
    assert (row["more_faithful_a"], row["more_faithful_b"]) == (faithful.pair.a, faithful.pair.b)
    assert (row["more_faithful_a_system"], row["more_faithful_b_system"]) == faithful.sources
    assert row["labels"] == {
        "more_faithful": faithful.preferred,
        "more_relevant": items["answer_relevance"].preferred,
    }
    preferred = row[f"more_faithful_{row['labels']['more_faithful']}"]
    assert preferred == record(3)["answer"]


def test_the_wikieval_file_is_a_data_set_whose_pair_columns_the_criteria_keep(tmp_path):
    import json

    from judgegrid.inputs.dataset import load_dataset
    from judgegrid.inputs.pairwise import wikieval_columns

    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(record(n)) + "\n" for n in range(40)))
    plain = load_dataset(path)  # for pointwise metrics: the good answer and its context
    assert plain.samples[0].extra is None and plain.samples[0].response == record(0)["answer"]
    assert plain.samples[0].retrieved_contexts == [record(0)["context"]]
    paired = load_dataset(path, extra=wikieval_columns())
    firsts = [s.labels["more_relevant"] for s in paired]
    assert {"a", "b"} == set(firsts) and 10 <= firsts.count("a") <= 30  # not always a
    sample = paired.samples[0]
    assert sample.extra["more_relevant_a_system"] in ("answer", "poor_answer")


def test_pair_probes_change_the_answer_people_did_not_prefer_and_keep_the_other():
    from judgegrid.core.criterion import CriterionSpec
    from judgegrid.core.sample import Dataset, Sample
    from judgegrid.inputs.pairwise import pairwise_probes

    spec = CriterionSpec(
        name="better", definition="Which?", type="pairwise", compare=("response", "response_b")
    )
    samples = [
        Sample(
            id=f"s{k}",
            user_input="Q?",
            response="A long, good answer." if k % 2 else "Bad.",
            extra={"response_b": "Bad." if k % 2 else "A long, good answer."},
            labels={"better": "a" if k % 2 else "b"},
        )
        for k in range(6)
    ] + [
        Sample(
            id="tie",
            user_input="Q?",
            response="x",
            extra={"response_b": "y"},
            labels={"better": "tie"},
        )
    ]
    made = pairwise_probes(Dataset("d", tuple(samples)), [spec], "all", per_metric=4, seed=1)
    assert len(made) == 8 and {p.probe.name for p in made} == {"injection", "verbosity"}
    base = {s.id: s for s in samples}
    for probe in made:
        original = base[probe.probe.base]
        assert probe.probe.base != "tie" and probe.probe.metric == "better"
        good_is_a = original.labels["better"] == "a"
        kept = probe.response if good_is_a else probe.extra["response_b"]
        changed = probe.extra["response_b"] if good_is_a else probe.response
        assert kept == "A long, good answer." and changed.startswith("Bad.")
        assert len(changed) > len("Bad.") and probe.labels is None
    again = pairwise_probes(Dataset("d", tuple(samples)), [spec], "all", per_metric=4, seed=1)
    assert [p.id for p in again] == [p.id for p in made]
    assert pairwise_probes(Dataset("d", tuple(samples)), [spec], ["order"], 4) == []


def test_pair_probes_not_made_for_want_of_a_preference_are_said_why():
    from judgegrid.core.sample import Dataset, Sample
    from judgegrid.inputs.matrix import matrix_from_data
    from judgegrid.inputs.tasks import probe_notes, with_probes

    matrix = matrix_from_data(
        {
            "judges": [{"id": "scripted/judge-a"}],
            "criteria": [
                {
                    "name": "better",
                    "definition": "Which?",
                    "type": "pairwise",
                    "compare": ["response", "response_b"],
                }
            ],
            "probes": {"names": ["injection", "verbosity"]},
        }
    )
    unlabelled = Dataset(
        "d",
        tuple(
            Sample(id=f"s{k}", user_input="Q?", response="x", extra={"response_b": "y"})
            for k in range(3)
        ),
    )
    probed = with_probes(matrix, unlabelled)
    assert len(probed) == 3  # nothing to probe: no sample says which answer is worse
    (note,) = probe_notes(matrix, probed)
    assert "better" in note and "prefers one answer" in note
    labelled = Dataset(
        "d", tuple(s.model_copy(update={"labels": {"better": "a"}}) for s in unlabelled)
    )
    assert len(with_probes(matrix, labelled)) == 3 + 3 * 2
    assert probe_notes(matrix, with_probes(matrix, labelled)) == []
