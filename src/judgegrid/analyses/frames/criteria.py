"""The vocabulary of a criterion's analyses: its categories, a judge's answer per sample, the
people's label per sample.

A criterion (``core.criterion.CriterionSpec``) gives each sample a category, and a category is
its score (binary: pass 1.0, fail 0.0; labels: the label's score; scale: the level). The
categorical statistics read the ``answer`` column and code each category 0..K-1 in ascending
order of its score (so a scale's codes keep its order, as weighted kappa and ordinal alpha
need). The analyses receive the run's criteria once, as ``Mapping[str, CriterionSpec]`` keyed by
the criterion's name (its ``metric`` in the scores table); a metric not in it is a built-in one.

Rules every criterion analysis shares:

- **wording**: the judge as the user defined the criterion is its wording 0 (the definition
  itself); agreement, validity and calibration read wording 0 only, and ``wording`` reads all;
- **a judge's answer on a sample** (``judge_answers``): the modal answer over its scored repeats
  of wording 0, pooled over its configurations (a criterion has no embedding; strictness is
  the binary vote count, fixed per criterion). A tie between categories gives no answer
  (``tied``); a failed or skipped cell never counts; juries (no answer of their own) take no
  part;
- **the people's label of a sample** (``people_answers``): the modal label over the annotators
  (an annotator who labelled a sample again counts once, with the latest label: a category
  cannot be averaged); a tie gives no label and leaves the sample out;
- an answer or label that is not one of the criterion's categories is left out (a judge's
  answer cannot be one, the answer schema allows only the categories; a person's is counted in
  ``people_answers``' ``outside``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.juries import jury_rows
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.scales import Scale, Scales

Criteria = Mapping[str, CriterionSpec]
DEFINITION = 0  # wording 0: the definition itself


def categories(spec: CriterionSpec) -> tuple[float, ...]:
    """The criterion's category scores, lowest first: the codes 0..K-1 are their positions."""
    return tuple(sorted(set(spec.choices.values())))


def category_names(spec: CriterionSpec) -> tuple[str, ...]:
    """How the report names each category, in code order: fail/pass, the label, the level."""
    by_score = {score: name for name, score in spec.choices.items()}
    return tuple(by_score[c] for c in categories(spec))


def codes(values: pd.Series | np.ndarray, spec: CriterionSpec) -> np.ndarray:
    """Each value's category code (0..K-1), NaN where it is missing or no category's score."""
    known = np.asarray(categories(spec))
    x = np.asarray(values, dtype=float)
    match = np.isclose(x[:, None], known[None, :], rtol=0, atol=1e-9)
    found = match.any(axis=1)
    return np.where(found, match.argmax(axis=1), np.nan).astype(float)


def wordings(scores: pd.DataFrame) -> pd.Series:
    """Each row's wording (0 where the table has no ``wording`` column: a built-in metric)."""
    if "wording" not in scores.columns:
        return pd.Series(0, index=scores.index, dtype=int)
    return scores["wording"].fillna(0).astype(int)


def answers(scores: pd.DataFrame) -> pd.Series:
    """Each row's categorical answer: ``answer`` (the score where the table has none)."""
    column = "answer" if "answer" in scores.columns else "score"
    return scores[column].astype(float)


def details_of(value: Any) -> dict[str, Any]:
    """A score row's ``details`` as a dict: as stored (JSON text) or already read; {} for none,
    or for text that is no JSON object."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str) or not value:
        return {}
    try:
        found = json.loads(value)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def definition_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows of wording 0: the criterion as defined (every row of a built-in metric)."""
    return scores[wordings(scores) == DEFINITION]


def criterion_rows(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """The scored rows of the run's criteria, with their answer's code (``code``) and wording;
    juries' rows left out."""
    rows = without_juries(
        scores[(scores["status"] == "scored") & scores["metric"].isin(set(criteria))]
    )
    if rows.empty:
        return rows.assign(code=pd.Series(dtype=float), wording=pd.Series(dtype=int))
    coded = np.full(len(rows), np.nan)
    metric = rows["metric"].to_numpy()
    for name, spec in criteria.items():
        mine = metric == name
        if mine.any():
            coded[mine] = codes(answers(rows)[mine], spec)
    return rows.assign(code=coded, wording=wordings(rows).to_numpy())


def modal_codes(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per ``keys``: the most frequent code (``code``; NaN on a tie between codes: no single
    answer), whether it tied, and the answers counted (``answers``; NaN codes are none)."""
    valid = rows.dropna(subset=["code"])
    if valid.empty:
        return pd.DataFrame(columns=[*keys, "code", "answers", "tied"])
    counts = valid.groupby([*keys, "code"]).size().rename("n").reset_index()
    top = counts[counts["n"] == counts.groupby(keys)["n"].transform("max")]
    table = top.groupby(keys).agg(code=("code", "first"), modes=("code", "size"))
    table["answers"] = counts.groupby(keys)["n"].sum()
    table = table.reset_index()
    table["tied"] = table.pop("modes") > 1
    table.loc[table["tied"], "code"] = np.nan
    return table


def judge_answers(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per criterion, judge and sample: its modal answer's code on wording 0 (module docstring).

    Columns: metric, judge, sample_id, code (NaN: a tie), answers (repeats counted), tied."""
    rows = criterion_rows(definition_rows(scores), criteria).dropna(subset=["code"])
    if rows.empty:
        return pd.DataFrame(columns=["metric", "judge", "sample_id", "code", "answers", "tied"])
    return modal_codes(rows, ["metric", "judge", "sample_id"])


def attempted_never_scored(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per criterion and judge: the samples it attempted on wording 0 (a failed cell) and never
    scored. Columns: metric, judge, sample_id."""
    rows = without_juries(definition_rows(scores))
    rows = rows[rows["metric"].isin(set(criteria)) & (rows["status"] != "skipped")]
    keys = ["metric", "judge", "sample_id"]
    ever = rows.assign(ok=rows["status"].eq("scored")).groupby(keys)["ok"].any().reset_index()
    return ever[~ever["ok"]][keys].reset_index(drop=True)


def people_answers(labels: pd.DataFrame | None, criteria: Criteria) -> pd.DataFrame:
    """Per criterion and sample: the people's modal label's code (module docstring).

    ``labels``: ``sample_id, metric, annotator, value`` (the value a category's score). Columns:
    metric, sample_id, code, annotators, outside (labels that are no category, left out)."""
    columns = ["metric", "sample_id", "code", "annotators", "outside"]
    if labels is None or labels.empty:
        return pd.DataFrame(columns=columns)
    mine = labels[labels["metric"].isin(set(criteria))].dropna(subset=["value"])
    if mine.empty:
        return pd.DataFrame(columns=columns)
    frames = []
    for name, block in mine.groupby("metric"):
        if "labelled_at" in block.columns:
            block = block.sort_values("labelled_at", kind="stable")
        block = block.drop_duplicates(["sample_id", "annotator"], keep="last")
        coded = block.assign(code=codes(block["value"], criteria[str(name)]))
        per = modal_codes(coded, ["metric", "sample_id"]).rename(columns={"answers": "annotators"})
        outside = coded["code"].isna().groupby(coded["sample_id"]).sum()
        per["outside"] = per["sample_id"].map(outside).fillna(0).astype(int)
        frames.append(per[per["code"].notna()][columns])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def criterion_scales(criteria: Criteria) -> dict[str, Scale]:
    """Each criterion's scale: its direction, and the threshold the analyses that cut scores in
    two use (stability's flips, agreement's kappa at a threshold): binary 0.5; labels and
    scale, the midpoint of the lowest and highest category's score."""
    out = {}
    for name, spec in criteria.items():
        known = categories(spec)
        threshold = 0.5 if spec.type == "binary" else (known[0] + known[-1]) / 2
        out[name] = Scale(threshold, spec.higher_is_better)
    return out


def with_criteria(scales: Scales, criteria: Criteria) -> Scales:
    """The metrics' scales with each criterion's own beside them."""
    return scales.with_metrics(criterion_scales(criteria)) if criteria else scales


def without_juries(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of real judges: a jury has no answer of its own (its score is a mean)."""
    if rows.empty:
        return rows
    return rows[~jury_rows(rows["judge"])]
