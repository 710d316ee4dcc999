"""``judgegrid label RUN_DIR``: a local page where a person labels the samples that matter.

The server is the loopback core of ``labels.server`` (127.0.0.1 only, the token printed with
the URL, the Host header checked, a strict CSP), alone or as one page of ``judgegrid view``
(``add_label_routes``). Each answer is committed to the run database before the server replies: an
acknowledged label survives the server being killed. Two annotators may label the same run at
once, from two servers: SQLite's WAL mode and the ``labels`` table's key (sample, metric,
annotator) keep every answer.

The page (``static/``) ships in the package and loads nothing from elsewhere; it puts sample
text into the page as text nodes, never as HTML.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
from aiohttp import web

from judgegrid.analyses import (
    LabelDesign,
    QueueDesign,
    RunFacts,
    adaptive_design_of,
    fixed_queue,
    label_design,
    label_queue,
    label_state_of,
    preference_queue,
    skipped_words,
    uncompared_pairs,
)
from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import OptionError, Problem, RunLockedError
from judgegrid.core.names import given_twice, repeats
from judgegrid.core.pairwise import Order
from judgegrid.core.records import PREFERENCE, Label, LabelDraw
from judgegrid.core.sample import Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.labels.files import (
    human_labels,
    note_problem,
    people_pairs,
)
from judgegrid.labels.pairwise import (
    answer_titles,
    criterion_pairs,
    is_pairwise,
    judges_as_shown,
    pair_answer,
    pair_choices,
    shown_answer,
)
from judgegrid.labels.pool import (
    Pool,
    answered,
    answered_in,
    pool_of,
    queue_draws,
    record_draws,
    released_by,
)
from judgegrid.labels.server import (
    add_static,
    bad_request,
    bind_loopback,
    error,
    json_body,
    loopback_app,
    only,
    start,
    whole_number,
)
from judgegrid.labels.session import DEFAULT_ASK, LabelSession, QueueItem, SessionAsk
from judgegrid.metrics import METRICS, run_metric_name
from judgegrid.metrics.context_precision import average_precision
from judgegrid.metrics.criterion import field_title
from judgegrid.store.lock import RunLock, lock_run
from judgegrid.store.run_db import RunStore
from judgegrid.store.run_dir import open_run, stored_dataset, stored_sample_info

NOTE_CHARS = 4000
LABEL_WAIT_S = 2.0  # how long a label waits for the run's lock before the page is told 409
SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)
# Why the page asks about a pair no judge has scored (a pairwise criterion's run not yet scored,
# or a pair whose cells failed): said the same with or without the judges shown.
UNSCORED_PAIR = "a pair no judge has compared yet"
PAGE_FILES = {"/": "index.html", "/label.js": "label.js", "/label.css": "label.css"}


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
    pool = pool_of(every_draw, labels, person, time.time())
    if again and pairs:
        message = (
            "a pairs run's preferences are each person's own (the pairs rung scores each one "
            "as a pair): asked again they would count as new evidence; label them without it"
        )
        raise OptionError("--again", [Problem(str(target), message)])
    draws: list[LabelDraw] = []  # none asked again: each a second label of a drawn sample
    if again:
        queue = again_queue(labels, person, chosen, set(pool.done), n)
    elif pairs:  # drawn all at once: the preference design stays fixed (``next_batch``)
        queue, draws = build_preference_queue(scores, pairs, pool, n)
    else:
        asked = [criteria[m] for m in chosen if m in criteria]
        compared = criterion_pairs(samples.values(), asked)
        adapt = adapter(scores, store, criteria, info, every_draw, margin)
        queue, draws = build_queue(scores, chosen, pool, n, compared, adapt, batch)
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
        others=len(pool.others(labelled)),
        held=int(pool.held["metric"].isin(labelled).sum()),
        taken_over=len(released_by(pool, draws)),
        again=again,
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


def adapter(
    scores: pd.DataFrame,
    store: RunStore,
    criteria: Mapping[str, CriterionSpec],
    sample_info: dict[str, dict[str, Any]],
    draws: pd.DataFrame,
    margin: float | None = None,
) -> Adapt:
    """How a metric's next draws are designed from the labels and draws stored now
    (``analyses.adaptive_design_of``: focused where the rule's leader and its open rivals
    disagree once the leader beats chance; under the run's ``margin``, the rivals it is not
    yet shown at most the margin below, as the state line's rule reads it)."""
    answers = human_labels(store.labels_frame(), sample_info, criteria.values(), skips=True)
    facts = RunFacts(sample_info=sample_info, criteria=dict(criteria), margin=margin)

    def adapt(metric: str, base: LabelDesign) -> QueueDesign | None:
        return adaptive_design_of(metric, scores, answers, draws, facts, base)

    return adapt


def build_queue(
    scores: pd.DataFrame,
    metrics: list[str],
    pool: Pool,
    n: int,
    compared: Mapping[str, Sequence[str]] | None = None,
    adapt: Adapt | None = None,
    batch: int | None = None,
) -> tuple[list[QueueItem], list[LabelDraw]]:
    """Each metric's queue (``metric_queue``) from the person's ``pool``, taken in turns until
    ``n`` items (``--n``: the labels asked this session), and the new draws behind the items
    taken, to store before they are shown. A pairwise criterion's (its pairs in ``compared``)
    ends with the pairs no judge scored. ``batch``: each metric's first batch only, at most that
    many of it (its next is drawn when these are answered, ``next_batch``); a pairwise
    criterion's design stays fixed, so it is drawn all at once."""
    compared = compared or {}
    per_metric = [
        metric_queue(
            scores,
            metric,
            pool,
            compared.get(metric),
            min(n, batch) if batch and metric not in compared else n,
            adapt,
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
    design and never offered (nothing to compare a label with)."""
    if pairs is not None:
        scores = scores[scores["sample_id"].isin(set(pairs))]
    table = label_queue(scores, metric)
    reasons = {str(r.sample_id): (str(r.reason), str(r.blind_reason)) for r in table.itertuples()}
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
    unscored = uncompared_pairs(scores, metric, pairs or (), queued)
    items += [(QueueItem(p, metric, UNSCORED_PAIR), []) for p in unscored]
    return items[:n]


def next_batch(session: LabelSession, store: RunStore, metric: str) -> bool:
    """Once every item of ``metric`` is answered, a batch-drawing session (``batch``) draws the
    metric's next ``batch`` from the adaptive design of the labels given so far and stores the
    draws (the caller holds the run's lock) before the page can show them; whether it did. A
    preference or a pairwise criterion is drawn all at once (their designs stay fixed)."""
    if not session.batch or len(session.queue) >= session.limit:
        return False
    if metric == PREFERENCE or is_pairwise(session.criteria.get(metric)):
        return False
    labels = store.labels_frame()
    done = answered_in(labels, session.annotator)
    if any((i.sample_id, i.metric) not in done for i in session.queue if i.metric == metric):
        return False
    every = store.draws_frame()
    adapt = adapter(
        session.scores, store, session.criteria, session.sample_info, every, session.margin
    )
    size = min(session.batch, session.limit - len(session.queue))
    pool = pool_of(every, labels, session.annotator, time.time())
    found = metric_queue(session.scores, metric, pool, None, size, adapt)
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


# -- what the page reads and writes ------------------------------------------------------------


def sample_view(sample: Sample) -> dict[str, Any]:
    """The texts the page shows (it inserts them as text, never as HTML): the sample's own
    fields and the data set's extra columns the criteria name (``extra``)."""
    return {
        "id": sample.id,
        "user_input": sample.user_input,
        "response": sample.response,
        "retrieved_contexts": list(sample.retrieved_contexts or []),
        "reference": sample.reference,
        "extra": dict(sample.extra or {}),
    }


def pair_view(sample: Sample, spec: CriterionSpec, order: Order, member: int) -> dict[str, Any]:
    """What the page shows of a pairwise criterion's pair for one position (``member`` 0 is
    answer A): the answer as ``answer``, beside the sample's fields without its id, without the
    compared columns, whose names could say which answer is whose, and of the extra columns
    only those the criterion shows (not, say, the columns naming the system behind each)."""
    assert spec.compare is not None
    view = {k: v for k, v in sample_view(sample).items() if k not in ("id", *spec.compare)}
    view["extra"] = {k: v for k, v in view["extra"].items() if k in spec.fields}
    return view | {"answer": shown_answer(sample, spec, order, member)}


def pair_member_view(session: LabelSession, position: int, member: int) -> dict[str, Any] | None:
    """The answer shown first (``member`` 0) or second of the pair at ``position`` in the
    queue, as ``answer`` beside the fields shown with it; None if there is none. A preference
    pair's answers are two samples (their ids left out: they would say which the data set
    prefers); a pairwise criterion's, two columns of one sample in this annotator's order."""
    item = session.queue[position] if position < len(session.queue) else None
    if item is None or member > 1:
        return None
    spec = session.criteria.get(item.metric)
    if is_pairwise(spec) and item.sample_id in session.samples:
        order = session.order(item.sample_id)
        return pair_view(session.samples[item.sample_id], spec, order, member)
    if item.members is None:
        return None
    view = sample_view(session.samples[item.members[member]])
    return {k: v for k, v in view.items() if k != "id"} | {"answer": view["response"]}


def metric_view(
    metric: str, aspect: str = "", criterion: CriterionSpec | None = None
) -> dict[str, Any]:
    """What the page says of a metric and how it is answered: the metric's question on its
    0–1 scale (or ticks of contexts), a preference, or a criterion's own answers."""
    if criterion is not None:
        return criterion_view(criterion)
    if metric == PREFERENCE:
        quality = aspect.replace("_", " ") or "quality"
        return {
            "name": PREFERENCE,
            "title": f"Which answer is better? ({quality})",
            "question": f"Which answer is better on {quality}? Judge only {quality}.",
            "form": PREFERENCE,
            "scale": [],
            "higher_is_better": True,
        }
    cls = METRICS[metric]
    return {
        "name": metric,
        "title": cls.title,
        "question": cls.human_question,
        "form": cls.human_form,
        "scale": list(SCALE),
        "higher_is_better": cls.higher_is_better,
    }


def criterion_view(spec: CriterionSpec) -> dict[str, Any]:
    """A criterion's form: its definition as the question, its steps, the fields its judge sees
    (the page shows only those), and one choice per answer it allows (yes or no; each label;
    each level of the scale with its description). Each choice's ``value`` is what the label
    stores: the answer's score; a pairwise criterion's is a position or a level as shown (the
    server reads it in the pair's own terms), and its two answers are headed ``answers``."""
    view = {
        "name": spec.name,
        "title": spec.name.replace("_", " ").capitalize(),
        "question": spec.definition,
        "steps": list(spec.steps),
        "fields": list(spec.fields),  # the page shows only these: what the judge sees
        "titles": {name: field_title(name) for name in spec.fields},
        "form": "choices",
        "kind": spec.type,
        "choices": pair_choices(spec) if is_pairwise(spec) else criterion_choices(spec),
        "scale": [],
        "higher_is_better": spec.higher_is_better,
    }
    if is_pairwise(spec):
        view["answers"] = answer_titles()
    return view


def criterion_choices(spec: CriterionSpec) -> list[dict[str, Any]]:
    """The answers of a criterion as the page offers them: yes before no; labels best first;
    a scale's levels lowest first, so that on a 1..5 scale key 3 is level 3."""
    if spec.type == "binary":
        answers = [(1.0, "yes", "it meets the criterion"), (0.0, "no", "it does not")]
    elif spec.type == "labels":
        assert spec.labels is not None
        answers = [(float(score), name, "") for name, score in spec.labels.items()]
    else:
        assert spec.scale is not None
        answers = [(float(level), str(level), spec.scale[level]) for level in spec.levels]
    if spec.type == "labels":
        answers.sort(key=lambda answer: answer[0], reverse=spec.higher_is_better)
    return [{"value": v, "text": text, "description": about} for v, text, about in answers]


def state_line(session: LabelSession, store: RunStore, metric: str) -> str:
    """Where labelling ``metric`` stands (``analyses.label_state_of``): labels, verdict, about
    how many more. Blind (no judge named, no score) unless the judges are shown or the person
    has answered the whole queue (stopped labelling). A pairs run's preference: one line per
    metric the judges scored (the pairs rung rates them per metric)."""
    if session.scores.empty:
        return ""
    stored = store.labels_frame()
    answers = human_labels(stored, session.sample_info, session.criteria.values(), skips=True)
    facts = RunFacts(
        sample_info=session.sample_info, criteria=session.criteria, margin=session.margin
    )
    draws = store.draws_frame()
    named = session.show_judges or queue_ended(session, store)
    if metric == PREFERENCE:  # the pairs rung scores a preference on each metric of the run
        people = people_pairs(stored)
        lines = []
        for scored in sorted(session.scores["metric"].unique()):
            found = label_state_of(scored, session.scores, answers, draws, facts, people)
            if found is not None:
                lines.append(f"{scored}: {found.words(named)}")
        return "; ".join(lines) or _given_words(answers, metric)
    found = label_state_of(metric, session.scores, answers, draws, facts)
    if found is None:
        return _given_words(answers, metric)
    return replace(found, uncompared=uncompared_left(session, store, metric)).words(named)


def uncompared_left(session: LabelSession, store: RunStore, metric: str) -> int:
    """The pairs of a pairwise criterion this person has still to label that no judge compared:
    the queue's items of ``metric`` not drawn (``metric_queue``: no probability) nor chosen on
    the view page. Outside the design, they are not among the labels the line says are left."""
    if session.again or not is_pairwise(session.criteria.get(metric)):
        return 0  # asked again: every item is a pair someone labelled
    done = answered(store, session.annotator)
    return sum(
        1
        for item in session.queue
        if item.metric == metric
        and item.probability is None
        and not item.chosen
        and (item.sample_id, metric) not in done
    )


def _given_words(answers: pd.DataFrame, metric: str) -> str:
    """The state line where the rule can read no label of ``metric`` yet: what was given, the
    skips counted as on every other line (``0 labels · no verdict yet · 1 skipped (left
    out)``), a metric's or a pairs run's preference alike."""
    mine = answers[answers["metric"] == metric]
    labels = mine.loc[mine["value"].notna(), "sample_id"].nunique()
    words = f"{labels} label{'s' if labels != 1 else ''} · no verdict yet"
    return words + skipped_words(int(mine["value"].isna().sum()))


def queue_ended(session: LabelSession, store: RunStore) -> bool:
    """Whether the person has answered (or skipped) every item of the queue."""
    done = answered(store, session.annotator)
    return all((item.sample_id, item.metric) in done for item in session.queue)


def items_view(session: LabelSession, store: RunStore) -> list[dict[str, Any]]:
    """The queue as the page reads it: each item, why it is asked (blind unless the judges are
    shown) and whether it is answered."""
    done = answered(store, session.annotator)
    return [
        {
            "sample_id": item.sample_id,
            "metric": item.metric,
            "reason": session.why(item),
            "done": (item.sample_id, item.metric) in done,
            # its answers: /api/pair/{position}/{0,1}, in the order shown to this annotator
            "pair": item.members is not None or is_pairwise(session.criteria.get(item.metric)),
        }
        for item in session.queue
    ]


def state(session: LabelSession, store: RunStore) -> dict[str, Any]:
    return {
        "annotator": session.annotator,
        "run": session.run_dir.name,
        # the command the page ends with must work from any folder: the run's full path
        "path": str(session.run_dir.resolve()),
        "blind": not session.show_judges,
        "items": items_view(session, store),
        "metrics": {
            item.metric: metric_view(item.metric, item.aspect, session.criteria.get(item.metric))
            for item in session.queue
        },
        "states": {
            metric: state_line(session, store, metric)
            for metric in dict.fromkeys(item.metric for item in session.queue)
        },
    }


def label_from_request(session: LabelSession, body: Any) -> Label:
    """A Label from a POSTed answer, with the probability its queue drew it with (or whether
    the person chose it on the view page), or web.HTTPBadRequest naming what is wrong."""
    label = _answer(session, body)
    item = next(
        (i for i in session.queue if (i.sample_id, i.metric) == (label.sample_id, label.metric)),
        None,
    )
    if item is None:
        return label
    return replace(label, probability=item.probability, chosen=item.chosen)


def _answer(session: LabelSession, body: Any) -> Label:
    if not isinstance(body, dict):
        raise _bad("expected a JSON object")
    sample_id, metric = body.get("sample_id"), body.get("metric")
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > NOTE_CHARS:
        raise _bad(f"note: expected text of at most {NOTE_CHARS} characters")
    if reason := note_problem(note):
        raise _bad(f"note: {reason}")
    if metric == PREFERENCE:
        item = next((i for i in session.queue if i.sample_id == sample_id), None)
        if item is None or item.members is None:
            raise _bad(f"unknown pair {sample_id!r}")
        value, detail = _preference(item, body)
        return Label(item.sample_id, PREFERENCE, session.annotator, value, note, time.time(),
                     "page", detail, not session.show_judges)  # fmt: skip
    if not isinstance(sample_id, str) or sample_id not in session.samples:
        raise _bad(f"unknown sample {sample_id!r}")
    if not isinstance(metric, str) or (metric not in METRICS and metric not in session.criteria):
        raise _bad(f"unknown metric {metric!r}")
    if not any(i.sample_id == sample_id and i.metric == metric for i in session.queue):
        raise _bad(f"sample {sample_id!r} is not in this page's queue for {metric}")
    blind = not session.show_judges
    if metric in session.criteria:
        answer, about = _criterion_value(session, session.criteria[metric], sample_id, body)
        return Label(
            sample_id, metric, session.annotator, answer, note, time.time(), "page", about, blind
        )
    value, detail = _value(session.samples[sample_id], metric, body)
    return Label(
        sample_id, metric, session.annotator, value, note, time.time(), "page", detail, blind
    )


def _preference(item: QueueItem, body: dict[str, Any]) -> tuple[float | None, dict[str, Any]]:
    """A preference: value 1 with the preferred and the other member named (None: skipped)."""
    assert item.members is not None
    detail: dict[str, Any] = {"pair": item.sample_id, "aspect": item.aspect}
    if body.get("skip") is True:
        return None, detail
    choice = body.get("choice")
    if choice not in (0, 1) or isinstance(choice, bool):
        raise _bad(f"choice: expected 0 (answer 1) or 1 (answer 2), got {choice!r}")
    preferred, other = item.members if choice == 0 else item.members[::-1]
    return 1.0, detail | {"preferred": preferred, "other": other}


def _value(sample: Sample, metric: str, body: dict[str, Any]) -> tuple[float | None, Any]:
    if body.get("skip") is True:
        return None, None
    if METRICS[metric].human_form == "contexts":
        useful = body.get("useful")
        count = len(sample.retrieved_contexts or [])
        if (
            not isinstance(useful, list)
            or len(useful) != count
            or any(v not in (0, 1) or isinstance(v, float) for v in useful)
        ):
            raise _bad(f"useful: expected {count} ticks (0 or 1), one per context in rank order")
        return average_precision(useful), {"useful": useful}
    value = body.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise _bad(f"value: expected a number from 0 to 1, got {value!r}")
    return float(value), None


def _criterion_value(
    session: LabelSession, spec: CriterionSpec, sample_id: str, body: dict[str, Any]
) -> tuple[float | None, dict[str, Any] | None]:
    """A criterion's answer: one of its choices' values (None: skipped), and for a pairwise
    criterion the answer in the pair's own terms with its detail (``labels.pairwise``)."""
    if body.get("skip") is True:
        return None, None
    if is_pairwise(spec):
        try:
            return pair_answer(spec, session.order(sample_id), body.get("value"))
        except ValueError as exc:
            raise _bad(str(exc)) from None
    return _criterion_score(spec, body), None


def _criterion_score(spec: CriterionSpec, body: dict[str, Any]) -> float:
    value = body.get("value")
    allowed = [c["value"] for c in criterion_choices(spec)]
    if not isinstance(value, int | float) or isinstance(value, bool) or value not in allowed:
        raise _bad(f"value: expected one of {', '.join(f'{v:g}' for v in allowed)}, got {value!r}")
    return criterion_label(spec, value)


_bad = bad_request


# -- the server --------------------------------------------------------------------------------


def make_app(session: LabelSession, store: RunStore) -> web.Application:
    """The page and its API alone, on the shared loopback core (``labels.server``)."""
    app = loopback_app(session.token)
    add_label_routes(app, session, store)
    return app


def add_label_routes(
    app: web.Application, session: LabelSession, store: RunStore, at: str = "/"
) -> None:
    """The labelling page (its index at ``at``) and its API, added to a loopback app: its own,
    or ``judgegrid view``'s, where it is one page of several. The session's new draws are
    stored first, before the page can show any."""
    record_draws(store, session.unrecorded, time.time())
    session.unrecorded = []

    async def get_state(request: web.Request) -> web.StreamResponse:
        only(request, set())
        return web.json_response(state(session, store))

    async def get_sample(request: web.Request) -> web.StreamResponse:
        only(request, set())
        sample = session.samples.get(request.match_info["sample_id"])
        if sample is None:
            return _error(404, f"unknown sample {request.match_info['sample_id']!r}")
        return web.json_response(sample_view(sample))

    async def get_pair_member(request: web.Request) -> web.StreamResponse:
        """One answer of a pair, by position: no sample id, which would say which the data set
        prefers."""
        only(request, set())
        position = whole_number(request.match_info["position"], "position", low=0)
        member = whole_number(request.match_info["member"], "member", low=0)
        view = pair_member_view(session, position, member)
        if view is None:
            return _error(404, "no such pair answer")
        return web.json_response(view)

    async def post_label(request: web.Request) -> web.StreamResponse:
        only(request, set())
        body = await json_body(request, "the label")
        label = label_from_request(session, body)
        try:  # one writer at a time: a `report` or `labels import` may hold the run
            lock = await _run_lock(session.database.parent)
        except RunLockedError as exc:
            return _error(409, f"{exc.problems[0].message}; your label was not saved, try again")
        with lock:
            store.write_labels([label])  # committed before the reply
            grown = next_batch(session, store, label.metric)  # stored before it is shown
        line = state_line(session, store, label.metric)
        reply: dict[str, Any] = {"saved": True, "value": label.value, "state": line}
        if is_pairwise(session.criteria.get(label.metric)) and label.value is not None:
            # the page's own terms: the pair's would tell which answer is compare[0]
            reply["value"] = body["value"]
        if grown:  # the metric's next batch, drawn from the labels so far
            reply["items"] = items_view(session, store)
        return web.json_response(reply)

    files = {path: name for path, name in PAGE_FILES.items() if path != "/"}
    add_static(app, "judgegrid.labels", {**files, at: PAGE_FILES["/"]})
    app.router.add_get("/api/state", get_state)
    app.router.add_get("/api/sample/{sample_id}", get_sample)
    app.router.add_get("/api/pair/{position}/{member}", get_pair_member)
    app.router.add_post("/api/label", post_label)


async def _run_lock(run_dir: Path) -> RunLock:
    """The run's lock for one label's write, waiting a little for it (``LABEL_WAIT_S``): another
    annotator's label is written in milliseconds, a report or an import takes longer (409)."""
    deadline = time.monotonic() + LABEL_WAIT_S
    while True:
        try:
            return lock_run(run_dir)
        except RunLockedError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.05)


async def _close(store: RunStore) -> None:
    store.close()


_error = error


async def serve(session: LabelSession, port: int = 0) -> tuple[web.AppRunner, int]:
    """Start the server on 127.0.0.1 (``port`` 0: a free one); returns it and its port. The run
    database is opened here, in the thread that serves, and closed with the runner."""
    sock = bind_loopback(port)  # a port in use refused before the database is opened to write
    store = RunStore(session.database)
    app = make_app(session, store)
    app.on_cleanup.append(lambda app: _close(store))
    return await start(app, sock)
