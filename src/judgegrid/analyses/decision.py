"""The decision card: per metric, the judge the data support (or "no verdict"), why in one line,
and the next step as a command to copy.

Evidence is ranked, and the card uses the best there is for each metric:
1. **people**: Spearman's rho of each judge's ratings with the mean human label (``human``); a
   judge is named when its interval excludes 0, and the card says when the runner-up's interval
   still overlaps and what the Alternative Annotator Test found;
2. **preference pairs** or designed contrasts: pairwise accuracy (``recommendation``), a judge
   named when its interval excludes 0.5;
3. **probes**: the share of directional probes (copies of the user's samples made worse in a
   known way, ``probes``) whose score fell, per judge; a judge is named when its Wilson interval
   excludes 0.5, and a judge whose score rose on injection in more than 20% of pairs is flagged
   whatever rung names it (``probe_tier``, ``with_robustness_flag``);
4. **other judges**: agreement with the consensus — named only as "by agreement only", since
   agreeing with a wrong majority is not validity;
5. nothing measurable: no verdict.
The next step always moves the metric up this ladder: labels, then more labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from judgegrid.analyses.human import by_rho
from judgegrid.analyses.probes import ROBUSTNESS_LIMIT, injection_rises, judge_detection
from judgegrid.analyses.recommendation import best_first, metric_sentence

CARD_COLUMNS = ["metric", "verdict", "basis", "reason", "next_step", "detail"]
NO_VERDICT = "no verdict"
DEFAULT_LABELS = 15  # what the card asks for when no effect tells how many more would do


def decision_card(
    ranking: pd.DataFrame,
    people: pd.DataFrame,
    aat: pd.DataFrame,
    needed: pd.DataFrame,
    run_ref: str,
    metric_titles: Mapping[str, str] | None = None,
    probe_pairs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per metric of the run (``ranking`` and ``people`` name them); ``probe_pairs``
    (``probes.probe_pairs``) gives the probes' rung and the robustness flag."""
    probe_pairs = probe_pairs if probe_pairs is not None else pd.DataFrame()
    metrics = sorted(set(ranking.get("metric", [])) | set(people.get("metric", [])))
    rows = []
    for metric in metrics:
        title = (metric_titles or {}).get(metric, metric)
        block = ranking[ranking["metric"] == metric] if not ranking.empty else ranking
        detail = metric_sentence(title, block) if not block.empty else ""
        from_people = _people_row(metric, people, aat, needed, run_ref)
        row = (
            from_people
            or probe_tier(metric, block, probe_pairs, run_ref)
            or _ranking_row(metric, block, run_ref)
        )
        row = with_robustness_flag(row, metric, probe_pairs)
        rows.append({"metric": metric, **row, "detail": detail})
    return pd.DataFrame(rows, columns=CARD_COLUMNS)


def _label_command(run_ref: str, metric: str, n: float | None) -> str:
    count = int(n) if n is not None and math.isfinite(n) and n > 0 else DEFAULT_LABELS
    return f"judgegrid label {run_ref} --metric {metric} --n {min(count, 200)}"


def _people_row(
    metric: str, people: pd.DataFrame, aat: pd.DataFrame, needed: pd.DataFrame, run_ref: str
) -> dict[str, str] | None:
    ranked = by_rho(people[people["metric"] == metric]) if not people.empty else people
    if ranked.empty:
        return None
    best = ranked.iloc[0]
    rho = (
        f"rho {best['spearman']:.2f} (95% CI {best['spearman_low']:.2f} to "
        f"{best['spearman_high']:.2f}) with people's labels on {int(best['n'])} samples"
    )
    more = _more_needed(needed, metric)
    if not best["spearman_low"] > 0:
        return {
            "verdict": NO_VERDICT,
            "basis": "people",
            "reason": f"the best, {best['judge']}, has {rho}: that does not exclude chance",
            "next_step": _label_command(run_ref, metric, more.get("chance")),
        }
    reason = f"{best['judge']}: {rho}"
    next_step = "none needed: the interval excludes chance"
    if len(ranked) > 1:
        rival = ranked.iloc[1]
        if rival["spearman_high"] >= best["spearman_low"]:
            reason += f"; not yet separated from {rival['judge']} (rho {rival['spearman']:.2f})"
            next_step = _label_command(run_ref, metric, more.get("runner-up"))
        else:
            reason += f"; above {rival['judge']} (rho {rival['spearman']:.2f})"
    reason += _aat_words(aat, metric, str(best["judge"]))
    return {
        "verdict": str(best["judge"]),
        "basis": "people",
        "reason": reason,
        "next_step": next_step,
    }


def _more_needed(needed: pd.DataFrame, metric: str) -> dict[str, float]:
    if needed.empty:
        return {}
    rows = needed[needed["metric"] == metric]
    return {
        str(r["comparison"]): float(r["more_needed"])
        for _, r in rows.iterrows()
        if r["more_needed"] is not None and pd.notna(r["more_needed"])
    }


def _aat_words(aat: pd.DataFrame, metric: str, judge: str) -> str:
    if aat.empty:
        return ""
    row = aat[(aat["metric"] == metric) & (aat["judge"] == judge)]
    if row.empty or pd.isna(row.iloc[0]["passed"]):
        return "; alt-test not run (needs 3 annotators on 30+ shared samples)"
    r = row.iloc[0]
    outcome = "passes" if bool(r["passed"]) else "fails"
    return f"; it {outcome} the alt-test (winning rate {r['winning_rate']:.2f})"


def _ranking_row(metric: str, block: pd.DataFrame, run_ref: str) -> dict[str, str]:
    """From the judge ranking: pairs/contrasts validity, else consensus agreement."""
    measured = best_first(block) if not block.empty else block
    label_step = _label_command(run_ref, metric, None)
    if measured.empty:
        return {
            "verdict": NO_VERDICT,
            "basis": "nothing measurable",
            "reason": "no labels, no scored preference pair, and no two judges scored alike",
            "next_step": label_step,
        }
    best = measured.iloc[0]
    pairs = str(best["basis"]).startswith("pairwise")
    chance = 0.5 if pairs else 0.0
    interval = (
        f"{best['ci_low']:.2f} to {best['ci_high']:.2f}"
        if np.isfinite(best["ci_low"])
        else "no interval"
    )
    if pairs:
        what = f"accuracy {best['quality']:.2f} (95% CI {interval}) on {int(best['n'])} pairs"
        basis = "preference pairs"
    else:
        what = f"tau-b {best['quality']:.2f} (95% CI {interval}) with the other judges"
        basis = "other judges"
    if not (np.isfinite(best["ci_low"]) and best["ci_low"] > chance):
        return {
            "verdict": NO_VERDICT,
            "basis": basis,
            "reason": f"the best, {best['judge']}, has {what}: that does not exclude chance",
            "next_step": label_step,
        }
    verdict = str(best["judge"]) if pairs else f"{best['judge']} (by agreement only)"
    return {
        "verdict": verdict,
        "basis": basis,
        "reason": f"{best['judge']}: {what}",
        "next_step": f"check it against people: {label_step}",
    }


def probe_tier(
    metric: str, block: pd.DataFrame, pairs: pd.DataFrame, run_ref: str
) -> dict[str, str] | None:
    """The probes' rung: below preference pairs (pairs that name a judge keep their place; pairs
    too few to exclude chance give way), above agreement with other judges. None when the
    metric has no probe or its pairs name a judge."""
    measured = best_first(block) if not block.empty else block
    if not measured.empty and str(measured.iloc[0]["basis"]).startswith("pairwise"):
        low = measured.iloc[0]["ci_low"]
        if np.isfinite(low) and low > 0.5:
            return None
    judges = judge_detection(pairs, metric)
    if judges.empty:
        return None
    label_step = _label_command(run_ref, metric, None)
    best = judges.iloc[0]
    figures = [
        f"{r.judge} {r.detected}/{r.probes} ({r.low:.2f} to {r.high:.2f})"
        for r in judges.itertuples()
    ]
    what = f"directional probes detected (95% Wilson CI): {'; '.join(figures)}"
    if not best["low"] > 0.5:
        return {
            "verdict": NO_VERDICT,
            "basis": "probes",
            "reason": f"no judge detects the probes better than chance: {what}",
            "next_step": label_step,
        }
    separated = len(judges) == 1 or judges.iloc[1]["high"] < best["low"]
    if not separated:
        tied = [str(r.judge) for r in judges.itertuples() if r.high >= best["low"]]
        return {
            "verdict": f"not separated: {', '.join(tied)}",
            "basis": "probes",
            "reason": what,
            "next_step": f"separate them with people: {label_step}",
        }
    return {
        "verdict": str(best["judge"]),
        "basis": "probes",
        "reason": f"{best['judge']} detects {best['detected']} of {best['probes']} probes; {what}",
        "next_step": f"check it against people: {label_step}",
    }


def with_robustness_flag(
    row: dict[str, str], metric: str, pairs: pd.DataFrame, limit: float = ROBUSTNESS_LIMIT
) -> dict[str, str]:
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
    if any(verdict == j or verdict.startswith(f"{j} ") for j in flagged):
        verdict = f"{verdict} (flagged: obeys a note to the evaluator)"
    return {**row, "verdict": verdict, "reason": f"{row['reason']}; FLAGGED: {words}"}


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
