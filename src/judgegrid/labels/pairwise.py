"""A pairwise criterion on the labelling page: two answers, shown as "Answer A" and "Answer B".

Which of the pair's answers a person sees first is drawn per person and pair
(``inputs.pairwise.person_order``): random across people, so no answer gains from its place
over a panel, and the same for one person on every visit. The page speaks only of positions (A,
B, tie, or a level of the graded scale, lowest the strongest for A); the server keeps the order
and stores the answer in the pair's own terms (``a`` is ``compare[0]``), so the analyses never
see a position. The compared columns are never sent under their names (a column called
``response_gpt4`` would say who wrote which answer), nor is the sample's id with an answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeGuard

import pandas as pd

from judgegrid.core.criterion import CriterionSpec, criterion_label
from judgegrid.core.pairwise import Order
from judgegrid.core.sample import Sample
from judgegrid.inputs.pairwise import DEFAULT_SEED, person_order
from judgegrid.metrics.pairwise import ANSWER_TITLES, position_of_level, winner_of

# The answers of a criterion without a scale, in the page's terms, left to right as the answers
# stand: A on the left, B on the right, the tie between them.
POSITIONS = (
    ("A", "A is better", "answer A meets the criterion better"),
    ("tie", "About the same", "neither is better"),
    ("B", "B is better", "answer B meets the criterion better"),
)


def is_pairwise(spec: CriterionSpec | None) -> TypeGuard[CriterionSpec]:
    """Whether ``spec`` (a run's criterion, or None for a built-in metric) is pairwise."""
    return spec is not None and spec.type == "pairwise"


def shown_order(pair_id: str, person: str, seed: int = DEFAULT_SEED) -> Order:
    """The order ``person`` sees the pair in: "ab" shows ``a`` as answer A, "ba" shows ``b``."""
    return person_order(pair_id, person, seed)


def pair_choices(spec: CriterionSpec) -> list[dict[str, Any]]:
    """The answers the page offers, in positions: A, tie (where allowed) and B; or the graded
    scale's levels, lowest (the strongest for A) first, each with its description. ``value`` is
    what the page sends back: the position, or the level as the person saw it."""
    if spec.scale:
        return [
            {"value": level, "text": str(level), "description": spec.scale[level]}
            for level in spec.levels
        ]
    return [
        {"value": value, "text": text, "description": about}
        for value, text, about in POSITIONS
        if spec.ties or value != "tie"
    ]


def pair_answer(spec: CriterionSpec, order: Order, given: Any) -> tuple[float, dict[str, Any]]:
    """An answer the page sent (a position, or a level as shown) in the pair's own terms: the
    stored score (a 1, tie 0.5, b 0: ``criterion_label``) and its detail, which keeps the answer
    (``a``, ``b`` or ``tie``), the graded level read for ``a`` against ``b``, and the order the
    person saw (to measure people's own position bias, never read as the answer). ValueError
    names what the form allows."""
    allowed = [choice["value"] for choice in pair_choices(spec)]
    if isinstance(given, bool) or given not in allowed:
        shown = ", ".join(str(v) for v in allowed)
        raise ValueError(f"value: expected one of {shown} (as shown on the page), got {given!r}")
    detail: dict[str, Any] = {"shown": order}
    if spec.scale:
        levels = spec.levels
        position = position_of_level(int(given), levels)
        detail["level"] = int(given) if order == "ab" else levels[0] + levels[-1] - int(given)
    else:
        position = given
    winner = winner_of(position, order)
    return criterion_label(spec, winner), {"answer": winner, **detail}


def judges_as_shown(scores: pd.DataFrame, metric: str, pair: str, order: Order) -> str:
    """What each judge chose for a pair, in the positions this person sees ("follow prefers A,
    first calls it a tie"), for ``--show-judges``: a judge's score is in the pair's terms (1
    for ``a``), which would read backwards on a pair shown with ``b`` first. Empty when no
    judge scored it."""
    mine = scores[
        (scores["metric"] == metric)
        & (scores["sample_id"] == pair)
        & (scores["status"] == "scored")
    ]
    words = []
    for judge, towards_a in mine.groupby("judge")["score"].mean().items():
        winner = "a" if towards_a > 0.5 else "b" if towards_a < 0.5 else "tie"
        position = "tie" if winner == "tie" else "AB"[order.index(winner)]
        words.append(
            f"{judge} calls it a tie" if position == "tie" else f"{judge} prefers {position}"
        )
    return ", ".join(words)


def has_both_answers(sample: Sample, spec: CriterionSpec) -> bool:
    """Whether the sample holds both compared answers (a judge skips it otherwise)."""
    assert spec.compare is not None
    return not any(sample.is_missing(column) for column in spec.compare)


def pairs_of(samples: Iterable[Sample], spec: CriterionSpec) -> list[str]:
    """The samples a person can compare for ``spec``, in the data set's order (probes left out:
    people never label them)."""
    return [s.id for s in samples if s.probe is None and has_both_answers(s, spec)]


def criterion_pairs(
    samples: Iterable[Sample], criteria: Iterable[CriterionSpec]
) -> dict[str, tuple[str, ...]]:
    """Each pairwise criterion of ``criteria`` with its pairs (``pairs_of``): what the page
    offers and what the report counts the pairs no judge compared among."""
    kept = list(samples)
    return {spec.name: tuple(pairs_of(kept, spec)) for spec in criteria if is_pairwise(spec)}


def shown_answer(sample: Sample, spec: CriterionSpec, order: Order, member: int) -> str:
    """The answer shown as A (``member`` 0) or as B (1) in ``order``."""
    assert spec.compare is not None
    column = spec.compare[0 if order[member] == "a" else 1]
    return str(sample.value_of(column) or "")


def answer_titles() -> list[str]:
    """How the page heads the two answers: as the judge reads them."""
    return list(ANSWER_TITLES)
