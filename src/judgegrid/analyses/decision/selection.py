"""Which samples a person should label first: those a label would teach the most about.

A label separates judges only where they disagree: a sample every judge scores 0.9 says little
about which judge to trust, whatever the person answers. So the queue leads with the samples
where the judges' ratings are furthest apart (each judge's rating: the mean of its scored
repeats and configurations), then where one judge's own repeats differ; among samples that teach
about as much, it spreads the picks over the score range, so that the labels do not all sit at
one end of the scale. Samples the annotator already labelled (or skipped) are left out.

Missing data: only scored cells count; a sample with no scored cell for the metric is never
offered (nothing to compare a label with).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgegrid.analyses.frames.ratings import scored

QUEUE_COLUMNS = [
    "sample_id",
    "metric",
    "priority",
    "judge_range",
    "repeat_range",
    "reason",
    "blind_reason",
]
# What a blind labelling page may say about why it asks: no judge's name, score or preference,
# which would anchor the answer (the reason columns have them, for --show-judges).
JUDGES_DISAGREE = "the judges disagree on this one"
REPEATS_DIFFER = "a judge's own repeats differ on this one"
JUDGES_AGREE = "the judges agree on this one; a label here checks this part of the range"
NOTHING_TO_COMPARE = "no judge scored both answers"
# one judge's rating alone (a run of one judge, or the only one that scored the sample): there is
# no "the judges agree" to report, only the one rating a label checks
ONE_JUDGE = "one judge scored this one; a label here checks this part of the range"
ONE_JUDGE_PAIR = "one judge compared these; a label checks it"
RANGE_BINS = 4  # parts of the 0-1 score range the picks are spread over


def label_queue(
    scores: pd.DataFrame,
    metric: str,
    already: Collection[str] = (),
    n: int | None = None,
) -> pd.DataFrame:
    """The samples of ``metric`` to ask about, most informative first, each with its reason."""
    table, by_judge = label_priority(scores, metric)
    if table.empty:
        return pd.DataFrame(columns=QUEUE_COLUMNS)
    table = table[~table.index.isin(set(already))]
    order = _spread_over_range(table)[:n]
    picked = table.loc[order]
    reasons = _Reasons(by_judge.columns)
    rows = [
        {
            "sample_id": sid,
            "metric": metric,
            "priority": priority,
            "judge_range": judge_range,
            "repeat_range": repeat_range,
            **reasons.of(ratings, repeat_range),
        }
        for sid, priority, judge_range, repeat_range, ratings in zip(
            order,
            picked["priority"].astype(float),
            picked["judge_range"].astype(float),
            picked["repeat_range"].astype(float),
            by_judge.loc[order].to_numpy(float),
            strict=True,
        )
    ]
    return pd.DataFrame(rows, columns=QUEUE_COLUMNS)


@dataclass
class _Reasons:
    """A sample's reasons (``_reason``, ``_blind_reason``) from its judges' ratings, worded once
    for each set of ratings and repeat range: samples alike are worded alike, and a run of
    thousands has few sets (pass/fail judges: at most two a judge)."""

    judges: pd.Index
    said: dict[tuple[object, ...], dict[str, str]] = field(default_factory=dict)

    def of(self, ratings: np.ndarray, repeat_range: float) -> dict[str, str]:
        key = (*(None if np.isnan(r) else float(r) for r in ratings), repeat_range)
        if key not in self.said:
            by_judge = pd.Series(ratings, index=self.judges)
            self.said[key] = {
                "reason": _reason(by_judge, repeat_range),
                "blind_reason": _blind_reason(by_judge, repeat_range),
            }
        return self.said[key]


def uncompared_pairs(
    scores: pd.DataFrame, metric: str, pairs: Iterable[str], done: Collection[str] = ()
) -> list[str]:
    """The pairs of a pairwise criterion ``metric`` (``pairs``: the data set's, in its order)
    that no judge compared (no scored cell: not yet run, or its cells failed) and that are not
    ``done``: outside the queue's design, they are offered after the drawn ones, and the state
    line names them where it would say "no sample left to label". The labelling page's
    ``done`` is one person's answers and skips; the report's, every person's labels."""
    compared = set(scored(scores[scores["metric"] == metric])["sample_id"].astype(str))
    left = set(done)
    return [p for p in pairs if p not in compared and p not in left]


def label_priority(scores: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per sample of ``metric`` a judge scored: how far the judges' ratings are apart
    (``judge_range``), how far one judge's repeats are (``repeat_range``), the judges' mean,
    and the ``priority`` a label there has (judges disagreeing outweighs one judge's repeats
    disagreeing with each other); and each judge's rating (samples x judges). The labelling
    queue's design reads the priority alone (``decision.sampling``)."""
    ok = scored(scores[scores["metric"] == metric])
    if ok.empty:
        return pd.DataFrame(columns=["judge_range", "repeat_range", "mean", "priority"]), ok
    by_judge = ok.groupby(["sample_id", "judge"])["score"].mean().unstack("judge")
    repeats = ok.groupby(["sample_id", "judge", "embedding", "dimension", "strictness"])["score"]
    repeat_range = (repeats.max() - repeats.min()).groupby("sample_id").max()
    table = pd.DataFrame(
        {
            "judge_range": (by_judge.max(axis=1) - by_judge.min(axis=1)).fillna(0.0),
            "repeat_range": repeat_range.reindex(by_judge.index).fillna(0.0),
            "mean": by_judge.mean(axis=1),
        }
    )
    table["priority"] = table["judge_range"] + 0.5 * table["repeat_range"]
    return table, by_judge


def _spread_over_range(table: pd.DataFrame) -> list[str]:
    """Greedy: the highest priority first, each pick's priority divided by (1 + picks already
    made in its part of the score range), so clear disagreement still leads and near-ties are
    spread over the range. Ties break on the sample id, so the order is the same every time.

    Within a part of the range every sample's priority is divided alike, so the pick is among
    each part's best, its samples kept by priority, then id (``_RangePart``): a step looks at
    the parts, not at every sample left, which on thousands of samples took seconds (the
    labelling page builds the queue when it opens and, with ``--batch``, while its person
    waits for the next batch)."""
    bins = (table["mean"].clip(0, 1) * RANGE_BINS).astype(int).clip(upper=RANGE_BINS - 1)
    members: dict[int, list[tuple[float, str]]] = {}
    for sid, priority, at in zip(table.index, table["priority"], bins, strict=True):
        members.setdefault(int(at), []).append((float(priority), sid))
    parts = {at: _RangePart.of(found) for at, found in members.items()}
    taken: Counter[int] = Counter()
    order: list[str] = []
    while parts:
        # the best of each part, as the division by its picks made so far leaves it; the
        # highest of them, ties to the smallest id
        pick: tuple[float, str, int] | None = None
        for at, part in parts.items():
            quotient, sid = part.best(1 + taken[at])
            if pick is None or quotient > pick[0] or (quotient == pick[0] and sid < pick[1]):
                pick = (quotient, sid, at)
        assert pick is not None
        _, sid, at = pick
        taken[at] += 1
        order.append(sid)
        if not parts[at].take(sid):
            del parts[at]
    return order


@dataclass
class _RangePart:
    """A part of the score range's samples not yet picked, in runs of equal priority (highest
    first), each run's ids in order."""

    runs: list[tuple[float, list[str]]]

    @classmethod
    def of(cls, members: list[tuple[float, str]]) -> _RangePart:
        runs: list[tuple[float, list[str]]] = []
        for priority, sid in sorted(members, key=lambda m: (-m[0], m[1])):
            if runs and runs[-1][0] == priority:
                runs[-1][1].append(sid)
            else:
                runs.append((priority, [sid]))
        for _, ids in runs:
            ids.reverse()  # popped from the end: the smallest id last
        return cls(runs)

    def best(self, divisor: int) -> tuple[float, str]:
        """The highest priority / ``divisor`` here and the smallest id at it: that of the top
        run, or of a lower run whose quotient rounds to the same value."""
        top = self.runs[0][0] / divisor
        sid = self.runs[0][1][-1]
        for priority, ids in self.runs[1:]:
            if priority / divisor != top:
                break
            sid = min(sid, ids[-1])
        return top, sid

    def take(self, sid: str) -> bool:
        """``sid`` (some run's smallest id) picked; whether any sample is left."""
        for at, (_, ids) in enumerate(self.runs):
            if ids[-1] == sid:
                ids.pop()
                if not ids:
                    del self.runs[at]
                break
        return bool(self.runs)


def _disagree(by_judge: pd.Series) -> bool:
    ratings = by_judge.dropna()
    return len(ratings) >= 2 and ratings.max() - ratings.min() >= 0.05


def _blind_reason(by_judge: pd.Series, repeat_range: float) -> str:
    if _disagree(by_judge):
        return JUDGES_DISAGREE
    if repeat_range >= 0.05:
        return REPEATS_DIFFER
    return ONE_JUDGE if by_judge.count() < 2 else JUDGES_AGREE


def _reason(by_judge: pd.Series, repeat_range: float) -> str:
    """Why this sample was chosen, in one line a person can read on the page."""
    ratings = by_judge.dropna().sort_values()
    if len(ratings) >= 2 and ratings.iloc[-1] - ratings.iloc[0] >= 0.05:
        low, high = ratings.index[0], ratings.index[-1]
        return (
            f"the judges disagree: {low} gives {ratings.iloc[0]:.2f}, "
            f"{high} gives {ratings.iloc[-1]:.2f}"
        )
    if repeat_range >= 0.05:
        return f"a judge's own repeats differ by {repeat_range:.2f}"
    if len(ratings) < 2:
        return f"only {ratings.index[0]} scored this one ({ratings.iloc[0]:.2f}); a label checks it"
    return f"the judges agree ({ratings.mean():.2f}); a label here checks this part of the range"


PREFERENCE_QUEUE_COLUMNS = ["pair", "first", "second", "priority", "reason", "blind_reason"]


def preference_queue(
    scores: pd.DataFrame,
    members: Mapping[str, tuple[str, str]],
    already: Collection[str] = (),
    n: int | None = None,
) -> pd.DataFrame:
    """The preference pairs to ask about, most informative first: where the judges disagree on
    which member is better (each judge's rating of a member: the mean of its scored cells over
    the run's metrics), then where a judge barely separates them. ``members`` maps a pair to its
    two samples in the order the page shows them.

    Missing data: a pair with a member no judge scored is asked about last (nothing to compare).
    """
    ok = scored(scores)
    by_judge = ok.groupby(["sample_id", "judge"])["score"].mean().unstack("judge")
    rows = []
    for pair, (first, second) in members.items():
        if pair in already:
            continue
        gaps = _gaps(by_judge, first, second)
        spread = float(gaps.max() - gaps.min()) if len(gaps) else 0.0
        closeness = float(1 - np.abs(gaps).min()) if len(gaps) else 0.0
        rows.append(
            {
                "pair": pair,
                "first": first,
                "second": second,
                "priority": spread + 0.25 * closeness,
                "reason": _preference_reason(gaps),
                "blind_reason": _blind_preference_reason(gaps),
            }
        )
    table = pd.DataFrame(rows, columns=PREFERENCE_QUEUE_COLUMNS)
    table = table.sort_values(["priority", "pair"], ascending=[False, True])
    return table.head(n).reset_index(drop=True) if n is not None else table.reset_index(drop=True)


def _gaps(by_judge: pd.DataFrame, first: str, second: str) -> pd.Series:
    """Per judge: its rating of the first member minus the second (judges that scored both)."""
    if first not in by_judge.index or second not in by_judge.index:
        return pd.Series(dtype=float)
    rows = by_judge.loc[[first, second]].to_numpy(dtype=float)
    gaps = pd.Series(rows[0] - rows[1], index=by_judge.columns.astype(str), dtype=float)
    return gaps.dropna()


def _blind_preference_reason(gaps: pd.Series) -> str:
    if gaps.empty:
        return NOTHING_TO_COMPARE
    if len(gaps) < 2:
        return ONE_JUDGE_PAIR
    sides = set(np.sign(gaps.to_numpy(float)))
    return (
        JUDGES_DISAGREE if len(sides) > 1 else "the judges agree on this one; a label checks them"
    )


def _preference_reason(gaps: pd.Series) -> str:
    if gaps.empty:
        return "no judge scored both answers"
    prefers = {
        str(j): ("answer 1" if g > 0 else "answer 2" if g < 0 else "neither")
        for j, g in gaps.items()
    }
    if len(set(prefers.values())) > 1:
        return "the judges disagree: " + ", ".join(f"{j} prefers {p}" for j, p in prefers.items())
    if len(prefers) == 1:
        (judge, pick), *_ = prefers.items()
        return f"only {judge} compared these ({pick}); a label checks it"
    return f"the judges agree ({next(iter(prefers.values()))}); a label checks them"
