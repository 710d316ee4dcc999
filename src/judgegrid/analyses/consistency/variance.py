"""Variance decomposition (a G study) and a decision study, per metric and strictness.

The scores of one metric at one strictness form a crossed random-effects design: sample x judge
x embedding x dimension (x wording, for a criterion with several wordings of its definition),
with repeats as replicates. Variance components come from the ANOVA
expected mean squares of a balanced design (Cronbach/Brennan generalizability theory), solved
from the highest interaction down. The design must be balanced, so samples that are not scored
in every judge x embedding x dimension x repeat cell are dropped (listwise). Negative estimates
(sampling error) are reported as 0, as is customary, with the raw value kept. When every
embedding model does not come at the same dimensions, embedding and dimension are one facet
("embedding @ dimension"). Facets with a single level are constant and left out.

The decision study then asks: averaging the score over n judges and m repeats, what is the
reliability (generalizability coefficient, relative decisions about samples) of a sample's
score? Interactions of sample with embedding/dimension count as part of the sample's true score
(those are fixed choices of the user); everything involving judge or repeat is error, and so is
everything involving wording (the wordings are interchangeable phrasings of one criterion, as
judges are interchangeable raters; the study assumes one wording is used).
"""

from __future__ import annotations

import itertools
from typing import Any, cast

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import scored
from judgegrid.analyses.frames.tables import embedding_config
from judgegrid.analyses.stats.icc import RELIABILITY_TARGET

RESIDUAL = "residual (repeats)"
VARIANCE_MISSING = (
    "listwise: only samples scored in every judge x embedding x dimension (x wording) x repeat"
)
D_STUDY_JUDGES = (1, 2, 3, 4, 5)
D_STUDY_REPEATS = (1, 2, 3, 5, 10)


# The columns summary.md shows of the variance components (the CSV has them all).
VARIANCE_SUMMARY_COLUMNS = ["metric", "strictness", "component", "variance", "share", "samples"]


def design_facets(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str], str]:
    """The facets with more than one level; embedding and dimension merged when not crossed."""
    rows = rows.copy()
    note = ""
    embedded = rows[rows["embedding"] != ""]
    crossed = (
        embedded.groupby("embedding")["dimension"].apply(lambda d: tuple(sorted(set(d)))).nunique()
        <= 1
    )
    if crossed:
        facets = ["judge", "embedding", "dimension"]
    else:
        rows["embedding @ dimension"] = embedding_config(rows["embedding"], rows["dimension"])
        facets = ["judge", "embedding @ dimension"]
        note = "embedding models come at different dimensions: one facet embedding @ dimension"
    if "wording" in rows.columns:
        facets.append("wording")
    facets = [f for f in facets if rows[f].nunique() > 1]
    return rows, ["sample_id", *facets], note


def balanced_array(rows: pd.DataFrame, facets: list[str]) -> tuple[np.ndarray, list[int], int]:
    """Scores as an array (samples, facet levels..., repeats), samples kept only if complete."""
    repeats = sorted(rows["repeat"].unique())
    levels = [sorted(rows[f].unique()) for f in facets[1:]]
    cells_per_sample = int(np.prod([len(lv) for lv in levels])) * len(repeats)
    complete = rows.groupby("sample_id")["score"].count()
    samples = sorted(complete[complete == cells_per_sample].index)
    # each row's sample's count, not ``isin(samples)``: pandas looks up 100,000 samples in a
    # column of Arrow strings one scalar at a time (a second and a half)
    rows = rows[rows.groupby("sample_id")["score"].transform("count") == cells_per_sample]
    shape = [len(samples), *[len(lv) for lv in levels], len(repeats)]
    array = np.full(shape, np.nan)
    index = [pd.Categorical(rows["sample_id"], categories=samples).codes]
    index += [
        pd.Categorical(rows[f], categories=lv).codes
        for f, lv in zip(facets[1:], levels, strict=True)
    ]
    index += [pd.Categorical(rows["repeat"], categories=repeats).codes]
    array[tuple(index)] = rows["score"].to_numpy(float)
    return array, shape, len(repeats)


def variance_components(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per metric, strictness and component: variance (>= 0), raw estimate, share."""
    frames = []
    for key, rows in scored(scores).groupby(["metric", "strictness"]):
        metric, strictness = cast(tuple[str, int], key)
        frames.append(_components_of(rows, str(metric), int(strictness)))
    if not frames:
        return pd.DataFrame(
            columns=["metric", "strictness", "component", "variance", "raw", "share"]
        )
    return pd.concat(frames, ignore_index=True)


def _components_of(rows: pd.DataFrame, metric: str, strictness: int) -> pd.DataFrame:
    cell = ["sample_id", "judge", "embedding", "dimension", "repeat"]
    rows = rows.drop_duplicates([*cell, "wording"] if "wording" in rows.columns else cell)
    rows, facets, note = design_facets(rows)
    array, shape, replicates = balanced_array(rows, facets)
    base = {
        "metric": metric,
        "strictness": strictness,
        "samples": shape[0],
        "missing": VARIANCE_MISSING,
    }
    if shape[0] < 2:
        return pd.DataFrame(
            [
                base
                | {
                    "component": "sample",
                    "variance": np.nan,
                    "raw": np.nan,
                    "share": np.nan,
                    "note": "fewer than two samples complete in every cell",
                }
            ]
        )
    estimates = anova_components(array, facets, replicates)
    table = pd.DataFrame(
        [base | {"component": name, "raw": value} for name, value in estimates.items()]
    )
    table["variance"] = table["raw"].clip(lower=0)
    total = table["variance"].sum()
    table["share"] = table["variance"] / total if total > 0 else np.nan
    table["note"] = note + ("" if total > 0 else "; no variance at all")
    return table


def _label(subset: tuple[str, ...]) -> str:
    names = ["sample" if f == "sample_id" else f for f in subset]
    return " x ".join(reversed(names)) if len(names) > 1 else names[0]


def anova_components(array: np.ndarray, facets: list[str], replicates: int) -> dict[str, float]:
    """Random-effects variance components of a balanced crossed design with replicates.

    ``array`` has one axis per facet and a last axis of replicates. E[MS_A] = s2_e + sum over
    effects B containing A of (N / prod of B's sizes) * s2_B, solved from the top down.
    """
    sizes = array.shape[:-1]
    k = len(facets)
    total_n = array.size
    subsets = [s for size in range(1, k + 1) for s in itertools.combinations(range(k), size)]
    effects: dict[tuple[int, ...], np.ndarray] = {(): np.array(array.mean())}
    mean_squares: dict[tuple[int, ...], float] = {}
    for subset in subsets:
        drop = tuple(i for i in range(k + 1) if i not in subset)
        marginal = array.mean(axis=drop, keepdims=True)
        effect = marginal.copy()
        for lower in effects:
            if set(lower) < set(subset):
                effect = effect - effects[lower]
        effects[subset] = effect
        cells = int(np.prod([sizes[i] for i in subset]))
        dof = int(np.prod([sizes[i] - 1 for i in subset]))
        mean_squares[subset] = float((total_n / cells) * (effect**2).sum() / dof)
    full = tuple(range(k))
    if replicates > 1:
        cell_means = array.mean(axis=-1, keepdims=True)
        error = float(((array - cell_means) ** 2).sum() / (np.prod(sizes) * (replicates - 1)))
        top = subsets
    else:
        error = mean_squares.pop(full)  # no replicate: the highest interaction is the residual
        top = [s for s in subsets if s != full]
    sigma: dict[tuple[int, ...], float] = {}
    for subset in sorted(top, key=len, reverse=True):
        expected = error + sum(
            total_n / np.prod([sizes[i] for i in other]) * sigma[other]
            for other in sigma
            if set(other) > set(subset)
        )
        coefficient = total_n / np.prod([sizes[i] for i in subset])
        sigma[subset] = (mean_squares[subset] - expected) / coefficient
    out = {
        _label(tuple(facets[i] for i in s)): sigma[s]
        for s in sorted(sigma, key=lambda s: (len(s), s))
    }
    out[RESIDUAL] = error
    return out


def decision_study(components: pd.DataFrame) -> pd.DataFrame:
    """Per metric and strictness: reliability of a sample's score averaged over n judges and
    m repeats, and the fewest repeats (1 judge) or judges (1 repeat) reaching 0.8."""
    rows = []
    for (metric, strictness), block in components.groupby(["metric", "strictness"]):
        var = dict(zip(block["component"], block["variance"], strict=True))
        universe, judge_error, residual, wording_error = _d_terms(var)
        has_judges = any("judge" in name.split(" x ") for name in var)
        judge_counts = D_STUDY_JUDGES if has_judges else (1,)
        for n_judges, n_repeats in itertools.product(judge_counts, D_STUDY_REPEATS):
            error = judge_error / n_judges + wording_error + residual / (n_judges * n_repeats)
            rows.append(
                {
                    "metric": metric,
                    "strictness": strictness,
                    "judges": n_judges,
                    "repeats": n_repeats,
                    "reliability": universe / (universe + error)
                    if universe + error > 0
                    else np.nan,
                    "missing": VARIANCE_MISSING,
                }
            )
    return pd.DataFrame(rows)


def _d_terms(var: dict[str, float]) -> tuple[float, float, float, float]:
    """(universe score, error averaged over judges, residual, wording error): a wording term
    with no judge in it is error that neither judges nor repeats average away (the study keeps
    one wording)."""
    universe = judge_error = wording_error = 0.0
    for name, value in var.items():
        if name == RESIDUAL or not np.isfinite(value):
            continue
        parts = name.split(" x ")
        if "sample" not in parts:
            continue
        if "judge" in parts:
            judge_error += value
        elif "wording" in parts:
            wording_error += value
        else:
            universe += value
    return universe, judge_error, var.get(RESIDUAL, np.nan), wording_error


def needed_for_target(study: pd.DataFrame, target: float = RELIABILITY_TARGET) -> pd.DataFrame:
    """Fewest repeats with one judge, and fewest judges with one repeat, reaching ``target``."""
    out: list[dict[str, Any]] = []
    for (metric, strictness), block in study.groupby(["metric", "strictness"]):
        one_judge = block[(block["judges"] == 1) & (block["reliability"] >= target)]
        one_repeat = block[(block["repeats"] == 1) & (block["reliability"] >= target)]
        single = block[(block["judges"] == 1) & (block["repeats"] == 1)]["reliability"]
        out.append(
            {
                "metric": metric,
                "strictness": strictness,
                "reliability_1_judge_1_repeat": float(single.iloc[0]) if len(single) else np.nan,
                "repeats_needed_1_judge": one_judge["repeats"].min() if len(one_judge) else np.nan,
                "judges_needed_1_repeat": one_repeat["judges"].min() if len(one_repeat) else np.nan,
                "missing": VARIANCE_MISSING,
            }
        )
    return pd.DataFrame(out)
