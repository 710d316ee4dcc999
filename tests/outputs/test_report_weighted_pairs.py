"""summary.md and report.html say when people's preferences' accuracy is weighted, and by what
(the card's words), and say nothing of weights where every preference weighs 1."""

from __future__ import annotations

import numpy as np

from judgegrid.analyses.bundle import RunFacts, analyse
from judgegrid.outputs import html_report
from judgegrid.outputs.report import analysis_markdown
from support.preference_queue import DISPUTED, SCORES, N, queue

WORDS = f"labels weighted by the queue's draw probabilities over {N} pairs"


def _summary(q: np.ndarray, drawn: np.ndarray) -> str:
    return "\n".join(analysis_markdown(analyse(SCORES, RunFacts(), queue(drawn, q))))


def test_the_summary_says_the_preferences_accuracy_is_weighted_and_by_what():
    q = np.where(np.arange(N) < DISPUTED, 4.0, 1.0)
    q /= q.sum()
    text = _summary(q, np.random.default_rng(2).choice(N, 150, p=q))
    note = f"{html_report.PREFERENCES_WEIGHTED}: weighted as the card weighs them, {WORDS}"
    assert text.count(note) == 2  # under the ranking and under the pairs' table


def test_the_summary_says_nothing_of_weights_where_every_preference_weighs_1():
    text = _summary(np.full(N, 1 / N), np.arange(40))
    assert html_report.PREFERENCES_WEIGHTED not in text
    assert "weighted" not in text


def test_the_report_does_not_say_no_labels_yet_beside_peoples_preferences():
    """A pairs run's people answer preferences, not labels on the metric's scale: the report's
    "against people" part points to the preference pairs instead of asking for labels."""
    q = np.full(N, 1 / N)
    analysis = analyse(SCORES, RunFacts(), queue(np.arange(40), q))
    page = html_report.render(
        analysis,
        title="t",
        overview=[],
        summary_sections={},
        sample_info={},
        metric_titles={},
    )
    assert "No labels yet" not in page
    assert "preferences are scored under the preference pairs below" in page
    bare = analyse(SCORES, RunFacts())
    assert "No labels yet" in html_report.render(
        bare, title="t", overview=[], summary_sections={}, sample_info={}, metric_titles={}
    )
