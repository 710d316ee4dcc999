"""The metric registry. Each metric lives in its own module: prompts, schemas, pure scoring.

Metrics do no I/O: they ask through the ``ScoreContext`` they are given. May import: ``core``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from judgegrid.core.context import ScoreContext
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.names import known_list, unknown_name
from judgegrid.metrics.answer_relevancy import AnswerRelevancy
from judgegrid.metrics.base import Metric, MetricResult
from judgegrid.metrics.context_entity_recall import ContextEntityRecall
from judgegrid.metrics.context_precision import ContextPrecision
from judgegrid.metrics.context_recall import ContextRecall
from judgegrid.metrics.faithfulness import Faithfulness
from judgegrid.metrics.noise_sensitivity import NoiseSensitivity
from judgegrid.metrics.response_relevancy import ResponseRelevancy

METRICS: dict[str, type[Metric]] = {
    m.name: m
    for m in (
        ResponseRelevancy,
        Faithfulness,
        ContextPrecision,
        ContextRecall,
        ContextEntityRecall,
        NoiseSensitivity,
        AnswerRelevancy,
    )
}


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_BY_SQUASHED = {_squash(key): key for key in METRICS} | {
    _squash(m.title): key for key, m in METRICS.items()
}


def builtin_metric_named(name: str) -> str | None:
    """The built-in metric a name stands for in any of its spellings (``faithfulness``,
    ``Faithfulness``, ``response-relevancy``, its title), or None: a criterion may not take it."""
    return _BY_SQUASHED.get(_squash(name))


def run_metric_name(name: str, run_names: Sequence[str]) -> str:
    """``name`` as a run's cells carry it: a criterion by its own name, a built-in metric by any
    of its spellings. ValueError naming the run's own metrics and criteria (not the built-in
    list: a run scores its own) for any other name."""
    if name in run_names:
        return name
    builtin = builtin_metric_named(name)
    if builtin in run_names:
        return str(builtin)
    if builtin is not None:
        raise ValueError(
            f"{builtin} is not in this run (a built-in metric it did not score); it has "
            f"{known_list(run_names)}"
        )
    raise ValueError(unknown_name("metric or criterion", name, run_names, "in this run"))


def resolve_metric_name(name: str) -> str:
    """'ResponseRelevancy', 'response-relevancy' and 'response_relevancy' name one metric."""
    try:
        return _BY_SQUASHED[_squash(name)]
    except KeyError:
        message = unknown_name("metric", name, list(METRICS))
        raise OptionError("metric", [Problem("", message)]) from None


__all__ = [
    "METRICS",
    "AnswerRelevancy",
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextRecall",
    "Faithfulness",
    "Metric",
    "MetricResult",
    "NoiseSensitivity",
    "ResponseRelevancy",
    "ScoreContext",
    "builtin_metric_named",
    "resolve_metric_name",
    "run_metric_name",
]
