"""The criteria demo (model_matrices/criteria.yaml): its bundled data set parses, and every
person's label in it is a valid answer of its criterion, with every answer present."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.validation import snake_keys
from judgegrid.inputs.dataset import load_dataset

MATRIX = ROOT / "model_matrices" / "criteria.yaml"
LANGUAGES = {"en", "vi", "zh", "ru"}


def criteria() -> dict[str, CriterionSpec]:
    """The matrix's criteria, each read into a CriterionSpec (dashed keys as the matrix has)."""
    raw = yaml.safe_load(MATRIX.read_text(encoding="utf-8"))
    specs = [CriterionSpec(**snake_keys(entry)) for entry in raw["criteria"]]
    return {spec.name: spec for spec in specs}


def demo_path() -> Path:
    raw = yaml.safe_load(MATRIX.read_text(encoding="utf-8"))
    return (MATRIX.parent / raw["dataset"]).resolve()


def answers(spec: CriterionSpec) -> set[object]:
    """What a person may answer: pass/fail as 1/0, a label by name, a scale's level."""
    if spec.type == "binary":
        return {0, 1}
    if spec.type == "labels":
        assert spec.labels is not None
        return set(spec.labels)
    return set(spec.levels)


def test_the_matrix_names_the_bundled_file():
    bundled = resources.files("judgegrid.inputs").joinpath("criteria_demo.jsonl")
    assert demo_path() == Path(str(bundled)).resolve()


def test_one_criterion_of_each_type_one_in_three_wordings_both_weightings():
    specs = criteria().values()
    assert sorted(s.type for s in specs) == ["binary", "labels", "scale"]
    assert sorted(len(s.definitions) for s in specs) == [1, 1, 3]
    assert {s.weighting for s in specs} == {"none", "auto"}


def test_every_sample_parses_in_four_languages_twelve_each():
    data = load_dataset(demo_path())
    assert len(data) >= 40
    assert len({s.id for s in data}) == len(data)
    by_language = Counter(s.language for s in data)
    assert set(by_language) == LANGUAGES
    assert min(by_language.values()) == 12
    for s in data:
        assert s.user_input and s.response and s.reference and s.retrieved_contexts, s.id
        assert len(s.response) <= 200, f"{s.id}: keep texts short for the tiny judges"


def test_every_sample_has_a_valid_label_for_every_criterion():
    specs = criteria()
    for s in load_dataset(demo_path()):
        assert s.labels is not None and set(s.labels) == set(specs), s.id
        for name, spec in specs.items():
            assert s.labels[name] in answers(spec), f"{s.id}: {name}={s.labels[name]!r}"


@pytest.mark.parametrize("name", ["polite", "answer_correctness", "helpfulness"])
def test_every_answer_occurs_in_every_language_but_none_dominates(name):
    spec = criteria()[name]
    data = load_dataset(demo_path())
    for language in LANGUAGES:
        given = Counter(s.labels[name] for s in data if s.language == language and s.labels)
        assert set(given) == answers(spec), (language, given)
    overall = Counter(s.labels[name] for s in data if s.labels)
    assert set(overall) == answers(spec)
    assert max(overall.values()) <= 2 * len(data) / 3, overall
