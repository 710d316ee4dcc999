"""People's labels of a run: import them from a file, export them, and gather every source.

A label is one annotator's answer about one sample for one metric, on the metric's 0–1 scale
(``records.Label``), or for a criterion of the user's own, its category's score: 1 or 0 (pass or
fail), the label's score, or the scale's level (``criterion_label``). Labels come from the
labelling page (``judgegrid label``), from a file (``judgegrid labels import``: CSV, JSONL or
Parquet with ``sample_id, metric, annotator, value`` and an optional ``note``), and from the data
set itself (a label named like a metric or a criterion, annotator ``dataset``). An import is all
or nothing: every bad row is named and none is written.

Files out are files in: ``labels export`` writes the format its extension names, every column of
``records.Label``, and ``labels import`` reads all of them back (a skip, a preference's detail,
whether the label was blind, when it was given). The data set's own labels in an export are not
imported again where the run's data set carries them.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.analyses import ASPECT_METRICS, PAIR_COLUMNS, person_item
from judgegrid.analyses import LABEL_COLUMNS as HUMAN_LABEL_COLUMNS
from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.names import did_you_mean
from judgegrid.core.records import LABEL_COLUMNS, PREFERENCE, Label
from judgegrid.core.redaction import key_shaped_name
from judgegrid.inputs.dataset import parquet_records
from judgegrid.inputs.textfile import read_csv, read_jsonl
from judgegrid.metrics import METRICS, run_metric_name
from judgegrid.store.run_dir import open_run, stored_sample_info
from judgegrid.store.table_file import TABLE_FORMATS

LABEL_FILE_FIELDS = ("sample_id", "metric", "annotator", "value")
OPTIONAL_FIELDS = tuple(f for f in LABEL_COLUMNS if f not in LABEL_FILE_FIELDS)
DATASET_ANNOTATOR = "dataset"
# how each label the analyses read was given: its probability a draw, its time, whether chosen
HOW_GIVEN = ("probability", "labelled_at", "chosen")
ANNOTATOR_SHOWN = "an annotator's name is shown in every report"
NOTE_SHOWN = "a note is stored with the label, exported and shown in the view"
# How a person may write a binary criterion's answer in words: pass (1.0) or fail (0.0).
Criteria = Mapping[str, CriterionSpec]


def import_labels(run_dir: str | Path, path: str | Path, annotator: str | None = None) -> int:
    """Write the file's labels into the run's database; returns how many. DatasetError (naming
    each bad row) or OptionError (``annotator`` blank or shaped like a key, or given for a file
    that names its annotators) writes nothing."""
    check_annotator_option(annotator)
    _, matrix, reader = open_run(run_dir)  # read-only: the file is checked before any write
    try:
        info = stored_sample_info(reader)
    finally:
        reader.close()
    metrics = matrix.scored_names
    criteria = matrix.criteria_by_name
    given = dataset_labels(info, criteria.values())
    carried = set(zip(given["sample_id"], given["metric"], strict=True))
    labels = read_label_file(Path(path), set(info), metrics, annotator, carried, criteria)
    _, _, store = open_run(run_dir, write=True)
    try:
        return store.write_labels(labels)
    finally:
        store.close()


def check_annotator_option(annotator: str | None) -> None:
    """``--annotator`` given blank would label as nobody: refused, never the login name; shaped
    like a key, it would be shown in every report (``core.redaction.looks_like_key``)."""
    if annotator is not None and not annotator.strip():
        raise OptionError("--annotator", [Problem("", "a name is needed (who gave the labels)")])
    if annotator is not None and (reason := key_shaped_name(annotator, ANNOTATOR_SHOWN)):
        raise OptionError("--annotator", [Problem("", reason)])


def note_problem(note: str) -> str | None:
    """Why a label's note is refused, or None: a key pasted into it would be stored, exported
    and shown like the note. Refused as an annotator name of that shape is (the person sees
    the key went somewhere it does not belong, and can take it out), never changed silently:
    a note is the person's own words."""
    return key_shaped_name(note, NOTE_SHOWN, "take the key out of the note")


def read_label_file(
    path: Path,
    samples: set[str],
    metrics: Sequence[str],
    annotator: str | None = None,
    carried: set[tuple[str, str]] | None = None,
    criteria: Criteria | None = None,
) -> list[Label]:
    """The labels of a CSV, JSONL or Parquet file, checked against the run's samples, the
    names its cells carry (``metrics``: its metrics and criteria) and ``criteria``; rows of
    the data set's own labels that the run's data set ``carried`` are left out (they are in
    the run already)."""
    source = str(path)
    rows = _rows(path, source)
    _refuse_two_annotators(rows, annotator, source)
    names = [*metrics, *(name for name in criteria or {} if name not in metrics)]
    labels: list[Label] = []
    problems: list[Problem] = []
    seen: dict[tuple[str, str, str], str] = {}
    strangers = 0  # rows naming a sample the run does not hold
    for where, row in rows:
        if _carried(row, carried or set()):
            continue
        try:
            label = _label(row, samples, names, annotator, criteria or {})
        except ValueError as exc:
            problems.append(Problem(where, str(exc)))
            strangers += _stranger(row, samples)
            continue
        key = (label.sample_id, label.metric, label.annotator)
        if key in seen:
            problems.append(Problem(where, f"repeats {seen[key]} (same sample, metric, annotator)"))
        seen.setdefault(key, where)
        labels.append(label)
    if strangers:
        problems.append(Problem("", _strangers_words(strangers)))
    if problems:
        raise DatasetError(source, problems)
    if not labels:
        raise DatasetError(source, [Problem("", "the file has no labels")])
    return labels


def _stranger(row: Any, samples: set[str]) -> int:
    """1 for a row of a metric whose sample the run does not hold, else 0."""
    if not isinstance(row, dict) or _text(row.get("metric")) == PREFERENCE:
        return 0
    return int(str(row.get("sample_id", "")).strip() not in samples)


def _strangers_words(count: int) -> str:
    """What to do about rows of samples the run does not hold: most often a run made with
    --limit, which scored only the data set's first samples."""
    rows = "1 row names a sample" if count == 1 else f"{count} rows name samples"
    return (
        f"{rows} this run does not hold (a run made with --limit holds only the data set's "
        "first samples): leave those rows out, or import into a run of the whole data set"
    )


def _rows(path: Path, source: str) -> list[tuple[str, Any]]:
    suffix = path.suffix.lower()
    expected = f"a label a {{}} ({', '.join(LABEL_FILE_FIELDS)}, note)"
    if suffix == ".jsonl":
        return read_jsonl(path, source, DatasetError, expected.format("line"))
    if suffix == ".csv":
        frame = read_csv(path, source, DatasetError, expected=expected.format("row"))
        return [(f"row {i + 2}", row) for i, row in enumerate(frame.to_dict(orient="records"))]
    if suffix == ".parquet":
        return parquet_records(path, source)
    formats = ", ".join(TABLE_FORMATS)
    raise DatasetError(source, [Problem("", f"unknown format '{suffix}'; use {formats}")])


def _refuse_two_annotators(rows: list[tuple[str, Any]], annotator: str | None, source: str) -> None:
    """``--annotator`` is for a file without annotators; given for one that names them, one of
    the two would be dropped without a word."""
    named = sorted({_text(r.get("annotator")) for _, r in rows if isinstance(r, dict)} - {""})
    if annotator is not None and named:
        message = (
            f"{source} names its annotators ({', '.join(named[:3])}"
            f"{', …' if len(named) > 3 else ''}); --annotator is for a file without an "
            "annotator column: leave out one of the two"
        )
        raise OptionError("--annotator", [Problem("", message)])


def _carried(row: Any, carried: set[tuple[str, str]]) -> bool:
    """A row the data set gave (an export's ``source`` dataset) that the run's data set holds."""
    if not isinstance(row, dict) or _text(row.get("source")) != "dataset":
        return False
    return (_text(row.get("sample_id")), _text(row.get("metric"))) in carried


def _text(value: Any) -> str:
    """A cell as text: missing (None, NaN, an empty CSV cell) is ""."""
    return "" if _missing(value) else str(value).strip()


def _missing(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _label(
    row: Any, samples: set[str], metrics: Sequence[str], annotator: str | None, criteria: Criteria
) -> Label:
    if not isinstance(row, dict):
        raise ValueError("expected an object with sample_id, metric, annotator, value")
    unknown = sorted(map(str, set(row) - set(LABEL_COLUMNS)))
    if unknown:
        raise ValueError(
            f"unknown field {', '.join(unknown)}; {did_you_mean(unknown[0], LABEL_COLUMNS)}"
            f"expected {', '.join(LABEL_FILE_FIELDS)} and optionally {', '.join(OPTIONAL_FIELDS)}"
        )
    if _text(row.get("metric")) == PREFERENCE:
        return _preference(row, samples, annotator)
    sample_id = str(row.get("sample_id", "")).strip()
    if sample_id not in samples:
        raise ValueError(f"sample_id {sample_id!r} is not a sample of this run")
    metric = run_metric_name(_text(row.get("metric")), metrics)
    if metric in criteria:
        return _criterion_row(row, sample_id, criteria[metric], annotator)
    return _imported(row, sample_id, metric, annotator, _value(row), _detail(row.get("detail")))


def _criterion_row(
    row: dict[str, Any], sample_id: str, spec: CriterionSpec, annotator: str | None
) -> Label:
    """A criterion's label: its value read as the category's score (empty: a skip)."""
    if "value" not in row:
        raise ValueError("value: expected the answer, got nothing (no value column)")
    raw = row["value"]
    try:
        value = None if _missing(raw) else criterion_label(spec, raw)
    except ValueError as exc:
        raise ValueError(f"value ({spec.name}): {exc}") from None
    return _imported(row, sample_id, spec.name, annotator, value, _detail(row.get("detail")))


def _preference(row: dict[str, Any], samples: set[str], annotator: str | None) -> Label:
    """A preference of a pairs run: its sample_id is the pair, its detail names the members."""
    pair = _text(row.get("sample_id"))
    detail = _detail(row.get("detail"))
    if not isinstance(detail, dict) or detail.get("pair") != pair:
        raise ValueError(f"detail: a preference needs its pair ({pair!r}) and aspect as JSON")
    value = _value(row)
    if value is not None:
        members = [detail.get("preferred"), detail.get("other")]
        if not all(isinstance(m, str) and m in samples for m in members):
            raise ValueError("detail: preferred and other must be samples of this run")
    return _imported(row, pair, PREFERENCE, annotator, value, detail)


def _imported(
    row: dict[str, Any],
    sample_id: str,
    metric: str,
    annotator: str | None,
    value: float | None,
    detail: Any,
) -> Label:
    """The label of a checked row: its note, time, blindness and probability a draw as the
    file gives them."""
    when, blind = _when(row.get("labelled_at")), _blind(row.get("blind"))
    who, note = _who(row, annotator), _text(row.get("note"))
    if reason := note_problem(note):
        raise ValueError(f"note: {reason}")
    chance, chosen = _probability(row.get("probability")), _chosen(row.get("chosen"))
    return Label(sample_id, metric, who, value, note, when, "import", detail, blind, chance, chosen)


def _probability(raw: Any) -> float | None:
    """The probability a queue drew the label with (an export writes it); none: the label
    counts as drawn uniformly."""
    return _number(raw, "probability", "a number in (0, 1]", lambda q: 0 < q <= 1)


def _number(raw: Any, name: str, expected: str, within: Callable[[float], bool]) -> float | None:
    """A number of a row (None where the cell is empty), or ValueError naming the field and
    what it ``expected``."""
    if _missing(raw):
        return None
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected {expected}, got {raw!r}") from None
    if isinstance(raw, bool) or not within(number):
        raise ValueError(f"{name}: expected {expected}, got {raw!r}")
    return number


def _who(row: dict[str, Any], annotator: str | None) -> str:
    who = _text(row.get("annotator")) or (annotator or "").strip()
    if not who:
        raise ValueError("annotator is missing (give the column, or --annotator NAME)")
    if reason := key_shaped_name(who, ANNOTATOR_SHOWN):
        raise ValueError(f"annotator: {reason}")
    return who


def _detail(raw: Any) -> Any:
    """What a label was computed from, as JSON text (a CSV cell, Parquet) or already parsed."""
    if _missing(raw) or not isinstance(raw, str):
        return None if _missing(raw) else raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise ValueError(f"detail: expected JSON, got {raw[:40]!r}") from None


def _when(raw: Any) -> float:
    """When the label was given (an export keeps it); now, for a file without it."""
    if _missing(raw):
        return time.time()
    try:
        when = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"labelled_at: expected seconds since 1970, got {raw!r}") from None
    if isinstance(raw, bool) or not 0 <= when < 1e11:
        raise ValueError(f"labelled_at: expected seconds since 1970, got {raw!r}")
    return when


def _blind(raw: Any) -> bool | None:
    """Whether the judges were hidden (an export writes 1.0, 0.0, True or nothing)."""
    return _flag(raw, "blind")


def _chosen(raw: Any) -> bool:
    """Whether the person chose the sample on the view page (nothing: not chosen)."""
    return bool(_flag(raw, "chosen"))


def _flag(raw: Any, name: str) -> bool | None:
    """A yes-or-no column as an export writes it (1.0, 0.0, True or nothing: None)."""
    if _missing(raw):
        return None
    text = str(raw).strip().lower()
    if text in {"1", "1.0", "true"}:
        return True
    if text in {"0", "0.0", "false"}:
        return False
    raise ValueError(f"{name}: expected 1 or 0 (true or false), got {raw!r}")


def _value(row: dict[str, Any]) -> float | None:
    """The answer; an empty value is a skip (an export writes the skips), a missing column an
    error."""
    if "value" not in row:
        raise ValueError("value: expected a number from 0 to 1, got nothing (no value column)")
    return _number(row["value"], "value", "a number from 0 to 1", lambda v: 0 <= v <= 1)


def export_labels(run_dir: str | Path) -> pd.DataFrame:
    """Every label of a run, stored and from the data set, one row each (skips included)."""
    _, matrix, store = open_run(run_dir)
    try:
        stored = store.labels_frame()
        from_data = dataset_labels(stored_sample_info(store), matrix.criteria_by_name.values())
    finally:
        store.close()
    return pd.concat([stored, from_data], ignore_index=True).reindex(columns=LABEL_COLUMNS)


def without_sighted(stored: pd.DataFrame) -> pd.DataFrame:
    """The stored labels less those given with the judges shown (``blind`` 0); labels whose
    blindness is unknown (imported, the data set's) stay."""
    if "blind" not in stored:
        return stored
    sighted = stored["blind"].notna() & (stored["blind"].astype(float) == 0)
    return stored[~sighted]


def people_pairs(stored: pd.DataFrame) -> pd.DataFrame:
    """People's preferences (``judgegrid label`` on a pairs run) as preference pairs the validity
    analyses score like the data set's, one pair per annotator (source ``people``)."""
    rows = []
    chosen = stored[(stored["metric"] == PREFERENCE) & stored["value"].notna()]
    for annotator, detail in zip(chosen["annotator"], chosen["detail"], strict=True):
        info = json.loads(detail)
        for metric in ASPECT_METRICS.get(info["aspect"], ()):
            rows.append(
                {
                    "source": "people",
                    "pair": person_item(info["pair"], annotator),
                    "aspect": info["aspect"],
                    "metric": metric,
                    "preferred": info["preferred"],
                    "other": info["other"],
                }
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def dataset_labels(
    sample_info: Mapping[str, Mapping[str, Any]], criteria: Iterable[CriterionSpec] = ()
) -> pd.DataFrame:
    """Labels the data set carries (annotator 'dataset'): a numeric label named like a metric,
    and a label named like one of the run's ``criteria`` that reads as its answer (a label's
    name as its score); others are not labels of this run."""
    specs = {spec.name: spec for spec in criteria}
    rows = [
        {
            "sample_id": sid,
            "metric": key,
            "annotator": DATASET_ANNOTATOR,
            "value": value,
            "note": "",
            "labelled_at": 0.0,
            "source": "dataset",
        }
        for sid, info in sample_info.items()
        for key, raw in (info.get("labels") or {}).items()
        if (value := _carried_label(key, raw, specs)) is not None
    ]
    return pd.DataFrame(rows, columns=[c for c in LABEL_COLUMNS if c != "detail"])


def _carried_label(key: str, raw: Any, criteria: Criteria) -> float | None:
    """A data set's label as the score the analyses read, or None when it is none of this
    run's metrics and criteria (or does not read as an answer of its criterion)."""
    if key in criteria:
        try:
            return criterion_label(criteria[key], raw)
        except ValueError:
            return None
    if key in METRICS and isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw)
    return None


def human_labels(
    stored: pd.DataFrame,
    sample_info: Mapping[str, Mapping[str, Any]],
    criteria: Iterable[CriterionSpec] = (),
    skips: bool = False,
) -> pd.DataFrame:
    """The labels the analyses read: stored answers (skips and preferences dropped) and the
    data set's (its labels of metrics and of the run's ``criteria``), as ``sample_id, metric,
    annotator, value, probability, labelled_at, chosen`` (the probability a queue drew the
    sample with; blank for the data set's and every label drawn by no queue of known design:
    drawn uniformly; when it was given, 0 for the data set's; whether the person chose the
    sample on ``judgegrid view``'s page), in label order. ``skips``: the answers as the
    labelling state reads them, the skips kept (value None: drawn and declined) and the
    preferences too."""
    kept = stored["value"].notna() | skips
    answers = stored[kept & ((stored["metric"] != PREFERENCE) | skips)]
    columns = [*HUMAN_LABEL_COLUMNS, *HOW_GIVEN]
    both = pd.concat(
        [
            answers.reindex(columns=columns),
            dataset_labels(sample_info, criteria).reindex(columns=columns),
        ],
        ignore_index=True,
    )
    chosen = both["chosen"].astype(float).fillna(0.0) == 1
    return both.astype({"value": float, "probability": float, "labelled_at": float}).assign(
        chosen=chosen
    )
