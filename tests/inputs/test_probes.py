"""Probes made from the user's samples: deterministic, in the sample's language, each one the
perturbation its name says, "another sample" the least similar one."""

from __future__ import annotations

import pytest

from judgegrid.core.errors import OptionError
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.probes import (
    FILLER,
    NONCOMMITTAL,
    NOTE,
    PROBES,
    first_sentence,
    least_similar,
    make_probes,
    probes_for,
    resolve_probe_names,
    template_language,
    tokens,
)
from judgegrid.metrics import METRICS


@pytest.fixture(scope="module")
def demo() -> Dataset:
    return load_dataset("demo").head(21)


def by_name(probes: list[Sample], metric: str, name: str) -> list[Sample]:
    return [p for p in probes if p.probe and p.probe.metric == metric and p.probe.name == name]


def test_every_metric_has_a_directional_probe_and_injection():
    for metric in METRICS:
        names = probes_for(metric)
        assert any(PROBES[n].kind == "directional" for n in names), metric
        assert "injection" in names


def test_same_inputs_same_probes_and_the_seed_changes_the_choice(demo):
    first = make_probes(demo, list(METRICS), per_metric=2, seed=0)
    again = make_probes(demo, list(METRICS), per_metric=2, seed=0)
    assert [p.model_dump() for p in first] == [p.model_dump() for p in again]
    other = make_probes(demo, list(METRICS), per_metric=2, seed=7)
    assert {p.id for p in other} != {p.id for p in first}


def test_per_metric_counts_samples_and_every_language_is_probed(demo):
    probes = make_probes(demo, ["faithfulness"], per_metric=4)
    bases = {p.probe.base for p in probes if p.probe.name != "injection"}
    assert len(bases) == 4
    assert {demo.by_id()[b].language for b in bases} == {"en", "vi", "zh", "ru"}
    assert all(p.probe.metric == "faithfulness" for p in probes)


def test_probe_ids_are_new_and_labels_are_not_copied(demo):
    probes = make_probes(demo, list(METRICS), per_metric=3)
    ids = [p.id for p in probes]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {s.id for s in demo}
    assert all(p.labels is None and p.contrast is None for p in probes)


def test_foreign_contexts_come_from_the_least_similar_sample_of_the_same_language(demo):
    probes = make_probes(demo, ["context_recall"], names=["foreign_contexts"], per_metric=4)
    samples = demo.by_id()
    for probe in probes:
        base = samples[probe.probe.base]
        assert probe.retrieved_contexts != base.retrieved_contexts
        assert probe.response == base.response and probe.reference == base.reference
        donors = [s for s in demo if s.retrieved_contexts == probe.retrieved_contexts]
        assert donors and all(d.id != base.id for d in donors)


def test_least_similar_prefers_the_language_then_the_lowest_overlap():
    a = Sample(id="a", user_input="red apple pie", response="red apple", language="en")
    close = Sample(id="b", user_input="red apple tart", response="red apples", language="en")
    far = Sample(id="c", user_input="blue whale song", response="deep sea", language="en")
    russian = Sample(id="d", user_input="синий кит", response="море", language="ru")
    assert least_similar(a, [a, close, far, russian], "response").id == "c"
    assert least_similar(a, [a, close, russian], "response").id == "b"
    assert least_similar(a, [a, russian], "response").id == "d"  # no other English one


def test_chinese_is_tokenised_by_character():
    assert tokens("长城很长") == {"长", "城", "很"}
    assert tokens("Hello, World") == {"hello", "world"}


@pytest.mark.parametrize("language", ["en", "vi", "zh", "ru"])
def test_templates_are_in_the_samples_language(demo, language):
    probes = make_probes(demo, list(METRICS), per_metric=4)
    mine = [p for p in probes if p.language == language]
    note = [p for p in mine if p.probe.name == "injection" and p.probe.metric == "faithfulness"]
    assert note and all(p.response.endswith(NOTE[language]) for p in note)
    silent = [p for p in mine if p.probe.name == "noncommittal"]
    assert silent and all(p.response == NONCOMMITTAL[language] for p in silent)
    padded = [p for p in mine if p.probe.name == "verbosity"]
    assert padded and all(p.response.endswith(FILLER[language]) for p in padded)
    assert all(p.probe.language == language and not p.probe.fallback for p in mine)


def test_other_languages_fall_back_to_english_and_say_so():
    assert template_language("pt-BR") == ("en", True)
    assert template_language("vi") == ("vi", False)
    data = Dataset(
        "x",
        (
            Sample(id="1", user_input="Qual é a capital?", response="É Lisboa.", language="pt"),
            Sample(id="2", user_input="Quem pintou?", response="Foi Picasso.", language="pt"),
        ),
    )
    (silent,) = make_probes(data, ["response_relevancy"], names=["noncommittal"], per_metric=1)
    assert silent.response == NONCOMMITTAL["en"] and silent.probe.fallback


def test_injection_compares_with_its_degraded_copy(demo):
    probes = make_probes(demo, list(METRICS), names=["injection"], per_metric=2)
    by_id = {p.id: p for p in probes}
    injected = [p for p in probes if p.probe.name == "injection"]
    assert {p.probe.metric for p in injected} == set(METRICS)
    for probe in injected:
        degraded = by_id[probe.probe.base]  # brought along although not asked for by name
        assert degraded.probe.direction == "worse"
        assert probe.probe.direction == "not_better"
        where = (
            probe.response
            if probe.probe.metric
            in {"faithfulness", "response_relevancy", "answer_relevancy", "noise_sensitivity"}
            else probe.retrieved_contexts[0]
        )
        assert NOTE[probe.probe.language] in where
        assert NOTE[probe.probe.language] not in (degraded.response or "")


def test_the_perturbations_do_what_they_say(demo):
    probes = make_probes(demo, list(METRICS), per_metric=4)
    samples = demo.by_id()
    for p in by_name(probes, "faithfulness", "foreign_sentence"):
        base = samples[p.probe.base]
        assert p.response.startswith(base.response) and len(p.response) > len(base.response)
    for p in by_name(probes, "context_precision", "foreign_first"):
        base = samples[p.probe.base]
        assert p.retrieved_contexts[1:] == base.retrieved_contexts
        assert p.retrieved_contexts[0] not in base.retrieved_contexts
    for p in by_name(probes, "noise_sensitivity", "planted_noise"):
        base = samples[p.probe.base]
        planted = p.response[len(base.response) :].strip()
        assert planted and planted in p.retrieved_contexts[0]
    for p in by_name(probes, "faithfulness", "order"):
        base = samples[p.probe.base]
        assert p.retrieved_contexts != base.retrieved_contexts
        assert sorted(p.retrieved_contexts) == sorted(base.retrieved_contexts)
    for p in by_name(probes, "response_relevancy", "foreign_response"):
        assert p.response != samples[p.probe.base].response
        assert p.response in {s.response for s in demo}


def test_worse_sides_of_contrasts_are_not_probed_first(demo):
    probes = make_probes(demo, ["response_relevancy"], names=["foreign_response"], per_metric=4)
    samples = demo.by_id()
    assert all(
        samples[p.probe.base].contrast is None or samples[p.probe.base].contrast.rank == 1
        for p in probes
    )


def test_first_sentence_in_latin_and_chinese():
    assert first_sentence("One. Two.") == "One."
    assert first_sentence("长城很长。它在中国。") == "长城很长。"
    assert first_sentence("no stop") == "no stop"


def test_unknown_probe_names_are_refused():
    assert resolve_probe_names("all") == list(PROBES)
    with pytest.raises(OptionError, match="unknown probe 'injections'"):
        resolve_probe_names(["injections"])
