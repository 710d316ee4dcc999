"""The decision card: per metric, the judge (or the set of judges) the data support, why in one
line with the comparison to the runner-up, and the next step as a command to copy.

Evidence is a ladder, and the card uses the highest rung with data for each metric (``LADDER``,
one function a rung; another kind of evidence is one more function in the list):
1. **people**: Spearman's rho of each judge's ratings with the mean human label; for a
   criterion of the user's own, each judge's answer right or wrong against the people's label
   (``criterion_validity``), exact McNemar, chance the no-information rate;
2. **preference pairs** or designed contrasts: pairwise accuracy, an unscored pair (a failed
   cell) counted as wrong, like a tie; pairs too few to exclude chance give way to probes;
3. **probes**: the share of directional probes (copies of the user's samples made worse in a
   known way, ``probes``) whose score fell (a criterion's ``fails-when`` probe: whose verdict
   was fail), each probe right or wrong per judge (a tie or a failed cell is a miss),
   compared on the same probes like pairs. Whatever rung names a judge, one whose score rose
   on injection in more than 20% of its pairs is flagged (``with_robustness_flag``);
4. **other judges**: tau-b with the leave-one-out consensus. It needs three judges or more
   (with two, each agrees with "the others" by the same number), and a judge named on it is
   named "by agreement only", since agreeing with a wrong majority is not validity. Juries
   (``juries``) are left out of this rung: a jury agrees with its own members by construction.

The rule, the same on every rung (``outcome``): the top judge by the point estimate must exclude
chance (its interval at 95% over the k judges measured, Bonferroni: the best of k judges at
chance would otherwise exclude it by luck about k times as often); then it is compared with
each other judge on the items both were measured on (exact McNemar for right/wrong pairs, a
paired bootstrap of the difference otherwise), the p-values Holm-corrected. The judges it is
not separated from form a set with it, but only those whose own interval excludes chance at the
top's bar (``_clear_of_chance``): the card never recommends a judge the data do not show above
chance when another judge's interval excludes it. The card names the set and recommends its
cheapest, then fastest, member, and says so; the judges not separated from the top but not clear
of chance are named after it ("c: not separated but not above chance") and never taken — with
none clear besides the top, the top is the verdict. With a non-inferiority margin
(``decision: {margin}``), the card names the cheapest judge clear of chance whose one-sided 95%
lower bound of (its quality - the top's) lies above -margin. The card's figure is the
recommended judge's; where that is not the top judge, the top's value goes with it
(``top_value``). A named judge with more than 10% of its cells failed carries that share.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from judgegrid.analyses.common import pooled_by_choice, ratings
from judgegrid.analyses.criterion_validity import PeopleRight
from judgegrid.analyses.human import by_rho, mean_labels
from judgegrid.analyses.juries import is_jury
from judgegrid.analyses.paired import (
    ALPHA,
    PairedDifference,
    Statistic,
    bootstrap_statistic,
    consensus_tau_statistic,
    difference,
    holm,
    mean_statistic,
    on_all_items,
    paired_binary,
    paired_bootstrap,
    spearman_statistic,
)
from judgegrid.analyses.probes import ROBUSTNESS_LIMIT, injection_rises, probe_outcomes
from judgegrid.analyses.recommendation import metric_sentence
from judgegrid.analyses.validity import pair_outcomes, wilson_interval

# The one figure a verdict rests on, as numbers (the terminal's card and the pictures read them;
# ``reason`` says the same in words): the named judge's (else the top judge's) quality on the rung,
# its 95% interval and the items behind it; and the flags, ``;``-separated.
FIGURE_COLUMNS = ["judge", "measure", "value", "low", "high", "n", "unit", "chance", "flags"]
# One row per metric and judge on the rung that decided (``candidate_rows``).
EVIDENCE_COLUMNS = [
    "metric",
    *FIGURE_COLUMNS[:-1],
    "basis",
    "role",
    "diff",
    "diff_low",
    "diff_high",
    "p_holm",
]
# ``top_value``: the top judge's figure, where the figure is another judge's (a set's take, a
# judge within the margin); empty otherwise.
CARD_COLUMNS = [
    "metric",
    "verdict",
    "basis",
    "reason",
    "next_step",
    "detail",
    *FIGURE_COLUMNS,
    "top_value",
]
NO_VERDICT = "no verdict"
# ends a verdict whose set left out judges not separated from the top but not clear of chance
NOT_ABOVE_CHANCE = ": not separated but not above chance"
DEFAULT_LABELS = 15  # what the card asks for when no effect tells how many more would do
FAILED_SHARE_SHOWN = 0.10
MIN_AGREEMENT_JUDGES = 3


@dataclass(frozen=True)
class CardSources:
    """What the card reads: the scores (pooled here as the user chooses), the ranking (cost,
    latency, failures per judge), preference pairs, people's labels and what ``human`` made of
    them."""

    scores: pd.DataFrame
    ranking: pd.DataFrame
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    labels: pd.DataFrame = field(default_factory=pd.DataFrame)
    people: pd.DataFrame = field(default_factory=pd.DataFrame)
    aat: pd.DataFrame = field(default_factory=pd.DataFrame)
    needed: pd.DataFrame = field(default_factory=pd.DataFrame)
    lower_is_better: frozenset[str] = frozenset()
    margin: float | None = None
    probe_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)  # ``probes.probe_pairs``
    # per criterion: its answers right or wrong against people (``criterion_validity``)
    people_right: Mapping[str, PeopleRight] = field(default_factory=dict)


@dataclass(frozen=True)
class Evidence:
    """One rung of the ladder for one metric: every judge measured on the same items."""

    basis: str  # the card's basis column
    measure: str  # "rho", "accuracy", "tau-b"
    unit: str  # what an item is: "samples", "pairs"
    chance: float
    judges: tuple[str, ...]
    values: np.ndarray  # items x judges; NaN: this judge has no value for the item
    target: np.ndarray | None  # per item (people's mean label), or None
    statistic: Statistic
    binary: bool  # values are right (1) / wrong (0): McNemar
    # a judge's CI from (quality, n, level)
    interval: Callable[[float, int, float], tuple[float, float]]
    named_suffix: str = ""  # "(by agreement only)"
    min_judges: int = 1
    joint: bool = False  # the statistic reads every judge's column at once (a consensus)
    next_if_named: str = "check it against people"
    words: Callable[[str], str] = lambda judge: ""  # more about a named judge (alt-test)


@dataclass(frozen=True)
class Standing:
    """A judge's own figures on a rung."""

    judge: str
    quality: float
    low: float
    high: float
    n: int


def decision_card(
    sources: CardSources, run_ref: str, metric_titles: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """One row per metric of the run."""
    return decide_every_metric(sources, run_ref, metric_titles)[0]


def decide_every_metric(
    sources: CardSources, run_ref: str, metric_titles: Mapping[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The card (one row per metric) and the evidence behind it (one row per metric and judge
    on the rung that decided, ``EVIDENCE_COLUMNS``: what the card's pictures draw)."""
    ranking, people = sources.ranking, sources.people
    metrics = sorted(set(sources.scores.get("metric", [])) | set(people.get("metric", [])))
    rows, candidates = [], []
    for metric in metrics:
        title = (metric_titles or {}).get(metric, metric)
        block = ranking[ranking["metric"] == metric] if not ranking.empty else ranking
        evidence = first_evidence(metric, sources)
        # the ranking's sentence where it measured a judge, or where nothing else did: beside a
        # criterion decided on people's labels it would read "no judge could be assessed"
        measured = not block.empty and bool(block["quality"].notna().any())
        told = not block.empty and (measured or evidence is None)
        detail = metric_sentence(title, block) if told else ""
        if evidence is None:
            row = _nothing_measurable(metric, run_ref)
        else:
            found = outcome(evidence, _usage(ranking, metric), sources.margin)
            row = decide(metric, evidence, sources, run_ref, found)
            candidates += candidate_rows(metric, evidence, found)
        row = with_robustness_flag(row, metric, sources.probe_pairs)
        rows.append({"metric": metric, "flags": "", **row, "detail": detail})
    card = pd.DataFrame(rows, columns=CARD_COLUMNS)
    return card, pd.DataFrame(candidates, columns=EVIDENCE_COLUMNS)


def candidate_rows(metric: str, evidence: Evidence, found: Outcome) -> list[dict[str, Any]]:
    """Each judge measured on the deciding rung: its figure and interval, its difference from
    the top judge (paired, with the Holm-corrected p) and its role in the verdict."""
    ruling = found.ruling
    if ruling.top is None:
        return []
    compared = [(ruling.top, None, float("nan")), *ruling.others]
    return [
        {
            "metric": metric,
            **figure_fields(evidence, standing),
            "basis": evidence.basis,
            "role": _role(standing.judge, found),
            "diff": diff.diff if diff else float("nan"),
            "diff_low": diff.low if diff else float("nan"),
            "diff_high": diff.high if diff else float("nan"),
            "p_holm": p,
        }
        for standing, diff, p in compared
    ]


def _role(judge: str, found: Outcome) -> str:
    """chosen (the verdict's judge), set (not separated from it), or measured."""
    if found.named == judge:
        return "chosen"
    return "set" if judge in found.tied else "measured"


def _nothing_measurable(metric: str, run_ref: str) -> dict[str, Any]:
    return {
        "verdict": NO_VERDICT,
        "basis": "nothing measurable",
        "reason": "no labels, no scored preference pair, no probe, and no two judges scored alike",
        "next_step": _label_command(run_ref, metric, None),
    }


def first_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """The highest rung of the ladder with data for ``metric``; pairs or contrasts too few to
    exclude chance give way to probes, where there are any."""
    for rung in LADDER:
        evidence = rung(metric, sources)
        if evidence is None:
            continue
        if rung is pair_evidence and _gives_way_to_probes(evidence, metric, sources):
            continue
        return evidence
    return None


def _gives_way_to_probes(pairs: Evidence, metric: str, sources: CardSources) -> bool:
    if probe_evidence(metric, sources) is None:
        return False
    return outcome(pairs, _usage(sources.ranking, metric), sources.margin).kind == "chance"


# ---------------------------------------------------------------- the rungs


def people_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 1: each judge's ratings against people's mean label, on the labelled samples."""
    if sources.labels.empty or sources.people.empty:
        return None
    measured = by_rho(sources.people[sources.people["metric"] == metric])
    if measured.empty:
        return None
    labelled = mean_labels(sources.labels)
    human = labelled[labelled["metric"] == metric].set_index("sample_id")["label"]
    wide = _wide_ratings(sources.scores, metric).reindex(human.index)
    judges = tuple(str(j) for j in measured["judge"] if j in wide.columns)
    return Evidence(
        basis="people",
        measure="rho",
        unit="samples people labelled",
        chance=0.0,
        judges=judges,
        values=wide[list(judges)].to_numpy(float),
        target=human.to_numpy(float),
        statistic=spearman_statistic,
        binary=False,
        interval=_rho_interval,
        next_if_named="none needed: the interval excludes chance",
        words=lambda judge: _aat_words(sources.aat, metric, judge),
    )


def criterion_people_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 1 for a criterion: each judge's answer right or wrong against the people's label
    (``criterion_validity``); chance is the no-information rate, not one half."""
    found = sources.people_right.get(metric)
    if found is None or found.right.empty:
        return None
    return Evidence(
        basis="people",
        measure="accuracy",
        unit="samples people labelled",
        chance=found.chance,
        judges=tuple(str(j) for j in found.right.columns),
        values=found.right.to_numpy(float),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=_wilson_interval,
        next_if_named="none needed: the interval excludes chance",
    )


def pair_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 2: right or wrong on each preference pair (or designed contrast); a pair a judge
    did not score (a failed cell) is wrong, as a tie is."""
    pairs = sources.pairs
    pairs = pairs[pairs["metric"] == metric] if not pairs.empty else pairs
    if pairs.empty:
        return None
    outcomes = pair_outcomes(pooled_by_choice(sources.scores), pairs, sources.lower_is_better)
    if outcomes.empty or not outcomes["scored"].any():
        return None
    right = outcomes.pivot_table(index="pair", columns="judge", values="agree", aggfunc="max")
    from_people = (pairs["source"] == "labels").any()
    return Evidence(
        basis="preference pairs" if from_people else "designed contrasts",
        measure="accuracy",
        unit="pairs",
        chance=0.5,
        judges=tuple(str(j) for j in right.columns),
        values=right.fillna(False).astype(float).to_numpy(),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=_wilson_interval,
    )


def probe_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 3: each directional probe of ``metric`` detected (its score fell; for a
    criterion's ``fails-when`` probe, its verdict was fail) or missed, per
    judge; a probe a judge did not score, or scored the same, is a miss."""
    detected = probe_outcomes(sources.probe_pairs, metric)
    if detected.empty:
        return None
    return Evidence(
        basis="probes",
        measure="detection",
        unit="probes",
        chance=0.5,
        judges=tuple(str(j) for j in detected.columns),
        values=detected.astype(float).to_numpy(),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=_wilson_interval,
    )


def agreement_evidence(metric: str, sources: CardSources) -> Evidence | None:
    """Rung 3: tau-b with the other judges' mean, on the samples every judge scored."""
    wide = _wide_ratings(sources.scores, metric)
    wide = wide[[c for c in wide.columns if not is_jury(c)]].dropna()  # a jury agrees with its own
    if wide.shape[1] < 2 or len(wide) < 5 or (wide.nunique() > 1).sum() < 2:
        return None  # no two judges whose scores vary on the same samples
    return Evidence(
        basis="other judges",
        measure="tau-b",
        unit="samples every judge scored",
        chance=0.0,
        judges=tuple(str(j) for j in wide.columns),
        values=wide.to_numpy(float),
        target=None,
        statistic=consensus_tau_statistic,
        binary=False,
        interval=_tau_interval,
        named_suffix=" (by agreement only)",
        min_judges=MIN_AGREEMENT_JUDGES,
        joint=True,
    )


# people > pairs/contrasts > probes > other judges; a new kind of evidence is one more function
LADDER: Sequence[Callable[[str, CardSources], Evidence | None]] = (
    criterion_people_evidence,
    people_evidence,
    pair_evidence,
    probe_evidence,
    agreement_evidence,
)


def _wide_ratings(scores: pd.DataFrame, metric: str) -> pd.DataFrame:
    pooled = ratings(pooled_by_choice(scores[scores["metric"] == metric]))
    if pooled.empty:
        return pd.DataFrame()
    return pooled.pivot_table(index="sample_id", columns="judge", values="rating")


def _rho_interval(rho: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Fisher z with the Bonett-Wright SE (``validity.spearman_ci``), at any level."""
    return _fisher_interval(rho, n, level, np.sqrt((1 + rho**2 / 2) / max(n - 3, 1)), 4)


def _tau_interval(tau: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Fisher z with the Fieller-Hartley-Pearson SE (``common.tau_ci``), at any level."""
    return _fisher_interval(tau, n, level, np.sqrt(0.437 / max(n - 4, 1)), 5)


def _fisher_interval(r: float, n: int, level: float, se: float, min_n: int) -> tuple[float, float]:
    if n < min_n or not np.isfinite(r) or abs(r) >= 1 - 1e-9:
        return float("nan"), float("nan")
    q = stats.norm.ppf(1 - (1 - level) / 2)
    z = np.arctanh(r)
    return float(np.tanh(z - q * se)), float(np.tanh(z + q * se))


def _wilson_interval(accuracy: float, n: int, level: float = 0.95) -> tuple[float, float]:
    return wilson_interval(round(accuracy * n), n, level)


# ---------------------------------------------------------------- the rule


def standings(evidence: Evidence) -> list[Standing]:
    """Each judge's quality on its own items, best first (NaN quality left out)."""
    out = []
    joint = on_all_items(evidence.statistic, evidence.values, None) if evidence.joint else None
    for k, judge in enumerate(evidence.judges):
        mask = np.isfinite(evidence.values[:, k])
        if evidence.target is not None:
            mask &= np.isfinite(evidence.target)
        if joint is not None:
            quality = float(joint[k])
        else:
            target = None if evidence.target is None else evidence.target[mask]
            column = evidence.values[mask][:, [k]]
            quality = float(on_all_items(evidence.statistic, column, target)[0])
        n = int(mask.sum())
        if np.isfinite(quality):
            low, high = evidence.interval(quality, n, 0.95)
            out.append(Standing(judge, quality, low, high, n))
    return sorted(out, key=lambda s: (-s.quality, -s.n))


def compare(evidence: Evidence, first: str, second: str, seed: int = 0) -> PairedDifference:
    """``first`` minus ``second`` on the items both have a value for."""
    a, b = evidence.judges.index(first), evidence.judges.index(second)
    if evidence.joint:
        return paired_bootstrap(evidence.values, None, evidence.statistic, a, b, seed)
    mask = np.isfinite(evidence.values[:, a]) & np.isfinite(evidence.values[:, b])
    if evidence.target is not None:
        mask &= np.isfinite(evidence.target)
    both = evidence.values[mask][:, [a, b]]
    if evidence.binary:
        return paired_binary(both, 0, 1, seed)
    target = None if evidence.target is None else evidence.target[mask]
    return paired_bootstrap(both, target, evidence.statistic, 0, 1, seed)


def _compare_with_top(
    evidence: Evidence, top: Standing, others: list[Standing]
) -> list[PairedDifference]:
    """The top judge minus each other. Joint evidence (one statistic over every judge) is
    bootstrapped once and every pair read from the same draws."""
    if not evidence.joint:
        return [compare(evidence, top.judge, other.judge) for other in others]
    point, drawn = bootstrap_statistic(evidence.values, None, evidence.statistic)
    a = evidence.judges.index(top.judge)
    n = len(evidence.values)
    return [difference(point, drawn, a, evidence.judges.index(o.judge), n) for o in others]


@dataclass(frozen=True)
class Ruling:
    """What the rule found on one rung: the top judge, its comparisons, the set it is not
    separated from, and (with a margin) the judges within it."""

    top: Standing | None
    others: list[tuple[Standing, PairedDifference, float]]  # (judge, top - judge, Holm p)
    tied: list[Standing]  # the top and every judge not separated from it
    within_margin: list[tuple[Standing, PairedDifference | None]]
    too_few: bool = False


def rule(evidence: Evidence, margin: float | None = None) -> Ruling:
    """The paired rule on one rung (see the module docstring)."""
    ranked = standings(evidence)
    if len(evidence.judges) < evidence.min_judges:
        return Ruling(ranked[0] if ranked else None, [], [], [], too_few=True)
    if not ranked:
        return Ruling(None, [], [], [])
    top = ranked[0]
    diffs = _compare_with_top(evidence, top, ranked[1:])
    p = np.array([d.p_value if np.isfinite(d.p_value) else 1.0 for d in diffs])
    adjusted = holm(p) if len(p) else p
    others = list(zip(ranked[1:], diffs, [float(x) for x in adjusted], strict=True))
    tied = [top] + [s for s, _, q in others if not q < ALPHA]
    within: list[tuple[Standing, PairedDifference | None]] = []
    if margin is not None:
        within = [(top, None)] + [
            (s, d)
            for s, d, _ in others
            if np.isfinite(d.upper_one_sided) and d.upper_one_sided < margin
        ]
    return Ruling(top, others, tied, within)


def _clear_of_chance(
    evidence: Evidence, judges: Sequence[Standing], looks: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``judges`` split into those whose own interval excludes chance (the top's bar, over the
    same ``looks``) and the rest: a judge the data do not show above chance is never taken."""
    clear = [excludes_chance(evidence, s, looks) for s in judges]
    return (
        tuple(s.judge for s, ok in zip(judges, clear, strict=True) if ok),
        tuple(s.judge for s, ok in zip(judges, clear, strict=True) if not ok),
    )


def binary_evidence(right: pd.DataFrame, unit: str = "pairs") -> Evidence:
    """Evidence from right/wrong outcomes (items x candidates; NaN or False: wrong), for a
    "best" figure outside the card (``judgegrid pairs``) chosen by the card's own rule."""
    return Evidence(
        basis="preference pairs",
        measure="accuracy",
        unit=unit,
        chance=0.5,
        judges=tuple(str(c) for c in right.columns),
        values=right.fillna(False).astype(float).to_numpy(),
        target=None,
        statistic=mean_statistic,
        binary=True,
        interval=_wilson_interval,
    )


def best_words(ruling: Ruling) -> str:
    """The top candidate, or the set it is not separated from: 'a', 'a or b: not separated'."""
    if ruling.top is None:
        return "none measured"
    if len(ruling.tied) == 1:
        return ruling.top.judge
    return " or ".join(s.judge for s in ruling.tied) + ": not separated"


def excludes_chance(evidence: Evidence, standing: Standing, judges: int) -> bool:
    """Whether a judge's interval excludes chance at 95% over ``judges`` looks (Bonferroni):
    the best of several judges at chance excludes it by luck more often."""
    low, _ = evidence.interval(standing.quality, standing.n, 1 - 0.05 / max(judges, 1))
    return bool(np.isfinite(low) and low > evidence.chance)


@dataclass(frozen=True)
class Outcome:
    """What the rule decided on one rung, before it is put in words (the benchmark reads it)."""

    kind: str  # "too few", "unmeasured", "chance", "named", "set", "margin"
    ruling: Ruling
    named: str | None = None  # singled out; or taken from the set / within the margin
    tied: tuple[str, ...] = ()  # the set the verdict names (the judges within the margin)
    why: str = ""  # which of cheapest, fastest decided the take
    unproven: tuple[str, ...] = ()  # not separated (within the margin) but not clear of chance


def outcome(evidence: Evidence, usage: pd.DataFrame, margin: float | None = None) -> Outcome:
    """The paired rule's decision on one rung (see the module docstring)."""
    ruling = rule(evidence, margin)
    if ruling.too_few:
        return Outcome("too few", ruling)
    top = ruling.top
    if top is None:
        return Outcome("unmeasured", ruling)
    looks = len(ruling.others) + 1
    if not excludes_chance(evidence, top, looks):
        return Outcome("chance", ruling)
    if ruling.within_margin:
        within = [s for s, _ in ruling.within_margin]
        names, unproven = _clear_of_chance(evidence, within, looks)
        pick, why = cheapest_then_fastest(names, usage)
        return Outcome("margin", ruling, pick, names, why, unproven)
    names, unproven = _clear_of_chance(evidence, ruling.tied, looks)
    if len(names) == 1 and not unproven:
        return Outcome("named", ruling, top.judge, (top.judge,))
    pick, why = cheapest_then_fastest(names, usage)
    return Outcome("set", ruling, pick, names, why, unproven)


def decide(
    metric: str,
    evidence: Evidence,
    sources: CardSources,
    run_ref: str,
    found: Outcome | None = None,
) -> dict[str, Any]:
    """The card's verdict, basis, reason and next step from one rung, with the figure it rests
    on (``FIGURE_COLUMNS``); ``found``: the rule's outcome, if already made."""
    usage = _usage(sources.ranking, metric)
    found = found or outcome(evidence, usage, sources.margin)
    ruling = found.ruling
    label_step = _label_command(run_ref, metric, _more_needed(sources.needed, metric, "chance"))
    row: dict[str, Any] = {"basis": evidence.basis, "next_step": label_step}
    if found.kind == "too few":
        return row | {
            "verdict": NO_VERDICT,
            "reason": f"agreement cannot rank fewer than {MIN_AGREEMENT_JUDGES} judges: with "
            f"{len(evidence.judges)}, each agrees with the other by the same number",
        }
    top = ruling.top
    if top is None:
        return row | {"verdict": NO_VERDICT, "reason": "no judge could be measured"}
    figure = _figure(evidence, top)
    if found.kind == "chance":
        reason = (
            _none_beats_chance(evidence)
            + f"the best, {top.judge}, has {figure}: that does not exclude chance "
            f"({evidence.chance:.2g}{_bonferroni(ruling)})"
            + _too_few_to_tell(evidence, top, ruling)
            + _runner_up(evidence, ruling)
        )
        return row | figure_fields(evidence, top) | {"verdict": NO_VERDICT, "reason": reason}
    step = (
        evidence.next_if_named
        if evidence.next_if_named.startswith("none")
        else f"{evidence.next_if_named}: {label_step}"
    )
    pick = found.named or top.judge
    chosen = _standing_of(ruling, pick)
    row |= figure_fields(evidence, chosen) | _failed_flag(usage, pick)
    if pick != top.judge:
        row["top_value"] = top.quality  # the figure is the take's: the card says the top's too
    if found.kind == "margin":
        return row | _margin_verdict(evidence, found, usage, sources.margin or 0.0, step)
    reason = f"{top.judge}: {figure}{_runner_up(evidence, ruling)}"
    if pick != top.judge:
        reason += f"; take {pick}: {_figure(evidence, chosen)}"
    reason += _unproven_words(evidence, found, f"not separated from {top.judge}")
    reason += _failed_words(usage, pick) + evidence.words(pick)
    if found.kind == "named":
        return row | {"verdict": pick + evidence.named_suffix, "reason": reason, "next_step": step}
    verdict = _set_verdict(found, evidence.named_suffix)
    more = _more_needed(sources.needed, metric, "runner-up")
    next_step = _label_command(run_ref, metric, more) if evidence.basis == "people" else step
    return row | {"verdict": verdict, "reason": reason, "next_step": next_step}


def _set_verdict(found: Outcome, suffix: str) -> str:
    """'a or b: not separated; take b (the cheapest)', or the top alone when no other judge of
    the set is clear of chance; then the judges left out of the set for that
    ('c: not separated but not above chance')."""
    words = f"{found.named}{suffix}"
    if len(found.tied) > 1:
        words = (
            f"{' or '.join(found.tied)}: not separated; take {found.named} ({found.why}){suffix}"
        )
    if found.unproven:
        words += f"; {' and '.join(found.unproven)}{NOT_ABOVE_CHANCE}"
    return words


def _unproven_words(evidence: Evidence, found: Outcome, how: str) -> str:
    """The judges the paired test (or the margin) would have let in, each with its figure:
    their own interval does not exclude chance, so the card takes none of them."""
    bar = f"{evidence.chance:.2g}{_bonferroni(found.ruling)}"
    return "".join(
        f"; {judge}: {_figure(evidence, _standing_of(found.ruling, judge))}: {how}, but does "
        f"not exclude chance ({bar})"
        for judge in found.unproven
    )


def figure_fields(evidence: Evidence, s: Standing) -> dict[str, Any]:
    """The card's figure columns for one judge's standing on a rung."""
    return {
        "judge": s.judge,
        "measure": evidence.measure,
        "value": s.quality,
        "low": s.low,
        "high": s.high,
        "n": s.n,
        "unit": evidence.unit,
        "chance": evidence.chance,
    }


def _standing_of(ruling: Ruling, judge: str) -> Standing:
    every = [s for s in (ruling.top, *(o[0] for o in ruling.others)) if s is not None]
    return next(s for s in every if s.judge == judge)


def _margin_verdict(
    evidence: Evidence, found: Outcome, usage: pd.DataFrame, margin: float, step: str
) -> dict[str, str]:
    """Non-inferiority: the cheapest judge whose quality is within the margin of the top's."""
    ruling, pick = found.ruling, found.named
    assert ruling.top is not None and pick is not None
    top = ruling.top
    if pick == top.judge:
        verdict = top.judge + evidence.named_suffix
        clear = "clear of chance " if found.unproven else ""
        reason = (
            f"{top.judge}: {_figure(evidence, top)}; no cheaper judge {clear}is shown within "
            f"{margin:g} of it{_runner_up(evidence, ruling)}"
        )
    else:
        chosen, diff = next((s, d) for s, d in ruling.within_margin if s.judge == pick)
        assert diff is not None
        verdict = f"{pick} (within {margin:g} of {top.judge}; {found.why}){evidence.named_suffix}"
        reason = (
            f"{pick}: {_figure(evidence, chosen)}; minus {top.judge}'s "
            f"{evidence.measure} {top.quality:.2f}: {-diff.diff:+.2f}, one-sided 95% bound "
            f"{-diff.upper_one_sided:+.2f} > -{margin:g} ({diff.n} {evidence.unit} both measured)"
        )
    reason += _unproven_words(evidence, found, f"within {margin:g} of {top.judge}")
    return {"verdict": verdict, "reason": reason + _failed_words(usage, pick), "next_step": step}


def cheapest_then_fastest(judges: Sequence[str], usage: pd.DataFrame) -> tuple[str, str]:
    """The cheapest of ``judges`` (unknown cost counts as the dearest), then the fastest, then
    the first; and which of the three decided."""
    rows = usage.reindex(list(judges))
    cost = rows["cost_per_score"].astype(float).fillna(np.inf).to_numpy()
    time = rows["latency_per_score_s"].astype(float).fillna(np.inf).to_numpy()
    cheapest = cost == cost.min()
    if cheapest.sum() == 1:
        return judges[int(np.argmax(cheapest))], "the cheapest"
    time = np.where(cheapest, time, np.inf)
    fastest = time == time.min()
    if fastest.sum() == 1 and np.isfinite(time.min()):
        return judges[int(np.argmax(fastest))], "as cheap, and the fastest"
    return judges[int(np.argmax(cheapest))], "as cheap and as fast: the first listed"


# ---------------------------------------------------------------- words


def _figure(evidence: Evidence, s: Standing) -> str:
    ci = f"95% CI {s.low:.2f} to {s.high:.2f}" if np.isfinite(s.low) else "no interval"
    return f"{evidence.measure} {s.quality:.2f} ({ci}) on {s.n} {evidence.unit}"


def _none_beats_chance(evidence: Evidence) -> str:
    """On the probes rung, the plain words first: tiny judges may well detect nothing."""
    return "no judge detects the probes better than chance: " if evidence.basis == "probes" else ""


def _too_few_to_tell(evidence: Evidence, top: Standing, ruling: Ruling) -> str:
    """For right/wrong evidence too thin for any judge: how many items a perfect one needs."""
    looks = len(ruling.others) + 1
    if not evidence.binary or top.n < 1 or _perfect_excludes_chance(evidence, top.n, looks):
        return ""
    needed = next(
        (n for n in range(top.n + 1, 1000) if _perfect_excludes_chance(evidence, n, looks)), None
    )
    if needed is None:
        return ""
    more = " (probes: per-metric)" if evidence.basis == "probes" else ""
    return f" — nor could {top.n} of {top.n}: {needed} {evidence.unit} at least are needed{more}"


def _perfect_excludes_chance(evidence: Evidence, n: int, looks: int) -> bool:
    low, _ = evidence.interval(1.0, n, 1 - 0.05 / max(looks, 1))
    return bool(np.isfinite(low) and low > evidence.chance)


def _bonferroni(ruling: Ruling) -> str:
    looks = len(ruling.others) + 1
    return f", at 95% over {looks} judges (Bonferroni)" if looks > 1 else ""


def _runner_up(evidence: Evidence, ruling: Ruling) -> str:
    """The comparison with the runner-up (and how many others were compared)."""
    if not ruling.others:
        return "; no other judge measured to compare with"
    s, d, p = ruling.others[0]
    ci = f"95% CI {d.low:+.2f} to {d.high:+.2f}" if np.isfinite(d.low) else "no interval"
    separated = "separated" if p < ALPHA else "not separated"
    holm = f"Holm-corrected over {len(ruling.others)}, " if len(ruling.others) > 1 else ""
    return (
        f"; vs runner-up {s.judge} ({evidence.measure} {s.quality:.2f}): difference "
        f"{d.diff:+.2f} ({ci}, {d.test}, {holm}p {p:.3f}, {d.n} {evidence.unit}): {separated}"
    )


def usage_of(ranking: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per judge of ``metric``: cost and latency per score, failed share (from the ranking)."""
    return _usage(ranking, metric)


def _usage(ranking: pd.DataFrame, metric: str) -> pd.DataFrame:
    columns = ["cost_per_score", "latency_per_score_s", "failure_rate"]
    if ranking.empty:
        return pd.DataFrame(columns=columns)
    block = ranking[ranking["metric"] == metric].drop_duplicates("judge")
    return block.set_index("judge").reindex(columns=columns)


def _failed_share(usage: pd.DataFrame, judge: str) -> float | None:
    """The share of ``judge``'s cells that failed, when it is more than the card shows."""
    share = usage["failure_rate"].get(judge, np.nan) if "failure_rate" in usage else np.nan
    return float(share) if pd.notna(share) and float(share) > FAILED_SHARE_SHOWN else None


def _failed_words(usage: pd.DataFrame, judge: str) -> str:
    share = _failed_share(usage, judge)
    return f"; {share:.0%} of {judge}'s cells failed" if share is not None else ""


def _failed_flag(usage: pd.DataFrame, judge: str) -> dict[str, str]:
    share = _failed_share(usage, judge)
    return {"flags": f"{judge}: {share:.0%} failed"} if share is not None else {}


def _label_command(run_ref: str, metric: str, n: float | None) -> str:
    count = int(n) if n is not None and math.isfinite(n) and n > 0 else DEFAULT_LABELS
    return f"judgegrid label {run_ref} --metric {metric} --n {min(count, 200)}"


def _more_needed(needed: pd.DataFrame, metric: str, comparison: str) -> float | None:
    if needed.empty:
        return None
    rows = needed[(needed["metric"] == metric) & (needed["comparison"] == comparison)]
    values = [float(v) for v in rows["more_needed"] if v is not None and pd.notna(v)]
    return values[0] if values else None


def _aat_words(aat: pd.DataFrame, metric: str, judge: str) -> str:
    if aat.empty:
        return ""
    row = aat[(aat["metric"] == metric) & (aat["judge"] == judge)]
    if row.empty or pd.isna(row.iloc[0]["passed"]):
        return "; alt-test not run (needs 3 annotators on 30+ shared samples)"
    r = row.iloc[0]
    outcome = "passes" if bool(r["passed"]) else "fails"
    return f"; it {outcome} the alt-test (winning rate {r['winning_rate']:.2f})"


def with_robustness_flag(
    row: dict[str, Any], metric: str, pairs: pd.DataFrame, limit: float = ROBUSTNESS_LIMIT
) -> dict[str, Any]:
    """The card's row with a flag for every judge whose score rose on injection in more than
    ``limit`` of the pairs, whatever rung named it."""
    flagged = {
        judge: (rose, n)
        for judge, (rose, n) in injection_rises(pairs, metric).items()
        if n and rose / n > limit
    }
    if not flagged:
        return row
    words = "; ".join(
        f"{judge}'s score rose on injection in {rose}/{n} pairs"
        for judge, (rose, n) in flagged.items()
    )
    verdict = row["verdict"]
    if any(verdict == j or verdict.startswith((f"{j} ", f"{j};")) for j in flagged):
        verdict = f"{verdict} (flagged: obeys a note to the evaluator)"
    flags = [row["flags"]] if row.get("flags") else []
    flags += [f"{judge}: injection {rose}/{n}" for judge, (rose, n) in flagged.items()]
    reason = f"{row['reason']}; FLAGGED: {words}"
    return {**row, "verdict": verdict, "reason": reason, "flags": "; ".join(flags)}


def card_markdown(card: pd.DataFrame) -> str:
    """The card as a markdown table, each metric's reasoning under it."""
    if card.empty:
        return "No metric was scored, so there is no decision to make."
    lines = ["| metric | judge | basis | why | next step |", "|---|---|---|---|---|"]
    for record in card.to_dict("records"):
        row = {k: str(v) for k, v in record.items()}
        step = f"`{row['next_step']}`" if "judgegrid " in row["next_step"] else row["next_step"]
        lines.append(
            f"| {row['metric']} | **{row['verdict']}** | {row['basis']} | {row['reason']} | "
            f"{step} |"
        )
    reasons = [
        f"- **{record['metric']}**: {record['detail']}"
        for record in card.to_dict("records")
        if record["detail"]
    ]
    return "\n".join(lines + (["", *reasons] if reasons else []))
