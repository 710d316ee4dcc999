"""A labelling session's queue: the questions one person is asked, drawn from each metric's
design (``analyses.label_design``, adaptive from the labels so far) out of the one pool for
everyone (``labels.pool``), and a session opened over a run with its queue (``open_session``).

Apart from the server: ``judgegrid label`` and ``judgegrid view`` open a session the same way
(no aiohttp needed), and the page stores the draws made here before it shows any of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from judgegrid.analyses import (
    LabelDesign,
    LabelRun,
    QueueDesign,
    fixed_queue,
    label_design,
    label_queue,
    preference_queue,
    uncompared_pairs,
)
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.names import given_twice, repeats
from judgegrid.core.records import PREFERENCE, LabelDraw
from judgegrid.core.sample import Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.labels.files import human_labels
from judgegrid.labels.pairwise import criterion_pairs, is_pairwise, judges_as_shown
from judgegrid.labels.pool import Pool, answered_in, pool_of, queue_draws, released_by
from judgegrid.labels.session import (
    DEFAULT_ASK,
    LabelSession,
    QueueItem,
    SessionAsk,
    label_run_of,
)
from judgegrid.metrics import run_metric_name
from judgegrid.store.run_db import RunStore
from judgegrid.store.run_dir import open_run, stored_dataset, stored_sample_info

# Why the page asks about a pair no judge has scored (a pairwise criterion's run not yet scored,
# or a pair whose cells failed): said the same with or without the judges shown.
UNSCORED_PAIR = "a pair no judge has compared yet"


def open_session(
    run_dir: str | Path,
    annotator: str,
    metrics: list[str] | None = None,
    ask: SessionAsk = DEFAULT_ASK,
) -> LabelSession:
    """The run's samples and a queue of ``ask.n`` (sample, metric) items this annotator has not
    answered, most informative first; metrics take turns so each gets its share
    (``SessionAsk`` says the rest)."""
    ask.check(annotator)
    target, matrix, store = open_run(run_dir)
    try:
        return session_over(target, matrix, store, annotator, metrics, ask)
    finally:
        store.close()


def session_over(
    target: Path,
    matrix: Matrix,
    store: RunStore,
    annotator: str,
    metrics: list[str] | None,
    ask: SessionAsk,
) -> LabelSession:
    """``open_session`` over a run already open, for a caller that needs the run's matrix too
    (``judgegrid label``'s viewer) and so opens the run once."""
    n, show_judges, batch, again = ask.n, ask.show_judges, ask.batch, ask.again
    margin = ask.margin if ask.margin is not None else matrix.decision.margin
    panels = tuple(tuple(panel) for panel in matrix.jury_panels)
    criteria = matrix.criteria_by_name
    chosen = chosen_metrics(metrics, matrix.scored_names)
    samples = {s.id: s for s in stored_dataset(store)}
    person = annotator.strip()
    pairs = preference_members(samples.values())
    scores = store.scores_frame()
    scores = scores[scores["sample_id"].isin(set(samples))]  # people never label probes
    every_draw = store.draws_frame()
    info = stored_sample_info(store)
    labels = store.labels_frame()
    pool = pool_of(every_draw, labels, person, time.time(), ask.left_after)
    if again and pairs:
        message = (
            "a pairs run's preferences are each person's own (the pairs rung scores each one "
            "as a pair): asked again they would count as new evidence; label them without it"
        )
        raise OptionError("--again", [Problem(str(target), message)])
    draws: list[LabelDraw] = []  # none asked again: each a second label of a drawn sample
    prepared: LabelRun | None = None  # the state line's reading of the scores, once made
    if again:
        queue = again_queue(labels, person, chosen, set(pool.done), n)
    elif pairs:  # drawn all at once: the preference design stays fixed (``next_batch``)
        queue, draws = build_preference_queue(scores, pairs, pool, n)
    else:
        asked = [criteria[m] for m in chosen if m in criteria]
        compared = criterion_pairs(samples.values(), asked)
        prepared = label_run_of(scores, info, criteria, margin, panels)
        adapt = adapter(prepared, labels, every_draw)
        queue, draws = build_queue(scores, chosen, pool, n, compared, adapt, batch, prepared)
    labelled = (PREFERENCE,) if pairs else tuple(chosen)
    session = LabelSession(
        target,
        samples,
        person,
        queue,
        show_judges=show_judges,
        criteria=criteria,
        scores=scores,
        sample_info=info,
        unrecorded=draws,  # stored before the page shows any (add_label_routes)
        limit=n,
        batch=batch,
        metrics=labelled,
        margin=margin,
        jury_panels=panels,
        # not those it takes over: they are this person's now
        others=len(pool.others(labelled) - {(d.sample_id, d.metric) for d in draws}),
        held=int(pool.held["metric"].isin(labelled).sum()),
        taken_over=len(released_by(pool, draws)),
        again=again,
        left_after=ask.left_after,
        prepared=prepared,
    )
    if show_judges:
        for item in queue:
            if is_pairwise(criteria.get(item.metric)):
                order = session.order(item.sample_id)
                said = judges_as_shown(scores, item.metric, item.sample_id, order)
                item.reason = f"{item.blind_reason or item.reason}: {said}" if said else item.reason
    return session


AGAIN_REASON = "labelled by another person: asked again, for agreement between people (no draw)"


def again_queue(
    labels: pd.DataFrame,
    person: str,
    metrics: Sequence[str],
    done: set[tuple[str, str]],
    n: int,
) -> list[QueueItem]:
    """``--again``: up to ``n`` (sample, metric) items of ``metrics`` that other people labelled
    (an answer, not a skip; on the page or by ``labels import``) and ``person`` has not answered
    or skipped, the earliest labelled first. No draw is made: the pool is one for everyone, so
    a second label of a drawn sample is one more label of it (the verdict reads the draw once,
    ``decision.label_state``; the figures take its mean label), which the people's agreement
    (Krippendorff's alpha, the Alternative Annotator Test) needs."""
    given = labels[
        labels["value"].notna()
        & (labels["annotator"] != person)
        & labels["metric"].isin(set(metrics))
    ]
    if "labelled_at" in given:
        given = given.sort_values("labelled_at", kind="stable")
    items: list[QueueItem] = []
    seen = set(done)
    keys = zip(given["sample_id"].astype(str), given["metric"].astype(str), strict=True)
    for sample, metric in keys:
        if len(items) >= n:
            break
        if (sample, metric) in seen:
            continue
        seen.add((sample, metric))
        items.append(QueueItem(sample, metric, AGAIN_REASON, blind_reason=AGAIN_REASON))
    return items


def chosen_metrics(given: list[str] | None, run_names: list[str]) -> list[str]:
    """``--metric``'s names as the run's cells carry them (all of the run's when none is
    given); a name the run does not have, or one metric named twice (in any spelling), is an
    OptionError naming it with the run's own metrics and criteria."""
    if not given:
        return run_names
    chosen: list[str] = []
    problems = []
    for name in given:
        try:
            chosen.append(run_metric_name(name, run_names))
        except ValueError as exc:
            problems.append(Problem(name, str(exc)))
    if problems:
        raise OptionError("--metric", problems)
    for later, first in repeats(chosen):
        message = given_twice("metric", given, later, first)
        problems.append(Problem(given[later], message))
    if problems:
        raise OptionError("--metric", problems)
    return chosen


# the adaptive design of a metric's next draws from its fixed design (``adapter``); None: the
# fixed design serves (a criterion, a preference)
Adapt = Callable[[str, LabelDesign], QueueDesign | None]


def adapter(run: LabelRun, labels: pd.DataFrame, draws: pd.DataFrame) -> Adapt:
    """How a metric's next draws are designed from the labels and draws stored now, as the
    caller read them for its pool too (``analyses.LabelRun.adaptive_design``: focused where
    the rule's leader and its open rivals disagree once the leader beats chance; under the
    run's margin, the rivals it is not yet shown at most the margin below, as the state
    line's rule reads it), over the scores as ``run`` read them once."""
    facts = run.facts
    answers = human_labels(labels, facts.sample_info, facts.criteria.values(), skips=True)

    def adapt(metric: str, base: LabelDesign) -> QueueDesign | None:
        return run.adaptive_design(metric, answers, draws, base)

    return adapt


def build_queue(
    scores: pd.DataFrame,
    metrics: list[str],
    pool: Pool,
    n: int,
    compared: Mapping[str, Sequence[str]] | None = None,
    adapt: Adapt | None = None,
    batch: int | None = None,
    run: LabelRun | None = None,
) -> tuple[list[QueueItem], list[LabelDraw]]:
    """Each metric's queue (``metric_queue``) from the person's ``pool``, taken in turns until
    ``n`` items (``--n``: the labels asked this session), and the new draws behind the items
    taken, to store before they are shown. A pairwise criterion's (its pairs in ``compared``)
    ends with the pairs no judge scored. ``batch``: each metric's first batch only, at most that
    many of it (its next is drawn when these are answered, ``next_batch``); a pairwise
    criterion's design stays fixed, so it is drawn all at once. ``run``: ``scores`` as the
    session keeps them read (``analyses.LabelRun``), whose queue tables the later batches
    draw from too."""
    compared = compared or {}
    per_metric = [
        metric_queue(
            scores,
            metric,
            pool,
            compared.get(metric),
            min(n, batch) if batch and metric not in compared else n,
            adapt,
            run.queue_table(metric) if run is not None and metric not in compared else None,
        )
        for metric in metrics
    ]
    return taken_in_turns(per_metric, n)


def taken_in_turns(
    per_metric: list[list[tuple[QueueItem, list[LabelDraw]]]], n: int
) -> tuple[list[QueueItem], list[LabelDraw]]:
    """Items from each queue in turn until ``n``, with the draws up to the last one taken."""
    items: list[QueueItem] = []
    draws: list[LabelDraw] = []
    queues = [list(q) for q in per_metric]
    while len(items) < n and any(queues):
        for queue in queues:
            if queue and len(items) < n:
                item, behind = queue.pop(0)
                items.append(item)
                draws += behind
    return items, draws


def metric_queue(
    scores: pd.DataFrame,
    metric: str,
    pool: Pool,
    pairs: Sequence[str] | None = None,
    n: int = 20,
    adapt: Adapt | None = None,
    table: pd.DataFrame | None = None,
) -> list[tuple[QueueItem, list[LabelDraw]]]:
    """Up to ``n`` of one metric's items, each with the new draw that leads to it: drawn from
    the metric's design (``analyses.metric_design``: strata by how much the judges disagree,
    40% of every draw uniform; made adaptive by ``adapt`` from the labels so far,
    ``decision.adaptive``) without replacement, each weighted by its kind (``decision.kinds``),
    after the person's draws stored and not yet answered and the draws others left unanswered
    (``pool.queue_draws``: one pool for everyone). A
    pairwise criterion's ``pairs`` (the samples holding both answers) bound it: the pairs the
    judges scored are drawn, then the others follow in the data set's order, not drawn (so a
    pairwise criterion can be labelled before, or without, its judges' cells; such a label
    counts as drawn uniformly). A sample no judge scored is outside the
    design and never offered (nothing to compare a label with). ``table``: ``label_queue`` of
    ``scores`` if already made (without ``pairs``; ``LabelRun.queue_table``)."""
    if pairs is not None:
        scores = scores[scores["sample_id"].isin(set(pairs))]
    if table is None:
        table = label_queue(scores, metric)
    columns = (table[c].tolist() for c in ("sample_id", "reason", "blind_reason"))
    reasons = {str(s): (str(r), str(b)) for s, r, b in zip(*columns, strict=True)}
    design = label_design(table.set_index("sample_id")["priority"]) if len(table) else None
    queue = adapt(metric, design) if adapt is not None and design is not None else None
    if queue is None and design is not None:
        queue = fixed_queue(design)
    drawn = queue_draws(queue, metric, pool, n)
    items = [
        (QueueItem(sid, metric, reasons[sid][0], None, "", reasons[sid][1], q), behind)
        for sid, q, behind in drawn
        if sid in reasons
    ]
    queued = {item.sample_id for item, _ in items} | pool.done_of(metric)
    unscored = uncompared_pairs(scores, metric, pairs, queued) if pairs else []
    items += [(QueueItem(p, metric, UNSCORED_PAIR), []) for p in unscored]
    return items[:n]


def next_batch(
    session: LabelSession,
    store: RunStore,
    metric: str,
    labels: pd.DataFrame,
    every: pd.DataFrame,
) -> bool:
    """Once every item of ``metric`` is answered, a batch-drawing session (``batch``) draws the
    metric's next ``batch`` from the adaptive design of the labels given so far and stores the
    draws (the caller holds the run's lock, and read ``labels`` and the draws, ``every``, under
    it) before the page can show them; whether it did (then the stored draws have grown). A
    preference or a pairwise criterion is drawn all at once (their designs stay fixed)."""
    if not session.batch or len(session.queue) >= session.limit:
        return False
    if metric == PREFERENCE or is_pairwise(session.criteria.get(metric)):
        return False
    done = answered_in(labels, session.annotator)
    if any((i.sample_id, i.metric) not in done for i in session.queue if i.metric == metric):
        return False
    run = session.label_run()
    size = min(session.batch, session.limit - len(session.queue))
    pool = pool_of(every, labels, session.annotator, time.time(), session.left_after)
    adapt = adapter(run, labels, every)
    found = metric_queue(session.scores, metric, pool, None, size, adapt, run.queue_table(metric))
    draws = [draw for _, behind in found for draw in behind]
    store.write_draws(draws, released_by(pool, draws))
    session.queue += [item for item, _ in found]
    return bool(found)


def preference_members(samples: Iterable[Sample]) -> dict[str, tuple[str, str, str]]:
    """A ``judgegrid pairs`` run's pairs: pair -> (first shown, second shown, aspect). Which
    member the page shows first follows a hash of the pair, not the data set's order (there the
    preferred answer always comes first, and a person would learn that)."""
    grouped: dict[str, list[Sample]] = {}
    for sample in samples:
        labels = sample.labels or {}
        if "pair" in labels and "preferred" in labels:
            grouped.setdefault(str(labels["pair"]), []).append(sample)
    members = {}
    for pair, group in grouped.items():
        if len(group) != 2:
            continue
        first, second = sorted(s.id for s in group)
        if int(text_sha(pair)[:8], 16) % 2:
            first, second = second, first
        aspect = str((group[0].labels or {}).get("aspect", ""))
        members[pair] = (first, second, aspect)
    return members


def build_preference_queue(
    scores: pd.DataFrame,
    pairs: Mapping[str, tuple[str, str, str]],
    pool: Pool,
    n: int,
) -> tuple[list[QueueItem], list[LabelDraw]]:
    """A pairs run's queue: up to ``n`` pairs drawn from the preference design
    (``analyses.preference_design``, as ``metric_queue`` draws, from one ``pool`` for
    everyone), each shown with its members in the page's order, and the new draws to store."""
    members = {pair: (a, b) for pair, (a, b, _) in pairs.items()}
    table = preference_queue(scores, members)
    design = label_design(table.set_index("pair")["priority"]) if len(table) else None
    queue = fixed_queue(design) if design is not None else None
    reasons = {str(r.pair): (str(r.reason), str(r.blind_reason)) for r in table.itertuples()}
    drawn = queue_draws(queue, PREFERENCE, pool, n)
    per_pair = [
        (
            QueueItem(
                pair,
                PREFERENCE,
                reasons[pair][0],
                members[pair],
                pairs[pair][2],
                reasons[pair][1],
                q,
            ),
            behind,
        )
        for pair, q, behind in drawn
        if pair in reasons
    ]
    return taken_in_turns([per_pair], n)
