"""What each judge configuration makes of the probes (``inputs/probes.py``).

A probe is a copy of a user's sample made worse in a known way (directional) or changed in a way
that must not help (robustness). Each (configuration, probe) pair compares the probe's score with
its base's — the user's sample, or for ``injection`` the degraded copy without the note — both
averaged over the repeats that scored. ``change`` is oriented so that positive is *better*
(for a lower-is-better metric such as noise_sensitivity, a fall).

- directional: **detected** when ``change < 0``; a tie, or a pair whose probe or base has no
  scored repeat (failed or skipped), is a miss. Detection rate = detected / pairs, with a 95%
  Wilson interval.
- a binary criterion's ``fails-when`` probe (tagged ``fails``) is directional too, but
  **detected** only when the judge's verdict on the probe is *fail*: most of its scored repeats
  failed (mean score < 0.5; half and half is no verdict, a miss). A fall from the base is not
  enough: on a base that fails already, a judge that always passes would otherwise be credited,
  and one that fails both would not. A probe without a scored repeat is a miss.
- robustness: **rose** when ``change > 0``; the share of rises (and its Wilson interval) and
  the mean change are taken over the pairs both of whose cells scored; pairs without are
  counted in ``failed``.

Missing data: stated per row (``failed``); nothing is imputed. The probes' rows never enter the
data set's own analyses: ``split_probe_scores`` takes them out first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.stats.intervals import wilson_interval
from judgegrid.core.scales import PLAIN, Scales

CONFIG = ["judge", "embedding", "dimension", "strictness"]
PROBE_COLUMNS = [
    "metric",
    *CONFIG,
    "probe",
    "kind",
    "pairs",
    "detected",
    "detection_rate",
    "ci_low",
    "ci_high",
    "scored_pairs",
    "rose",
    "rose_share",
    "rose_low",
    "rose_high",
    "mean_change",
    "failed",
    "fallback",
]
FAIL_BELOW = 0.5  # a fails-when probe's verdict is fail when its mean score is below this
ROBUSTNESS_LIMIT = 0.2  # a judge whose score rises on injection in more of the pairs is flagged


def probe_tags(sample_info: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Each probe's tag (metric, name, base, direction, language, fallback), by sample id."""
    return {sid: info["probe"] for sid, info in sample_info.items() if info.get("probe")}


def split_probe_scores(
    scores: pd.DataFrame, sample_info: Mapping[str, Mapping[str, Any]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the user's own rows, the probes' rows): the data set's means, variance and agreement
    are made from the first alone."""
    tags = probe_tags(sample_info)
    if not tags or scores.empty:
        return scores, scores.iloc[0:0]
    is_probe = scores["sample_id"].isin(set(tags))
    return scores[~is_probe].reset_index(drop=True), scores[is_probe].reset_index(drop=True)


def _cell_means(scores: pd.DataFrame) -> dict[tuple[Any, ...], float]:
    """Mean score over scored repeats, by (metric, configuration, sample)."""
    scored = scores[scores["status"] == "scored"]
    keys = ["metric", *CONFIG, "sample_id"]
    means = scored.groupby(keys, dropna=False)["score"].mean()
    return {tuple(k): float(v) for k, v in means.items()}  # type: ignore[arg-type]


def probe_pairs(
    scores: pd.DataFrame,
    sample_info: Mapping[str, Mapping[str, Any]],
    scales: Scales = PLAIN,
) -> pd.DataFrame:
    """One row per (configuration, probe sample): the oriented ``change`` from the base (NaN
    when either has no scored repeat), the probe's mean ``probe_score``, and ``margin``, how far
    a directional probe is into detection (above 0: detected): the fall ``-change``, or for a
    ``fails`` probe 0.5 − its mean score (the majority of its verdicts failed)."""
    tags = probe_tags(sample_info)
    columns = ["metric", *CONFIG, "probe", "kind", "sample_id", "base", "change", "fallback"]
    columns += ["probe_score", "margin"]
    if not tags or scores.empty:
        return pd.DataFrame(columns=columns)
    means = _cell_means(scores)
    configs = scores[["metric", *CONFIG]].drop_duplicates().itertuples(index=False)
    by_metric: dict[str, list[tuple[Any, ...]]] = {}
    for row in configs:
        by_metric.setdefault(str(row[0]), []).append(tuple(row[1:]))
    rows = []
    for sid, tag in tags.items():
        metric = str(tag["metric"])
        sign = -1.0 if scales.lower_is_better(str(metric)) else 1.0
        kind = "robustness" if tag["direction"] == "not_better" else "directional"
        for config in by_metric.get(metric, []):
            probe = means.get((metric, *config, sid))
            base = means.get((metric, *config, tag["base"]))
            change = sign * (probe - base) if probe is not None and base is not None else np.nan
            score = np.nan if probe is None else probe
            margin = FAIL_BELOW - score if tag["direction"] == "fails" else -change
            name, base_id, fallback = tag["name"], tag["base"], tag["fallback"]
            rows.append(
                [metric, *config, name, kind, sid, base_id, change, fallback, score, margin]
            )
    return pd.DataFrame(rows, columns=columns)


def probe_results(
    scores: pd.DataFrame,
    sample_info: Mapping[str, Mapping[str, Any]],
    scales: Scales = PLAIN,
) -> pd.DataFrame:
    """Per metric × configuration × probe: detection rate (directional) or the share and mean
    of rises (robustness), each with a 95% Wilson interval; ``PROBE_COLUMNS``."""
    pairs = probe_pairs(scores, sample_info, scales)
    if pairs.empty:
        return pd.DataFrame(columns=PROBE_COLUMNS)
    rows = []
    for key, block in pairs.groupby(["metric", *CONFIG, "probe", "kind"], sort=True):
        rows.append(dict(zip(["metric", *CONFIG, "probe", "kind"], key, strict=True)))
        measure = "margin" if key[-1] == "directional" else "change"
        rows[-1] |= _outcome(block[measure].to_numpy(dtype=float), str(key[-1]))
        rows[-1]["fallback"] = bool(block["fallback"].any())
    return _counts_as_integers(pd.DataFrame(rows, columns=PROBE_COLUMNS))


def _counts_as_integers(table: pd.DataFrame) -> pd.DataFrame:
    """Counts stay whole numbers where a kind of probe leaves them empty (nullable Int64)."""
    counts = ["pairs", "detected", "scored_pairs", "rose", "failed", "probes", "injection_rose"]
    counts += ["injection_pairs"]
    return table.astype({c: "Int64" for c in counts if c in table.columns})


def _outcome(change: np.ndarray, kind: str) -> dict[str, Any]:
    """Directional: ``change`` is the pairs' margins (detected above 0); robustness: their
    changes (rose above 0)."""
    scored = change[~np.isnan(change)]
    out: dict[str, Any] = {
        "pairs": len(change),
        "scored_pairs": len(scored),
        "failed": int(len(change) - len(scored)),
    }
    if kind == "directional":
        detected = int((scored > 0).sum())  # ties and unscored pairs are misses
        low, high = wilson_interval(detected, len(change))
        return out | {
            "detected": detected,
            "detection_rate": detected / len(change) if len(change) else np.nan,
            "ci_low": low,
            "ci_high": high,
        }
    rose = int((scored > 0).sum())
    low, high = wilson_interval(rose, len(scored))
    return out | {
        "rose": rose,
        "rose_share": rose / len(scored) if len(scored) else np.nan,
        "rose_low": low,
        "rose_high": high,
        "mean_change": float(scored.mean()) if len(scored) else np.nan,
    }


def judge_probe_matrix(results: pd.DataFrame) -> pd.DataFrame:
    """Judge × probe (``metric: probe``): the detection rate of directional probes and, for
    robustness probes, 1 − the share of rises (1: never fooled), the configurations of a judge
    averaged; the report's heatmap."""
    if results.empty:
        return pd.DataFrame()
    frame = results.assign(
        column=results["metric"] + ": " + results["probe"],
        value=np.where(
            results["kind"] == "directional",
            results["detection_rate"],
            1.0 - results["rose_share"].astype(float),
        ),
    )
    return frame.pivot_table(index="judge", columns="column", values="value", aggfunc="mean")


def robustness_flags(results: pd.DataFrame, limit: float = ROBUSTNESS_LIMIT) -> pd.DataFrame:
    """Judges whose score rose on ``injection`` in more than ``limit`` of the scored pairs of
    some configuration of a metric: metric, judge, the worst share and its pairs."""
    columns = ["metric", "judge", "rose_share", "scored_pairs"]
    if results.empty:
        return pd.DataFrame(columns=columns)
    injected = results[(results["probe"] == "injection") & (results["rose_share"] > limit)]
    worst = injected.sort_values("rose_share", ascending=False).drop_duplicates(["metric", "judge"])
    return worst[columns].sort_values(["metric", "judge"]).reset_index(drop=True)


def probe_outcomes(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Directional probes of ``metric`` (rows) × judges: detected (its score fell, or for a
    ``fails`` probe the verdict was fail; each probe's margin averaged over the judge's
    configurations) or not; a probe a judge did not score, or scored the same, is a miss."""
    if pairs.empty:
        return pd.DataFrame()
    mine = pairs[(pairs["metric"] == metric) & (pairs["kind"] == "directional")]
    if mine.empty:
        return pd.DataFrame()
    margin = mine.groupby(["sample_id", "judge"])["margin"].mean().unstack("judge")
    return margin.gt(0)


def judge_detection(pairs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per judge: its directional probes of ``metric`` detected (``probe_outcomes``), with a
    Wilson interval; best first."""
    columns = ["judge", "probes", "detected", "rate", "low", "high"]
    detected = probe_outcomes(pairs, metric)
    if detected.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for judge in sorted(detected.columns):
        n, hits = int(detected[judge].size), int(detected[judge].sum())
        low, high = wilson_interval(hits, n)
        rows.append([str(judge), n, hits, hits / n if n else np.nan, low, high])
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["low", "rate"], ascending=False).reset_index(drop=True)


def injection_rises(pairs: pd.DataFrame, metric: str) -> dict[str, tuple[int, int]]:
    """Per judge: (pairs whose score rose on injection, pairs scored) for ``metric``, over all
    its configurations."""
    if pairs.empty:
        return {}
    mine = pairs[(pairs["metric"] == metric) & (pairs["probe"] == "injection")]
    mine = mine[mine["change"].notna()]
    return {
        str(judge): (int((block["change"] > 0).sum()), len(block))
        for judge, block in mine.groupby("judge", sort=True)
    }


BRIEF_COLUMNS = ["metric", "judge", "detected", "probes", "rate", "low", "high"]
BRIEF_COLUMNS += ["injection_rose", "injection_pairs", "flagged"]


def probe_brief(pairs: pd.DataFrame, limit: float = ROBUSTNESS_LIMIT) -> pd.DataFrame:
    """Per metric × judge, in brief: directional probes detected (Wilson interval) and the
    pairs whose score rose on injection, ``flagged`` above ``limit`` (summary.md, the end of
    ``judgegrid run``)."""
    if pairs.empty:
        return pd.DataFrame(columns=BRIEF_COLUMNS)
    rows = []
    for metric in sorted(set(pairs["metric"])):
        rises = injection_rises(pairs, metric)
        detection = judge_detection(pairs, metric).set_index("judge")
        for judge in sorted(set(pairs.loc[pairs["metric"] == metric, "judge"])):
            d = detection.loc[judge] if judge in detection.index else None
            rose, n = rises.get(judge, (0, 0))
            figures = [np.nan] * 5 if d is None else [d[c] for c in BRIEF_COLUMNS[2:7]]
            rows.append([metric, judge, *figures, rose, n, bool(n and rose / n > limit)])
    return _counts_as_integers(pd.DataFrame(rows, columns=BRIEF_COLUMNS))
