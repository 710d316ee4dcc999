"""The HTML card's reason: the verdict once, whether or not the reason starts with it."""

from __future__ import annotations

from importlib.resources import files

import pandas as pd

from judgegrid.outputs.card_short import BASIS_WORDS
from judgegrid.outputs.html_report import LADDER_NOTE, decision_block


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


def test_the_notes_under_the_card_name_every_basis_a_card_can_rest_on():
    """report.html's note and the view's Decision page list the ladder a chip's basis comes
    from; a basis missing there (``designed contrasts`` was) leaves a reader without its rank."""
    view_note = files("judgegrid.view").joinpath("static/view.js").read_text()
    view_note = view_note[view_note.index("Basis, strongest first") :][:400]
    for note in (LADDER_NOTE, view_note):
        missing = [basis for basis in BASIS_WORDS if basis not in note]
        assert not missing, (missing, note)
    order = [LADDER_NOTE.index(basis) for basis in BASIS_WORDS]
    assert order == sorted(order)  # strongest first, as the card's ladder ranks them
