"""A table of report.html as written: a configuration in one column, the sentences that would
stand on every row said once under the table (numbered where the rows differ), a column's name
free to wrap at its underscores, numbers right-aligned, every string escaped."""

from __future__ import annotations

import math

import pandas as pd

from judgegrid.outputs.html_report import frame_html
from support.html_tables import html_tables

CONSENSUS = "consensus: available-case (samples this judge and another scored)"
VALIDITY = "validity: every pair, one a member of which the judge did not score counted as wrong"


def _ranking() -> pd.DataFrame:
    """Rows as judge_ranking.csv has them: two bases, each with its missing-data sentence."""
    return pd.DataFrame(
        {
            "metric": ["faithfulness", "faithfulness", "response_relevancy"],
            "judge": ["gemma-270m", "jury(smollm2-135m + gemma-270m)", "gemma-270m"],
            "quality": [0.5, 0.25, math.nan],
            "latency_per_score_s": [1.5, 2.0, 0.5],
            "missing": [CONSENSUS, CONSENSUS, VALIDITY],
        }
    )


def _shown(html: str) -> list[list[str]]:
    (table,) = html_tables(html)
    return table.rows


def test_a_sentence_that_differs_between_rows_is_numbered_under_the_table():
    html = frame_html(_ranking(), "judge_ranking")
    rows = _shown(html)
    assert rows[0][-1] == "missing" and [r[-1] for r in rows[1:]] == ["[1]", "[1]", "[2]"]
    assert f"[1] missing data: {CONSENSUS}" in html and f"[2] missing data: {VALIDITY}" in html
    assert html.count(CONSENSUS) == 1  # said once, not on every row


def test_a_sentence_every_row_says_is_said_once_and_its_column_goes():
    html = frame_html(_ranking().assign(missing=CONSENSUS))
    assert "missing" not in _shown(html)[0]
    assert f"missing data: {CONSENSUS}" in html and html.count(CONSENSUS) == 1


def test_a_note_on_some_rows_is_numbered_and_the_others_stay_blank():
    frame = _ranking().drop(columns="missing").assign(note=["", "fewer than two samples", None])
    rows = _shown(frame_html(frame))
    assert [r[-1] for r in rows[1:]] == ["", "[1]", ""]


def test_judge_embedding_dimension_and_strictness_are_one_configuration():
    frame = pd.DataFrame(
        {
            "metric": ["response_relevancy", "faithfulness"],
            "judge": ["gemma-270m", "smollm2-135m"],
            "embedding": ["e5-small", ""],
            "dimension": [384, 0],
            "strictness": [2, 0],
            "mean": [0.5, 0.75],
        }
    )
    rows = _shown(frame_html(frame))
    assert rows[0] == ["metric", "configuration", "mean"]
    assert [r[1] for r in rows[1:]] == ["gemma-270m / e5-small @ 384 (s=2)", "smollm2-135m"]
    without_judge = _shown(frame_html(frame.drop(columns="judge")))
    assert [r[1] for r in without_judge[1:]] == ["e5-small @ 384 (s=2)", "(judge only)"]


def test_names_wrap_at_underscores_numbers_stay_whole_and_text_is_escaped():
    hostile = _ranking().assign(judge=["<b>x</b>", "a", "b"])
    html = frame_html(hostile)
    assert "latency_<wbr>per_<wbr>score_<wbr>s" in html
    assert '<td class="n">1.500</td>' in html and '<td class="n">–</td>' in html
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
