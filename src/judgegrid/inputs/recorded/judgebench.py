"""JudgeBench's files as its ``run_judge.py`` writes them (ScalerLab/JudgeBench, ICLR 2025), read
verbatim: one JSON object a line, one response pair a line, one judge a file.

Each line holds ``pair_id``, ``source`` (mmlu-pro-*, livebench-reasoning, livebench-math,
livecodebench), ``question``, ``response_A``, ``response_B`` and ``label`` (``A>B`` or ``B>A``:
which response is objectively correct); a judge's file adds ``judge_name`` and ``judgments``:
two trials, the first with the pair as given (A shown first), the second swapped, each with its
``decision`` (``A>B``, ``B>A``, ``A=B`` or null) in the terms of the order it showed, and for a
reward model the two ``scores`` it gave. A reward model's ``judgments`` is a Python literal
string, not JSON: read with ``ast.literal_eval``, never ``eval``.

Read as: one pairwise criterion ``judgebench`` comparing ``response_A`` (a) with ``response_B``
(b), combined by JudgeBench's own sum rule (``combine: sum``); trial 1 is order ``ab``, trial 2
order ``ba``; the label is the pair's known truth (the sample's own label, a or b); the source's
category (knowledge, reasoning, math, coding: the paper's Tables 2 and 3) is the pair's group. The
data set's own file (pairs without ``judgments``) gives samples and truth, no verdicts.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.pairwise import ORDERS
from judgegrid.core.sample import Sample
from judgegrid.inputs.recorded.lines import MAX_LINE_BYTES, numbered_lines
from judgegrid.inputs.recorded.verdicts import (
    Recorded,
    json_details,
    place,
    samples_of,
    verdict_frame,
)
from judgegrid.metrics.pairwise import Position, winner_of

NAME = "judgebench"
CRITERION = "judgebench"
COMPARED = ("response_A", "response_B")
PAIR_FIELDS = ("pair_id", "question", "response_A", "response_B", "label")
LABELS = {"A>B": "a", "B>A": "b"}
# a trial's decision as the position it chose, in the order the trial showed
DECISIONS: dict[str, Position] = {"A>B": "A", "B>A": "B", "A=B": "tie"}
CATEGORIES = {"livebench-reasoning": "reasoning", "livebench-math": "math"}
CATEGORIES |= {"livecodebench": "coding"}
DEFINITION = (
    "Which response is objectively correct? (JudgeBench, Tan et al. 2025: verdicts imported "
    "from its run_judge.py files; the label is the known truth)"
)


def criterion() -> CriterionSpec:
    """The one criterion a JudgeBench file judges, combined by JudgeBench's sum rule."""
    return CriterionSpec(
        name=CRITERION,
        definition=DEFINITION,
        type="pairwise",
        fields=("user_input",),
        compare=COMPARED,
        combine="sum",
    )


def category(source: str) -> str:
    """The paper's category of a pair's source: mmlu-pro-* is knowledge."""
    if source.startswith("mmlu-pro"):
        return "knowledge"
    return CATEGORIES.get(source, source)


def looks_like(record: Any) -> bool:
    """Whether a file's first record is JudgeBench's: a pair with its label."""
    return isinstance(record, dict) and all(f in record for f in PAIR_FIELDS)


def read(paths: Sequence[Path], cap: int = MAX_LINE_BYTES) -> Recorded:
    """Every file's pairs and verdicts, as one ``Recorded``; DatasetError naming each bad line
    (not JSON, not a pair, a decision JudgeBench does not write, a judgments field that is
    neither a list nor a Python literal of one)."""
    found: list[tuple[str, Sample]] = []
    columns: dict[str, list[Any]] = {"sample_id": [], "judge": [], "order": [], "winner": []}
    columns |= {"details": [], "file": [], "line": []}
    groups: dict[str, str] = {}
    judges: dict[str, str] = {}
    for path in paths:
        source = str(path)
        problems: list[Problem] = []
        judge = None
        for number, text in numbered_lines(path, source, cap):
            where = f"line {number}"
            try:
                record = _record(text)
                sample = _sample(record)
                trials = _trials(record)
            except ValueError as exc:
                problems.append(Problem(where, str(exc)))
                continue
            found.append((place(source, where), sample))
            groups[sample.id] = category(str(record.get("source", "")))
            if trials is None:
                continue
            judge = judge or _judge_of(record, trials, source, judges)
            for order, trial in zip(ORDERS, trials, strict=True):
                position = DECISIONS.get(str(trial.get("decision")))
                columns["sample_id"].append(sample.id)
                columns["judge"].append(judge)
                columns["order"].append(order)
                columns["winner"].append(None if position is None else winner_of(position, order))
                columns["details"].append(_trial_details(trial, record))
                columns["file"].append(source)
                columns["line"].append(where)
        if problems:
            raise DatasetError(source, problems[:50])
    samples = samples_of(found, paths)
    verdicts = verdict_frame({**columns, "metric": [CRITERION] * len(columns["judge"])})
    notes = [f"{path}: judge {judge!r}" for path, judge in judges.items()]
    return Recorded(
        NAME,
        tuple(map(str, paths)),
        tuple(samples),
        verdicts,
        criteria=(criterion(),),
        groups=groups,
        notes=tuple(notes),
    )


def _record(text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not looks_like(record):
        missing = [f for f in PAIR_FIELDS if not isinstance(record, dict) or f not in record]
        raise ValueError(f"not a JudgeBench pair: no {', '.join(missing)}")
    return dict(record)


def _sample(record: dict[str, Any]) -> Sample:
    label = LABELS.get(record["label"])
    if label is None:
        raise ValueError(f"label: expected A>B or B>A, got {record['label']!r}")
    texts = {name: record[name] for name in (*COMPARED, "question")}
    wrong = [name for name, value in texts.items() if not isinstance(value, str)]
    if wrong:
        raise ValueError(f"{wrong[0]}: expected text, got {type(texts[wrong[0]]).__name__}")
    try:
        return Sample(
            id=str(record["pair_id"]),
            user_input=texts["question"],
            extra={name: texts[name] for name in COMPARED},
            labels={CRITERION: label},
        )
    except DatasetError as exc:
        raise ValueError("; ".join(p.message for p in exc.problems)) from None


def _trials(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The two trials of a judge's line (None on the data set's own lines, which have none)."""
    if "judgments" not in record:
        return None
    raw = record["judgments"]
    if isinstance(raw, str):  # a reward model's: a Python literal, read without evaluating it
        try:
            raw = ast.literal_eval(raw)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise ValueError("judgments: neither a list nor a Python literal of one") from None
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(t, dict) for t in raw):
        raise ValueError("judgments: expected two trials (the pair as given, then swapped)")
    for k, trial in enumerate(raw):
        decision = trial.get("decision")
        if decision is not None and decision not in DECISIONS:
            raise ValueError(
                f"judgments[{k}].decision: expected A>B, B>A, A=B or null, got {decision!r}"
            )
    return raw


def _judge_of(
    record: dict[str, Any], trials: list[dict[str, Any]], source: str, judges: dict[str, str]
) -> str:
    """The judge a file holds, named as the source names it: its judgment's ``judge_model``
    (``judge_name/judge_model`` if another file already has that model under another prompt)."""
    judgment = trials[0].get("judgment") if isinstance(trials[0].get("judgment"), dict) else {}
    named = (judgment or {}).get("judge_model") or record.get("judge_name")
    model = str(named or Path(source).stem)
    name = model
    if name in judges.values():
        name = f"{record.get('judge_name', 'judge')}/{model}"
    if name in judges.values():
        raise DatasetError(source, [Problem("", f"a second file of judge {name!r}")])
    judges[source] = name
    return name


def _trial_details(trial: dict[str, Any], record: dict[str, Any]) -> str | None:
    """What the trial recorded beside its decision: the decision as written, a reward model's
    scores, the judge's reply, the prompt's name."""
    judgment = trial.get("judgment") if isinstance(trial.get("judgment"), dict) else {}
    return json_details(
        {
            "decision": trial.get("decision"),
            "scores": (judgment or {}).get("scores"),
            "reply": (judgment or {}).get("response") or None,
            "judge_name": record.get("judge_name"),
            "source": record.get("source"),
        }
    )
