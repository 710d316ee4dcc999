"""A probe's page in the view: what the probe changed from its base, and the base's scores beside
the probe's.

A probe (``inputs/probes.py``) is a copy of a user's sample, or for ``injection`` of another
probe, changed by a fixed rule, with the way its score must move. The run keeps the user's
samples only; the view makes the probes again from them and the matrix (they are deterministic,
as a resumed run relies on), so a probe's texts are here to compare with its base's field by
field.
"""

from __future__ import annotations

from typing import Any

from judgegrid.core.sample import ProbeTag, Sample
from judgegrid.inputs.probes import PROBES
from judgegrid.metrics import METRICS
from judgegrid.metrics.criterion import field_title
from judgegrid.view.queries import RunView, column_entries, json_number, probe_mark

OWN_FIELDS = ("user_input", "response", "retrieved_contexts", "reference")
Text = str | list[str] | None


def probe_detail(run: RunView, probe: Sample, metric: str) -> dict[str, Any] | None:
    """What a probe's page shows above its own cells (None for a user's sample): the probe, why
    its direction is known and what that direction is, its base with the base's question, each
    field it changed, and per configuration of ``metric`` the base's mean beside its own."""
    mark = probe_mark(probe)
    if mark is None or probe.probe is None:
        return None
    tag = probe.probe
    base = run.samples.get(tag.base)
    return mark | {
        "why": PROBES[tag.name].why,
        "expected": expected_move(tag, higher_is_better(run, tag.metric)),
        "metric": tag.metric,
        "base_question": base.user_input if base is not None else None,
        "language": tag.language,
        "fallback": tag.fallback,
        "changes": changes(base, probe) if base is not None else [],
        "scores": scores_beside(run, metric, tag.base, probe.id),
    }


def higher_is_better(run: RunView, metric: str) -> bool:
    """Which way ``metric`` is better: a criterion's own setting, else its metric class's."""
    spec = run.criteria.get(metric)
    return spec.higher_is_better if spec is not None else bool(METRICS[metric].higher_is_better)


def expected_move(tag: ProbeTag, higher_better: bool) -> str:
    """How the probe's score must move from its base's, in words that follow 'This probe'."""
    if tag.direction == "fails":
        return "must be judged a fail"
    down, up = ("lower", "higher") if higher_better else ("higher", "lower")
    if tag.direction == "worse":
        return f"must score {down} than its base"
    return f"must not score {up} than its base"


def changes(base: Sample, probe: Sample) -> list[dict[str, Any]]:
    """Each field the probe holds otherwise than its base (the sample's own fields, then the
    data set's columns a criterion reads), with both texts and, where the probe only added to
    the base's text, what it added."""
    before, after = field_texts(base), field_texts(probe)
    names = [*OWN_FIELDS, *sorted((set(before) | set(after)) - set(OWN_FIELDS))]
    return [
        {
            "field": name,
            "title": field_title(name),
            "base": before.get(name),
            "probe": after.get(name),
            "added": added_text(before.get(name), after.get(name)),
        }
        for name in names
        if before.get(name) != after.get(name)
    ]


def field_texts(sample: Sample) -> dict[str, Text]:
    """A sample's texts by field name: its own fields and its extra columns."""
    own: dict[str, Text] = {name: getattr(sample, name) for name in OWN_FIELDS}
    return own | dict(sample.extra or {})


def added_text(before: Text, after: Text) -> str | None:
    """What ``after`` adds at the end of ``before`` (a note, filler, a sentence), or None when
    the probe replaced or reordered the text rather than adding to it."""
    if not isinstance(before, str) or not isinstance(after, str) or not before:
        return None
    if not after.startswith(before) or after == before:
        return None
    return after[len(before) :].strip()


def scores_beside(run: RunView, metric: str, base: str, probe: str) -> list[dict[str, Any]]:
    """Per configuration of ``metric`` (the grid's order and names): the mean of the base's
    scored repeats, the probe's, and the change from one to the other (None where either has no
    scored repeat)."""
    cells = run.cells(metric)
    means = {
        (str(sample_id), str(config)): json_number(mean)
        for sample_id, config, mean in zip(
            cells["sample_id"], cells["config"], cells["mean"], strict=True
        )
        if sample_id in (base, probe)
    }
    rows = []
    for column in column_entries(run.configs(metric), run.wordings(metric) > 1):
        before, after = means.get((base, column["key"])), means.get((probe, column["key"]))
        change = None if before is None or after is None else round(after - before, 4)
        rows.append(
            {
                "config": column["key"],
                "label": column["label"],
                "base": before,
                "probe": after,
                "change": change,
            }
        )
    return rows
