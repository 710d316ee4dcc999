"""promptfoo's results file (``promptfoo eval -o results.json``), read as it is: one JSON
document, ``results.results`` a list of one result per test, prompt and provider, each with its
``gradingResult`` and that grading's ``componentResults``, one per assertion.

The three assertions a grader answers (``inputs.promptfoo.GRADED``: ``llm-rubric``,
``model-graded-closedqa``, ``g-eval``) are read; promptfoo's other assertions (``contains``,
``javascript``, ...) call no judge and are left out, and said. Each graded component is one
verdict: the sample is the test's output by one provider under one prompt (its id
``t{testIdx}.p{promptIdx}.{provider}``, its question the rendered prompt, its response the
output); the criterion is the assertion's, named as ``judgegrid init --from`` names it from the
config (its ``metric``, else the rubric's first words): ``llm-rubric`` and ``closedqa`` binary
(the verdict is the component's ``pass``), ``g-eval`` a scale of 0..10 (the level is promptfoo's
score times 10, as promptfoo divided it); the judge is the grader the assertion, the test or
``defaultTest`` names (``options.provider``), else promptfoo's default grader. The component's
pass, score and reason are kept in the verdict's details, its tokens as the verdict's tokens.
A grading promptfoo failed because its grader's reply could not be read (``metadata.graderError``)
is no verdict: left out, and said, never a fail.
A test run more than once (``--repeat N``, which numbers each run as a test of its own, its
test case unchanged) is one sample, its runs repeats in the order they appear.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.sample import Sample
from judgegrid.inputs.peers import geval_scale, slug, unique_names
from judgegrid.inputs.promptfoo import GEVAL_TOP, GRADED
from judgegrid.inputs.recorded.lines import head_bytes
from judgegrid.inputs.recorded.verdicts import (
    Recorded,
    json_details,
    place,
    read_json_document,
    samples_of,
    verdict_frame,
)

NAME = "promptfoo"
DEFAULT_GRADER = "promptfoo-default-grader"  # promptfoo's own choice, which the file does not say
_OPENING = re.compile(rb'^\s*\{\s*"evalId"\s*:')
MARK = "promptfoo_results"


def sniff(path: Path) -> dict[str, Any] | None:
    """A results file's mark when the file opens as promptfoo writes one (``{"evalId": ...``),
    else None; reads a few bytes."""
    head = head_bytes(path) if path.suffix.lower() == ".json" else None
    return {MARK: str(path)} if head is not None and _OPENING.match(head) else None


def looks_like(record: Any) -> bool:
    """Whether a file's first record is promptfoo's results (``sniff``'s mark, or the document
    itself written on one line)."""
    return isinstance(record, dict) and (MARK in record or {"evalId", "results"} <= set(record))


def read(paths: Sequence[Path]) -> Recorded:
    """Every file's graded components as one ``Recorded``; DatasetError naming the file and the
    place in it (``results.results[3].gradingResult.componentResults[1].pass``) of each fault."""
    found: list[tuple[str, Sample]] = []
    rows: list[dict[str, Any]] = []
    # (type, text) -> the first place it was met and the assertion's metric there
    kinds: dict[tuple[str, str], tuple[str, str | None]] = {}
    left_out: Counter[str] = Counter()
    failed = 0
    for path in paths:
        source = str(path)
        document = _document(path, source)
        problems: list[Problem] = []
        default_grader = _grader(_dig(document, "config", "defaultTest", "options", "provider"))
        tests: dict[str, Any] = {}  # a test case as written -> the testIdx it first had
        for i, result in enumerate(_results(document, source)):
            where = f"results.results[{i}]"
            case = json.dumps(result.get("testCase"), sort_keys=True, default=str)
            try:
                sample = _sample(result, tests.setdefault(case, result.get("testIdx")))
            except ValueError as exc:
                problems.append(Problem(where, str(exc)))
                continue
            found.append((place(source, where), sample))
            test_grader = _grader(_dig(result, "testCase", "options", "provider"))
            for k, component in _components(result.get("gradingResult")):
                at = f"{where}.gradingResult.componentResults[{k}]"
                assertion = component.get("assertion")
                kind = assertion.get("type") if isinstance(assertion, dict) else None
                if kind not in GRADED:
                    left_out[str(kind)] += 1
                    continue
                if _dig(component, "metadata", "graderError") is True:
                    failed += 1  # the grader gave no verdict (promptfoo failed it): no cell
                    continue
                assert isinstance(assertion, dict)
                try:
                    row = _row(component, assertion, str(kind))
                except ValueError as exc:
                    problems.append(Problem(at, str(exc)))
                    continue
                grader = _grader(assertion.get("provider")) or test_grader or default_grader
                kinds.setdefault((row["kind"], row["text"]), (at, row["metric_name"]))
                rows.append(
                    {**row, "sample_id": sample.id, "judge": grader or DEFAULT_GRADER}
                    | {"file": source, "line": at}
                )
        if problems:
            raise DatasetError(source, problems[:50])
    samples = samples_of(found, paths)
    criteria, named = _criteria(kinds)
    columns = _columns(rows, named)
    notes = [f"assertions that call no judge, left out: {_counted(left_out)}"] if left_out else []
    if failed:
        notes.append(f"gradings whose grader gave no verdict (graderError), left out: {failed}")
    if any(r["judge"] == DEFAULT_GRADER for r in rows):
        notes.append(f"a grader the file does not name is called {DEFAULT_GRADER!r}")
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(samples),
        verdict_frame(columns),
        criteria=tuple(criteria),
        notes=tuple(notes),
    )


def _document(path: Path, source: str) -> dict[str, Any]:
    document = read_json_document(path, source)
    if not looks_like(document):
        message = "not promptfoo's results: no evalId and results (write it with -o FILE.json)"
        raise DatasetError(source, [Problem("", message)])
    return dict(document)


def _results(document: dict[str, Any], source: str) -> list[dict[str, Any]]:
    results = _dig(document, "results", "results")
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        message = "expected a list of results (promptfoo's results file, version 3 or later)"
        raise DatasetError(source, [Problem("results.results", message)])
    return results


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _grader(provider: Any) -> str | None:
    """A grader's name as promptfoo's options give it: an id, or a provider's label or id."""
    if isinstance(provider, str) and provider.strip():
        return provider.strip()
    if isinstance(provider, dict):
        named = provider.get("label") or provider.get("id")
        return str(named) if named else None
    return None


def _sample(result: dict[str, Any], test: Any) -> Sample:
    """The output one provider gave to one test under one prompt, with its rendered prompt;
    ``test``: the test's index where it first appears (``--repeat`` numbers each repeat as a
    test of its own, the test case the same)."""
    provider = _grader(result.get("provider"))
    prompt = result.get("promptIdx")
    if provider is None or not isinstance(test, int) or not isinstance(prompt, int):
        raise ValueError("expected provider, testIdx and promptIdx (promptfoo's results)")
    output = _dig(result, "response", "output")
    if output is not None and not isinstance(output, str):
        output = json.dumps(output, ensure_ascii=False)
    question = _dig(result, "prompt", "raw")
    return Sample(
        id=f"t{test}.p{prompt}.{provider}",
        user_input=question if isinstance(question, str) and question else None,
        response=output or None,
    )


def _components(grading: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """A grading's components, numbered as in the file (none where the result has no grading)."""
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    for k, component in enumerate(components or []):
        if isinstance(component, dict):
            yield k, component


def _row(component: dict[str, Any], assertion: dict[str, Any], kind: str) -> dict[str, Any]:
    """A component's verdict: the pass as 1/0, or g-eval's level; ValueError naming the field."""
    passed, score = component.get("pass"), component.get("score")
    if not isinstance(passed, bool):
        raise ValueError(f"pass: expected true or false, got {json.dumps(passed)}")
    if kind == "g-eval":
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise ValueError(f"score: expected g-eval's score of 0..1, got {json.dumps(score)}")
        level = score * GEVAL_TOP
        if abs(level - round(level)) > 1e-9:
            raise ValueError(f"score: {score:g} is no level of 0..{GEVAL_TOP} divided by it")
        value = float(round(level))
    else:
        value = 1.0 if passed else 0.0
    text = assertion.get("value")
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    tokens = component.get("tokensUsed") if isinstance(component.get("tokensUsed"), dict) else {}
    return {
        "kind": kind,
        "text": text,
        "metric_name": assertion.get("metric"),
        "score": value,
        "tokens_in": (tokens or {}).get("prompt"),
        "tokens_out": (tokens or {}).get("completion"),
        "details": json_details(
            {"type": kind, "pass": passed, "score": score, "reason": component.get("reason")}
        ),
    }


def _criteria(
    kinds: dict[tuple[str, str], tuple[str, str | None]],
) -> tuple[list[CriterionSpec], dict[tuple[str, str], str]]:
    """One criterion per distinct (type, text), named as ``init --from`` names the config's:
    its ``metric``, else the rubric's first words."""
    keys = list(kinds)
    names = unique_names([slug(kinds[key][1] or key[1]) for key in keys])
    criteria = []
    for (kind, text), name in zip(keys, names, strict=True):
        spec: dict[str, Any] = {"name": name, "definition": text, "fields": GRADED[kind]}
        if kind == "g-eval":
            spec |= {"type": "scale", "scale": geval_scale(None, kinds[(kind, text)][0])}
        else:
            spec |= {"type": "binary"}
        criteria.append(CriterionSpec.model_validate(spec))
    return criteria, dict(zip(keys, names, strict=True))


def _columns(rows: list[dict[str, Any]], named: dict[tuple[str, str], str]) -> dict[str, list[Any]]:
    """The verdicts' columns, each (judge, sample, criterion) numbered as a repeat in order."""
    seen: Counter[tuple[str, str, str]] = Counter()
    columns: dict[str, list[Any]] = {
        k: []
        for k in ("sample_id", "judge", "metric", "repeat", "score", "tokens_in", "tokens_out")
    }
    columns |= {"details": [], "file": [], "line": []}
    for row in rows:
        metric = named[(row["kind"], row["text"])]
        key = (row["judge"], row["sample_id"], metric)
        columns["metric"].append(metric)
        columns["repeat"].append(seen[key])
        seen[key] += 1
        for name in ("sample_id", "judge", "score", "tokens_in", "tokens_out", "details"):
            columns[name].append(row[name])
        columns["file"].append(row["file"])
        columns["line"].append(row["line"])
    return columns


def _counted(counter: Counter[str]) -> str:
    return ", ".join(f"{kind} ({n})" for kind, n in counter.most_common())
