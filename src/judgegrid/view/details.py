"""A score's intermediate answers as rows a person can read and compare, per metric.

``scores.details`` holds what each metric kept (statements and verdicts, generated questions,
context verdicts, entities). ``items`` turns one cell's details into rows of (text, verdict,
reason); ``criterion_items`` does so for a criterion of the user's own (its answer, a binary
criterion's votes, the probabilities of a weighted answer); ``compare`` lines up two
configurations' rows by their text and marks what differs: a statement one judge found and the
other did not, or the same statement given another verdict (or another answer).
Pure functions: the app reads the details, these only reshape them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Item = dict[str, Any]  # {"text", "verdict" (1/0/None), "reason", "note"}; a criterion's: "answer"


def _item(text: Any, verdict: Any = None, reason: Any = "", note: str = "") -> Item:
    flag = None if verdict is None else int(bool(verdict))
    return {"text": str(text), "verdict": flag, "reason": str(reason or ""), "note": note}


def _verdict_rows(details: dict[str, Any]) -> list[Item]:
    """Faithfulness and AnswerRelevancy: the statements, each with its verdict and reason."""
    verdicts = details.get("verdicts") or []
    statements = details.get("statements") or []
    if verdicts and all("statement" in v for v in verdicts):
        return [_item(v["statement"], v.get("verdict"), v.get("reason")) for v in verdicts]
    rows = []
    for k, statement in enumerate(statements):
        verdict = verdicts[k] if k < len(verdicts) else {}
        rows.append(_item(statement, verdict.get("verdict"), verdict.get("reason")))
    return rows


def _questions(details: dict[str, Any]) -> list[Item]:
    """ResponseRelevancy: the generated questions; verdict 1 = committal (0: noncommittal)."""
    flags = details.get("noncommittal") or []
    return [
        _item(q, None if k >= len(flags) else not flags[k], "noncommittal" if k < len(flags)
              and flags[k] else "")
        for k, q in enumerate(details.get("questions") or [])
    ]  # fmt: skip


def _contexts(details: dict[str, Any]) -> list[Item]:
    """ContextPrecision: each retrieved context (by rank) judged useful or not."""
    reasons = details.get("reasons") or []
    return [
        _item(f"context {k + 1}", v, reasons[k] if k < len(reasons) else "")
        for k, v in enumerate(details.get("verdicts") or [])
    ]


def _classifications(details: dict[str, Any]) -> list[Item]:
    """ContextRecall: each reference sentence, attributed to the contexts or not."""
    return [
        _item(c.get("statement", ""), c.get("attributed"), c.get("reason"))
        for c in details.get("classifications") or []
    ]


def _entities(details: dict[str, Any]) -> list[Item]:
    """ContextEntityRecall: the reference's entities, found in the contexts' or not."""
    found = {str(e).casefold() for e in details.get("context_entities") or []}
    rows = [
        _item(e, str(e).casefold() in found, "", "reference entity")
        for e in details.get("reference_entities") or []
    ]
    rows += [
        _item(e, None, "", "context entity")
        for e in details.get("context_entities") or []
        if str(e).casefold()
        not in {str(r).casefold() for r in details.get("reference_entities") or []}
    ]
    return rows


def _noise(details: dict[str, Any]) -> list[Item]:
    """NoiseSensitivity: the response's statements, supported by the reference or not."""
    flags = details.get("response_vs_reference") or []
    rows = [
        _item(s, flags[k] if k < len(flags) else None, "", "response statement")
        for k, s in enumerate(details.get("response_statements") or [])
    ]
    rows += [_item(s, None, "", "reference statement")
             for s in details.get("reference_statements") or []]  # fmt: skip
    return rows


READERS: dict[str, Callable[[dict[str, Any]], list[Item]]] = {
    "faithfulness": _verdict_rows,
    "answer_relevancy": _verdict_rows,
    "response_relevancy": _questions,
    "context_precision": _contexts,
    "context_recall": _classifications,
    "context_entity_recall": _entities,
    "noise_sensitivity": _noise,
}


def items(metric: str, details: dict[str, Any] | None) -> list[Item]:
    """One cell's intermediate answers as rows ([] for none, or for a failure's raw reply)."""
    if not details or ("raw" in details and len(details) == 1):
        return []
    reader = READERS.get(metric)
    return reader(details) if reader else []


def criterion_items(
    details: dict[str, Any] | None, reason: str | None, names: dict[str, str]
) -> list[Item]:
    """A criterion's cell as rows: the answer (pass/fail, the label, the level) with the
    judge's reason; a binary criterion's votes (its ``strictness`` verdicts, the majority kept);
    a weighted answer's probability of each answer. ``names``: each score as text -> answer."""
    if not details or "answer" not in details:
        return []
    answer = str(details["answer"])
    verdict = {"pass": 1, "fail": 0}.get(answer)
    votes = details.get("verdicts") or []
    share = details.get("pass_share")
    note = f"pass share {float(share):.2f}" if len(votes) > 1 and share is not None else ""
    rows = [{**_item("answer", verdict, reason, note), "answer": answer}]
    if len(votes) > 1:
        rows += [_item(f"vote {k + 1}", v) for k, v in enumerate(votes)]
    for value, p in (details.get("probabilities") or {}).items():
        name = names.get(f"{float(value):g}", value)
        rows.append(_item(f"P({name})", None, "", f"{float(p):.3f}"))
    return rows


def _key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def compare(left: list[Item], right: list[Item]) -> list[dict[str, Any]]:
    """The two configurations' rows lined up by text (left's order, then right's own):
    ``only`` says which side alone has the row; ``differs`` marks the same text given another
    verdict (a criterion's answer row: another answer). A text said several times lines up
    occurrence by occurrence (a small judge often repeats a statement with another verdict: each
    repeat is a row, none is hidden)."""
    waiting: dict[str, list[int]] = {}  # text -> positions in right not yet lined up
    for k, row in enumerate(right):
        waiting.setdefault(_key(row["text"]), []).append(k)
    lined: list[dict[str, Any]] = []
    for row in left:
        same = waiting.get(_key(row["text"]))
        other = right[same.pop(0)] if same else None
        lined.append(
            {
                "text": row["text"],
                "a": row,
                "b": other,
                "only": "a" if other is None else "",
                "differs": other is not None
                and (other["verdict"], other.get("answer")) != (row["verdict"], row.get("answer")),
            }
        )
    alone = sorted(k for rest in waiting.values() for k in rest)
    lined += [
        {"text": right[k]["text"], "a": None, "b": right[k], "only": "b", "differs": False}
        for k in alone
    ]
    return lined
