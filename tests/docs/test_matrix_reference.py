"""The matrix reference of the docs is generated from the matrix's pydantic models
(docs/hooks/reference.py): every field has a description and an example, and the page shows it."""

from __future__ import annotations

import sys

import yaml
from doc_blocks import ROOT

from judgegrid.inputs.matrix import Matrix, inspect_matrix

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import reference  # docs/hooks is not a package: imported from its folder


def test_every_matrix_field_has_a_description():
    assert reference.undescribed_fields() == []


def test_every_matrix_field_has_an_example_and_the_example_is_a_valid_matrix():
    assert reference.unexampled_fields() == []
    _, problems = inspect_matrix(reference.EXAMPLE.read_text(encoding="utf-8"))
    assert problems == []


def test_the_reference_has_a_row_for_every_field_of_every_model():
    page = reference.matrix_reference()
    models = reference.sections(Matrix)
    assert {m.__name__ for m in models} >= {"Matrix", "JudgeSpec", "ModelOptions", "RetryPolicy"}
    for model in models:
        assert f"{{#{model.__name__.lower()}}}" in page
        for name, field in model.model_fields.items():
            assert f"| `{reference.kebab(name)}` |" in page, f"{model.__name__}.{name}"
            assert " ".join(field.description.split()) in page


def test_a_field_without_a_description_is_found(monkeypatch):
    """The check itself: take a description away and it is named."""
    field = Matrix.model_fields["repeats"]
    monkeypatch.setattr(field, "description", None)
    assert reference.undescribed_fields() == ["Matrix.repeats (at the top)"]


def test_the_reference_reads_examples_from_the_example_matrix():
    example = yaml.safe_load(reference.EXAMPLE.read_text(encoding="utf-8"))
    page = reference.matrix_reference()
    row = next(line for line in page.splitlines() if line.startswith("| `repeats` |"))
    assert row.split("|")[4].strip() == f"`{example['repeats']}`"  # the example column


def test_the_cli_reference_names_every_command():
    page = reference.cli_reference()
    for command in ("run", "validate", "plan", "report", "export", "view", "label", "metrics"):
        assert f"`judgegrid {command}`" in page
    assert "--dataset" in page and "--fail-under" in page
