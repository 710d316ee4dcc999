"""Sensitivity to wording: does a judge's verdict survive a reworded criterion?

A criterion may list ``wordings:``, other phrasings of its definition, and each wording is a
grid axis. Per criterion and judge, two views:

- ``wording_variance``: the judge's scores decomposed as sample x wording with repeats as
  replicates (``variance.anova_components``): variance between wordings (``wording``, and its
  interaction with the sample) beside variance between repeats (``residual (repeats)``). A
  judge that only rephrases its noise has wording components near 0.
- ``wording_flags``: the verdict itself. ``changed_share`` is the share of samples whose modal
  answer (over the scored repeats of one wording; a tie has none) is not the same under every
  wording, among the samples where two wordings or more have one. The judge is **flagged** when
  that share is at least ``CHANGED_LIMIT`` and, where each wording has two repeats or more of a
  sample, the answers differ between wordings more than between repeats of one wording: a
  permutation test (``PERMUTATIONS`` shuffles of the wording labels among one sample's scored
  cells) of the mean disagreement of cell pairs across wordings minus within wordings, one-sided
  at ``ALPHA``. With a single repeat, run-to-run noise cannot be told from the wording: the
  share alone decides and the note says so.

Missing data: scored cells only (a failed or skipped cell never counts). The variance needs
every wording x repeat of a sample (listwise, as ``variance``); the flag uses every sample with
two or more wordings' modal answers; the test, every sample with two or more scored cells under
two wordings or more.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.consistency.variance import anova_components, balanced_array
from judgegrid.analyses.frames.criteria import Criteria, criterion_rows, modal_codes

CHANGED_LIMIT = 0.10
ALPHA = 0.05
PERMUTATIONS = 999
CHUNK = 100  # shuffles at a time: chunk x samples x cells numbers in memory
WORDING_VARIANCE_MISSING = "listwise: only samples scored in every wording x repeat"
WORDING_FLAG_MISSING = (
    "scored cells; the share over samples with two or more wordings' modal answers (a tie has "
    "none); the test over samples with scored cells under two or more wordings"
)
VARIANCE_COLUMNS = [
    "metric",
    "judge",
    "component",
    "variance",
    "raw",
    "share",
    "samples",
    "wordings",
    "repeats",
    "missing",
]
FLAG_COLUMNS = [
    "metric",
    "judge",
    "wordings",
    "samples",
    "changed",
    "changed_share",
    "across",
    "within",
    "p_value",
    "flagged",
    "note",
    "missing",
]


def worded_rows(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """The scored rows of the criteria with more than one wording in the table (no jury)."""
    rows = criterion_rows(scores, criteria)
    several = rows.groupby("metric")["wording"].transform("nunique") > 1
    return rows[several]


def wording_variance(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """Per worded criterion and judge: variance components of sample x wording (module
    docstring); negative estimates shown as 0, the raw value kept."""
    frames = []
    for (metric, judge), rows in worded_rows(scores, criteria).groupby(["metric", "judge"]):
        rows = rows.drop_duplicates(["sample_id", "wording", "repeat"])
        array, shape, replicates = balanced_array(rows, ["sample_id", "wording"])
        base = {
            "metric": metric,
            "judge": judge,
            "samples": shape[0],
            "wordings": shape[1],
            "repeats": replicates,
            "missing": WORDING_VARIANCE_MISSING,
        }
        if shape[0] < 2:
            continue
        estimates = anova_components(array, ["sample_id", "wording"], replicates)
        table = pd.DataFrame([base | {"component": c, "raw": v} for c, v in estimates.items()])
        table["variance"] = table["raw"].clip(lower=0)
        total = table["variance"].sum()
        table["share"] = table["variance"] / total if total > 0 else np.nan
        frames.append(table)
    if not frames:
        return pd.DataFrame(columns=VARIANCE_COLUMNS)
    return pd.concat(frames, ignore_index=True)[VARIANCE_COLUMNS]


def wording_flags(scores: pd.DataFrame, criteria: Criteria, seed: int = 0) -> pd.DataFrame:
    """Per worded criterion and judge: whether its verdict changes with the wording."""
    rows = worded_rows(scores, criteria).dropna(subset=["code"])
    out = [
        _flag_row(str(metric), str(judge), block, seed)
        for (metric, judge), block in rows.groupby(["metric", "judge"])
    ]
    return pd.DataFrame(out, columns=FLAG_COLUMNS)


def _flag_row(metric: str, judge: str, block: pd.DataFrame, seed: int) -> dict[str, Any]:
    modal = modal_codes(block, ["sample_id", "wording"]).dropna(subset=["code"])
    per_sample = modal.groupby("sample_id")["code"].agg(["nunique", "count"])
    per_sample = per_sample[per_sample["count"] >= 2]
    changed = int((per_sample["nunique"] > 1).sum())
    samples = len(per_sample)
    share = changed / samples if samples else np.nan
    repeated = block.groupby(["sample_id", "wording"]).size().min() >= 2
    across, within, p = disagreement_test(block, seed) if repeated else (np.nan, np.nan, np.nan)
    big = bool(samples) and share >= CHANGED_LIMIT
    flagged = big and (p < ALPHA if repeated else True)
    note = "" if repeated else "one repeat: wording not told apart from run-to-run noise"
    return {
        "metric": metric,
        "judge": judge,
        "wordings": int(block["wording"].nunique()),
        "samples": samples,
        "changed": changed,
        "changed_share": share,
        "across": across,
        "within": within,
        "p_value": p,
        "flagged": flagged,
        "note": note,
        "missing": WORDING_FLAG_MISSING,
    }


def disagreement_test(block: pd.DataFrame, seed: int = 0) -> tuple[float, float, float]:
    """(across, within, p): the share of a sample's pairs of scored cells that disagree when the
    two come from different wordings, and when they come from one wording, pooled over the
    samples; and the one-sided permutation p-value of across - within, the wording labels
    shuffled among each sample's cells (``PERMUTATIONS`` times; p = (1 + shuffles at least as
    large) / (1 + shuffles)).

    A shuffle keeps each sample's count of cells per wording and per answer, so the pairs
    across and within wordings, and the agreeing pairs, stay fixed: only the agreeing pairs
    within a wording move, and those are counted from each sample's wording x answer table."""
    answers, wordings = _cells_by_sample(block)
    present = wordings >= 0
    k, w = int(answers.max()) + 1, int(wordings.max()) + 1
    fixed = (
        _pairs_of(present.sum(axis=1)).sum(),
        _pairs_of(_row_counts(np.where(present, wordings, w), w + 1)[:, :w]).sum(),
        _pairs_of(_row_counts(np.where(present, answers, k), k + 1)[:, :k]).sum(),
    )
    across, within = _rates(_agreeing_within(wordings[None], answers, present, k, w), fixed)
    rng = np.random.default_rng(seed)
    sizes = [len(c) for c in np.array_split(np.arange(PERMUTATIONS), PERMUTATIONS // CHUNK + 1)]
    null = []
    for n in sizes:
        a, b = _rates(
            _agreeing_within(shuffled(wordings, present, n, rng), answers, present, k, w), fixed
        )
        null.append(a - b)
    larger = int((np.concatenate(null) >= across[0] - within[0] - 1e-12).sum())
    return float(across[0]), float(within[0]), (1 + larger) / (1 + PERMUTATIONS)


def _cells_by_sample(block: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Samples x cells arrays of answer codes and wording indices (-1 pads a sample's row to
    the longest), for the samples scored under two wordings or more."""
    block = block.assign(windex=pd.factorize(block["wording"], sort=True)[0])
    several = block.groupby("sample_id")["windex"].transform("nunique") > 1
    block = block[several].sort_values("sample_id", kind="stable")
    row = pd.factorize(block["sample_id"])[0]
    column = block.groupby("sample_id").cumcount().to_numpy()
    shape = (row.max() + 1, column.max() + 1)
    answers, wordings = np.full(shape, -1), np.full(shape, -1)
    answers[row, column] = block["code"].to_numpy(int)
    wordings[row, column] = block["windex"].to_numpy(int)
    return answers, wordings


def _pairs_of(counts: np.ndarray) -> np.ndarray:
    """Unordered pairs among ``counts`` items: n(n - 1)/2, element-wise."""
    return counts * (counts - 1) / 2


def _row_counts(values: np.ndarray, bins: int) -> np.ndarray:
    """Per row of ``values`` (whole numbers in 0..bins-1): how many of each."""
    flat = values.reshape(-1, values.shape[-1])
    cell = (np.arange(len(flat))[:, None] * bins + flat).ravel()
    counts = np.bincount(cell, minlength=len(flat) * bins).reshape(len(flat), bins)
    return counts.reshape(*values.shape[:-1], bins)


def _agreeing_within(
    labels: np.ndarray, answers: np.ndarray, present: np.ndarray, k: int, w: int
) -> np.ndarray:
    """Per labelling (times x samples x cells of wording indices): the pairs of cells with one
    wording and one answer, summed over the samples."""
    code = np.where(present[None], labels * k + answers[None], w * k)
    return _pairs_of(_row_counts(code, w * k + 1)[..., : w * k]).sum(axis=(-1, -2))


def _rates(
    agreeing_within: np.ndarray, fixed: tuple[float, float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """(across, within): the shares of disagreeing pairs across and within wordings."""
    pairs, within_pairs, agreeing = fixed
    within = 1 - agreeing_within / within_pairs
    across = 1 - (agreeing - agreeing_within) / (pairs - within_pairs)
    return across, within


def shuffled(
    wordings: np.ndarray, present: np.ndarray, times: int, rng: np.random.Generator
) -> np.ndarray:
    """``times`` shuffles of the wording labels among each sample's present cells (which come
    first in its row): times x samples x cells."""
    keys = np.where(present[None], rng.random((times, *wordings.shape)), np.inf)
    order = np.argsort(keys, axis=2)
    return np.take_along_axis(np.broadcast_to(wordings, keys.shape), order, axis=2)


def flag_words(flags: pd.DataFrame, metric: str) -> list[str]:
    """The card's flags of ``metric``: each flagged judge, with its samples whose verdict the
    wording changed (``wordy: wording changes verdict 12/40``)."""
    if flags.empty:
        return []
    mine = flags[(flags["metric"] == metric) & flags["flagged"].astype(bool)]
    return [
        f"{r['judge']}: wording changes verdict {r['changed']}/{r['samples']}"
        for r in mine.to_dict("records")
    ]
