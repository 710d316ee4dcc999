"""Names shortened to fit the room they have, yet kept apart from the names shown beside them.

Cutting the tail of ``jury(smollm2-135m + gemma-270m) / minilm`` and of its ``/ e5-small`` twin
to 22 characters made both read ``jury(smollm2-135m + g…``, and only a tooltip told them apart.
So a name that does not fit is first written with each model name cut to the fewest of its
hyphen-separated parts that no other name shown starts with (``jury(smollm2 + gemma) / e5``);
what still does not fit is cut; names whose cuts read the same keep their differing end
(``jury(smollm2 + gem…) / bge``); and where even that fails, each takes a number of its own.
A name that fits is shown whole.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence

# What stands between the model names in a configuration's label: ' + ' in a jury, ' / ' before
# its embedding model, ' @ ' before a dimension, the brackets of a jury or a strictness.
SEPARATORS = re.compile(r"[\s+/()@,=:|]+")
WORD = re.compile(r"[^\s+/()@,=:|]+")  # a model name, or any run of text between separators
ELLIPSIS = "…"
NUMBER_MARK = ELLIPSIS + "#"


def short_labels(names: Sequence[str], width: int) -> list[str]:
    """Each of ``names`` in at most ``width`` characters, two different names never alike."""
    if width < len(NUMBER_MARK) + len(str(len(names))) + 1:
        raise ValueError(f"{width} characters leave no room to number {len(names)} names")
    short = _word_abbreviations(names)
    compact = [name if len(name) <= width else _abbreviated(name, short) for name in names]
    shown = [text if len(text) <= width else _cut(text, width) for text in compact]
    shown = _kept_apart(names, shown, lambda group: _cut_keeping_ends(group, compact, width))
    whole = {name for name in names if len(name) <= width}
    while _clashes(names, shown):  # each pass numbers more names; once all are, they differ
        shown = _kept_apart(
            names,
            shown,
            lambda group: {
                i: _numbered(compact[i], i, len(names), whole, width)
                for i in group
                if len(names[i]) > width
            },
        )
    return shown


def _word_abbreviations(names: Collection[str]) -> dict[str, str]:
    """Each model name in ``names`` (a run of text between separators) → its first few
    hyphen-separated parts that no other such word starts with (``smollm2-135m`` →
    ``smollm2``), or the whole word where every shorter start is shared. Two words never get
    the same abbreviation, nor one another word's name, so a label written in abbreviations
    still names one configuration."""
    words = {word for name in names for word in WORD.findall(name)}
    return {word: _first_own_start(word, words) for word in words}


def _first_own_start(word: str, words: Collection[str]) -> str:
    parts = word.split("-")
    for count in range(1, len(parts)):
        start = "-".join(parts[:count])
        if start and not any(_starts(other, start) for other in words if other != word):
            return start
    return word


def _starts(word: str, start: str) -> bool:
    """Whether ``start`` is ``word`` or its first hyphen-separated parts."""
    return word == start or word.startswith(start + "-")


def _abbreviated(name: str, short: Mapping[str, str]) -> str:
    """``name`` with each word replaced by its abbreviation, the separators kept."""
    return WORD.sub(lambda word: short.get(word.group(), word.group()), name)


def _cut(text: str, width: int) -> str:
    return text[: width - 1] + ELLIPSIS


def _clashes(names: Sequence[str], shown: Sequence[str]) -> list[list[int]]:
    """Groups of positions whose labels read the same while their names differ."""
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, label in enumerate(shown):
        by_label[label].append(i)
    return [group for group in by_label.values() if len({names[i] for i in group}) > 1]


def _kept_apart(
    names: Sequence[str],
    shown: Sequence[str],
    relabel: Callable[[list[int]], Mapping[int, str]],
) -> list[str]:
    """``shown`` with each group of alike labels of different names relabelled."""
    out = list(shown)
    for group in _clashes(names, shown):
        for i, label in relabel(group).items():
            out[i] = label
    return out


def _cut_keeping_ends(group: list[int], compact: Sequence[str], width: int) -> dict[int, str]:
    """The group's labels cut before their last separator-led parts, as few as tell them
    apart (``jury(smollm2 + gem…) / bge``); the group as it was when no ending does."""
    longest = max(len(_endings(compact[i])) for i in group)
    for count in range(1, longest + 1):
        labels = {i: _cut_before_end(compact[i], count, width) for i in group}
        if len(set(labels.values())) == len({compact[i] for i in group}):
            return labels
    return {}


def _endings(text: str) -> list[str]:
    """The tails of ``text`` that begin at a separator, shortest first."""
    return [text[m.start() :] for m in reversed(list(SEPARATORS.finditer(text)))]


def _cut_before_end(text: str, count: int, width: int) -> str:
    """``text`` cut to ``width`` before its ``count``-th shortest separator-led tail (the
    plain cut when it has fewer, or the tail leaves no room for a start)."""
    endings = _endings(text)
    if len(text) <= width or count > len(endings) or len(endings[count - 1]) > width - 2:
        return text if len(text) <= width else _cut(text, width)
    end = endings[count - 1]
    return text[: width - 1 - len(end)] + ELLIPSIS + end


def _numbered(text: str, position: int, count: int, whole: Collection[str], width: int) -> str:
    """``text`` cut to make room for ``…#k`` at its end, ``k`` one more than its position (or
    that plus a multiple of ``count`` where the label would be a name shown whole): no other
    position gets the same ``k``, so no other label the same ending."""
    number = position + 1
    while (label := _with_mark(text, f"{NUMBER_MARK}{number}", width)) in whole:
        number += count
    return label


def _with_mark(text: str, mark: str, width: int) -> str:
    return text[: max(width - len(mark), 0)] + mark
