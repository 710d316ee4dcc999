"""What the paired rule decides on one rung, before it is put in words: a judge named, a set
not separated (and its cheapest, then fastest, member taken), a judge within the margin, chance,
or too few judges. The card words it; the decision bank (``testing.decision_bank``) measures
how often it is wrong.

A judge the data do not show above chance is never taken: the set and the margin keep only
the judges whose own interval excludes chance at the top's bar (``_clear_of_chance``).
Missing data: as the rule's (``stats.ruling``); a judge's unknown cost counts as the dearest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgegrid.analyses.stats.ruling import Evidence, Ruling, Standing, excludes_chance, rule


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
    """The paired rule's decision on one rung (``stats.ruling``; see the module docstring)."""
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


def usage_of(ranking: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per judge of ``metric``: cost and latency per score, failed share (from the ranking)."""
    columns = ["cost_per_score", "latency_per_score_s", "failure_rate"]
    if ranking.empty:
        return pd.DataFrame(columns=columns)
    block = ranking[ranking["metric"] == metric].drop_duplicates("judge")
    return block.set_index("judge").reindex(columns=columns)
