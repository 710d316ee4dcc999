"""The HTML card's reason: the verdict once, whether or not the reason starts with it."""

from __future__ import annotations

import pandas as pd

from judgegrid.outputs.html_report import decision_block


def _record(verdict: str, reason: str) -> dict[str, object]:
    return {
        "metric": "faithfulness",
        "verdict": verdict,
        "basis": "people",
        "reason": reason,
        "next_step": "none needed",
        "detail": "",
        "judge": "judge-4",
        "measure": "accuracy",
        "value": 0.56,
        "low": 0.55,
        "high": 0.57,
        "n": 100,
        "unit": "labels",
        "chance": 0.5,
        "flags": "",
    }


def test_a_named_judges_reason_names_it_once():
    html = decision_block(
        _record("judge-4", "judge-4: accuracy 0.56 on 100 labels"), pd.DataFrame()
    )
    assert "judge-4: accuracy 0.56" in html and "judge-4: judge-4" not in html


def test_no_verdicts_reason_keeps_the_verdict_before_it():
    html = decision_block(_record("no verdict", "the best, a, has rho 0.1"), pd.DataFrame())
    assert "no verdict: the best, a, has rho 0.1" in html
