"""The decision card in short: the words a glance reads (the verdict, its basis, the one figure
it rests on). The terminal's card, report.html and the view's Decision page all say it the same
way; the full reason stays in summary.md."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from judgegrid.analyses import NO_VERDICT, NOT_ABOVE_CHANCE

BASIS_WORDS = {
    "people": "people",
    "preference pairs": "pairs",
    "designed contrasts": "contrasts",
    "probes": "probes",
    "other judges": "judges",
    "nothing measurable": "none",
}
_MEASURE_WORDS = {"accuracy": "acc", "detection": "detected"}


def card_row(record: Mapping[Hashable, object]) -> tuple[str, ...]:
    """One metric's row: its verdict in short, and the one figure with its n."""
    return (
        str(record["metric"]),
        short_verdict(record),
        BASIS_WORDS.get(str(record["basis"]), str(record["basis"]) or "–"),
        figure_words(record),
        count_words(record.get("n")),
        str(record.get("flags") or ""),
    )


def short_verdict(record: Mapping[Hashable, object]) -> str:
    """The judge named; a set as its pick and its size; how many judges not separated from the
    top were left out for not excluding chance (``alone clear of chance; 5 others not
    separated``: the 5 are other judges, as good as far as the data tell, whose own figures do
    not exclude chance); or "no verdict"."""
    verdict = str(record["verdict"])
    if verdict.startswith(NO_VERDICT):
        return NO_VERDICT
    pick = str(record.get("judge") or "")
    verdict, left_out = _left_out_for_chance(verdict)
    if ": not separated; take" in verdict and pick:
        size = verdict.split(": not separated")[0].count(" or ") + 1
        more = f"; {left_out} more not clear of chance" if left_out else ""
        return f"{pick} (1 of {size} not separated{more})"
    if left_out and verdict.startswith(pick):  # the top alone, with what follows its name
        others = f"{left_out} other{'s' if left_out != 1 else ''} not separated"
        verdict = f"{pick} (alone clear of chance; {others}){verdict[len(pick) :]}"
    elif verdict.startswith(f"{pick} (within"):
        return f"{pick} (within margin)"
    return verdict.replace(" (by agreement only)", " (agreement only)")


def _left_out_for_chance(verdict: str) -> tuple[str, int]:
    """The verdict without the clause naming the judges not separated from the top but not
    clear of chance ('; c and d: not separated but not above chance'), and how many it names."""
    before, found, after = verdict.partition(NOT_ABOVE_CHANCE)
    if not found:
        return verdict, 0
    kept, _, names = before.rpartition("; ")
    return kept + after, names.count(" and ") + 1


def figure_words(record: Mapping[Hashable, object]) -> str:
    """``ρ 0.75 [-0.54, 0.99]``: the measure, the judge's value and its interval; ``(top
    0.90)`` after it when the judge is not the top one (a set's take, a judge within the
    margin)."""
    value = number(record.get("value"))
    if value is None:
        return "–"
    measure = _MEASURE_WORDS.get(str(record.get("measure")), str(record.get("measure")))
    low, high = number(record.get("low")), number(record.get("high"))
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    top = number(record.get("top_value"))
    return f"{measure} {value:.2f}{interval}" + (f" (top {top:.2f})" if top is not None else "")


def count_words(value: object) -> str:
    count = number(value)
    return str(int(count)) if count is not None else ""


def number(value: object) -> float | None:
    """A cell read from a CSV as a finite number, or None (empty, NaN or not a number)."""
    try:
        number = float(str(value)) if value not in (None, "") else None
    except ValueError:
        return None
    return number if number is not None and number == number else None


def flag_list(record: Mapping[Hashable, object]) -> list[str]:
    """The card row's flags (kept ``;``-separated in its ``flags`` column), one by one."""
    return [f.strip() for f in str(record.get("flags") or "").split(";") if f.strip()]
