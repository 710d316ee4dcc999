"""What the labelling page shows, as the JSON its script reads: a sample, one answer of a pair, a
metric's or a criterion's form, the queue and each metric's state line.

Apart from the routes, so that what the page says (blind unless the judges are shown) is read
and tested without a server.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from judgegrid.analyses import skipped_words
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.pairwise import Order
from judgegrid.core.records import PREFERENCE
from judgegrid.core.sample import Sample
from judgegrid.labels.files import human_labels, people_pairs
from judgegrid.labels.pairwise import answer_titles, is_pairwise, pair_choices, shown_answer
from judgegrid.labels.pool import answered_in
from judgegrid.labels.session import LabelSession
from judgegrid.metrics import METRICS
from judgegrid.metrics.criterion import field_title
from judgegrid.store.run_db import RunStore

SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)


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
        "anchors": list(cls.human_anchors),
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


def state_line(
    session: LabelSession, metric: str, stored: pd.DataFrame, draws: pd.DataFrame
) -> str:
    """Where labelling ``metric`` stands (``analyses.LabelRun.state``): labels, verdict, about
    how many more, from the labels and draws ``stored`` now (as the request read them, once).
    Blind (no judge named, no score) unless the judges are shown or the person has answered
    the whole queue (stopped labelling). A pairs run's preference: one line per metric the
    judges scored (the pairs rung rates them per metric)."""
    if session.scores.empty:
        return ""
    answers = human_labels(stored, session.sample_info, session.criteria.values(), skips=True)
    run = session.label_run()
    done = answered_in(stored, session.annotator)
    named = session.show_judges or queue_ended(session, done)
    if metric == PREFERENCE:  # the pairs rung scores a preference on each metric of the run
        people = people_pairs(stored)
        lines = []
        for scored in sorted(session.scores["metric"].unique()):
            found = run.state(scored, answers, draws, people)
            if found is not None:
                lines.append(f"{scored}: {found.words(named)}")
        return "; ".join(lines) or _given_words(answers, metric)
    found = run.state(metric, answers, draws)
    if found is None:
        return _given_words(answers, metric)
    return replace(found, uncompared=uncompared_left(session, metric, done)).words(named)


def uncompared_left(session: LabelSession, metric: str, done: set[tuple[str, str]]) -> int:
    """The pairs of a pairwise criterion this person has still to label that no judge compared:
    the queue's items of ``metric`` not drawn (``metric_queue``: no probability) nor chosen on
    the view page, nor ``done`` (answered or skipped). Outside the design, they are not among
    the labels the line says are left."""
    if session.again or not is_pairwise(session.criteria.get(metric)):
        return 0  # asked again: every item is a pair someone labelled
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


def queue_ended(session: LabelSession, done: set[tuple[str, str]]) -> bool:
    """Whether the person has answered (or skipped) every item of the queue (``done``)."""
    return all((item.sample_id, item.metric) in done for item in session.queue)


def items_view(session: LabelSession, stored: pd.DataFrame) -> list[dict[str, Any]]:
    """The queue as the page reads it: each item, why it is asked (blind unless the judges are
    shown) and whether it is answered (among the labels ``stored`` now)."""
    done = answered_in(stored, session.annotator)
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
    """The page's whole state: its queue, each metric's form and state line, from the labels
    and draws as read once here."""
    stored, draws = store.labels_frame(), store.draws_frame()
    return {
        "annotator": session.annotator,
        "run": session.run_dir.name,
        # the command the page ends with must work from any folder: the run's full path
        "path": str(session.run_dir.resolve()),
        "blind": not session.show_judges,
        "items": items_view(session, stored),
        "metrics": {
            item.metric: metric_view(item.metric, item.aspect, session.criteria.get(item.metric))
            for item in session.queue
        },
        "states": {
            metric: state_line(session, metric, stored, draws)
            for metric in dict.fromkeys(item.metric for item in session.queue)
        },
    }
