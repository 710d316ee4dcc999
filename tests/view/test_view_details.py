"""The side-by-side view's lining up of two judges' statements (judgegrid.view.details.compare),
on the shapes real small judges give: the same statement said twice with other verdicts."""

from __future__ import annotations

from judgegrid.view.details import compare


def item(text: str, verdict: int) -> dict:
    return {"text": text, "verdict": verdict, "reason": "", "note": ""}


def test_a_statement_said_three_times_is_three_rows_each_with_its_verdict():
    left = [item("The canal opened in 1914.", 1)]
    right = [item("The canal opened in 1914", 1), item("the canal  opened in 1914.", 0)]
    right.append(item("It is 82 km long.", 1))
    right.append(item("The canal opened in 1914.", 1))
    rows = compare(left, right)
    assert [(r["only"], r["differs"]) for r in rows] == [
        ("", False),  # the first of right's three lines up with left's one
        ("b", False),
        ("b", False),
        ("b", False),
    ]
    assert [r["b"]["verdict"] for r in rows] == [1, 0, 1, 1]  # right's order, none dropped
    assert [r["text"] for r in rows[1:]] == [
        "the canal  opened in 1914.",
        "It is 82 km long.",
        "The canal opened in 1914.",
    ]


def test_occurrences_line_up_in_order_and_a_changed_verdict_is_marked():
    left = [item("A.", 1), item("A.", 1), item("B.", 0)]
    right = [item("A.", 1), item("A.", 0)]
    rows = compare(left, right)
    assert [(r["only"], r["differs"]) for r in rows] == [("", False), ("", True), ("a", False)]
