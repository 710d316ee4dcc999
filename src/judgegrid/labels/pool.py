"""One pool of samples for everyone who labels a run: what a person's queue may ask, the draws it
stores, and the draws a person left unanswered, which pass to whoever asks next.

The rule reads everyone's stored draws merged (``decision.label_state.read_sequence``), so the
pool is one for everyone: a new draw, whoever asks, is among the samples nobody has drawn,
answered, skipped or imported (``taken_by_anyone``), and everyone's draws are one sequence
without replacement. A person's draws not yet answered are held for them while they label: a
session opened and left would otherwise hold its samples for good, out of everyone's reach and
out of the rule's reading. Once its person has neither drawn nor labelled for ``HELD_S``, a draw
is *left* (``left_draws``) and the next person's queue asks it before any new draw, taking it
over: the draw moves to them as it was drawn (its probability, population and bounds, which the
design gave it then), numbered on in their sequence, and the holder's row goes in the same
transaction (``record_draws``). Who answers a draw does not change what it stands for: the
sample was drawn by the design of its time, and its truth is unknown to the rule until answered.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from judgegrid.analyses import QueueDesign, queue_draw
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import Problem, RunDirError
from judgegrid.core.records import DRAW_COLUMNS, LabelDraw
from judgegrid.store.lock import lock_run
from judgegrid.store.run_db import RunStore

# how long a person's unanswered draws stay theirs after they last drew or labelled: an hour
# covers a pause, not a session left for good (``judgegrid label --left-after``)
HELD_S = 3600.0
# the shortest hold an asker may set: under it, a person reading a sample would lose it to
# whoever opened a page meanwhile
MIN_HELD_S = 60.0

Key = tuple[str, str]  # (sample, metric)


def keys_of(frame: pd.DataFrame, *columns: str) -> list[tuple[str, ...]]:
    """Each row's values of ``columns``, as text: the keys the pool compares draws and labels by."""
    return list(zip(*(frame[c].astype(str) for c in columns), strict=True))


def sample_keys(frame: pd.DataFrame) -> list[Key]:
    """Each row's (sample, metric)."""
    return cast(list[Key], keys_of(frame, "sample_id", "metric"))


def answered(store: RunStore, annotator: str) -> set[Key]:
    """(sample, metric) pairs ``annotator`` has answered or skipped."""
    return answered_in(store.labels_frame(), annotator)


def answered_in(labels: pd.DataFrame, annotator: str) -> set[Key]:
    """``answered`` of labels already read."""
    return set(sample_keys(labels[labels["annotator"] == annotator]))


def taken_by_anyone(draws: pd.DataFrame, labels: pd.DataFrame) -> set[Key]:
    """(sample, metric) pairs no new draw may ask, whoever asks (``draws`` and ``labels``: the
    run's stored ones, as the caller has read them): every sample anyone's queue
    drew (answered or not yet) and every one anyone labelled or skipped in the run (on the
    page, or by ``labels import``). One pool for everyone, so that everyone's draws merged, as
    the rule reads them (``decision.label_state``), are one sequence without replacement: a
    sample two people drew would count as two draws of it. A label chosen on ``judgegrid
    view``'s page leaves its sample in the pool: the rule does not read it (it is no draw),
    and a pool that lost the samples people picked, maybe for a judge that looked wrong, would
    no longer hold what the kinds stand for. The data set's own labels leave their samples in
    it too: they are the data set's, not the run's labelling (the rule reads a draw of such a
    sample as the draw alone, ``label_state.read_sequence``)."""
    given = labels[~labels["chosen"].fillna(0).astype(bool)]
    return {*sample_keys(draws), *sample_keys(given)}


def unanswered_draws(draws: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """The stored draws their own person has not answered or skipped, in draw order."""
    columns = ("annotator", "sample_id", "metric")
    asked = set(keys_of(labels, *columns))
    open_rows = [key not in asked for key in keys_of(draws, *columns)]
    return draws[np.array(open_rows, dtype=bool)] if len(draws) else draws


def last_seen(draws: pd.DataFrame, labels: pd.DataFrame) -> dict[str, float]:
    """Each person's last draw or label, in seconds since the epoch (a draw stored before draws
    carried a time counts as never: its person is seen by their labels alone)."""
    times = draws["drawn_at"] if "drawn_at" in draws else pd.Series(np.nan, index=draws.index)
    when = pd.concat([times, labels["labelled_at"]], ignore_index=True).astype(float)
    who = pd.concat([draws["annotator"], labels["annotator"]], ignore_index=True).astype(str)
    return {str(k): float(v) for k, v in when.groupby(who).max().dropna().items()}


def left_draws(
    draws: pd.DataFrame, labels: pd.DataFrame, now: float, held: float = HELD_S
) -> pd.DataFrame:
    """The stored draws left unanswered by a person who has neither drawn nor labelled for
    ``held`` seconds before ``now``: the next person's queue takes them over. Ordered as they
    were drawn, each person's in their sequence's order (the rule reads a person's draws up to
    the first unanswered one, so the earliest is the one the rule waits for)."""
    return waiting_draws(draws, labels, now, held)[1]


def waiting_draws(
    draws: pd.DataFrame, labels: pd.DataFrame, now: float, held: float = HELD_S
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stored draws not yet answered, split: (still held for their person, left:
    ``left_draws``)."""
    waiting = unanswered_draws(draws, labels)
    if waiting.empty:
        return waiting, waiting
    seen = last_seen(draws, labels)
    away = np.array(
        [now - seen.get(str(person), -np.inf) >= held for person in waiting["annotator"]], bool
    )
    return waiting[~away], waiting[away].sort_values(["annotator", "draw"], kind="stable")


@dataclass(frozen=True)
class Pool:
    """What one person's queue may ask, from the pool that is one for everyone, read once when
    their session opens: their answers and skips (``done``), their own stored draws (``mine``),
    every (sample, metric) no new draw may ask (``taken``, ``taken_by_anyone``), others' draws
    left unanswered (``left``, ``left_draws``) or still held for them (``held``) and the time it
    was read (``now``)."""

    annotator: str
    done: frozenset[Key] = frozenset()
    mine: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DRAW_COLUMNS))
    taken: frozenset[Key] = frozenset()
    left: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DRAW_COLUMNS))
    now: float = 0.0
    held: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DRAW_COLUMNS))

    def done_of(self, metric: str) -> set[str]:
        return {sample for sample, of in self.done if of == metric}

    def taken_of(self, metric: str) -> set[str]:
        return {sample for sample, of in self.taken if of == metric}

    def mine_of(self, metric: str) -> pd.DataFrame:
        return self.mine[self.mine["metric"] == metric].sort_values("draw", kind="stable")

    def left_of(self, metric: str) -> pd.DataFrame:
        return self.left[self.left["metric"] == metric]

    def others(self, metrics: tuple[str, ...] | list[str]) -> set[Key]:
        """The (sample, metric) pairs of ``metrics`` taken by other people: neither answered by
        this person nor drawn for them."""
        drawn = set(sample_keys(self.mine))
        return {pair for pair in self.taken if pair[1] in metrics} - self.done - drawn


def pool_of(
    draws: pd.DataFrame, labels: pd.DataFrame, annotator: str, now: float, held: float = HELD_S
) -> Pool:
    """``annotator``'s pool from the run's stored ``draws`` and ``labels`` as read at ``now``,
    others' draws left once their person has been away ``held`` seconds (``left_draws``)."""
    held_draws, left = waiting_draws(draws[draws["annotator"] != annotator], labels, now, held)
    return Pool(
        annotator,
        frozenset(answered_in(labels, annotator)),
        draws[draws["annotator"] == annotator],
        frozenset(taken_by_anyone(draws, labels)),
        left,
        now,
        held_draws,
    )


def queue_draws(
    queue: QueueDesign | None, metric: str, pool: Pool, n: int
) -> list[tuple[str, float, list[LabelDraw]]]:
    """Up to ``n`` samples to ask about, in the order drawn: first the person's stored draws not
    yet answered (or skipped), then others' draws left unanswered, taken over as they were drawn
    (``left_draws``), then new draws from ``queue`` among the samples nobody has been asked
    (``analyses.queue_draw``: without replacement, each with its probability and bounds as
    ``records.LabelDraw`` stores them), numbered on from the stored ones (a person's sequence
    goes on across sessions), deterministic for the person, the metric and the draw they start
    at. Each sample comes with its probability and the draws to store for it."""
    mine = pool.mine_of(metric)
    found: list[tuple[str, float, list[LabelDraw]]] = []
    asked = pool.done_of(metric)
    for sid, q in zip(mine["sample_id"], mine["probability"], strict=True):
        if sid not in asked and len(found) < n:
            found.append((str(sid), float(q), []))
        asked.add(str(sid))
    number = int(mine["draw"].max()) + 1 if len(mine) else 1
    for row in pool.left_of(metric).to_dict("records"):
        if len(found) >= n:
            break
        if str(row["sample_id"]) in asked:
            continue
        draw = _taken_over(row, pool, number)
        found.append((draw.sample_id, draw.probability, [draw]))
        asked.add(draw.sample_id)
        number += 1
    asked |= pool.taken_of(metric)  # after the person's own draws: those are still asked
    if queue is None:
        return found
    rng = np.random.default_rng(int(text_sha(f"{pool.annotator}/{metric}/{number}")[:8], 16))
    population = queue.design.population
    while len(found) < n:
        drawn = queue_draw(queue, asked, rng)
        if drawn is None:
            break
        sid, q, bounds = drawn
        draw = LabelDraw(metric, pool.annotator, number, sid, q, population, bounds, pool.now)
        found.append((sid, q, [draw]))
        asked.add(sid)
        number += 1
    return found


def _taken_over(row: Mapping[Hashable, Any], pool: Pool, number: int) -> LabelDraw:
    """A left draw as the person taking it over stores it: as it was drawn, numbered on in their
    sequence and held for them from ``pool.now``."""
    bounds = row.get("bounds")
    return LabelDraw(
        str(row["metric"]),
        pool.annotator,
        number,
        str(row["sample_id"]),
        float(row["probability"]),
        int(row["population"]),
        bounds if isinstance(bounds, str) else None,
        pool.now,
    )


def record_draws(store: RunStore, draws: list[LabelDraw], now: float, held: float = HELD_S) -> None:
    """Store a session's new draws, before any is shown, through the store the server already
    holds (a second writer beside it would only contend with it), under the run's lock: a
    report or an import holding it is named in the error. A draw of a sample another person
    left unanswered takes it over: theirs is deleted in the same transaction. Another person's
    session, opened at the same moment, may have stored draws of the same samples since these
    were drawn, or the person who left a draw may be back: then none is stored and a
    RunDirError says to start again (the pool is one for everyone, ``taken_by_anyone``).
    ``held``: the session's hold (``pool_of``), so that what it took over is still left."""
    if not draws:
        return
    annotator = draws[0].annotator
    wanted = {(d.sample_id, d.metric) for d in draws}
    with lock_run(store.path.parent):
        every, labels = store.draws_frame(), store.labels_frame()
        fresh = pool_of(every, labels, annotator, now, held)
        others = every[every["annotator"] != annotator]
        theirs = labels[labels["annotator"] != annotator]
        left = set(sample_keys(fresh.left))
        clash = (taken_by_anyone(others, theirs) & wanted) - left
        if clash:
            raise RunDirError(str(store.path.parent), [Problem("", _clash_words(len(clash)))])
        store.write_draws(draws, released_by(fresh, draws))


def released_by(pool: Pool, draws: list[LabelDraw]) -> list[tuple[str, str, int]]:
    """The left draws (metric, annotator, draw) that ``draws`` take over: of the same sample."""
    wanted = {(d.sample_id, d.metric) for d in draws}
    rows = keys_of(pool.left, "metric", "annotator", "draw", "sample_id")
    return [
        (metric, person, int(number))
        for metric, person, number, sample in rows
        if (sample, metric) in wanted
    ]


def _clash_words(count: int) -> str:
    samples = f"{count} sample{'s' if count != 1 else ''}"
    return (
        f"another person's labelling session drew {samples} of this one's a moment ago (each "
        "sample is drawn once, for everyone); nothing was stored: start judgegrid label again"
    )
