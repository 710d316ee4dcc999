"""Which judge to pick: judges ranked by validity (or consensus agreement) against cost and time.

The user picks a judge (and, for a metric that uses embeddings, an embedding model), so
configurations are pooled per choice (``frames.ratings.pooled_by_choice``): a judge's rating of a
sample is the mean over its scored repeats and its dimension/strictness configurations of that
metric, and for an embedding metric the "judge" ranked is 'judge / embedding model'. The quality
axis is validity (pairwise-preference accuracy with a Wilson 95% CI) where the data set has
preference pairs or contrasts for the metric; otherwise agreement with the consensus of the other
judges (Kendall's tau-b against the leave-one-out mean, 95% CI by Fisher's z with the
Fieller-Hartley-Pearson SE sqrt(0.437/(n-4))). Agreement with the others is not validity: a judge
that differs from a wrong majority is penalised, and the paragraph says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgegrid.analyses.consistency.agreement import rater_offsets, tables_of_ratings
from judgegrid.analyses.frames.juries import JURY_PREFIX
from judgegrid.analyses.frames.ratings import choice_ratings, pooled_by_choice, scored
from judgegrid.analyses.stats.intervals import tau_interval, wilson_interval
from judgegrid.analyses.validity.pairs import (
    pair_accuracy,
    pair_outcomes,
    pair_weights,
    weighted_groups,
)
from judgegrid.core.scales import PLAIN, Scales

RANKING_COLUMNS = [
    "metric",
    "judge",
    "basis",
    "quality",
    "ci_low",
    "ci_high",
    "n",
    "cost_per_score",
    "latency_per_score_s",
    "failure_rate",
    "mean_run_sd",
    "pareto",
    "rank",
    "missing",
]
# The columns summary.md shows of the ranking (the CSV has them all).
RANKING_SUMMARY_COLUMNS = [
    c for c in RANKING_COLUMNS if c not in ("basis", "mean_run_sd", "missing")
]

RANKING_MISSING = {
    True: "validity: every pair, one a member of which the judge did not score counted as wrong "
    "(ratings: mean over the judge's configurations and repeats); cost/latency: scored cells",
    False: "consensus: available-case (samples this judge and another scored); cost/latency: "
    "scored cells",
}


@dataclass(frozen=True)
class PairWeights:
    """People's preferences' weights by pair (``frames.label_weights.person_weights``, the
    card's pairs rung's; a pair not in it weighs 1) and what they stand for in words
    (``sampling_words``)."""

    weights: pd.Series | None = None
    words: str = ""


def judge_ranking(
    scores: pd.DataFrame,
    pairs: pd.DataFrame,
    scales: Scales = PLAIN,
    choices: pd.DataFrame | None = None,
    weights: PairWeights | None = None,
) -> pd.DataFrame:
    """One row per metric and judge (judge / embedding model for an embedding metric): quality
    with CI, cost, latency, failures, Pareto flag. ``choices``: ``choice_ratings(scores)`` if
    already made; ``weights``: people's preferences' (the pairwise accuracy is then the card's
    weighted one, its interval at the effective number of pairs; none: each pair once)."""
    if scores.empty:
        return pd.DataFrame(columns=RANKING_COLUMNS)
    choices = choice_ratings(scores) if choices is None else choices
    scores = pooled_by_choice(scores)  # costs, too, are per choice
    quality = _validity(scores, pairs, scales, weights or PairWeights())
    consensus = _consensus(choices)
    if not quality.empty and not consensus.empty:
        with_pairs = set(quality["metric"])
        consensus = consensus[~consensus["metric"].isin(with_pairs)]
    table = pd.concat([quality, consensus], ignore_index=True)
    if table.empty:
        return pd.DataFrame(columns=RANKING_COLUMNS)
    table = table.merge(_costs(scores, choices), on=["metric", "judge"], how="left")
    table["pareto"] = _pareto(table)
    table["missing"] = [RANKING_MISSING[b.startswith("pairwise")] for b in table["basis"]]
    table["rank"] = (
        table.groupby("metric")["quality"].rank(ascending=False, method="min").astype("Int64")
    )
    return table.sort_values(["metric", "rank"]).reindex(columns=RANKING_COLUMNS)


def _validity(
    pooled: pd.DataFrame, pairs: pd.DataFrame, scales: Scales, weights: PairWeights
) -> pd.DataFrame:
    if pairs.empty:
        return pd.DataFrame()
    acc = pair_accuracy(pooled, pairs, scales)
    acc = acc.groupby(["metric", "judge"], as_index=False).agg(
        agree=("agree", "sum"), n=("n", "sum"), sources=("source", lambda s: set(s))
    )
    acc["quality"] = acc["agree"] / acc["n"].where(acc["n"] > 0)
    bounds = [wilson_interval(int(a), int(n)) for a, n in zip(acc["agree"], acc["n"], strict=True)]
    acc["ci_low"], acc["ci_high"] = [b[0] for b in bounds], [b[1] for b in bounds]
    acc["basis"] = [
        "pairwise-preference accuracy (human labels)"
        if sources & {"labels", "people"}  # the data set's preferences, or people's on the page
        else "pairwise-preference accuracy (designed contrasts)"
        for sources in acc["sources"]
    ]
    if weights.weights is not None and not weights.weights.empty:
        acc = _weighted_quality(acc, pair_outcomes(pooled, pairs, scales), weights)
    return acc.drop(columns=["agree", "sources"])


def _weighted_quality(
    acc: pd.DataFrame, outcomes: pd.DataFrame, weights: PairWeights
) -> pd.DataFrame:
    """Each judge's accuracy weighted as the card's pairs rung weighs it (every pair of the
    metric, people's preferences by their draws: ``stats.weighted.weighted_accuracy``), where
    its pairs' weights are not all 1; the basis says by what."""
    weight = pair_weights(outcomes, weights.weights)
    if weight is None:
        return acc
    figures = weighted_groups(outcomes.assign(weight=weight), ["metric", "judge"])
    keys = list(zip(acc["metric"], acc["judge"], strict=True))
    acc = acc.copy()
    for at, column in enumerate(("quality", "ci_low", "ci_high")):
        acc[column] = [
            figures[k][at] if k in figures else v for k, v in zip(keys, acc[column], strict=True)
        ]
    words = weights.words or "weighted"
    acc["basis"] = [
        f"{b}; {words}" if k in figures else b for k, b in zip(keys, acc["basis"], strict=True)
    ]
    return acc


def _consensus(choices: pd.DataFrame) -> pd.DataFrame:
    """Agreement with the other judges' consensus; a jury has none (it would agree with its
    own members by construction, and weigh them twice in the others' consensus)."""
    judges = choices[~choices["judge"].str.startswith(JURY_PREFIX)]
    offsets = rater_offsets(judges, "judge", tables_of_ratings(judges, "judge"))
    if offsets.empty:
        return pd.DataFrame()
    offsets = offsets[offsets["n"] > 0].rename(columns={"rater": "judge"})
    out = offsets[["metric", "judge", "n"]].copy()
    out["quality"] = offsets["consensus_tau_b"].to_numpy()
    lows, highs = (
        zip(
            *[tau_interval(t, n) for t, n in zip(out["quality"], out["n"], strict=True)],
            strict=True,
        )
        if len(out)
        else ((), ())
    )
    out["ci_low"], out["ci_high"] = list(lows), list(highs)
    out["basis"] = "Kendall tau-b with the other judges' consensus"
    return out


def _costs(scores: pd.DataFrame, choices: pd.DataFrame) -> pd.DataFrame:
    ok = scored(scores)
    grouped = ok.groupby(["metric", "judge"])
    usage = grouped.agg(latency_per_score_s=("latency_s", "mean"))
    known = grouped["cost"].count() == grouped["cost"].size()
    usage["cost_per_score"] = grouped["cost"].mean().where(known, np.nan)
    attempted = scores[scores["status"] != "skipped"]
    usage = usage.join(
        (attempted["status"] == "failed")
        .groupby([attempted["metric"], attempted["judge"]])
        .mean()
        .rename("failure_rate"),
        how="outer",
    )
    sd = choices.groupby(["metric", "judge"])["sd"].mean().rename("mean_run_sd")
    return usage.join(sd, how="left").reset_index()


def _pareto(table: pd.DataFrame) -> list[bool]:
    """Not dominated within its metric: no other judge at least as good, cheap and fast, and
    strictly better on one. Unknown cost or latency counts as the worst."""
    flags = []
    q = table["quality"].fillna(-np.inf).to_numpy()
    c = table["cost_per_score"].fillna(np.inf).to_numpy()
    t = table["latency_per_score_s"].fillna(np.inf).to_numpy()
    metric = table["metric"].to_numpy()
    for i in range(len(table)):
        same = metric == metric[i]
        weakly = (q >= q[i]) & (c <= c[i]) & (t <= t[i])
        strictly = (q > q[i]) | (c < c[i]) | (t < t[i])
        flags.append(not bool((same & weakly & strictly).any()))
    return flags


def best_first(block: pd.DataFrame) -> pd.DataFrame:
    """One metric's judges that could be measured, best first; on equal quality the cheaper,
    then the more repeatable, then the faster judge first."""
    return block[block["quality"].notna()].sort_values(
        ["quality", "cost_per_score", "mean_run_sd", "latency_per_score_s"],
        ascending=[False, True, True, True],
    )


def metric_sentence(title: str, block: pd.DataFrame) -> str:
    """How this metric's judges rank, in plain words (the card's detail line); the verdict,
    from paired comparisons, is the card's (``decision``)."""
    measured = best_first(block)
    unmeasured = ", ".join(str(j) for j in block.loc[block["quality"].isna(), "judge"])
    if measured.empty:
        return (
            f"For {title}, no judge could be assessed: no preference pair was scored, and the "
            "judges' scores do not vary enough across samples to compare them with each other."
        )
    best, rivals = measured.iloc[0], measured.iloc[1:]
    level = level_words(rivals.loc[rivals["quality"] == best["quality"], "judge"])
    validity = best["basis"].startswith("pairwise")
    chance = 0.5 if validity else 0.0
    reference = "the human preference" if "human" in best["basis"] else "the designed contrasts"
    what = (
        f"agrees with {reference} on {best['quality']:.2f} of {int(best['n'])} pairs"
        if validity
        else f"ranks samples most like the other judges' consensus (tau-b {best['quality']:.2f} "
        f"over {int(best['n'])} samples)"
    )
    has_ci = bool(np.isfinite(best["ci_low"]))
    ci = (
        f" (95% CI {best['ci_low']:.2f}-{best['ci_high']:.2f})"
        if has_ci
        else " (too few samples for an interval)"
    )
    usage = (
        f"{_money(best['cost_per_score'])} and {_seconds(best['latency_per_score_s'])} per score"
    )
    if np.isfinite(best.get("failure_rate", np.nan)) and best["failure_rate"] > 0:
        usage += f", with {best['failure_rate']:.0%} of its cells failed"
    if np.isfinite(best.get("mean_run_sd", np.nan)):
        usage += f"; its repeats of a sample differ by an SD of {best['mean_run_sd']:.3f}"
    if not has_ci or best["ci_low"] <= chance:
        text = (
            f"For {title}, the data support no judge yet: the best, {best['judge']}{level}, "
            f"{what}{ci}, "
            f"which does not exclude chance ({chance:.2g}), at {usage}. Score or label more "
            "samples before choosing."
        )
    else:
        text = f"For {title}, {best['judge']} ranks first{level}: it {what}{ci}, at {usage}."
        if len(rivals):
            text += (
                " Then "
                + "; ".join(
                    f"{r['judge']} {r['quality']:.2f} at {_money(r['cost_per_score'])}"
                    for _, r in rivals.iterrows()
                )
                + ". Whether the first is separated from them is the card's paired comparison."
            )
    if unmeasured:
        lost = "no pair had both members scored" if validity else "no sample scored with another"
        text += f" {unmeasured}: not measurable ({lost})."
    if not validity:
        text += " Agreement with other judges is not validity: label a few pairs to check it."
    return text


def level_words(judges: Iterable[object]) -> str:
    """`` (level with b, c)``: the judges whose figure equals the one named first, said where
    the first is named (the card and its detail break a tie each their own way, the card by the
    judges' order, the detail by cost; saying who is level keeps either from reading as a
    lead)."""
    names = [str(j) for j in judges]
    return f" (level with {', '.join(names)})" if names else ""


def _seconds(value: float) -> str:
    """A judge's time per score, or that it is unknown (an import whose source kept none)."""
    return f"{value:.2f} s" if np.isfinite(value) else "unknown time"


def _money(cost: float) -> str:
    return "unknown cost" if not np.isfinite(cost) else f"${cost:.5f}"
