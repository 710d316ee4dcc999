"""Inspect AI's eval logs (UK AISI's ``inspect_ai``), read with its own ``read_eval_log``: a
``.eval`` file (a zip archive, Inspect's default) or a ``.json`` one (``--log-format json``).

Each sample's score of each scorer at each epoch is one verdict: the scorer is the metric (a
judgegrid metric when it is named as one) or the criterion, the epoch the repeat (epoch 1 is
repeat 0), and the judge the grader model the scorer names in its options (``model_graded_qa``
and ``model_graded_fact`` given ``model=``), else the model the log evaluated. A score's value
``C``/``I`` (correct, incorrect) is a binary criterion's 1/0 (``P``, partial, makes a labels
criterion: correct 1, partial 0.5, incorrect 0; ``N``, no answer, is no verdict: left out, and
said); numbers are
kept: a judgegrid metric's score, 0/1 a binary criterion's, whole numbers a scale's levels.
The sample's input, target and output are its question, reference and response where the log
has them; the score's answer and explanation are kept in the verdict's details.

``inspect_ai`` is imported only when a log is read, so judgegrid runs without it.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.sample import Sample
from judgegrid.inputs.recorded.lines import head_bytes
from judgegrid.inputs.recorded.verdicts import (
    Recorded,
    json_details,
    place,
    samples_of,
    verdict_frame,
)
from judgegrid.metrics import builtin_metric_named

NAME = "inspect"
MARK = "inspect_log"  # the key of the record ``sniff`` makes of a log, for ``looks_like``
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5}
NO_ANSWER = "N"
PARTIAL_LABELS = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
ZIP_MAGIC = b"PK\x03\x04"
_JSON_LOG = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def sniff(path: Path) -> dict[str, Any] | None:
    """A log's mark when the file is an Inspect log (a ``.eval`` zip, cut short or whole: the
    reader then says which; JSON opening with its version and status), else None; reads a few
    bytes, not the log."""
    suffix, head = path.suffix.lower(), head_bytes(path)
    if head is None:
        return None
    if suffix == ".eval" and head.startswith(ZIP_MAGIC):
        return {MARK: str(path)}
    if suffix == ".json" and _JSON_LOG.match(head):
        return {MARK: str(path)}
    return None


def looks_like(record: Any) -> bool:
    """Whether a file's first record is ``sniff``'s mark of an Inspect log."""
    return isinstance(record, dict) and MARK in record


def read(paths: Sequence[Path]) -> Recorded:
    """Every log's scores as one ``Recorded``; DatasetError naming the file, sample, epoch and
    scorer of each fault (a file that is no readable log, a score that is neither a letter nor
    a number, a scorer whose values make no criterion)."""
    found: list[tuple[str, Sample]] = []
    columns: dict[str, list[Any]] = {k: [] for k in ("sample_id", "judge", "metric", "repeat")}
    columns |= {"score": [], "details": [], "file": [], "line": []}
    notes: list[str] = []
    for path in paths:
        source = str(path)
        log = _log(path, source)
        judges = _judges(log)
        problems: list[Problem] = []
        unscored = unanswered = 0
        for sample in log.samples or []:
            where = f"sample {sample.id} epoch {sample.epoch}"
            found.append((place(source, where), _sample(sample)))
            if not sample.scores:
                unscored += 1
            for scorer, score in (sample.scores or {}).items():
                try:
                    value = _value(score.value)
                except ValueError as exc:
                    problems.append(Problem(f"{where}: scores.{scorer}.value", str(exc)))
                    continue
                if value is None:  # N, no answer: no verdict, so no cell (never a 0)
                    unanswered += 1
                    continue
                columns["sample_id"].append(str(sample.id))
                columns["judge"].append(judges.get(scorer, str(log.eval.model)))
                columns["metric"].append(scorer)
                columns["repeat"].append(int(sample.epoch) - 1)
                columns["score"].append(value)
                columns["details"].append(_details(score, log))
                columns["file"].append(source)
                columns["line"].append(where)
        if problems:
            raise DatasetError(source, problems[:50])
        notes.append(f"{source}: task {log.eval.task!r}, model {log.eval.model}, {log.status}")
        if unscored:
            notes.append(f"{source}: {unscored} samples without a score (an error?) left out")
        if unanswered:
            notes.append(f"{source}: {unanswered} scores N (no answer) left out: no verdict")
    samples = samples_of(found, paths)
    verdicts = verdict_frame(columns)
    criteria = _criteria(verdicts)
    letters = {c.name for c in criteria if c.type == "labels"}
    if letters:  # a partial scorer's scores are its labels' scores, already: nothing to map
        notes.append(f"scorers with partial credit read as labels: {', '.join(sorted(letters))}")
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(samples),
        verdicts,
        criteria=tuple(criteria),
        notes=tuple(notes),
    )


def _log(path: Path, source: str) -> Any:
    """The log, read whole by Inspect; DatasetError when Inspect is missing or cannot read it."""
    if not path.is_file():
        raise DatasetError(source, [Problem("", "file not found")])
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        message = "reading Inspect logs needs inspect_ai: pip install inspect-ai"
        raise DatasetError(source, [Problem("", message)]) from None
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # Inspect raises zip, JSON and validation errors alike
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        message = f"not a readable Inspect log ({type(exc).__name__}: {text[:200]})"
        if path.suffix.lower() == ".eval" and not zipfile.is_zipfile(path):
            message += "; the zip has no end: is the file cut short (a run still writing it)?"
        raise DatasetError(source, [Problem("", message)]) from None


def _judges(log: Any) -> dict[str, str]:
    """Each scorer's grader model, where its options name one (``model=`` of a model-graded
    scorer); the others' judge is the model evaluated."""
    judges = {}
    for scorer in log.eval.scorers or []:
        model = (scorer.options or {}).get("model")
        if isinstance(model, dict):
            model = model.get("model")
        if isinstance(model, str) and model:
            judges[scorer.name] = model
    return judges


def _value(value: Any) -> float | None:
    """A score's value as a number: C/I/P as 1/0/0.5, N (no answer) as None, true/false, a
    number kept; a list or dict of values (a multi-score) is refused."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        if math.isnan(value):
            return None
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.upper() in LETTERS:
            return LETTERS[text.upper()]
        if text.upper() == NO_ANSWER:
            return None
        try:
            return float(text)
        except ValueError:
            pass
    raise ValueError(
        f"expected C, I, P, N or a number, got {json.dumps(value, default=str)[:80]}; a scorer "
        "of several values is not read"
    )


def _sample(sample: Any) -> Sample:
    """The sample's texts: its input (a chat's user turns joined), target and output."""
    question = sample.input
    if not isinstance(question, str):
        question = "\n".join(m.text for m in question if getattr(m, "role", "") == "user")
    target = sample.target
    if isinstance(target, list):
        target = "\n".join(map(str, target))
    output = sample.output.completion if sample.output is not None else None
    return Sample(
        id=str(sample.id),
        user_input=question or None,
        reference=target or None,
        response=output or None,
    )


def _details(score: Any, log: Any) -> str | None:
    return json_details(
        {
            "value": score.value,
            "answer": score.answer,
            "explanation": score.explanation,
            "task": log.eval.task,
            "model": str(log.eval.model),
        }
    )


def _criteria(verdicts: Any) -> list[CriterionSpec]:
    """A criterion for each scorer that is no judgegrid metric: binary for 0/1, labels where
    partial credit (0.5) is given too, a scale for other whole numbers."""
    criteria = []
    for metric, block in verdicts.groupby("metric", sort=False):
        name = str(metric)
        if builtin_metric_named(name) == name:
            continue
        values = set(block["score"].dropna().tolist())
        definition = f"{name} (an Inspect scorer; verdicts imported from its log)"
        row = block.iloc[0]
        try:
            if values <= {0.0, 1.0}:
                spec = CriterionSpec(name=name, definition=definition, type="binary")
            elif values <= {0.0, 0.5, 1.0}:
                spec = CriterionSpec(
                    name=name, definition=definition, type="labels", labels=PARTIAL_LABELS
                )
            elif all(float(v).is_integer() for v in values):
                low, high = int(min(values)), int(max(values))
                scale = {level: str(level) for level in range(low, high + 1)}
                spec = CriterionSpec(name=name, definition=definition, type="scale", scale=scale)
            else:
                message = (
                    f"scorer {name!r} gives fractional scores, which make no criterion; name "
                    "it as a judgegrid metric to read it as one"
                )
                raise DatasetError(row["file"], [Problem(f"{row['line']}: scores.{name}", message)])
        except ValueError as exc:
            message = str(exc).splitlines()[-1] if str(exc) else "not a criterion's name"
            raise DatasetError(
                row["file"], [Problem(f"{row['line']}: scores.{name}", message)]
            ) from None
        criteria.append(spec)
    return criteria
