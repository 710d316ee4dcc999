"""A promptfoo config (``promptfooconfig.yaml``) read as judgegrid's: each distinct
``llm-rubric`` value (``defaultTest`` and every test) is a binary criterion on the output, named
by its ``metric`` or its words. What cannot be read is refused by a ``MatrixError`` naming the
file and the place in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import MatrixError, Problem
from judgegrid.core.validation import boolean_hint
from judgegrid.inputs.peers import checked_spec, slug, unique_names
from judgegrid.inputs.textfile import as_path, read_text, yaml_problem
from judgegrid.inputs.yaml_text import load_yaml


def criteria_from_promptfoo(path: str | Path) -> list[CriterionSpec]:
    """One binary criterion for each distinct ``llm-rubric`` value of a promptfoo config
    (``defaultTest`` and every test, assert-sets included), in the order they first appear;
    MatrixError names the file and the place of what cannot be read."""
    path = as_path(path, "promptfoo config", MatrixError)
    source = str(path)
    text = read_text(path, source, MatrixError, "a promptfoo config (tests: with assert:)")
    try:
        config = load_yaml(text)
    except yaml.YAMLError as exc:
        raise MatrixError(source, [yaml_problem(exc)]) from None
    if not isinstance(config, dict):
        raise MatrixError(source, [Problem("", "expected a mapping with tests:")])
    rubrics: dict[str, tuple[str, dict[str, Any]]] = {}
    problems: list[Problem] = []
    for where, assertion in _rubric_assertions(config, path.parent, source):
        value = assertion.get("value")
        problem = _rubric_problem(value)
        kind = assertion.get("type")
        if not isinstance(kind, str):
            hint = boolean_hint(kind, number_due=False) if isinstance(kind, bool) else "quote it"
            problems.append(Problem(f"{where}.type", f"not a name ({kind!r}): {hint}"))
        elif problem:
            problems.append(Problem(where, problem))
        elif isinstance(assertion.get("metric"), bool):  # metric: on named it 'true'
            metric = assertion["metric"]
            hint = boolean_hint(metric, number_due=False)
            problems.append(Problem(f"{where}.metric", f"the boolean {metric!r}: {hint}"))
        else:
            rubrics.setdefault(str(value).strip(), (where, assertion))
    if problems:
        raise MatrixError(source, problems)
    if not rubrics:
        message = "no llm-rubric assertion in defaultTest or tests: nothing to judge by"
        raise MatrixError(source, [Problem("", message)])
    names = unique_names([slug(str(a.get("metric") or value)) for value, (_, a) in rubrics.items()])
    return [
        checked_spec(
            {"name": name, "type": "binary", "definition": value, "fields": ("response",)},
            where,
            MatrixError,
            source,
        )
        for name, (value, (where, _)) in zip(names, rubrics.items(), strict=True)
    ]


def _rubric_assertions(
    config: dict[str, Any], base: Path, source: str
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every llm-rubric assertion of the config, with its place in it."""
    default = _included(config.get("defaultTest"), base, source, "defaultTest")
    if isinstance(default, dict):
        yield from _in_asserts(default.get("assert"), "defaultTest.assert")
    tests = _included(config.get("tests"), base, source, "tests")
    if isinstance(tests, dict):
        tests = [tests]
    for i, test in enumerate(tests if isinstance(tests, list) else []):
        if isinstance(test, dict):
            yield from _in_asserts(test.get("assert"), f"tests[{i}].assert")


def _in_asserts(asserts: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The llm-rubric assertions of one ``assert:`` list, and those whose type is no name
    (``type: off``, read by YAML as a boolean), which the caller refuses."""
    for k, item in enumerate(asserts if isinstance(asserts, list) else []):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "llm-rubric" or not isinstance(item.get("type", ""), str):
            yield f"{where}[{k}]", item
        elif item.get("type") == "assert-set":
            yield from _in_asserts(item.get("assert"), f"{where}[{k}].assert")


def _included(value: Any, base: Path, source: str, where: str) -> Any:
    """A ``file://`` reference read (YAML or JSON, relative to the config), else the value."""
    if not (isinstance(value, str) and value.startswith("file://")):
        return value
    path = base / value.removeprefix("file://")
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        message = f"{value}: only YAML or JSON test files are read; inline the tests"
        raise MatrixError(source, [Problem(where, message)])
    try:
        text = read_text(path, str(path), MatrixError, "promptfoo tests")
        return load_yaml(text)
    except yaml.YAMLError as exc:
        raise MatrixError(str(path), [yaml_problem(exc)]) from None
    except MatrixError as exc:  # said as the config's: the file it names, and where
        message = "; ".join(p.render(exc.source) for p in exc.problems)
        raise MatrixError(source, [Problem(where, f"{value}: {message}")]) from None


def _rubric_problem(value: Any) -> str | None:
    if isinstance(value, bool):
        return f"value: the rubric's text is needed, got the boolean {value!r}: " + boolean_hint(
            value, number_due=False
        )
    if not isinstance(value, str) or not value.strip():
        return "value: the rubric's text is needed (a string)"
    if "{{" in value or "{%" in value:
        return (
            "value uses the test's variables ({{...}}): a criterion is one text for every "
            "sample; write it without them"
        )
    if value.startswith("file://"):
        return "value: a rubric in a file is not read; write its text here"
    return None
