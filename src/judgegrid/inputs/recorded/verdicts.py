"""``Recorded``: what a reader of recorded verdicts makes of its files, the one value the writer
(``run.importing``) takes, whatever the format; and the checks every format shares.

A verdict is one row of ``verdicts`` (``VERDICT_COLUMNS``): a judge's answer about one sample for
one metric or criterion at one repeat; for a pairwise criterion, one order of the pair (``order``
``ab``: answer a shown first, ``ba``: b first) with its ``winner`` in the pair's own terms (a, b,
tie, or None: the judge gave no verdict). ``score`` is a metric's score or a criterion's category
score; ``cost``, ``tokens_in``, ``tokens_out`` and ``latency_s`` are NaN where the source does not
say (unknown, never 0). ``file`` and ``line`` say where the row came from, and ``details`` (JSON
text or None) keeps what else the source recorded of it (a reward model's scores, the judge's
text, configuration columns).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError, Problem
from judgegrid.core.records import Label
from judgegrid.core.sample import Sample
from judgegrid.metrics import builtin_metric_named

VERDICT_COLUMNS = [
    *("sample_id", "judge", "metric", "repeat", "order", "winner", "score"),
    *("cost", "tokens_in", "tokens_out", "latency_s", "details", "file", "line"),
]
USAGE_COLUMNS = ("cost", "tokens_in", "tokens_out", "latency_s")
KEY_COLUMNS = ["judge", "metric", "sample_id", "repeat", "order"]


@dataclass(frozen=True)
class Recorded:
    """Verdicts recorded elsewhere, as one reader read them (see the module's docstring).

    ``samples``: every sample a verdict or label names, with the texts the files give;
    ``criteria``: the criteria the verdicts are of (a built-in metric needs none); ``labels``:
    people's labels (``records.Label``, source ``import``), each with where it came from; a
    known truth may instead be the samples' own ``labels`` (annotator ``dataset``); ``groups``:
    a sample's group (a benchmark's category), for the accuracy by group; ``notes``: what the
    reader detected or left out, said to the user."""

    format: str
    files: tuple[str, ...]
    samples: tuple[Sample, ...]
    verdicts: pd.DataFrame
    criteria: tuple[CriterionSpec, ...] = ()
    labels: tuple[tuple[str, Label], ...] = ()  # (where it came from, the label)
    groups: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def judges(self) -> list[str]:
        """The judges in the order they first appear."""
        return [str(j) for j in self.verdicts["judge"].unique().tolist()]

    @property
    def metrics(self) -> list[str]:
        """The built-in metrics the verdicts are of, in the order they first appear."""
        named = self.verdicts["metric"].unique().tolist()
        own = {c.name for c in self.criteria}
        return [m for m in named if m not in own]


def verdict_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """The verdicts table from columns (lists or Series of one length); a column not given is
    empty (None, NaN for numbers), ``repeat`` 0 and ``order`` ""."""
    length = len(next(iter(columns.values()))) if columns else 0
    defaults: dict[str, Any] = {"repeat": 0, "order": ""}
    data = {
        name: columns[name] if name in columns else [defaults.get(name)] * length
        for name in VERDICT_COLUMNS
    }
    frame = pd.DataFrame(data, columns=VERDICT_COLUMNS)
    for name in ("score", *USAGE_COLUMNS):
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)
    return frame


def place(file: str, line: str) -> str:
    """Where a row came from, as a problem names it: ``FILE line N`` (``row N`` in a table)."""
    return f"{file} {line}"


def merge_samples(found: Iterable[tuple[str, Sample]]) -> tuple[list[Sample], list[Problem]]:
    """The samples, each id once, from (where, sample) in reading order; an id given two
    different texts (two files or two rows disagreeing on the question or an answer) is a
    Problem naming both places and the field, never one of the two kept silently."""
    kept: dict[str, tuple[str, Sample]] = {}
    problems = []
    for where, sample in found:
        if sample.id not in kept:
            kept[sample.id] = (where, sample)
            continue
        first_where, first = kept[sample.id]
        differs = _first_difference(first, sample)
        if differs is not None:
            problems.append(
                Problem(
                    where,
                    f"sample {sample.id!r} has another {differs} than at {first_where}; one "
                    "sample id, one text",
                )
            )
        elif _fuller(sample, first):
            kept[sample.id] = (first_where, sample)
    return [s for _, s in kept.values()], problems


def samples_of(found: Iterable[tuple[str, Sample]], paths: Sequence[Any]) -> list[Sample]:
    """``merge_samples``' samples; its problems (one id, two texts) as a DatasetError naming
    the files."""
    samples, twice = merge_samples(found)
    if twice:
        raise DatasetError(", ".join(map(str, paths)), twice[:50])
    return samples


def read_json_document(path: Path, source: str) -> Any:
    """A file that is one JSON document (a tool's results), parsed; DatasetError for a missing,
    unreadable, empty or malformed one (named by line: a file cut short)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(source, [Problem("", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(source, [Problem("", f"cannot read the file ({exc})")]) from None
    if not text.strip():
        raise DatasetError(source, [Problem("", "the file is empty; expected one JSON document")])
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"not valid JSON ({exc.msg}); is the file cut short?"
        raise DatasetError(source, [Problem(f"line {exc.lineno}", message)]) from None


def _first_difference(one: Sample, other: Sample) -> str | None:
    """The first field both samples give and give differently (a field one lacks is none)."""
    a, b = one.model_dump(exclude_none=True), other.model_dump(exclude_none=True)
    for name in a.keys() & b.keys():
        if name == "extra":
            for column in a[name].keys() & b[name].keys():
                if a[name][column] != b[name][column]:
                    return column
        elif a[name] != b[name]:
            return name
    return None


def _fuller(new: Sample, old: Sample) -> bool:
    return len(new.model_dump(exclude_none=True)) > len(old.model_dump(exclude_none=True))


def check_recorded(recorded: Recorded) -> None:
    """What every format's verdicts must hold, each fault named at its file and line, all in one
    DatasetError: a metric or criterion judgegrid knows, a score in its range, one verdict per
    judge, sample, metric, repeat and order, labels of known samples only, and one verdict at
    least (JudgeBench's data set file alone gives pairs and truth, no judge)."""
    if recorded.verdicts.empty:
        message = (
            "no judge's verdict in the files (samples or labels only); name a file of a judge's "
            "verdicts too"
        )
        raise DatasetError(", ".join(recorded.files), [Problem("", message)])
    problems = _unknown_metrics(recorded) + _out_of_range(recorded) + _repeated(recorded.verdicts)
    problems += _labels_of_unknown_samples(recorded)
    if problems:
        raise DatasetError(", ".join(recorded.files), problems[:50])


def _unknown_metrics(recorded: Recorded) -> list[Problem]:
    own = {c.name for c in recorded.criteria}
    frame = recorded.verdicts
    problems = []
    for metric in frame["metric"].unique().tolist():
        if metric not in own and builtin_metric_named(metric) != metric:
            row = frame[frame["metric"] == metric].iloc[0]
            problems.append(
                Problem(
                    f"{place(row['file'], row['line'])}: metric",
                    f"{metric!r} is neither a judgegrid metric nor a criterion of the file",
                )
            )
    return problems


def _out_of_range(recorded: Recorded) -> list[Problem]:
    """A metric's score outside 0..1, a criterion's outside its answers' scores."""
    frame = recorded.verdicts
    allowed = {c.name: sorted(set(c.choices.values())) for c in recorded.criteria}
    problems = []
    scored = frame[frame["score"].notna()]
    for metric, block in scored.groupby("metric", sort=False):
        if metric in allowed:
            bad = block[~block["score"].isin(allowed[str(metric)])]
            expected = "one of " + ", ".join(f"{v:g}" for v in allowed[str(metric)])
        else:
            bad = block[(block["score"] < 0) | (block["score"] > 1)]
            expected = "from 0 to 1"
        for row in bad.head(10).to_dict("records"):
            problems.append(
                Problem(
                    f"{place(row['file'], row['line'])}: score",
                    f"{row['score']:g} is outside {metric}'s range: expected {expected}",
                )
            )
    return problems


def _repeated(frame: pd.DataFrame) -> list[Problem]:
    """A second verdict of one judge on one sample for one metric, repeat and order."""
    twice = frame[frame.duplicated(KEY_COLUMNS, keep=False)]
    problems = []
    for _, block in twice.groupby(KEY_COLUMNS, sort=False):
        first = block.iloc[0]
        for row in block.iloc[1:].head(5).to_dict("records"):
            order = f", order {row['order']}" if row["order"] else ""
            problems.append(
                Problem(
                    place(row["file"], row["line"]),
                    f"judge {row['judge']!r} on sample {row['sample_id']!r} ({row['metric']}, "
                    f"repeat {row['repeat']}{order}) is given twice: also at "
                    f"{place(first['file'], first['line'])}; number the repeats",
                )
            )
        if len(problems) >= 20:
            break
    return problems


def _labels_of_unknown_samples(recorded: Recorded) -> list[Problem]:
    known = {s.id for s in recorded.samples}
    return [
        Problem(
            where,
            f"a label of sample {label.sample_id!r}, which no verdict or sample of the files has",
        )
        for where, label in recorded.labels
        if label.sample_id not in known
    ][:20]


def pass_fail_criterion(name: str, definition: str, source: str, where: str) -> CriterionSpec:
    """A metric that is not judgegrid's as a binary criterion (pass/fail), as the readers read
    one; DatasetError at ``source`` and ``where`` when the name can be no criterion's."""
    try:
        return CriterionSpec(name=name, definition=definition, type="binary")
    except ValueError as exc:
        message = str(exc).splitlines()[-1] if str(exc) else "not a criterion's name"
        raise DatasetError(source, [Problem(where, message)]) from None


def json_details(values: Mapping[str, Any]) -> str | None:
    """What else the source recorded of a verdict, as JSON text (None when nothing), NaN and
    None left out."""
    kept = {
        k: v
        for k, v in values.items()
        if v is not None and not (isinstance(v, float) and math.isnan(v))
    }
    return json.dumps(kept, ensure_ascii=False, default=_plain) if kept else None


def _plain(value: Any) -> Any:
    """A numpy or Arrow scalar as Python's own (a Parquet column's int64), else its text."""
    return value.item() if hasattr(value, "item") else str(value)


def names_of(values: Sequence[Any]) -> list[str]:
    """Cells as names: text stripped, a whole number without its '.0'."""
    return [
        str(int(v)) if isinstance(v, float) and v.is_integer() else str(v).strip() for v in values
    ]
