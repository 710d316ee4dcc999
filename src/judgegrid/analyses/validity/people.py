"""Validity against people: judges compared with human labels on each metric's own scale.

``labels`` has one row per annotator's label of a sample for a metric: ``sample_id, metric,
annotator, value`` (value in [0, 1], the metric's scale). Rules shared by every function here:
a label with no value is dropped; an annotator's repeated labels of one sample for one metric
are averaged into one label; a configuration's (or pooled judge's) rating of a sample is the
mean of its scored repeats, so a failed or skipped cell never counts and a sample no repeat
scored has no rating.

- ``validity_against_people`` / ``validity_by_judge``: Spearman's rho and Kendall's tau-b with
  the mean human label (95% CIs), accuracy and Cohen's kappa at the metric's threshold.
- ``human_agreement``: the annotators' own Krippendorff's alpha (interval), the ceiling a judge
  can be expected to reach.
- ``alternative_annotator_test``: Calderon, Reichart & Dror (2025), "The Alternative Annotator
  Test for LLM-as-a-Judge" (ACL 2025; arXiv 2501.10970): can the judge replace an annotator?
- ``labels_needed``: how many labelled samples would separate the best judge from the
  runner-up, and from chance, at the observed effect.

Weights (``frames.label_weights``): where a labelling queue drew a metric's labels with
unequal probabilities, validity and the alt-test weight each labelled sample by its
``1 / (N q)`` so that the figures stand for all the run's samples (``stats.weighted``: Hajek
means, weighted rank correlations and kappa, intervals at the effective n); where every
weight is 1 they are the unweighted figures, exactly. ``labels_needed`` reads the weighted rho
with the number of labelled samples (an approximation under unequal weights).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from judgegrid.analyses.frames.label_weights import is_uniform, metric_weights
from judgegrid.analyses.frames.ratings import PAIRABLE, pooled_by_choice, ratings
from judgegrid.analyses.frames.tables import CONFIG_AXES
from judgegrid.analyses.stats.categorical import alpha_report, pass_fail_kappa
from judgegrid.analyses.stats.correlation import kendall_tau_b, spearman_with_ci
from judgegrid.analyses.stats.intervals import accuracy_interval, tau_interval, wilson_interval
from judgegrid.analyses.stats.weighted import (
    hajek_by_weight,
    share_size,
    weighted_rank_correlation,
    weighted_share,
)
from judgegrid.core.scales import PLAIN, Scales

LABEL_COLUMNS = ["sample_id", "metric", "annotator", "value"]
VALIDITY_MISSING = (
    "pairwise-complete: samples with a rating (mean of scored repeats) and at least one label; "
    "for accuracy, a labelled sample the configuration attempted and never scored (only "
    "failed cells) counts as a disagreement"
)
AAT_MISSING = (
    "instances with a judge rating and at least two labels; an annotator with fewer than "
    "min_instances of them is not tested"
)
POOLED = ["embedding", "dimension", "strictness"]
VALIDITY_COLUMNS = [
    *CONFIG_AXES,
    "n",
    "spearman",
    "spearman_low",
    "spearman_high",
    "tau_b",
    "tau_b_low",
    "tau_b_high",
    "threshold",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "kappa",
    "note",
    "ci_method",
    "missing",
]
HUMAN_AGREEMENT_COLUMNS = [
    "metric",
    "annotators",
    "labels",
    "samples",
    "samples_multi",
    "alpha",
    "pairable",
    "note",
    "missing",
]
AAT_INSTANCE_COLUMNS = [
    "metric",
    "judge",
    "annotator",
    "sample_id",
    "rating",
    "label",
    "others",
    "judge_alignment",
    "annotator_alignment",
    "judge_wins",
    "annotator_wins",
]
AAT_COLUMNS = [
    "metric",
    "judge",
    "annotators",
    "skipped",
    "instances",
    "epsilon",
    "q",
    "winning_rate",
    "passed",
    "advantage_probability",
    "note",
    "missing",
]
AAT_ANNOTATOR_COLUMNS = [
    "metric",
    "judge",
    "annotator",
    "n",
    "rho_f",
    "rho_h",
    "mean_diff",
    "t",
    "p_value",
    "p_by",
    "rejected",
    "tested",
    "note",
]
NEEDED_COLUMNS = [
    "metric",
    "comparison",
    "best",
    "other",
    "rho_best",
    "rho_other",
    "n_now",
    "n_needed",
    "more_needed",
    "power",
    "level",
    "method",
    "note",
]


# ---------------------------------------------------------------- labels


def label_table(labels: pd.DataFrame) -> pd.DataFrame:
    """One label per metric, sample and annotator: rows with no value dropped, an annotator's
    repeated labels of a sample averaged (a relabel must not count as a second person)."""
    absent = [c for c in LABEL_COLUMNS if c not in labels.columns]
    if absent:
        raise ValueError(f"labels lack the column(s) {', '.join(absent)}")
    frame = labels[LABEL_COLUMNS].dropna(subset=["value"])
    frame = frame.astype({"sample_id": str, "metric": str, "annotator": str, "value": float})
    outside = frame[(frame["value"] < 0) | (frame["value"] > 1)]
    if len(outside):
        first = outside.iloc[0]
        raise ValueError(
            f"{len(outside)} label(s) outside [0, 1], e.g. {first['value']} for sample "
            f"{first['sample_id']} ({first['metric']}, {first['annotator']})"
        )
    return frame.groupby(["metric", "sample_id", "annotator"], as_index=False).agg(
        value=("value", "mean")
    )


def mean_labels(labels: pd.DataFrame) -> pd.DataFrame:
    """Per metric and sample: the mean human label and how many annotators gave it."""
    return (
        label_table(labels)
        .groupby(["metric", "sample_id"], as_index=False)
        .agg(label=("value", "mean"), annotators=("annotator", "count"))
    )


# ---------------------------------------------------------------- validity


def validity_against_people(
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    scales: Scales = PLAIN,
    weights: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per configuration of a labelled metric: agreement of its ratings with the mean label.

    ``weights``: each labelled sample's weight (``frames.label_weights.sample_weights``). Where
    a metric's weights are all 1 (every label drawn uniformly, or no weights given) the figures
    are the unweighted ones below; otherwise each is weighted to stand for all the run's samples
    (``_weighted_row``) and ``ci_method`` says so.

    Missing data: pairwise-complete. A sample counts when the configuration rated it (mean of
    its scored repeats) and at least one annotator labelled it; a failed cell or an unlabelled
    sample is left out. A configuration with no such sample keeps its row, with n = 0.

    Columns: CONFIG_AXES, n, spearman (+ _low, _high: Fisher z, Bonett-Wright SE), tau_b
    (+ _low, _high: Fisher z, Fieller-Hartley-Pearson SE), threshold, accuracy (+ _low, _high:
    Wilson) and kappa of rating >= threshold against mean label >= threshold, note, ci_method,
    missing.
    """
    human = mean_labels(labels)
    if human.empty:  # nothing labelled: no configuration has a row (and no rating is needed)
        return pd.DataFrame(columns=VALIDITY_COLUMNS)
    configs = scores[CONFIG_AXES].drop_duplicates()
    configs = configs[configs["metric"].isin(set(human["metric"]))]
    merged = ratings(scores).merge(human, on=["metric", "sample_id"])
    blocks = {key: block for key, block in merged.groupby(CONFIG_AXES, dropna=False)}
    unscored = _labelled_never_scored(scores, human)
    weighted = _weighted_metrics(weights, set(human["metric"]))
    rows = []
    for config in configs.itertuples(index=False):
        key = tuple(config)
        block = blocks.get(key, merged.iloc[:0])
        limit = scales.threshold(str(key[0]))
        rating, label = block["rating"].to_numpy(float), block["label"].to_numpy(float)
        failed = unscored.get(key, [])
        mine = weighted.get(str(key[0]))
        figures = (
            _weighted_row(rating, label, limit, mine, block["sample_id"], failed)
            if mine is not None
            else {
                **_validity_row(rating, label),
                **_threshold_agreement(rating, label, limit, len(failed)),
                "ci_method": CI_METHOD,
            }
        )
        rows.append({**dict(zip(CONFIG_AXES, key, strict=True)), "threshold": limit, **figures})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=VALIDITY_COLUMNS)
    out["note"] = [_join(a, b) for a, b in zip(out.pop("_note"), out.pop("_note2"), strict=True)]
    out["missing"] = VALIDITY_MISSING
    return out.sort_values(CONFIG_AXES).reset_index(drop=True).reindex(columns=VALIDITY_COLUMNS)


def validity_by_judge(
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    scales: Scales = PLAIN,
    weights: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``validity_against_people`` with each judge's configurations pooled as the user chooses
    (``pooled_by_choice``: a judge, or a judge / embedding model for an embedding metric): its
    rating of a sample is the mean over every scored repeat of every dimension and strictness
    configuration. Same missing-data rule; no embedding columns."""
    table = validity_against_people(pooled_by_choice(scores), labels, scales, weights)
    return table.drop(columns=POOLED, errors="ignore")


def _validity_row(rating: np.ndarray, label: np.ndarray) -> dict[str, Any]:
    rho, rho_low, rho_high, rho_note = spearman_with_ci(rating, label)
    tau, tau_note = kendall_tau_b(rating, label)
    note = _join("spearman: " + rho_note if rho_note else "", tau_note)
    return _correlations(
        len(rating), (rho, rho_low, rho_high), (tau, *tau_interval(tau, len(rating))), note
    )


def _correlations(
    n: int, rho: tuple[float, float, float], tau: tuple[float, float, float], note: str
) -> dict[str, Any]:
    """The rank-correlation columns of a validity row: rho and tau-b, each with its interval."""
    return {
        "n": n,
        "spearman": rho[0],
        "spearman_low": rho[1],
        "spearman_high": rho[2],
        "tau_b": tau[0],
        "tau_b_low": tau[1],
        "tau_b_high": tau[2],
        "_note": note,
    }


def _labelled_never_scored(scores: pd.DataFrame, human: pd.DataFrame) -> dict[tuple, list[str]]:
    """Per configuration: the labelled samples it attempted and never scored (failed cells
    only), which count against its accuracy as a tie counts against a pair."""
    attempted = scores[scores["status"] != "skipped"]
    labelled = attempted.merge(human[["metric", "sample_id"]], on=["metric", "sample_id"])
    if labelled.empty:
        return {}
    keys = [*CONFIG_AXES, "sample_id"]
    was_scored = labelled["status"].eq("scored")
    ever_scored = was_scored.groupby([labelled[k] for k in keys], dropna=False).any()
    never = ever_scored[~ever_scored].reset_index()
    return {
        tuple(k): list(b["sample_id"].astype(str))
        for k, b in never.groupby(CONFIG_AXES, dropna=False)
    }


def _threshold_agreement(
    rating: np.ndarray, label: np.ndarray, limit: float, unscored: int = 0
) -> dict[str, Any]:
    """Accuracy (Wilson CI) and Cohen's kappa of pass/fail at the threshold; ``unscored``
    labelled samples the configuration failed on count as disagreements in the accuracy."""
    passed, human = rating >= limit, label >= limit
    agree = int((passed == human).sum())
    n = len(rating) + unscored
    low, high = wilson_interval(agree, n)
    kappa, note = pass_fail_kappa(passed, human)
    accuracy = agree / n if n else float("nan")
    return {
        "accuracy": accuracy,
        "accuracy_low": low,
        "accuracy_high": high,
        "kappa": kappa,
        "_note2": note,
    }


CI_METHOD = (
    "rho: Fisher z, Bonett-Wright SE; tau-b: Fisher z, Fieller-Hartley-Pearson SE; "
    "accuracy: Wilson; all 95%"
)
WEIGHTED_CI_METHOD = (
    "weighted by the queue's draw probabilities: every figure weights a labelled sample by "
    "1 / (N q) (Hajek); rho and tau-b: "
    "weighted statistics, Fisher z with the weighted bootstrap's SE; accuracy: Wilson at the "
    "effective n (linearised variance); kappa: weighted Cohen's; all 95%"
)


def _weighted_metrics(weights: pd.DataFrame | None, metrics: set[str]) -> dict[str, pd.Series]:
    """Per labelled metric whose weights are not all 1: each labelled sample's weight."""
    if weights is None or weights.empty:
        return {}
    out = {}
    for metric in sorted(metrics):
        mine = metric_weights(weights, metric)["weight"].astype(float)
        if not is_uniform(mine.to_numpy()):
            out[metric] = mine
    return out


def _weighted_row(
    rating: np.ndarray,
    label: np.ndarray,
    limit: float,
    weights: pd.Series,
    samples: pd.Series,
    failed: list[str],
) -> dict[str, Any]:
    """The validity figures of one configuration, each weighted by its samples' weights; a
    labelled sample it never scored counts against its accuracy with its weight."""
    w = samples.astype(str).map(weights).fillna(1.0).to_numpy(float)
    rho, rho_low, rho_high, rho_note = weighted_rank_correlation(rating, label, w, "spearman")
    tau, tau_low, tau_high, tau_note = weighted_rank_correlation(rating, label, w, "tau-b")
    passed, human = rating >= limit, label >= limit
    right = np.r_[(passed == human).astype(float), np.zeros(len(failed))]
    every = np.r_[w, pd.Series(failed, dtype=str).map(weights).fillna(1.0).to_numpy(float)]
    accuracy, low, high = float("nan"), float("nan"), float("nan")
    if len(right):
        accuracy = weighted_share(right, every)
        low, high = accuracy_interval(accuracy, share_size(right, every))
    kappa, kappa_note = pass_fail_kappa(passed, human, w)
    return {
        **_correlations(
            len(rating),
            (rho, rho_low, rho_high),
            (tau, tau_low, tau_high),
            _join(rho_note, tau_note),
        ),
        "accuracy": accuracy,
        "accuracy_low": low,
        "accuracy_high": high,
        "kappa": kappa,
        "_note2": kappa_note,
        "ci_method": WEIGHTED_CI_METHOD,
    }


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


# ---------------------------------------------------------------- humans' own agreement


def human_agreement(labels: pd.DataFrame) -> pd.DataFrame:
    """Per metric: how far the annotators agree with each other (Krippendorff's alpha, interval).

    A judge cannot be expected to agree with people more than people agree with each other, so
    this is the ceiling to read validity against. Missing data: pairable values, every sample
    with at least two labels (a sample one person labelled cannot be compared).

    Columns: metric, annotators, labels, samples (>= 1 label), samples_multi (>= 2 labels),
    alpha, pairable (labels used), note, missing.
    """
    table = label_table(labels)
    rows = []
    for metric, block in table.groupby("metric"):
        wide = block.pivot(index="sample_id", columns="annotator", values="value")
        result = alpha_report(wide.to_numpy(float))
        rows.append(
            {
                "metric": metric,
                "annotators": wide.shape[1],
                "labels": len(block),
                "samples": wide.shape[0],
                "samples_multi": int((wide.notna().sum(axis=1) >= 2).sum()),
                "alpha": result["alpha"],
                "pairable": result["pairable"],
                "note": result["note"],
                "missing": PAIRABLE,
            }
        )
    return pd.DataFrame(rows, columns=HUMAN_AGREEMENT_COLUMNS)


# ---------------------------------------------------------------- alternative annotator test


def aat_instances(scores: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Per metric, judge (pooled), left-out annotator j and instance i: who represents the
    remaining annotators H[i] minus j better, the judge or annotator j.

    Alignment (the paper's scoring function for numeric labels): minus the root mean squared
    difference between a value and the remaining annotators' labels of the instance. The
    winning indicators follow the paper's ties rule: each wins when it aligns at least as well
    (a tie is a win for both; compared with a 1e-12 tolerance, so that floating-point noise in
    a mean of repeats does not break a tie).

    Missing data: an instance needs a judge rating (mean of its scored repeats, over all its
    configurations) and at least two labels, as in the reference code; otherwise it is left out.

    Columns: metric, judge, annotator, sample_id, rating, label, others (remaining labels),
    judge_alignment, annotator_alignment, judge_wins, annotator_wins.
    """
    table = label_table(labels)
    per_sample = table.groupby(["metric", "sample_id"])["annotator"].transform("count")
    table = table[per_sample >= 2]
    if table.empty:  # no sample with two labels: no instance (and no rating is needed)
        return pd.DataFrame(columns=AAT_INSTANCE_COLUMNS)
    judged = ratings(pooled_by_choice(scores))[["metric", "judge", "sample_id", "rating"]]
    frames = []
    for (metric, judge), mine in judged.groupby(["metric", "judge"]):
        wide = table[table["metric"] == metric].pivot(
            index="sample_id", columns="annotator", values="value"
        )
        wide = wide[wide.index.isin(set(mine["sample_id"]))]
        rating = mine.set_index("sample_id")["rating"].reindex(wide.index).to_numpy(float)
        for annotator in wide.columns:
            frames.append(_leave_one_out(str(metric), str(judge), str(annotator), wide, rating))
    if not frames:
        return pd.DataFrame(columns=AAT_INSTANCE_COLUMNS)
    return pd.concat(frames, ignore_index=True).reindex(columns=AAT_INSTANCE_COLUMNS)


def _leave_one_out(
    metric: str, judge: str, annotator: str, wide: pd.DataFrame, rating: np.ndarray
) -> pd.DataFrame:
    """Annotator j's instances: the judge's and j's alignment with the others' labels."""
    mine = wide[annotator].to_numpy(float)
    others = wide.drop(columns=annotator).to_numpy(float)
    use = ~np.isnan(mine)  # every kept instance has >= 2 labels, so >= 1 other for j
    mine, others, rating = mine[use], others[use], rating[use]
    judge_alignment = _neg_rmse(rating, others)
    annotator_alignment = _neg_rmse(mine, others)
    return pd.DataFrame(
        {
            "metric": metric,
            "judge": judge,
            "annotator": annotator,
            "sample_id": wide.index[use],
            "rating": rating,
            "label": mine,
            "others": (~np.isnan(others)).sum(axis=1),
            "judge_alignment": judge_alignment,
            "annotator_alignment": annotator_alignment,
            "judge_wins": judge_alignment >= annotator_alignment - 1e-12,
            "annotator_wins": annotator_alignment >= judge_alignment - 1e-12,
        }
    )


def _neg_rmse(values: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Per row: -sqrt(mean over the present labels of (value - label)^2)."""
    squared = (values[:, None] - others) ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row with no label: NaN, dropped
        return np.asarray(-np.sqrt(np.nanmean(squared, axis=1)), dtype=float)


def alternative_annotator_test(
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    epsilon: float = 0.2,
    q: float = 0.05,
    min_instances: int = 30,
    min_annotators: int = 3,
    weights: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The alt-test per metric and judge (pooled): (summary, per-annotator table).

    For each annotator j: rho_f_j and rho_h_j, the shares of j's instances the judge and j win
    (``aat_instances``); a one-sided one-sample t-test on d_i = W^h_ij - W^f_ij of
    H0: mean(d) >= epsilon, i.e. rho_f_j - rho_h_j <= -epsilon; the p-values of one metric and
    judge adjusted by Benjamini-Yekutieli (dependent tests) and rejected at q. The winning rate
    omega is the share of tested annotators whose null is rejected; the judge passes when
    omega >= 0.5. The average advantage probability rho (mean of rho_f_j) compares judges.

    epsilon is the paper's cost-benefit allowance: 0.2 for expert annotators, 0.15 for skilled
    ones, 0.1 for crowd workers, smaller when the annotators agree less with each other.

    Weighted (``weights``, where a metric's are not all 1): rho_f_j, rho_h_j and mean(d) are
    weighted means over the instances (Hajek, each instance by its sample's weight) and the
    t-test is on the weighted mean with its linearised standard error (``stats.weighted.hajek``),
    so that the test stands for all the run's samples, not the ones a queue chose.

    Missing data: see ``aat_instances``. An annotator with fewer than ``min_instances`` instances
    (30 in the reference code, for the t-test's normal approximation) is not tested and not
    counted in omega; with fewer than ``min_annotators`` tested annotators (the paper advises
    three: with two there is no consensus to represent) omega, rho and passed are missing.

    Summary columns: metric, judge, annotators (tested), skipped, instances, epsilon, q,
    winning_rate, passed, advantage_probability, note, missing.
    Per-annotator columns: metric, judge, annotator, n, rho_f, rho_h, mean_diff, t, p_value,
    p_by, rejected, tested, note.
    """
    if not 0 <= epsilon < 1 or not 0 < q < 1 or min_instances < 2 or min_annotators < 2:
        raise ValueError(
            "alt-test needs 0 <= epsilon < 1, 0 < q < 1, min_instances >= 2 and min_annotators >= 2"
        )
    instances = aat_instances(scores, labels)
    per_annotator = _annotator_tests(instances, epsilon, min_instances, weights)
    summaries, tables = [], []
    for (metric, judge), block in per_annotator.groupby(["metric", "judge"], sort=True):
        block = _by_correction(block, q)
        tables.append(block)
        used = instances[(instances["metric"] == metric) & (instances["judge"] == judge)]
        summaries.append(_summary(str(metric), str(judge), block, used, epsilon, q, min_annotators))
    summary = pd.DataFrame(summaries, columns=AAT_COLUMNS)
    if not tables:
        return summary, per_annotator.reindex(columns=AAT_ANNOTATOR_COLUMNS)
    return summary, pd.concat(tables, ignore_index=True).reindex(columns=AAT_ANNOTATOR_COLUMNS)


def _annotator_tests(
    instances: pd.DataFrame,
    epsilon: float,
    min_instances: int,
    weights: pd.DataFrame | None = None,
) -> pd.DataFrame:
    weighted = _weighted_metrics(weights, set(instances["metric"].astype(str)))
    rows = []
    for (metric, judge, annotator), block in instances.groupby(
        ["metric", "judge", "annotator"], sort=True
    ):
        judge_wins = block["judge_wins"].to_numpy(float)
        diff = block["annotator_wins"].to_numpy(float) - judge_wins
        tested = len(diff) >= min_instances
        mine = weighted.get(str(metric))
        w = (
            np.ones(len(diff))
            if mine is None
            else block["sample_id"].astype(str).map(mine).fillna(1.0).to_numpy(float)
        )
        t, p = (np.nan, np.nan)
        if tested:
            with warnings.catch_warnings():  # constant d: t = -inf or +inf, p = 0 or 1
                warnings.simplefilter("ignore", RuntimeWarning)
                t, p = _one_sided_t(diff, epsilon, None if mine is None else w)
        rows.append(
            {
                "metric": metric,
                "judge": judge,
                "annotator": annotator,
                "n": len(diff),
                "rho_f": weighted_share(judge_wins, w),
                "rho_h": weighted_share(block["annotator_wins"].to_numpy(float), w),
                "mean_diff": weighted_share(diff, w),
                "t": t,
                "p_value": p,
                "tested": tested,
                "note": "" if tested else f"not tested: {len(diff)} instances < {min_instances}",
            }
        )
    columns = [c for c in AAT_ANNOTATOR_COLUMNS if c not in ("p_by", "rejected")]
    return pd.DataFrame(rows, columns=columns)


def _one_sided_t(diff: np.ndarray, epsilon: float, w: np.ndarray | None) -> tuple[float, float]:
    """H0: mean(d) >= epsilon, one-sided: the one-sample t-test, or with weights the t-test
    of the Hajek mean with its linearised SE (n - 1 degrees of freedom)."""
    if w is None:
        result = stats.ttest_1samp(diff, epsilon, alternative="less")
        return float(result.statistic), float(result.pvalue)
    found = hajek_by_weight(diff, w)
    t = (
        (found.mean - epsilon) / found.se
        if found.se > 0
        else np.sign(found.mean - epsilon) * np.inf
    )
    return float(t), float(stats.t.cdf(t, len(diff) - 1))


def _by_correction(block: pd.DataFrame, q: float) -> pd.DataFrame:
    """Benjamini-Yekutieli adjusted p-values over the tested annotators; rejected at q. A NaN
    p-value (a t statistic of 0/0) is adjusted as 1: it cannot reject."""
    block = block.copy()
    block["p_by"] = np.nan
    tested = block["tested"].to_numpy(bool)
    if tested.any():
        p = block.loc[tested, "p_value"].fillna(1.0).to_numpy(float)
        block.loc[tested, "p_by"] = stats.false_discovery_control(p, method="by")
    block["rejected"] = block["p_by"] <= q
    return block


def _summary(
    metric: str,
    judge: str,
    block: pd.DataFrame,
    used: pd.DataFrame,
    epsilon: float,
    q: float,
    min_annotators: int,
) -> dict[str, Any]:
    tested = block[block["tested"]]
    enough = len(tested) >= min_annotators
    omega = float(tested["rejected"].mean()) if enough else float("nan")
    note = (
        ""
        if enough
        else f"not tested: {len(tested)} annotator(s) with enough instances < {min_annotators}"
    )
    return {
        "metric": metric,
        "judge": judge,
        "annotators": len(tested),
        "skipped": len(block) - len(tested),
        "instances": int(
            used.loc[used["annotator"].isin(set(tested["annotator"])), "sample_id"].nunique()
        ),
        "epsilon": epsilon,
        "q": q,
        "winning_rate": omega,
        "passed": (omega >= 0.5) if enough else pd.NA,
        "advantage_probability": float(tested["rho_f"].mean()) if enough else float("nan"),
        "note": note,
        "missing": AAT_MISSING,
    }


# ---------------------------------------------------------------- how many labels


def labels_needed(
    validity_by_judge: pd.DataFrame, power: float = 0.8, level: float = 0.95
) -> pd.DataFrame:
    """Per metric: labelled samples needed to separate the best judge (highest Spearman rho)
    from the runner-up and from chance, if the observed rhos were the true ones.

    Normal approximation on Fisher's z with the Bonett-Wright variance (1 + rho^2/2)/(n - 3)
    (the one the reported rho intervals use): against chance,
    n = 3 + (1 + rho^2/2) * ((z_{1-a/2} + z_power) / atanh(rho))^2;
    against the runner-up, treating the two rhos as independent estimates,
    n = 3 + (c_1 + c_2) * ((z_{1-a/2} + z_power) / (atanh(rho_1) - atanh(rho_2)))^2,
    c = 1 + rho^2/2. Both judges are scored on the same labelled samples, and when their
    ratings correlate positively their z's covary positively, so the independence
    approximation overstates the variance of the difference: n is conservative (too many).
    n is where, with probability ``power``, the ``level`` interval excludes no difference.

    Missing data: judges with no rho (too few samples, constant ratings) are not ranked.
    n_needed is NaN with a reason when the effect is 0 or undefined (|rho| = 1, no rho, a best
    rho <= 0 that no number of labels turns into evidence for the judge).

    Columns: metric, comparison ("runner-up" or "chance"), best, other, rho_best, rho_other,
    n_now, n_needed, more_needed, power, level, method, note.
    """
    if validity_by_judge.empty:
        return pd.DataFrame(columns=NEEDED_COLUMNS)
    z_sum = stats.norm.ppf(1 - (1 - level) / 2) + stats.norm.ppf(power)
    rows = []
    for metric, block in validity_by_judge.groupby("metric", sort=True):
        ranked = by_rho(block)
        if ranked.empty:
            for comparison in ("runner-up", "chance"):
                rows.append(_needed_row(metric, comparison, None, None, z_sum, power, level))
            continue
        best = ranked.iloc[0]
        rival = ranked.iloc[1] if len(ranked) > 1 else None
        rows.append(_needed_row(metric, "runner-up", best, rival, z_sum, power, level))
        rows.append(_needed_row(metric, "chance", best, None, z_sum, power, level))
    return pd.DataFrame(rows, columns=NEEDED_COLUMNS)


def by_rho(validity: pd.DataFrame) -> pd.DataFrame:
    """Judges with a Spearman rho against people, best first (more samples first on a tie):
    the order in which both the labels-needed table and the decision card read them."""
    ranked = validity[np.isfinite(validity["spearman"].astype(float))]
    return ranked.sort_values(["spearman", "n"], ascending=[False, False])


def _needed_row(
    metric: Any,
    comparison: str,
    best: pd.Series | None,
    rival: pd.Series | None,
    z_sum: float,
    power: float,
    level: float,
) -> dict[str, Any]:
    rho_best = float(best["spearman"]) if best is not None else float("nan")
    rho_other = 0.0 if comparison == "chance" else float("nan")
    if rival is not None:
        rho_other = float(rival["spearman"])
    n, note = _fisher_n(rho_best, rho_other, comparison, z_sum)
    if best is None:
        note = "no judge has a Spearman rho with the labels"
    elif comparison == "runner-up" and rival is None:
        note = "only one judge has a Spearman rho with the labels"
    n_now = int(best["n"]) if best is not None else 0
    return {
        "metric": metric,
        "comparison": comparison,
        "best": best["judge"] if best is not None else None,
        "other": "chance"
        if comparison == "chance"
        else (rival["judge"] if rival is not None else None),
        "rho_best": rho_best,
        "rho_other": rho_other,
        "n_now": n_now,
        "n_needed": n,
        "more_needed": max(0.0, n - n_now) if np.isfinite(n) else float("nan"),
        "power": power,
        "level": level,
        "method": "Fisher z normal approximation, Bonett-Wright variance"
        + (", the two rhos treated as independent" if comparison == "runner-up" else ""),
        "note": note,
    }


def _fisher_n(rho_1: float, rho_2: float, comparison: str, z_sum: float) -> tuple[float, str]:
    """Samples for the interval of z_1 - z_2 (z_2 = 0 for chance) to exclude 0; NaN + why."""
    if not (np.isfinite(rho_1) and np.isfinite(rho_2)):
        return float("nan"), "undefined: a rho is missing"
    if max(abs(rho_1), abs(rho_2)) >= 1:
        return float("nan"), "undefined: a rho of +-1 has no Fisher z"
    if comparison == "chance" and rho_1 <= 0:
        return float("nan"), "the best judge's rho is not above 0: labels cannot show it valid"
    delta = np.arctanh(rho_1) - np.arctanh(rho_2)
    if delta == 0:
        return float("nan"), "effect is 0: the two judges' rhos are equal"
    variance = (1 + rho_1**2 / 2) + (0.0 if comparison == "chance" else 1 + rho_2**2 / 2)
    return float(np.ceil(3 + variance * (z_sum / delta) ** 2)), ""
