"""The metric registry. Each metric lives in its own module: prompts, schemas, pure scoring.

Metrics do no I/O: they ask through the ``ScoreContext`` they are given. May import: ``core``.
"""

from __future__ import annotations

import difflib
import re

from judgegrid.core.context import ScoreContext
from judgegrid.core.errors import OptionError, Problem
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


def resolve_metric_name(name: str) -> str:
    """'ResponseRelevancy', 'response-relevancy' and 'response_relevancy' name one metric."""
    try:
        return _BY_SQUASHED[_squash(name)]
    except KeyError:
        guess = difflib.get_close_matches(name, list(METRICS), n=1)
        hint = f"did you mean '{guess[0]}'? " if guess else ""
        message = f"unknown metric '{name}'; {hint}known: {', '.join(METRICS)}"
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
]
