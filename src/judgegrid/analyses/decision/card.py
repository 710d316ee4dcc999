"""The decision card: per metric, the judge (or the set of judges) the data support, why in one
line with the comparison to the runner-up, and the next step as a command to copy.

The card takes the highest rung of the evidence ladder with data (``ladder``), rules on it by
the paired rule (``stats.ruling``, decided in ``outcome``) and puts the outcome in words here.
The judges not separated from the top but not clear of chance are named after the verdict
("c: not separated but not above chance") and never taken; with none clear besides the top,
the top is the verdict. With a non-inferiority margin (``decision: {margin}``), the card names
the cheapest judge clear of chance whose one-sided 95% lower bound of (its quality - the top's)
lies above -margin. The card's figure is the recommended judge's; where that is not the top
judge, the top's value goes with it (``top_value``). A named judge with more than 10% of its
cells failed carries that share. Whatever rung names a judge, one whose score rose on injection
in more than 20% of its pairs is flagged (``with_robustness_flag``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses.decision.anytime import count_words
from judgegrid.analyses.decision.label_state import state_of
from judgegrid.analyses.decision.ladder import MIN_AGREEMENT_JUDGES, CardSources, first_evidence
from judgegrid.analyses.decision.outcome import Outcome, outcome, usage_of
from judgegrid.analyses.decision.recommendation import level_words, metric_sentence
from judgegrid.analyses.stats.paired import ALPHA
from judgegrid.analyses.stats.ruling import Evidence, Ruling, Standing
from judgegrid.analyses.validity.probes import ROBUSTNESS_LIMIT, injection_rises

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
# judge within the margin); empty otherwise. ``margin``: the non-inferiority margin the card was
# decided with (empty without one), which the label command it suggests carries on.
CARD_COLUMNS = [
    "metric",
    "verdict",
    "basis",
    "reason",
    "next_step",
    "detail",
    *FIGURE_COLUMNS,
    "top_value",
    "label_state",
    "margin",
]
NO_VERDICT = "no verdict"
# ends a verdict whose set left out judges not separated from the top but not clear of chance
NOT_ABOVE_CHANCE = ": not separated but not above chance"
DEFAULT_LABELS = 15  # what the card asks for when no effect tells how many more would do
FAILED_SHARE_SHOWN = 0.10


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
    # the distinct metrics, not a Python loop over a million score rows (2.7 s of the report)
    scored: list[str] = (
        list(sources.scores["metric"].unique()) if "metric" in sources.scores else []
    )
    metrics = sorted(set(scored) | set(people.get("metric", [])))
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
            row = _nothing_measurable(metric, run_ref, sources.margin)
        else:
            found = outcome(evidence, usage_of(ranking, metric), sources.margin)
            row = decide(metric, evidence, sources, run_ref, found)
            candidates += candidate_rows(metric, evidence, found)
        row = with_robustness_flag(row, metric, sources.probe_pairs)
        row["label_state"] = label_state_line(metric, sources)
        margin = sources.margin if sources.margin is not None else float("nan")
        rows.append({"metric": metric, "flags": "", **row, "detail": detail, "margin": margin})
    card = pd.DataFrame(rows, columns=CARD_COLUMNS)
    return card, pd.DataFrame(candidates, columns=EVIDENCE_COLUMNS)


def label_state_line(metric: str, sources: CardSources) -> str:
    """The labelling state of ``metric`` with the judges named (``decision.label_state``:
    labels, the anytime verdict, about how many more), the line the labelling page shows
    blind; empty where people labelled none of its samples."""
    found = state_of(metric, sources)
    return found.words(named=True) if found is not None else ""


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


def _nothing_measurable(metric: str, run_ref: str, margin: float | None) -> dict[str, Any]:
    return {
        "verdict": NO_VERDICT,
        "basis": "nothing measurable",
        "reason": "no labels, no scored preference pair, no probe, and no two judges scored alike",
        "next_step": _label_command(run_ref, metric, None, margin),
    }


def decide(
    metric: str,
    evidence: Evidence,
    sources: CardSources,
    run_ref: str,
    found: Outcome | None = None,
) -> dict[str, Any]:
    """The card's verdict, basis, reason and next step from one rung, with the figure it rests
    on (``FIGURE_COLUMNS``); ``found``: the rule's outcome, if already made."""
    usage = usage_of(sources.ranking, metric)
    found = found or outcome(evidence, usage, sources.margin)
    ruling = found.ruling
    all_labelled = _every_sample_labelled(evidence, sources, metric)
    more_for_chance = _more_needed(sources.needed, metric, "chance")
    label_step = _label_step(run_ref, metric, more_for_chance, all_labelled, sources.margin)
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
            + f"the best, {top.judge}{_level(top, ruling)}, has {figure}: that does not exclude "
            f"chance ({evidence.chance:.2g}{_bonferroni(ruling)})"
            + _too_few_to_tell(evidence, top, ruling)
            + _runner_up(evidence, ruling)
        )
        return row | figure_fields(evidence, top) | {"verdict": NO_VERDICT, "reason": reason}
    step = (
        _none_needed(evidence, top)
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
    people = evidence.basis == "people"
    next_step = _label_step(run_ref, metric, more, all_labelled, sources.margin) if people else step
    return row | {"verdict": verdict, "reason": reason, "next_step": next_step}


def _every_sample_labelled(evidence: Evidence, sources: CardSources, metric: str) -> bool:
    """Whether people labelled every sample the judges scored for ``metric`` (an imported
    benchmark with its truth): then no label is left to ask for, only samples to add."""
    if evidence.basis != "people" or sources.scores.empty:
        return False
    scored = sources.scores.loc[sources.scores["metric"] == metric, "sample_id"].nunique()
    measured = np.isfinite(evidence.values)  # each judge's labelled items, as its standing's n
    if evidence.target is not None:
        measured &= np.isfinite(evidence.target)[:, None]
    return bool(scored) and int(measured.sum(axis=0).max(initial=0)) >= scored


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


# ---------------------------------------------------------------- words


def _none_needed(evidence: Evidence, top: Standing) -> str:
    """The next step of a rung that needs none: its words, unless the top judge's figure has no
    interval to exclude chance with (perfect agreement, tested exactly instead)."""
    if np.isfinite(top.low):
        return evidence.next_if_named
    return "none needed: agreement this perfect excludes chance"


def _figure(evidence: Evidence, s: Standing) -> str:
    return (
        f"{evidence.measure} {s.quality:.2f} ({_interval_words(s)}) on {_items_words(evidence, s)}"
    )


def _interval_words(s: Standing) -> str:
    """The figure's interval, or why it has none: a correlation of exactly 1 has no Fisher-z
    interval, and the rule then reads the exact chance of agreement that perfect
    (``ruling.perfect_beyond_chance``)."""
    if np.isfinite(s.low):
        return f"95% CI {s.low:.2f} to {s.high:.2f}"
    if s.quality >= 1 - 1e-9:
        return "perfect agreement: no interval; tested against chance exactly"
    return "no interval"


def _items_words(evidence: Evidence, s: Standing) -> str:
    """What a judge's figure rests on: its items; on the people rung, the labels behind them
    and what they stand for ("24 labels drawn uniformly", "30 labels weighted by the queue's
    draw probabilities over 400 samples"; "12 samples, 36 labels ..." with several people),
    said as the labelling state says its count (``count_words``)."""
    if not evidence.sampling:
        return f"{s.n} {evidence.unit}"
    labels = s.n
    if evidence.label_counts is not None:
        k = evidence.judges.index(s.judge)
        measured = np.isfinite(evidence.values[:, k])
        if evidence.target is not None:
            measured &= np.isfinite(evidence.target)
        labels = int(evidence.label_counts[measured].sum())
    return count_words(s.n, labels, evidence.sampling)


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


def _level(top: Standing, ruling: Ruling) -> str:
    """`` (level with b)`` where other judges' figures equal the top's (``level_words``)."""
    return level_words(s.judge for s, _, _ in ruling.others if s.quality == top.quality)


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


EVERY_SAMPLE_LABELLED = (
    "every sample is labelled: only more samples (added to the data set, scored and labelled) "
    "would add evidence"
)


def _label_step(
    run_ref: str, metric: str, n: float | None, all_labelled: bool, margin: float | None
) -> str:
    """The labels to ask for next, or, when every sample is labelled, that none is left."""
    return EVERY_SAMPLE_LABELLED if all_labelled else _label_command(run_ref, metric, n, margin)


def _label_command(run_ref: str, metric: str, n: float | None, margin: float | None) -> str:
    """The command to paste; under a margin it carries it, so that the page's line asks what
    this card asked (``report --margin`` is the card's alone: ``label`` reads the matrix's)."""
    count = int(n) if n is not None and math.isfinite(n) and n > 0 else DEFAULT_LABELS
    command = f"judgegrid label {run_ref} --metric {metric} --n {min(count, 200)}"
    return command + (f" --margin {margin:g}" if margin else "")


def _more_needed(needed: pd.DataFrame, metric: str, comparison: str) -> float | None:
    if needed.empty:
        return None
    rows = needed[(needed["metric"] == metric) & (needed["comparison"] == comparison)]
    values = [float(v) for v in rows["more_needed"] if v is not None and pd.notna(v)]
    return values[0] if values else None


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


def with_true_score(card: pd.DataFrame, true_score: pd.DataFrame) -> pd.DataFrame:
    """The card with, for a metric decided on people's labels, its named judge's mean beside
    the mean by people's standard (``validity.true_score``, issue 43) at the end of its reason:
    "judge 0.82 · by people's standard 0.71 [0.64, 0.77]"."""
    if card.empty or true_score.empty:
        return card
    chosen = true_score[true_score["chosen"].astype(bool)].dropna(subset=["corrected_low"])
    found = chosen.set_index("metric")
    card = card.copy()
    for i, row in card.iterrows():
        if row["basis"] != "people" or row["metric"] not in found.index:
            continue
        t = found.loc[row["metric"]]
        card.at[i, "reason"] = (
            f"{row['reason']}; judge {t['judge_mean']:.2f} · by people's standard "
            f"{t['corrected']:.2f} [{t['corrected_low']:.2f}, {t['corrected_high']:.2f}]"
        )
    return card
