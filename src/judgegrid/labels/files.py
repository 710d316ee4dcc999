"""People's labels of a run: import them from a file, export them, and gather every source.

A label is one annotator's answer about one sample for one metric, on the metric's 0–1 scale
(``records.Label``). Labels come from the labelling page (``judgegrid label``), from a file
(``judgegrid labels import``: CSV or JSONL with ``sample_id, metric, annotator, value`` and an
optional ``note``), and from the data set itself (a label named like a metric, annotator
``dataset``). An import is all or nothing: every bad row is named and none is written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from judgegrid.analyses.human import LABEL_COLUMNS as HUMAN_LABEL_COLUMNS
from judgegrid.analyses.validity import ASPECT_METRICS, PAIR_COLUMNS
from judgegrid.core.errors import DatasetError, OptionError, Problem
from judgegrid.core.records import LABEL_COLUMNS, PREFERENCE, Label
from judgegrid.core.redaction import key_shaped_name
from judgegrid.inputs.textfile import read_csv, read_jsonl
from judgegrid.metrics import METRICS, resolve_metric_name
from judgegrid.store.run_dir import open_run, stored_sample_info

LABEL_FILE_FIELDS = ("sample_id", "metric", "annotator", "value")
DATASET_ANNOTATOR = "dataset"
ANNOTATOR_SHOWN = "an annotator's name is shown in every report"


def import_labels(run_dir: str | Path, path: str | Path, annotator: str | None = None) -> int:
    """Write the file's labels into the run's database; returns how many. DatasetError (naming
    each bad row) writes nothing."""
    if annotator is not None:
        check_annotator_option(annotator)
    _, matrix, store = open_run(run_dir, write=True)
    try:
        samples = set(stored_sample_info(store))
        metrics = {resolve_metric_name(m.name) for m in matrix.metrics}
        labels = read_label_file(Path(path), samples, metrics, annotator)
        return store.write_labels(labels)
    finally:
        store.close()


def check_annotator_option(annotator: str) -> None:
    """``--annotator`` shaped like a key is refused (``core.redaction.looks_like_key``)."""
    if reason := key_shaped_name(annotator, ANNOTATOR_SHOWN):
        raise OptionError("--annotator", [Problem("", reason)])


def read_label_file(
    path: Path, samples: set[str], metrics: set[str], annotator: str | None = None
) -> list[Label]:
    """The labels of a CSV or JSONL file, checked against the run's samples and metrics."""
    source = str(path)
    rows = _rows(path, source)
    labels: list[Label] = []
    problems: list[Problem] = []
    seen: dict[tuple[str, str, str], str] = {}
    for where, row in rows:
        try:
            label = _label(row, samples, metrics, annotator)
        except ValueError as exc:
            problems.append(Problem(where, str(exc)))
            continue
        key = (label.sample_id, label.metric, label.annotator)
        if key in seen:
            problems.append(Problem(where, f"repeats {seen[key]} (same sample, metric, annotator)"))
        seen.setdefault(key, where)
        labels.append(label)
    if problems:
        raise DatasetError(source, problems)
    if not labels:
        raise DatasetError(source, [Problem("", "the file has no labels")])
    return labels


def _rows(path: Path, source: str) -> list[tuple[str, Any]]:
    suffix = path.suffix.lower()
    expected = f"a label a {{}} ({', '.join(LABEL_FILE_FIELDS)}, note)"
    if suffix == ".jsonl":
        return read_jsonl(path, source, DatasetError, expected.format("line"))
    if suffix == ".csv":
        frame = read_csv(path, source, DatasetError, expected=expected.format("row"))
        return [(f"row {i + 2}", row) for i, row in enumerate(frame.to_dict(orient="records"))]
    raise DatasetError(source, [Problem("", f"unknown format '{suffix}'; use .csv or .jsonl")])


def _label(row: Any, samples: set[str], metrics: set[str], annotator: str | None) -> Label:
    if not isinstance(row, dict):
        raise ValueError("expected an object with sample_id, metric, annotator, value")
    unknown = sorted(set(row) - {*LABEL_FILE_FIELDS, "note"})
    if unknown:
        raise ValueError(
            f"unknown field {', '.join(unknown)}; expected {', '.join(LABEL_FILE_FIELDS)}, note"
        )
    sample_id = str(row.get("sample_id", "")).strip()
    if sample_id not in samples:
        raise ValueError(f"sample_id {sample_id!r} is not a sample of this run")
    try:
        metric = resolve_metric_name(str(row.get("metric", "")))
    except OptionError as exc:
        raise ValueError(exc.problems[0].message) from None
    if metric not in metrics:
        raise ValueError(f"metric {metric} is not in this run ({', '.join(sorted(metrics))})")
    who = str(row.get("annotator") or annotator or "").strip()
    if not who:
        raise ValueError("annotator is missing (give the column, or --annotator NAME)")
    if reason := key_shaped_name(who, ANNOTATOR_SHOWN):
        raise ValueError(f"annotator: {reason}")
    return Label(
        sample_id,
        metric,
        who,
        _value(row.get("value")),
        str(row.get("note") or ""),
        time.time(),
        "import",
    )


def _value(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"value: expected a number from 0 to 1, got {raw!r}") from None
    if isinstance(raw, bool) or not 0 <= value <= 1:
        raise ValueError(f"value: expected a number from 0 to 1, got {raw!r}")
    return value


def export_labels(run_dir: str | Path) -> pd.DataFrame:
    """Every label of a run, stored and from the data set, one row each (skips included)."""
    _, _, store = open_run(run_dir)
    try:
        stored = store.labels_frame()
        from_data = dataset_labels(stored_sample_info(store))
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
                    "pair": f"{info['pair']}/{annotator}",
                    "aspect": info["aspect"],
                    "metric": metric,
                    "preferred": info["preferred"],
                    "other": info["other"],
                }
            )
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def dataset_labels(sample_info: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Labels the data set carries: a numeric label named like a metric (annotator 'dataset')."""
    rows = [
        {
            "sample_id": sid,
            "metric": key,
            "annotator": DATASET_ANNOTATOR,
            "value": float(value),
            "note": "",
            "labelled_at": 0.0,
            "source": "dataset",
        }
        for sid, info in sample_info.items()
        for key, value in (info.get("labels") or {}).items()
        if key in METRICS and isinstance(value, int | float) and not isinstance(value, bool)
    ]
    return pd.DataFrame(rows, columns=[c for c in LABEL_COLUMNS if c != "detail"])


def human_labels(
    stored: pd.DataFrame, sample_info: Mapping[str, Mapping[str, Any]]
) -> pd.DataFrame:
    """The labels the analyses read: stored answers (skips and preferences dropped) and the
    data set's, as ``sample_id, metric, annotator, value``."""
    answers = stored[stored["value"].notna() & (stored["metric"] != PREFERENCE)]
    both = pd.concat(
        [
            answers.reindex(columns=HUMAN_LABEL_COLUMNS),
            dataset_labels(sample_info)[HUMAN_LABEL_COLUMNS],
        ],
        ignore_index=True,
    )
    return both.astype({"value": float})
