"""A promptfoo config (``promptfooconfig.yaml``) read for ``judgegrid init --from``: its
model-graded assertions as criteria, its tests' vars as the samples of a data set.

Three of promptfoo's assertions ask a grader what a judgegrid criterion asks a judge. Each
distinct text (in ``defaultTest`` and every test, assert-sets included) is one criterion, named
by the assertion's ``metric`` or its first words:

- ``llm-rubric``: the grader reads the output and the rubric and answers a pass and a score of
  0..1: a binary criterion on the response, whose verdict is the pass.
- ``model-graded-closedqa``: the grader reads the prompt, the output and the criterion and
  answers Y or N: a binary criterion on the question and the response.
- ``g-eval``: the grader writes evaluation steps, then a level of 0..10 that promptfoo divides by
  10: a scale of 0..10 on the question and the response, the level taken as written (promptfoo
  weights nothing); a list of texts is one criterion each.

An assertion's ``threshold`` has no place in these criteria: a binary criterion's judge answers
pass or fail without a score, and a scale criterion keeps its level without a pass mark. So each
threshold (and g-eval's default, 0.7, and a test's own on its assertions' mean) is said, in a
``Notice`` naming the assertion, which ``init`` prints and writes into the matrix; never dropped
without a word.

A rubric's ``{{var}}`` becomes the var's field, shown to the judge under its title, the
definition naming it there. The tests' ``vars`` (``defaultTest``'s under each test's own; a list
of texts one sample per text, as promptfoo runs one test per text) are the samples, when they
hold every field the criteria read: a var named as a sample field (``VAR_FIELDS``: judgegrid's,
Ragas', DeepEval's and promptfoo's own names) is that field, one a rubric names is a column of
its own, and any other is named in a notice. What cannot be read is refused by a ``MatrixError``
naming the file and the place in it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from judgegrid.core.criterion import FIELD_ALIASES, NOT_CONTENT, SAMPLE_FIELDS, CriterionSpec
from judgegrid.core.errors import MatrixError, Problem
from judgegrid.core.validation import boolean_hint
from judgegrid.inputs.dataset import CONTENT_FIELDS
from judgegrid.inputs.peers import checked_spec, geval_scale, slug, unique_names
from judgegrid.inputs.textfile import as_path, read_text, yaml_problem
from judgegrid.inputs.yaml_text import load_yaml
from judgegrid.metrics.criterion import field_title

# The assertions a grader answers, and the sample fields each shows it besides the rubric's vars.
GRADED = {
    "llm-rubric": ("response",),
    "model-graded-closedqa": ("user_input", "response"),
    "g-eval": ("user_input", "response"),
}
GEVAL_THRESHOLD = 0.7  # promptfoo's, when an assertion gives none (or 0)
GEVAL_TOP = 10  # a g-eval grader's highest level; promptfoo divides the level by it
LIST_FIELDS = ("retrieved_contexts", "reference_contexts")
# A var's name -> the sample field it holds: judgegrid's own names first (the first present
# wins), then Ragas' and DeepEval's (FIELD_ALIASES), then the names promptfoo's own RAG
# assertions read (its context-* assertions read the retrieved context from ``context``).
VAR_FIELDS = {
    **{name: name for name in (*SAMPLE_FIELDS, "reference_contexts")},
    **FIELD_ALIASES,
    "query": "user_input",
    "output": "response",
    "context": "retrieved_contexts",
    "expected": "reference",
    "expected_answer": "reference",
}
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)
VAR_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


@dataclass(frozen=True)
class Notice:
    """Something of the config not carried as promptfoo means it, said at its place: a
    ``warning`` (a threshold the criterion cannot hold) or a ``note``."""

    level: Literal["warning", "note"]
    where: str
    message: str

    def render(self, source: str) -> str:
        """``warning: promptfooconfig.yaml: tests[0].assert[1].threshold: ...``."""
        return f"{self.level}: {Problem(self.where, self.message).render(source)}"


@dataclass(frozen=True)
class PromptfooConfig:
    """What a promptfoo config carries: its criteria, its tests' vars as samples (none when the
    vars lack a field the criteria read), each var written and the field it became, what is not
    carried (about the criteria, about the samples), and every file read."""

    source: str
    criteria: tuple[CriterionSpec, ...]
    samples: tuple[dict[str, Any], ...]
    mapping: dict[str, str]
    criteria_notices: tuple[Notice, ...]
    sample_notices: tuple[Notice, ...]
    files: tuple[Path, ...]

    @property
    def notices(self) -> tuple[Notice, ...]:
        return (*self.criteria_notices, *self.sample_notices)


@dataclass(frozen=True)
class Graded:
    """One model-graded assertion: its place, type, texts (one; g-eval may give several),
    ``metric`` and ``threshold`` (None: not given)."""

    where: str
    kind: str
    texts: tuple[str, ...]
    metric: str | None
    threshold: float | None


@dataclass
class Suite:
    """The config's tests: ``defaultTest`` and each test with its place, the files read, and
    an entry of ``tests:`` that is no test, said."""

    default: dict[str, Any]
    tests: list[tuple[str, dict[str, Any]]]
    files: list[Path]
    unread: list[Notice] = field(default_factory=list)


def criteria_from_promptfoo(path: str | Path) -> list[CriterionSpec]:
    """The criteria of a promptfoo config's model-graded assertions, in the order they first
    appear (``read_promptfoo`` has its samples and notices too)."""
    return list(read_promptfoo(path).criteria)


def read_promptfoo(path: str | Path) -> PromptfooConfig:
    """A promptfoo config's criteria, samples and notices (see the module's docstring);
    MatrixError names the file and the place of every problem found."""
    path = as_path(path, "promptfoo config", MatrixError)
    source = str(path)
    suite = _suite(_config(path, source), path, source)
    graded, var_sets, test_thresholds = _read_tests(suite, source)
    columns = _columns(graded)
    criteria, names = _criteria(graded, columns, source)
    mapping = {**_mapped_vars(var_sets), **columns}
    used: set[str] = set()
    problems: list[Problem] = []
    samples, sample_notices = _samples(var_sets, mapping, criteria, used, problems)
    if problems:
        raise MatrixError(source, problems)
    criteria_notices = [n for g in graded for n in _threshold_notices(g, names[g.where])]
    return PromptfooConfig(
        source,
        tuple(criteria),
        tuple(samples),
        {var: column for var, column in mapping.items() if var in used} if samples else {},
        (*suite.unread, *criteria_notices, *test_thresholds),
        tuple(sample_notices),
        tuple(suite.files),
    )


def _read_tests(
    suite: Suite, source: str
) -> tuple[list[Graded], list[tuple[str, dict[str, Any]]], list[Notice]]:
    """The model-graded assertions, each test's vars and the tests' own thresholds, every
    problem of them refused at once; a config without a model-graded assertion, and a
    rubric's var no test defines, refused too."""
    problems: list[Problem] = []
    graded = _graded(suite, problems)
    var_sets = _var_sets(suite, problems)
    test_thresholds = _test_thresholds(suite, problems)
    if problems:
        raise MatrixError(source, problems)
    if not graded:
        message = (
            "no llm-rubric assertion (nor g-eval, model-graded-closedqa) in defaultTest or "
            "tests: nothing to judge by"
        )
        raise MatrixError(source, [Problem("", message)])
    _check_placeholders(graded, {name for _, v in var_sets for name in v}, source)
    return graded, var_sets, test_thresholds


# -- the config and its tests -------------------------------------------------------------------


def _config(path: Path, source: str) -> dict[str, Any]:
    text = read_text(path, source, MatrixError, "a promptfoo config (tests: with assert:)")
    try:
        config = load_yaml(text)
    except yaml.YAMLError as exc:
        raise MatrixError(source, [yaml_problem(exc)]) from None
    if not isinstance(config, dict):
        raise MatrixError(source, [Problem("", "expected a mapping with tests:")])
    return config


def _suite(config: dict[str, Any], path: Path, source: str) -> Suite:
    """``defaultTest`` and the tests, each read from its file where it names one."""
    suite = Suite({}, [], [path])
    default = _included(config.get("defaultTest"), suite, source, "defaultTest")
    suite.default = default if isinstance(default, dict) else {}
    tests = _included(config.get("tests"), suite, source, "tests")
    if isinstance(tests, dict):
        tests = [tests]
    for i, test in enumerate(tests if isinstance(tests, list) else []):
        if isinstance(test, dict):
            suite.tests.append((f"tests[{i}]", test))
        else:
            message = (
                f"{test!r:.80} is no test (a mapping of vars: and assert:), so it is not read; "
                "a list of test files is not read either: name one file as tests:, or inline them"
            )
            suite.unread.append(Notice("note", f"tests[{i}]", message))
    return suite


def _included(value: Any, suite: Suite, source: str, where: str) -> Any:
    """A ``file://`` reference read (YAML or JSON, relative to the config), else the value."""
    if not (isinstance(value, str) and value.startswith("file://")):
        return value
    path = suite.files[0].parent / value.removeprefix("file://")
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        message = f"{value}: only YAML or JSON test files are read; inline the tests"
        raise MatrixError(source, [Problem(where, message)])
    try:
        text = read_text(path, str(path), MatrixError, "promptfoo tests")
        loaded = load_yaml(text)
    except yaml.YAMLError as exc:
        raise MatrixError(str(path), [yaml_problem(exc)]) from None
    except MatrixError as exc:  # said as the config's: the file it names, and where
        message = "; ".join(p.render(exc.source) for p in exc.problems)
        raise MatrixError(source, [Problem(where, f"{value}: {message}")]) from None
    suite.files.append(path)
    return loaded


# -- the model-graded assertions ----------------------------------------------------------------


def _graded(suite: Suite, problems: list[Problem]) -> list[Graded]:
    """Every model-graded assertion that can be read; what cannot, added to ``problems``."""
    places = [("defaultTest.assert", suite.default.get("assert"))]
    places += [(f"{where}.assert", test.get("assert")) for where, test in suite.tests]
    found = []
    for place, asserts in places:
        for where, item in _in_asserts(asserts, place):
            graded = _read_assertion(where, item, problems)
            if graded is not None:
                found.append(graded)
    return found


def _in_asserts(asserts: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The model-graded assertions of one ``assert:`` list, and those whose type is no name
    (``type: off``, read by YAML as a boolean), which the caller refuses."""
    for k, item in enumerate(asserts if isinstance(asserts, list) else []):
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "")
        if not isinstance(kind, str) or kind in GRADED:
            yield f"{where}[{k}]", item
        elif kind == "assert-set":
            yield from _in_asserts(item.get("assert"), f"{where}[{k}].assert")


def _read_assertion(where: str, item: dict[str, Any], problems: list[Problem]) -> Graded | None:
    kind = item.get("type")
    if not isinstance(kind, str):
        hint = boolean_hint(kind, number_due=False) if isinstance(kind, bool) else "quote it"
        problems.append(Problem(f"{where}.type", f"not a name ({kind!r}): {hint}"))
        return None
    found = []
    texts = _texts(kind, item.get("value"))
    if isinstance(texts, str):
        found.append(Problem(where, texts))
    metric = item.get("metric")
    if isinstance(metric, bool):  # metric: on named it 'true'
        hint = boolean_hint(metric, number_due=False)
        found.append(Problem(f"{where}.metric", f"the boolean {metric!r}: {hint}"))
    threshold = item.get("threshold")
    problem = threshold_problem(threshold) if "threshold" in item else None
    if problem:
        found.append(Problem(f"{where}.threshold", problem))
    problems += found
    if found or isinstance(texts, str):
        return None
    named = str(metric) if metric not in (None, "") else None
    return Graded(where, kind, texts, named, None if threshold is None else float(threshold))


def _texts(kind: str, value: Any) -> tuple[str, ...] | str:
    """The assertion's texts, or why they cannot be read (a g-eval may give a list)."""
    values = value if kind == "g-eval" and isinstance(value, list) and value else [value]
    for text in values:
        problem = _rubric_problem(text, listed=len(values) > 1)
        if problem:
            return problem
    return tuple(str(text).strip() for text in values)


def _rubric_problem(value: Any, listed: bool = False) -> str | None:
    item = "value: each of a g-eval's texts" if listed else "value: the rubric's text"
    if isinstance(value, bool):
        hint = boolean_hint(value, number_due=False)
        return f"{item} is needed, got the boolean {value!r}: {hint}"
    if not isinstance(value, str) or not value.strip():
        return f"{item} is needed (text), got {value!r}"
    if "{%" in value or any(not VAR_NAME.match(inner) for inner in PLACEHOLDER.findall(value)):
        return (
            "value uses template logic (a filter, an attribute, {% ... %}): a criterion is one "
            "text for every sample; write it with plain {{name}}s of the test's vars, or none"
        )
    if value.startswith("file://"):
        return "value: a rubric in a file is not read; write its text here"
    return None


def threshold_problem(value: Any) -> str | None:
    """Why ``value`` is no threshold of promptfoo's (a number from 0 to 1), or None."""
    if isinstance(value, bool):
        return f"the boolean {value!r}: " + boolean_hint(value, number_due=True)
    if not isinstance(value, int | float) or not math.isfinite(value):
        return f"expected a number from 0 to 1, got {value!r}"
    if not 0 <= value <= 1:
        return (
            f"{value:g} is outside 0..1: promptfoo compares it with a score from 0 to 1 "
            "(80% is 0.8)"
        )
    return None


def _test_thresholds(suite: Suite, problems: list[Problem]) -> list[Notice]:
    """A test's own ``threshold`` (on the weighted mean of its assertions' scores), said:
    judgegrid scores each criterion on its own."""
    notices = []
    tests = [("defaultTest", suite.default), *suite.tests]
    for where, test in [(w, t) for w, t in tests if "threshold" in t]:
        value = test["threshold"]
        problem = threshold_problem(value)
        if problem:
            problems.append(Problem(f"{where}.threshold", problem))
            continue
        message = (
            f"{value:g} is not carried: promptfoo passes a test when the weighted mean of its "
            "assertions' scores reaches it; judgegrid scores each criterion on its own"
        )
        notices.append(Notice("warning", f"{where}.threshold", message))
    return notices


# -- the criteria -------------------------------------------------------------------------------


def _check_placeholders(graded: list[Graded], defined: set[str], source: str) -> None:
    """Every ``{{var}}`` of a rubric is a var some test defines: else it would read as
    nothing, in promptfoo and here."""
    problems = []
    for g in graded:
        used = [name for text in g.texts for name in placeholders(text)]
        missing = list(dict.fromkeys(name for name in used if name not in defined))
        if missing:
            message = (
                f"value uses the test's variables ({', '.join('{{' + m + '}}' for m in missing)}) "
                f"and no test's vars define {', '.join(missing)}: define them under vars:, or "
                "write the rubric without them"
            )
            problems.append(Problem(g.where, message))
    if problems:
        raise MatrixError(source, problems)


def placeholders(text: str) -> list[str]:
    """The var names a rubric's ``{{ name }}``s read, in order (its text already checked)."""
    return [inner.strip() for inner in PLACEHOLDER.findall(text)]


def _columns(graded: list[Graded]) -> dict[str, str]:
    """Each var a rubric reads -> the field or column it is shown as: a sample field's name
    (``VAR_FIELDS``), else its own (``var_`` before a name that is judgegrid's own field)."""
    used = dict.fromkeys(name for g in graded for text in g.texts for name in placeholders(text))
    return {name: var_column(name) for name in used}


def var_column(name: str) -> str:
    """The sample field a var holds, or the column it is written as."""
    if name in VAR_FIELDS:
        return VAR_FIELDS[name]
    return f"var_{name}" if name in NOT_CONTENT else name


def _criteria(
    graded: list[Graded], columns: dict[str, str], source: str
) -> tuple[list[CriterionSpec], dict[str, list[str]]]:
    """One criterion per distinct (type, text), and the names of each assertion's."""
    first: dict[tuple[str, str], Graded] = {}
    for g in graded:
        for text in g.texts:
            first.setdefault((g.kind, text), g)
    names = unique_names([slug(g.metric or text) for (_, text), g in first.items()])
    named = dict(zip(first, names, strict=True))
    criteria = [
        checked_spec(_spec(kind, text, name, columns, g.where), g.where, MatrixError, source)
        for ((kind, text), g), name in zip(first.items(), names, strict=True)
    ]
    by_place = {g.where: [named[(g.kind, text)] for text in g.texts] for g in graded}
    return criteria, by_place


def _spec(kind: str, text: str, name: str, columns: dict[str, str], where: str) -> dict[str, Any]:
    read = [columns[var] for var in placeholders(text)]
    fields = tuple(dict.fromkeys([*GRADED[kind], *read]))
    spec: dict[str, Any] = {
        "name": name,
        "definition": _shown_as_fields(text, columns),
        "fields": fields,
    }
    if kind == "g-eval":
        return {**spec, "type": "scale", "scale": geval_scale(None, where)}
    return {**spec, "type": "binary"}


def _shown_as_fields(text: str, columns: dict[str, str]) -> str:
    """The rubric with each ``{{var}}`` naming the field the judge is shown it under."""

    def named(match: re.Match[str]) -> str:
        return f"the {field_title(columns[match.group(1).strip()])} given below"

    return PLACEHOLDER.sub(named, text)


def _threshold_notices(g: Graded, names: list[str]) -> list[Notice]:
    """What of ``g``'s threshold its criteria cannot hold, and why (see the module)."""
    where, given, name = f"{g.where}.threshold", g.threshold, names[0]
    if g.kind == "llm-rubric" and given is not None:
        message = (
            f"{given:g} is not carried into the binary criterion {name}: promptfoo passes this "
            f"llm-rubric only when the grader's score (0 to 1) is also at least {given:g}; a "
            "binary criterion's judge answers pass or fail without a score, so its verdict is "
            "the pass alone"
        )
        return [Notice("warning", where, message)]
    if g.kind == "model-graded-closedqa" and given is not None:
        message = (
            f"{given:g} has no effect: promptfoo applies no threshold to a "
            "model-graded-closedqa (its grader answers Y or N), nor does the binary criterion "
            f"{name} written for it"
        )
        return [Notice("warning", where, message)]
    if g.kind != "g-eval":
        return []
    cut = given or GEVAL_THRESHOLD  # promptfoo reads 0 as none given
    level = math.ceil(round(cut * GEVAL_TOP, 9))
    whose = (
        f"the grader's level for {name}"
        if len(names) == 1
        else f"the mean of the grader's levels for {', '.join(names)}"
    )
    why = (
        f"promptfoo passes this g-eval when {whose}, divided by {GEVAL_TOP}, is at least "
        f"{cut:g} (level {level} or more); a scale criterion keeps the level and has no pass mark"
    )
    if given is None:
        return [Notice("note", g.where, f"promptfoo's default threshold, 0.7, not carried: {why}")]
    return [Notice("warning", where, f"{given:g} is not carried: {why}")]


# -- the tests' vars: the samples ---------------------------------------------------------------


def _var_sets(suite: Suite, problems: list[Problem]) -> list[tuple[str, dict[str, Any]]]:
    """Each test's vars, ``defaultTest``'s under its own, with the test's place."""
    default = _vars_of("defaultTest", suite.default, problems)
    return [(where, {**default, **_vars_of(where, test, problems)}) for where, test in suite.tests]


def _vars_of(where: str, test: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    value = test.get("vars")
    if value is None:
        return {}
    if not isinstance(value, dict):
        shown = repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."
        message = f"expected a mapping of names to values (question: ...), got {shown}"
        problems.append(Problem(f"{where}.vars", message))
        return {}
    return {str(name): given for name, given in value.items()}


def _mapped_vars(var_sets: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """Each var that names a sample field, in ``VAR_FIELDS``' order (the first present wins)."""
    seen = {name for _, variables in var_sets for name in variables}
    return {name: target for name, target in VAR_FIELDS.items() if name in seen}


def _samples(
    var_sets: list[tuple[str, dict[str, Any]]],
    mapping: dict[str, str],
    criteria: list[CriterionSpec],
    used: set[str],
    problems: list[Problem],
) -> tuple[list[dict[str, Any]], list[Notice]]:
    """The samples of the tests' vars, when they hold every field the criteria read (the vars
    written added to ``used``), and what of the vars is not written, said."""
    samples: list[dict[str, Any]] = []
    notices: list[Notice] = []
    for where, variables in var_sets:
        samples += _test_samples((where, variables), mapping, used, (problems, notices))
    if not any(variables for _, variables in var_sets):
        return [], notices
    read = dict.fromkeys(f for c in criteria for f in c.fields)
    missing = [f for f in read if not any(f in s for s in samples)]
    if missing:
        return [], [_not_written(missing, list(read), mapping)]
    left = [
        name
        for name in dict.fromkeys(n for _, variables in var_sets for n in variables)
        if name not in mapping
    ]
    if left:
        message = (
            f"not written to the data set, being no sample field and read by no rubric: "
            f"{', '.join(left)} (to show one to the judge, add it to a criterion's fields: and "
            "to the data set)"
        )
        notices.append(Notice("note", "vars", message))
    return samples, notices


def _not_written(missing: list[str], read: list[str], mapping: dict[str, str]) -> Notice:
    """Why the vars are no data set: the fields the criteria read that none holds, each with
    the names of the vars that would; and every field the criteria read."""
    named = []
    for column in missing:
        names = [n for n, t in VAR_FIELDS.items() if t == column]
        names += [v for v, c in mapping.items() if c == column and v not in names]
        named.append(f"{column} (a var named {_one_of(names)})")
    message = (
        f"no test's vars hold {', '.join(named)}, which the criteria read, so the vars are "
        "not written as a data set (promptfoo makes the outputs when it runs the prompts: "
        "give each test's output under vars, or name a data set of your own); a data set for "
        f"these criteria holds {', '.join(read)}"
    )
    return Notice("note", "vars", message)


def _one_of(names: list[str]) -> str:
    """``a, b or c``: the names a field may be given under (a column's own name alone)."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _test_samples(
    test: tuple[str, dict[str, Any]],
    mapping: dict[str, str],
    used: set[str],
    said: tuple[list[Problem], list[Notice]],
) -> list[dict[str, Any]]:
    """One test's samples: its vars mapped, one sample per combination of the texts of its
    listed vars (as promptfoo runs one test per combination); ``said``: the problems and the
    notices, added to."""
    (where, variables), (problems, notices) = test, said
    choices: dict[str, list[Any]] = {}
    for var, column in mapping.items():
        value = variables.get(var)
        if _blank(value):
            continue
        at = f"{where}.vars.{var}"
        if column in choices:
            notices.append(Notice("note", at, f"also read as {column}; the first var is kept"))
            continue
        if isinstance(value, str) and value.startswith("file://"):
            message = f"{value}: promptfoo reads this var from a file; judgegrid does not"
            notices.append(Notice("note", at, message + ", so it is not written"))
            continue
        choices[column] = [_field_value(v, column, at, problems) for v in _runs_of(value)]
        used.add(var)
    if not any(column in CONTENT_FIELDS for column in choices):  # else refused as empty
        if variables:
            notices.append(Notice("note", where, "its vars hold no sample field: not written"))
        return []
    combinations = list(itertools.product(*choices.values()))
    test_id = "test-" + where.removeprefix("tests[").removesuffix("]")  # tests[3]: test-3
    return [
        {
            "id": test_id if len(combinations) == 1 else f"{test_id}-{k}",
            **dict(zip(choices, combo, strict=True)),
        }
        for k, combo in enumerate(combinations)
    ]


def _runs_of(value: Any) -> list[Any]:
    """The values promptfoo runs a test with: one per text of a list of texts, else the
    value itself."""
    return value if isinstance(value, list) and value and isinstance(value[0], str) else [value]


def _field_value(value: Any, column: str, where: str, problems: list[Problem]) -> Any:
    """A var's value as the field it fills holds it: text (a number as its text), or a list
    of texts for the contexts; what cannot be, added to ``problems``."""
    if isinstance(value, bool):
        hint = boolean_hint(value, number_due=False)
        problems.append(Problem(where, f"the boolean {value!r}: {hint}"))
        return None
    if isinstance(value, float) and not math.isfinite(value):
        problems.append(Problem(where, f"expected text (or a list of texts), got {value!r}"))
        return None
    if isinstance(value, int | float):  # promptfoo writes a number as its text
        value = str(int(value)) if float(value).is_integer() else str(value)
    if not isinstance(value, str):
        kind = "a mapping" if isinstance(value, dict) else repr(value)
        problems.append(Problem(where, f"expected text (or a list of texts), got {kind}"))
        return None
    return [value] if column in LIST_FIELDS else value


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or value == []
