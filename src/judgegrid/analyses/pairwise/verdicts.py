"""Pairwise judges: position bias, the two orders combined, validity against people, win rates.

Every pair is judged in both orders (``metrics/pairwise.py``): as ``"ab"`` (its answer ``a``
shown as answer A) and as ``"ba"``. The analyses read a verdicts table, one row per judging:
``judge``, ``pair``, ``order`` and ``winner`` (``"a"``, ``"b"`` or ``"tie"`` in the pair's own
terms; None or NaN where the cell failed). The first letter of an order is the answer shown
first, so a verdict for the first position is ``winner == order[0]``.

- ``combined``: the two orders of a pair combined by the criterion's ``combine`` rule: MT-Bench's
  (the default: the answer both chose; two orders that disagree, or a tie in either, make a tie)
  or JudgeBench's sum (+1 an order for a, -1 for b, a tie or no verdict 0; the sum's sign);
- ``rule_accuracy`` and ``group_accuracy``: accuracy against people (or a known truth) under
  both rules side by side, overall and per group of pairs (a benchmark's categories);
- ``position_bias``: per judge, the **consistency** (share of pairs whose verdict survives the
  swap) and the **first-position rate** (share of the non-tie verdicts that went to whichever
  answer came first; 0.5 is unbiased) with its Wilson interval, and the card's flag;
- ``validity``: per judge, against people's preferences: accuracy with the ties stated both ways
  (tie-excluded, and with half credit), Cohen's kappa; ``comparisons``: the judges compared on
  the same pairs by the card's own rule (exact McNemar, Holm; under a queue's unequal draws
  the card's weighted paired bootstrap);
- ``jury_verdicts``: a panel of judges as one judge, the majority of its members in each order;
- ``probe_moves``: how often a probe (a note to the evaluator on the worse answer, the worse
  answer padded) moves the combined verdict towards the worse answer;
- ``win_rates`` and ``ranking_agreement``: the compared systems' win rates under each judge, and
  Kendall's tau between judges' rankings of the systems.

Each function states its missing-data rule in a ``missing`` column or its docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from judgegrid.analyses.frames.juries import jury_name
from judgegrid.analyses.frames.keys import codes_among
from judgegrid.analyses.stats.categorical import kappa_interval
from judgegrid.analyses.stats.intervals import mean_interval, wilson_interval
from judgegrid.analyses.stats.ruling import binary_evidence, rule
from judgegrid.analyses.stats.weighted import ratio_mean, share_weighting, weighted_accuracy
from judgegrid.analyses.validity.pairs import weighted_accuracy_rows, weights_by_pair
from judgegrid.core.pairwise import COMBINE_RULES, ORDERS, Combine, combine

VERDICT_COLUMNS = ["judge", "pair", "order", "winner"]
POSITION_COLUMNS = [
    *("judge", "pairs", "consistent", "consistency", "verdicts", "first", "first_rate"),
    *("ci_low", "ci_high", "ties", "flag", "ci_method", "missing"),
]
VALIDITY_COLUMNS = [
    *("judge", "pairs", "unjudged", "ties", "accuracy", "accuracy_low", "accuracy_high"),
    *("decided", "accuracy_tie_excluded", "ci_low"),
    *("ci_high", "accuracy_half_credit", "half_credit_low", "half_credit_high", "kappa"),
    *("kappa_low", "kappa_high", "missing"),
]
COMPARISON_COLUMNS = ["top", "other", "diff", "low", "high", "p", "p_holm", "n", "test"]
PROBE_COLUMNS = [
    *("judge", "probe", "n", "moved", "towards_worse", "rate", "ci_low", "ci_high", "missing"),
]
WIN_COLUMNS = [
    *("judge", "system", "pairs", "wins", "losses", "ties", "win_rate", "ci_low", "ci_high"),
    *("win_rate_adjusted", "adjusted_low", "adjusted_high", "missing"),
]
TAU_COLUMNS = ["first", "second", "systems", "tau", "p"]
RULE_COLUMNS = [
    *("judge", "rule", "chosen", "pairs", "right", "accuracy", "ci_low", "ci_high"),
    *("ci_method", "missing"),
]
GROUP_COLUMNS = [
    *("judge", "group", "rule", "chosen", "pairs", "right", "accuracy", "ci_low", "ci_high"),
    "missing",
]
FLAG_SEPARATOR = "; "  # between a judge's reasons to be flagged, in its table row
CONSISTENCY_FLOOR = 0.8  # the card flags a judge whose verdicts survive the swap less often
CODES = {"a": 0, "b": 1, "tie": 2}  # the categories of Cohen's kappa

COMBINED_MISSING = "pairs with both orders judged; a pair with a failed order is left out"
POSITION_MISSING = (
    "consistency: pairs with both orders judged; first-position rate: every judged non-tie "
    "verdict (failed cells and ties left out)"
)
VALIDITY_MISSING = (
    "pairs with a people's preference and a combined verdict; pairs whose judging failed are "
    "left out and counted in 'unjudged'"
)
WIN_MISSING = "pairs with a combined verdict (both orders judged)"


def _is_judged(winner: pd.Series) -> pd.Series:
    return winner.isin(list(CODES))


def combined(verdicts: pd.DataFrame, rule: Combine = "mt-bench") -> pd.DataFrame:
    """One row per judge and pair: the verdict of each order (``ab``, ``ba``), whether they
    agree (``consistent``) and the combined verdict (``combined``) by ``rule``.

    ``mt-bench`` (the default) is MT-Bench's rule (FastChat ``llm_judge/show_result.py``,
    ``display_result_pairwise``: a match whose first judging is a tie or whose two judgings
    differ counts as a tie for both models; a match with an ``error`` judging is dropped): the
    answer both orders chose, else a tie. Missing: pairs with an order not judged are left out.
    ``sum`` is JudgeBench's (``core.pairwise.combine_by_sum``). Missing: an order not judged
    counts 0, as a tie does; a pair with no order judged is left out.
    """
    return combined_orders(order_table(verdicts), rule)


def order_table(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Per judge and pair (the index), the verdict of each order judged (``ab``, ``ba``; NaN:
    not judged): the pivot every rule combines, made once per criterion (over a million
    verdicts it is a second each)."""
    judged = verdicts[_is_judged(verdicts["winner"])]
    wide = judged.pivot_table(
        index=["judge", "pair"], columns="order", values="winner", aggfunc="first"
    )
    return wide.reindex(columns=["ab", "ba"])


def combined_orders(orders: pd.DataFrame, rule: Combine = "mt-bench") -> pd.DataFrame:
    """``combined`` from the ``order_table`` of the verdicts."""
    wide = orders.dropna() if rule == "mt-bench" else orders
    wide = wide.reset_index()
    wide.columns.name = None
    # a verdict's place in ``SIDES``: its category's code + 1, and 0 for None, NaN or NA (the
    # table holds only verdicts a, b and tie: ``order_table``)
    ab, ba = (codes_among(wide[o], SIDES[1:]) + 1 for o in ORDERS)
    wide["consistent"] = (ab == ba) & (ab > 0)
    wide["combined"] = _combine_each(ab, ba, rule)
    return wide[["judge", "pair", "ab", "ba", "consistent", "combined"]]


SIDES: list[str | None] = [None, *CODES]  # an order's verdict, or None: not judged


def _combine_each(ab: np.ndarray, ba: np.ndarray, rule: Combine) -> np.ndarray:
    """``combine`` of every pair's two orders (each its place in ``SIDES``), computed once for
    each of the 16 possible (ab, ba) and looked up: an import brings a million pairs."""
    table = np.array([combine((x, y), rule) for x in SIDES for y in SIDES], dtype=object)
    return table[ab * len(SIDES) + ba]


def position_bias(
    verdicts: pd.DataFrame,
    floor: float = CONSISTENCY_FLOOR,
    orders: pd.DataFrame | None = None,
    both: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per judge: consistency over the swap and the first-position rate with its Wilson
    interval; ``flag`` says why the card flags the judge (its first-position interval excludes
    0.5, or fewer than ``floor`` of its verdicts survive the swap), empty when it does not.
    ``orders``: the verdicts' ``order_table``, and ``both``: its MT-Bench ``combined_orders``,
    if already made."""
    if both is None:
        both = combined_orders(order_table(verdicts) if orders is None else orders)
    judges = sorted(verdicts["judge"].unique(), key=str)
    counts = _verdict_counts(verdicts, judges)
    pairs = both.groupby("judge", sort=False)["consistent"].agg(["size", "sum"])
    rows = []
    for j, judge in enumerate(judges):
        size, agreed = pairs.loc[judge] if judge in pairs.index else (0, 0)
        n, k = int(counts.decided[j]), int(counts.first[j])
        low, high = wilson_interval(k, n)
        consistency = agreed / size if size else float("nan")
        rows.append(
            {
                "judge": judge,
                "pairs": int(size),
                "consistent": int(agreed),
                "consistency": float(consistency),
                "verdicts": n,
                "first": k,
                "first_rate": k / n if n else float("nan"),
                "ci_low": low,
                "ci_high": high,
                "ties": int(counts.ties[j]),
                "flag": _position_flag(consistency, low, high, floor),
                "ci_method": "Wilson score, 95%",
                "missing": POSITION_MISSING,
            }
        )
    return pd.DataFrame(rows, columns=POSITION_COLUMNS)


@dataclass(frozen=True)
class VerdictCounts:
    """Per judge (in the order asked): its non-tie verdicts, those that went to the answer
    shown first, and its ties."""

    decided: np.ndarray
    first: np.ndarray
    ties: np.ndarray


def _verdict_counts(verdicts: pd.DataFrame, judges: Sequence[str]) -> VerdictCounts:
    """``VerdictCounts`` of a million verdicts by codes: a verdict's code in ``CODES`` against
    the code of its order's first answer (``ab``: a, ``ba``: b)."""
    judge = codes_among(verdicts["judge"], judges)
    winner = codes_among(verdicts["winner"], list(CODES))
    shown_first = codes_among(verdicts["order"], ORDERS)
    decided = (winner == CODES["a"]) | (winner == CODES["b"])

    def per_judge(mask: np.ndarray) -> np.ndarray:
        return np.bincount(judge[mask], minlength=len(judges))

    return VerdictCounts(
        decided=per_judge(decided),
        first=per_judge(decided & (winner == shown_first)),
        ties=per_judge(winner == CODES["tie"]),
    )


def _position_flag(consistency: float, low: float, high: float, floor: float) -> str:
    flags = []
    if np.isfinite(low) and not low <= 0.5 <= high:
        side = "first" if low > 0.5 else "second"
        flags.append(f"position bias: prefers the {side} answer [{low:.2f}, {high:.2f}]")
    if np.isfinite(consistency) and consistency < floor:
        flags.append(f"inconsistent: {consistency:.0%} of verdicts survive the swap")
    return FLAG_SEPARATOR.join(flags)


def half_credit(verdict: pd.Series, preferred: pd.Series) -> np.ndarray:
    """Per pair: 1 when the verdict is the people's preference, 0.5 when exactly one of the two
    is a tie (AlpacaEval's and MT-Bench's half a win), 0 when they are opposite answers."""
    same = (verdict == preferred).to_numpy()
    one_tie = ((verdict == "tie") ^ (preferred == "tie")).to_numpy()
    return np.where(same, 1.0, np.where(one_tie, 0.5, 0.0))


def kappa_with_interval(verdict: pd.Series, preferred: pd.Series) -> tuple[float, float, float]:
    """Cohen's kappa of the judge's combined verdicts with people's preferences (categories a,
    b, tie), with its 95% interval over pairs (``kappa_interval``)."""
    table = np.column_stack([category_codes(verdict), category_codes(preferred)])
    return kappa_interval(table, len(CODES))


def category_codes(values: pd.Series) -> np.ndarray:
    """Each value's code in ``CODES`` (NaN where it is none of a, b or tie): what
    ``values.map(CODES)`` gives, without a Python call a value (a million verdicts)."""
    found = codes_among(values, list(CODES))
    return np.where(found < 0, np.nan, found.astype(float))


def with_people(both: pd.DataFrame, people: pd.DataFrame) -> pd.DataFrame:
    """``both``' rows of the pairs people judged, each with their preference (``preferred``)
    and the position of its row in ``people`` (``person``): the join every table against people
    reads, made once per rule (a million verdicts)."""
    preferred = people[["pair", "preferred"]].assign(person=np.arange(len(people)))
    return both[["judge", "pair", "combined"]].merge(preferred, on="pair")


def validity(
    both: pd.DataFrame,
    people: pd.DataFrame,
    merged: pd.DataFrame | None = None,
    weights: pd.Series | None = None,
    sampling: str = "",
) -> pd.DataFrame:
    """Per judge, its combined verdicts (``combined``'s table) against people's preferences
    (``pair``, ``preferred``: a, b or tie; the pairs of this criterion: a pair of theirs the
    judge has no combined verdict for counts in ``unjudged``):

    - ``accuracy``: over every pair, the share where the judge chose the people's answer, a tie
      on either side counting as wrong unless both tied (Wilson interval): the card's figure and
      the rule its paired comparison uses (``right_table``);
    - ``accuracy_tie_excluded``: over the pairs where neither the people nor the judge chose a
      tie, the share where the judge chose the people's answer (Wilson interval); ``ties``
      says how many pairs the judge's ties left out, so a judge that ties what it is unsure of
      is not flattered unseen;
    - ``accuracy_half_credit``: over every pair, 1 right, 0.5 when exactly one side is a tie,
      0 wrong (bootstrap interval);
    - ``kappa``: Cohen's kappa over the categories a, b and tie (bootstrap interval).

    ``merged``: ``with_people(both, people)``, if already made. ``weights``: each pair's, where
    the criterion's queue drew its pairs with unequal probabilities (``criteria.weighted_right``'s,
    the card's; a pair not in it weighs 1): ``accuracy`` and its interval are then the card's
    weighted figures (``stats.weighted.weighted_accuracy``), the unweighted share is kept as
    ``accuracy_unweighted`` and ``weighting`` says what the weights stand for (``sampling``);
    the tie-excluded accuracy is weighted the same way over the decided pairs, the half credit
    is the weighted (Hajek) mean with its linearised interval (``stats.weighted.ratio_mean``)
    and kappa the weighted kappa with the weighted bootstrap's interval; ``pairs``, ``decided``,
    ``ties`` and ``unjudged`` stay counts. None: the table is the unweighted one.
    """
    merged = with_people(both, people) if merged is None else merged
    found = _outcomes(merged)
    table = _validity_rows(both, people, merged, found)
    if weights is None:
        return table
    return _weighted_validity(table, merged, found, weights, sampling)


@dataclass(frozen=True)
class _Outcomes:
    """Per row of ``with_people``'s join: what the validity figures read."""

    same: np.ndarray  # the verdict is the people's preference
    tie: np.ndarray  # the judge tied
    decided: np.ndarray  # neither the judge nor the people tied
    credit: np.ndarray  # ``half_credit``
    codes: np.ndarray  # rows x 2: the verdict's and the people's ``CODES``


def _outcomes(merged: pd.DataFrame) -> _Outcomes:
    verdict, preferred = merged["combined"], merged["preferred"]
    tie = (verdict == "tie").to_numpy(bool)
    return _Outcomes(
        same=(verdict == preferred).to_numpy(bool),
        tie=tie,
        decided=~tie & (preferred != "tie").to_numpy(bool),
        credit=half_credit(verdict, preferred),
        codes=np.column_stack([category_codes(verdict), category_codes(preferred)]),
    )


WEIGHTED_VALIDITY = ["accuracy", "accuracy_low", "accuracy_high", "accuracy_tie_excluded"]
WEIGHTED_VALIDITY += ["ci_low", "ci_high", "accuracy_half_credit", "half_credit_low"]
WEIGHTED_VALIDITY += ["half_credit_high", "kappa", "kappa_low", "kappa_high"]


def _weighted_validity(
    table: pd.DataFrame,
    merged: pd.DataFrame,
    found: _Outcomes,
    weights: pd.Series,
    sampling: str,
) -> pd.DataFrame:
    """``validity``'s table with each judge's figures weighted by its pairs' weights."""
    weight = weights_by_pair(weights, merged["pair"])
    at = merged.groupby("judge", sort=False).indices
    out = table.assign(accuracy_unweighted=table["accuracy"], weighting=sampling or "weighted")
    for row, judge in enumerate(out["judge"]):
        mine = np.asarray(at.get(judge, np.array([], dtype=int)), dtype=int)
        if len(mine):
            figures = _weighted_figures(found, mine, weight[mine])
            out.loc[out.index[row], WEIGHTED_VALIDITY] = figures
    return out


def _weighted_figures(found: _Outcomes, mine: np.ndarray, weight: np.ndarray) -> list[float]:
    """One judge's ``WEIGHTED_VALIDITY`` over its rows ``mine`` (``weight``: theirs)."""
    decided = found.decided[mine]
    credit = ratio_mean(found.credit[mine], weight)
    return [
        *weighted_accuracy(found.same[mine].astype(float), weight),
        *weighted_accuracy(found.same[mine][decided].astype(float), weight[decided]),
        credit.mean,
        credit.low,
        credit.high,
        *kappa_interval(found.codes[mine], len(CODES), unit_weights=weight),
    ]


def _validity_rows(
    both: pd.DataFrame, people: pd.DataFrame, merged: pd.DataFrame, found: _Outcomes
) -> pd.DataFrame:
    """``validity``'s table, each pair counted once (``found``: ``_outcomes(merged)``)."""
    same, tie, decided, credit = found.same, found.tie, found.decided, found.credit
    codes = found.codes
    person = merged["person"].to_numpy(int)
    at = merged.groupby("judge", sort=False).indices
    rows = []
    for judge in sorted(both["judge"].unique(), key=str):
        mine = at.get(judge, np.array([], dtype=int))
        n, judged = len(mine), int(decided[mine].sum())
        right, strict = int((same & decided)[mine].sum()), int(same[mine].sum())
        strict_low, strict_high = wilson_interval(strict, n)
        low, high = wilson_interval(right, judged)
        credit_low, credit_high = mean_interval(credit[mine])
        kappa, kappa_low, kappa_high = kappa_interval(codes[mine], len(CODES))
        rows.append(
            {
                "judge": judge,
                "pairs": n,
                "unjudged": len(people) - len(np.unique(person[mine])),
                "ties": int(tie[mine].sum()),
                "accuracy": strict / n if n else float("nan"),
                "accuracy_low": strict_low,
                "accuracy_high": strict_high,
                "decided": judged,
                "accuracy_tie_excluded": right / judged if judged else float("nan"),
                "ci_low": low,
                "ci_high": high,
                "accuracy_half_credit": float(credit[mine].mean()) if n else float("nan"),
                "half_credit_low": credit_low,
                "half_credit_high": credit_high,
                "kappa": kappa,
                "kappa_low": kappa_low,
                "kappa_high": kappa_high,
                "missing": VALIDITY_MISSING,
            }
        )
    return pd.DataFrame(rows, columns=VALIDITY_COLUMNS)


RULE_MISSING = (
    "pairs with a people's preference (or known truth) and a verdict by the rule: mt-bench "
    "needs both orders judged; sum counts an order without a verdict 0"
)


def rule_accuracy(
    verdicts: pd.DataFrame,
    people: pd.DataFrame,
    chosen: Combine,
    orders: pd.DataFrame | None = None,
    merged: Mapping[Combine, pd.DataFrame] | None = None,
    weights: pd.Series | None = None,
    sampling: str = "",
) -> pd.DataFrame:
    """Per judge, its accuracy against people's preferences under each combination rule
    (``COMBINE_RULES``), side by side: right = the combined verdict is the people's answer (a
    tie is right only against a tie), Wilson interval; ``chosen`` marks the criterion's own
    rule, the one the card and ``pairwise_validity`` use. ``orders``: as ``position_bias``;
    ``merged``: per rule, ``with_people`` of its combined verdicts, if already made.
    ``weights``: each pair's, as ``validity`` reads them: each accuracy and interval weighted
    (``validity.pairs.weighted_accuracy_rows``), with ``accuracy_unweighted`` and ``weighting``;
    None: each pair once."""
    rows, outcomes = [], []
    for way in COMBINE_RULES:
        joined = (merged or {}).get(way)
        if joined is None:
            orders = order_table(verdicts) if orders is None else orders
            joined = with_people(combined_orders(orders, way), people)
        right = (joined["combined"] == joined["preferred"]).to_numpy(bool)
        outcomes.append(joined[["judge", "pair"]].assign(rule=way, agree=right))
        by_judge = pd.Series(right, index=joined.index).groupby(joined["judge"], sort=True)
        counts = by_judge.agg(["sum", "size"])
        for judge, (k, n) in zip(counts.index, counts.to_numpy(), strict=True):
            low, high = wilson_interval(int(k), int(n))
            rows.append(
                {
                    "judge": judge,
                    "rule": way,
                    "chosen": way == chosen,
                    "pairs": int(n),
                    "right": int(k),
                    "accuracy": k / n if n else float("nan"),
                    "ci_low": low,
                    "ci_high": high,
                    "ci_method": "Wilson score, 95%",
                    "missing": RULE_MISSING,
                }
            )
    table = pd.DataFrame(rows, columns=RULE_COLUMNS)
    table = table.sort_values(["judge", "rule"], kind="stable").reset_index(drop=True)
    return _weighted_rows(table, outcomes, ["judge", "rule"], weights, sampling)


def _weighted_rows(
    table: pd.DataFrame,
    outcomes: list[pd.DataFrame],
    keys: list[str],
    weights: pd.Series | None,
    sampling: str,
) -> pd.DataFrame:
    """``table`` as it is without ``weights``, else each row's accuracy weighted by its pairs'
    (``outcomes``: a row per pair and verdict with its ``keys`` and ``agree``)."""
    if weights is None or table.empty:
        return table
    found = pd.concat(outcomes, ignore_index=True)
    found = found.assign(weight=weights_by_pair(weights, found["pair"]))
    return weighted_accuracy_rows(table, found, keys, sampling)


def group_accuracy(
    verdicts: pd.DataFrame,
    people: pd.DataFrame,
    groups: pd.DataFrame,
    chosen: Combine,
    weights: pd.Series | None = None,
    sampling: str = "",
) -> pd.DataFrame:
    """``rule_accuracy`` per group of pairs (``groups``: ``pair``, ``group``, e.g. a
    benchmark's categories): per judge, group and rule, right / pairs with its Wilson interval
    (``weights``: as ``rule_accuracy``). Missing: as ``rule_accuracy``; a pair without a group
    is left out of this table."""
    rows, outcomes = [], []
    for way in COMBINE_RULES:
        merged = combined(verdicts, way).merge(people[["pair", "preferred"]], on="pair")
        merged = merged.merge(groups[["pair", "group"]], on="pair")
        merged["right"] = merged["combined"] == merged["preferred"]
        outcomes.append(merged[["judge", "group", "pair"]].assign(rule=way, agree=merged["right"]))
        for (judge, group), block in merged.groupby(["judge", "group"], sort=True):
            right, n = int(block["right"].sum()), len(block)
            low, high = wilson_interval(right, n)
            rows.append(
                {
                    "judge": judge,
                    "group": group,
                    "rule": way,
                    "chosen": way == chosen,
                    "pairs": n,
                    "right": right,
                    "accuracy": right / n,
                    "ci_low": low,
                    "ci_high": high,
                    "missing": RULE_MISSING,
                }
            )
    table = pd.DataFrame(rows, columns=GROUP_COLUMNS)
    table = table.sort_values(["judge", "group", "rule"], kind="stable").reset_index(drop=True)
    return _weighted_rows(table, outcomes, ["judge", "group", "rule"], weights, sampling)


def right_table(
    both: pd.DataFrame, people: pd.DataFrame, merged: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Pairs x judges: whether the judge's combined verdict is the people's preference (a tie
    is not); NaN where the judge has no combined verdict for the pair. ``merged``:
    ``with_people(both, people)``, if already made."""
    merged = with_people(both, people) if merged is None else merged
    right = merged[["pair", "judge"]].assign(
        right=(merged["combined"] == merged["preferred"]).astype(float)
    )
    return right.pivot_table(index="pair", columns="judge", values="right", aggfunc="first")


def comparisons(
    both: pd.DataFrame,
    people: pd.DataFrame,
    right: pd.DataFrame | None = None,
    weights: pd.Series | None = None,
    sampling: str = "",
) -> pd.DataFrame:
    """The judges compared on the same pairs as the card compares them (``analyses.decision``:
    the top judge by accuracy against each other, exact McNemar, Holm-corrected; a tie and a
    pair the judge has no verdict for count as wrong, as in the card's pair evidence).
    ``right``: the ``right_table`` of ``both`` and ``people``, if already made. ``weights``:
    each pair's, as ``validity`` reads them (the card's): the top judge by weighted accuracy,
    each difference by the card's weighted paired bootstrap (``stats.weighted.share_weighting``
    in ``ruling.compare``), and ``weighting`` says what the weights stand for; None: every
    pair counts once (McNemar), no ``weighting`` column."""
    right = right_table(both, people) if right is None else right
    if right.empty:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    evidence = binary_evidence(right)
    if weights is not None:
        weight = weights_by_pair(weights, right.index)
        evidence = replace(evidence, weighting=share_weighting(weight))
    ruling = rule(evidence)
    assert ruling.top is not None
    table = pd.DataFrame(
        [
            {
                "top": ruling.top.judge,
                "other": other.judge,
                "diff": d.diff,
                "low": d.low,
                "high": d.high,
                "p": d.p_value,
                "p_holm": p_holm,
                "n": d.n,
                "test": d.test,
            }
            for other, d, p_holm in ruling.others
        ],
        columns=COMPARISON_COLUMNS,
    )
    return table if weights is None else table.assign(weighting=sampling or "weighted")


def jury_verdicts(verdicts: pd.DataFrame, members: Sequence[str]) -> pd.DataFrame:
    """A panel as one more judge (``jury(a + b)``): in each order of each pair, the verdict most
    of its members gave; a tie between verdicts (one for a, one for b) is a tie. Missing: a
    member whose cell failed is left out of the vote; the jury's cell fails (None) only when no
    member judged it."""
    rows = verdicts[verdicts["judge"].isin(members)]
    votes = []
    for (pair, order), group in rows.groupby(["pair", "order"], sort=True):
        votes.append(
            {
                "judge": jury_name(members),
                "pair": pair,
                "order": order,
                "winner": _majority(group["winner"]),
            }
        )
    return pd.DataFrame(votes, columns=VERDICT_COLUMNS)


def _majority(winners: pd.Series) -> str | None:
    counts = winners[_is_judged(winners)].value_counts()
    if counts.empty:
        return None
    top = counts[counts == counts.max()]
    return str(top.index[0]) if len(top) == 1 else "tie"


def probe_moves(both: pd.DataFrame, probes: pd.DataFrame) -> pd.DataFrame:
    """Per judge and probe: how often the probe moved the combined verdict towards the worse
    answer (Wilson interval), and how often it moved it at all.

    ``probes`` has one row per probe pair: ``pair`` (the probe's), ``base`` (the pair it was
    made from), ``probe`` (its name) and ``worse`` (a or b: the answer the people did not
    prefer, the one the probe changed). A verdict ranks better answer > tie > worse answer.
    Missing: a probe pair counts where the judge has a combined verdict for it and for its base.
    """
    base = both.rename(columns={"pair": "base", "combined": "before"})[["judge", "base", "before"]]
    after = both.rename(columns={"combined": "after"})[["judge", "pair", "after"]]
    merged = probes.merge(after, on="pair").merge(base, on=["judge", "base"])
    if merged.empty:
        return pd.DataFrame(columns=PROBE_COLUMNS)
    merged["worse_before"] = _towards_worse(merged["before"], merged["worse"])
    merged["worse_after"] = _towards_worse(merged["after"], merged["worse"])
    merged["towards_worse"] = merged["worse_after"] > merged["worse_before"]
    merged["moved"] = merged["after"] != merged["before"]
    table = (
        merged.groupby(["judge", "probe"])
        .agg(n=("moved", "size"), moved=("moved", "sum"), towards_worse=("towards_worse", "sum"))
        .reset_index()
    )
    table["rate"] = table["towards_worse"] / table["n"]
    counts = zip(table["towards_worse"], table["n"], strict=True)
    bounds = [wilson_interval(int(k), int(n)) for k, n in counts]
    table["ci_low"] = [b[0] for b in bounds]
    table["ci_high"] = [b[1] for b in bounds]
    table["missing"] = "probe pairs with a combined verdict for the probe and for its base"
    return table[PROBE_COLUMNS]


def _towards_worse(verdict: pd.Series, worse: pd.Series) -> np.ndarray:
    """0 for the better answer, 1 for a tie, 2 for the worse answer."""
    return np.where(verdict == "tie", 1, np.where(verdict == worse, 2, 0))


def win_rates(both: pd.DataFrame, systems: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per judge and system: wins, losses and ties over the pairs it took part in (``systems``:
    ``pair``, ``system_a``, ``system_b``: which system wrote answer a and which b), as
    FastChat's ``show_result.py`` counts them: ``win_rate`` = wins / pairs (Wilson interval),
    ``win_rate_adjusted`` = (wins + ties / 2) / pairs (bootstrap interval), the figure the
    systems are ranked by. Missing: pairs with a combined verdict."""
    merged = both[["judge", "pair", "combined"]].merge(systems, on="pair")
    sides = []
    for side, other in (("a", "b"), ("b", "a")):
        outcome = np.where(
            merged["combined"] == "tie", 0.5, (merged["combined"] == side).astype(float)
        )
        sides.append(
            pd.DataFrame(
                {
                    "judge": merged["judge"],
                    "system": merged[f"system_{side}"],
                    "opponent": merged[f"system_{other}"],
                    "outcome": outcome,
                }
            )
        )
    games = pd.concat(sides, ignore_index=True)
    rows = []
    for (judge, system), block in games.groupby(["judge", "system"], sort=True):
        outcome = block["outcome"].to_numpy()
        wins, ties, n = int((outcome == 1).sum()), int((outcome == 0.5).sum()), len(outcome)
        low, high = wilson_interval(wins, n)
        adjusted_low, adjusted_high = mean_interval(outcome, seed)
        rows.append(
            {
                "judge": judge,
                "system": system,
                "pairs": n,
                "wins": wins,
                "losses": n - wins - ties,
                "ties": ties,
                "win_rate": wins / n,
                "ci_low": low,
                "ci_high": high,
                "win_rate_adjusted": float(outcome.mean()),
                "adjusted_low": adjusted_low,
                "adjusted_high": adjusted_high,
                "missing": WIN_MISSING,
            }
        )
    return pd.DataFrame(rows, columns=WIN_COLUMNS)


def ranking_agreement(rates: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau-b (scipy) between every two judges' rankings of the systems, by adjusted win
    rate, over the systems both rated; NaN with fewer than two systems or a constant ranking."""
    wide = rates.pivot_table(index="system", columns="judge", values="win_rate_adjusted")
    rows = []
    for first, second in combinations(wide.columns, 2):
        shared = wide[[first, second]].dropna()
        tau, p = (float("nan"), float("nan"))
        if len(shared) >= 2:
            result = stats.kendalltau(shared[first], shared[second])
            tau, p = float(result.statistic), float(result.pvalue)
        rows.append({"first": first, "second": second, "systems": len(shared), "tau": tau, "p": p})
    return pd.DataFrame(rows, columns=TAU_COLUMNS)
