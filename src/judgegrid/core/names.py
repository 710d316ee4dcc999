"""Names a user gives, held to the names that exist: one wording for every door.

A column of a data set, a judge, a metric or a criterion is named in a matrix, an option, a
label file or a page's query; whichever it is, a name that does not exist is refused with the
closest existing one and the whole list, and a name given twice (in any order, or as two
spellings of one thing) is refused naming both places, so that every data source and every
command speaks alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

KNOWN_SHOWN = 30  # names listed after "known:"; a wide table's hundreds of columns are cut


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``did you mean 'x'? `` for the closest known name, or nothing when none is close."""
    guess = difflib.get_close_matches(name, list(known), n=1)
    return f"did you mean '{guess[0]}'? " if guess else ""


def known_list(known: Sequence[str]) -> str:
    """The known names, comma-separated (cut after ``KNOWN_SHOWN``), or 'none'."""
    if not known:
        return "none"
    shown = ", ".join(known[:KNOWN_SHOWN])
    return shown + (f", … ({len(known)} in all)" if len(known) > KNOWN_SHOWN else "")


def unknown_name(what: str, name: str, known: Sequence[str], place: str = "") -> str:
    """``unknown judge 'x' in this run; did you mean 'y'? known: a, b``: one sentence for a
    name that is none of ``known``."""
    where = f" {place}" if place else ""
    return f"unknown {what} {name!r}{where}; {did_you_mean(name, known)}known: {known_list(known)}"


def repeats(
    names: Sequence[Any], key: Callable[[Any], Hashable] = lambda name: name
) -> list[tuple[int, int]]:
    """(later, first) positions of each name that repeats an earlier one by ``key`` (a
    spelling-blind key makes ``Faithfulness`` repeat ``faithfulness``)."""
    first: dict[Hashable, int] = {}
    found = []
    for i, name in enumerate(names):
        k = key(name)
        if k in first:
            found.append((i, first[k]))
        first.setdefault(k, i)
    return found


def given_twice(what: str, names: Sequence[str], later: int, first: int, place: str = "") -> str:
    """Why a repeated name is refused, naming both: ``judge 'a' is given twice (1st and 3rd)``,
    or ``'Faithfulness' (2nd) names the same metric as 'faithfulness' (1st)``."""
    where = f" {place}" if place else ""
    if names[later] == names[first]:
        return (
            f"{what} {names[later]!r} is given twice{where} ({ordinal(first)} and "
            f"{ordinal(later)}); give it once"
        )
    return (
        f"{names[later]!r} ({ordinal(later)}) names the same {what} as {names[first]!r} "
        f"({ordinal(first)}){where}; give it once"
    )


def ordinal(index: int) -> str:
    """A 0-based position as people count it: 0 -> '1st'."""
    n = index + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def each_given_twice(what: str, names: Sequence[str]) -> list[str]:
    """Why each repeat in ``names`` is refused (a header's columns, a record's keys), naming
    both positions; nothing when every name is given once."""
    return [given_twice(what, names, later, first) for later, first in repeats(names)]
