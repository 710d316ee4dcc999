"""The decision card as a person reads it in a terminal, fitted to the terminal's width.

summary.md and report.html keep every figure and test behind a verdict; the terminal gets what a
person takes in at a glance (the metric, the verdict, its basis, the one figure it rests on with its
n, where labelling stands, the flags) and a pointer to the rest. The card is kept whole
(``TerminalCard``) and fitted only when drawn, at the width it is drawn at: a table when the verdict
has room beside the short columns, else each metric stacked over its figures. Nothing is cut but a
word too long for its line, a name in practice: cut in the middle, never through a run of digits,
and only where the cut reads as that one word of the card (``Shortener``). A figure is never cut: a
long verdict or flag goes on over lines instead. The probes come as one grid (metric x judge, the
directional probes detected) when it fits, else as a pointer.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from judgegrid.analyses import NO_VERDICT
from judgegrid.outputs.card_short import card_row, flag_list, number
from judgegrid.outputs.report import TABLES_DIR

CARD_WIDTH = 120  # the widest card: a wider terminal gets this one, easier to take in
MIN_WIDTH = 40  # the narrowest card: a narrower terminal wraps it
CARD_HEADER = ("metric", "verdict", "basis", "figure (95% CI)", "n")
MIN_VERDICT = 24  # the verdict column a table needs; with less room the card stacks
TITLE = "decision per metric (basis, strongest first: people > pairs > probes > judges)"
STACKED_KEY = "under each metric: its verdict; basis · figure (95% CI) · n; ! a flag"
PROBES_TITLE = "probes: directional probes detected (score rose on injection)"
STATE_LEAD = "labelling: "  # as summary.md and report.html lead the same line
_GAP = "  "
_INDENT = "  "

# A drawn line: its pieces of text, each with what it is (the terminal colours by it):
# "" plain, "head", "rule", "metric", "verdict" (a judge named), "flag", "state" (where labelling
# stands), "note".
Piece = tuple[str, str]
Line = tuple[Piece, ...]


@dataclass(frozen=True)
class CardEntry:
    """One metric's line of the card, whole."""

    metric: str
    verdict: str
    named: bool  # a judge is named
    basis: str
    figure: str
    n: str
    flags: tuple[str, ...]
    state: str = ""  # where labelling stands, judges named (``analyses.decision.label_state``)

    def cells(self) -> tuple[str, ...]:
        return (self.metric, self.verdict, self.basis, self.figure, self.n)

    def figure_words(self) -> str:
        """Basis, figure and n on one line, as the stacked card gives them."""
        words = [self.basis] + ([self.figure] if self.figure != "–" else [])
        return " · ".join(words + ([f"n {self.n}"] if self.n else []))

    def state_words(self) -> str:
        """The labelling state line as the card shows it (empty: people labelled none)."""
        return f"{STATE_LEAD}{self.state}" if self.state else ""


@dataclass(frozen=True)
class Note:
    """A line of the footer: its words, then a path or a command, never cut nor broken."""

    words: str
    place: str


@dataclass(frozen=True)
class TerminalCard:
    """The card whole: one entry per metric, the probes' grid (header first; empty when the
    run has no probes), whether the report has a Probes section, the run directory the footer
    names, and the command that labels for more metrics ("" when labels would decide none)."""

    entries: list[CardEntry]
    probes: list[tuple[str, ...]]
    probes_reported: bool
    run_dir: Path
    label_command: str

    def lines(self, width: int = CARD_WIDTH) -> list[Line]:
        """The card drawn ``width`` columns wide (within ``MIN_WIDTH`` and ``CARD_WIDTH``)."""
        width = max(MIN_WIDTH, min(width, CARD_WIDTH))
        short = Shortener(self._words())
        lines = _table(self.entries, width, short) or _stacked(self.entries, width, short)
        grid = _probe_lines(self.probes, width, short)
        if grid:
            lines += [(), *_wrapped_line(PROBES_TITLE, width, ""), *grid]
        notes = footer(self.run_dir, self.label_command, self.probes_reported and not grid)
        return [*lines, (), *_footer_lines(notes, width)]

    def plain_lines(self, width: int = CARD_WIDTH) -> list[str]:
        """The card as plain text (a pipe, a file, a terminal without colours)."""
        return ["".join(text for text, _ in line) for line in self.lines(width)]

    def _words(self) -> set[str]:
        """Every word and judge the card shows: what a cut must not be mistaken for."""
        texts = [t for e in self.entries for t in (*e.cells(), *e.flags, e.state)]
        texts += [cell for row in self.probes for cell in row]
        return {w for t in texts for w in t.split()} | set(texts)


def terminal_card(run_dir: Path) -> TerminalCard:
    """The card of a run directory, from the tables its report wrote."""
    tables = run_dir / TABLES_DIR
    card = pd.read_csv(tables / "decision_card.csv", keep_default_na=False)
    brief = _read_optional(tables / "probes_brief.csv")
    return card_of(card.to_dict("records"), brief, run_dir)


def card_of(
    records: Sequence[Mapping[Hashable, object]],
    brief: pd.DataFrame,
    run_dir: Path,
) -> TerminalCard:
    """The card of decision_card.csv's rows and probes_brief.csv's, its footer naming
    ``run_dir``. Where ``brief`` has rows the report's Probes section has probes to show,
    and the footer points there if their grid does not fit; a run without probes gets no
    such pointer (its Probes section would have none to show)."""
    entries = [_entry(r) for r in records]
    return TerminalCard(
        entries, probe_grid(brief), not brief.empty, run_dir, label_command(records, run_dir)
    )


def label_command(records: Sequence[Mapping[Hashable, object]], run_dir: Path) -> str:
    """``judgegrid label RUN_DIR`` where a row's next step is to label, with the card's margin
    (a card made by ``report --margin``: the page then asks what it asked)."""
    if not any(str(r.get("next_step", "")).startswith("judgegrid label") for r in records):
        return ""
    margins = [m for r in records if (m := number(r.get("margin"))) is not None]
    return f"judgegrid label {run_dir}" + (f" --margin {margins[0]:g}" if margins else "")


def _entry(record: Mapping[Hashable, object]) -> CardEntry:
    metric, verdict, basis, figure, n, _ = card_row(record)
    named = verdict != NO_VERDICT
    state = str(record.get("label_state") or "")
    return CardEntry(metric, verdict, named, basis, figure, n, tuple(flag_list(record)), state)


def probe_grid(brief: pd.DataFrame) -> list[tuple[str, ...]]:
    """Metric x judge: directional probes detected of those scored, ``+k`` where the score rose
    on injection in k pairs (``!`` when flagged); the header first. Empty without probes."""
    if brief.empty:
        return []
    judges = list(dict.fromkeys(str(j) for j in brief["judge"]))
    rows: list[tuple[str, ...]] = [("metric", *judges)]
    for metric, block in brief.groupby("metric", sort=False):
        cells = {str(r["judge"]): _probe_cell(r) for r in block.to_dict("records")}
        rows.append((str(metric), *(cells.get(j, "–") for j in judges)))
    return rows


def footer(run_dir: Path, label_command: str, probes_elsewhere: bool) -> list[Note]:
    """Where the full reasons are (the probes too, when their grid is not drawn), and the one
    command that would strengthen the card."""
    where = "every figure and test behind a verdict: summary.md and report.html"
    where += " (probes: its Probes section)" if probes_elsewhere else ""
    notes = [Note(where + " in", str(run_dir))]
    if label_command:
        notes.append(Note("to decide more metrics, label samples:", label_command))
    return notes


class Shortener:
    """Cuts a word too long for its place in the middle (``smollm2-…instruct``), so that the
    cut reads as that word alone among ``known`` (every word and name the card shows): two
    names never read the same. A cut never splits a run of digits, so no figure, nor the digits
    of a name, is shown in part."""

    def __init__(self, known: Iterable[str]) -> None:
        self._known = set(known)

    def fit(self, word: str, width: int) -> str | None:
        """``word`` itself if it fits ``width``, else its first cut that could be no other
        known word; None when none can tell it apart (then it goes whole over lines)."""
        if len(word) <= width:
            return word
        return next((cut for cut in _cuts(word, width) if self._reads_as(cut, word)), None)

    def _reads_as(self, cut: str, word: str) -> bool:
        """Whether ``cut`` could stand for no known word but ``word``."""
        head, _, tail = cut.partition("…")
        return not any(o != word and _could_be(o, head, tail) for o in self._known)


def _could_be(word: str, head: str, tail: str) -> bool:
    """Whether ``head…tail`` could stand for ``word`` (at least one letter of it left out)."""
    return len(word) > len(head) + len(tail) and word.startswith(head) and word.endswith(tail)


def _cuts(word: str, width: int) -> Iterator[str]:
    """``head…tail`` forms of ``width`` characters, the head about two thirds of them first,
    then every other split; no head ends in a digit and no tail starts inside a run of
    digits, so no number is shown in part."""
    kept = width - 1
    preferred = -(-2 * kept // 3)
    for head in sorted(range(1, kept + 1), key=lambda h: (abs(h - preferred), h)):
        start = len(word) - (kept - head)
        if word[head - 1].isdigit() or _inside_digits(word, start):
            continue
        yield word[:head] + "…" + word[start:]


def _inside_digits(word: str, at: int) -> bool:
    """Whether ``at`` falls between two digits of ``word``."""
    return 0 < at < len(word) and word[at].isdigit() and word[at - 1].isdigit()


def _wrapped(text: str, width: int, short: Shortener, later: int | None = None) -> list[str]:
    """``text`` over lines of ``width`` characters (``later`` for every line after the first),
    broken between words only; a word longer than a line is cut (``Shortener``) or, when no
    cut tells it apart, broken into whole lines."""
    later = width if later is None else later
    narrowest = min(width, later)
    lines: list[str] = []
    for word in text.split():
        cut = short.fit(word, narrowest)
        for piece in [cut] if cut is not None else _chunks(word, narrowest):
            room = width if len(lines) == 1 else later  # the line the piece would join
            if lines and len(lines[-1]) + 1 + len(piece) <= room:
                lines[-1] += " " + piece
            else:
                lines.append(piece)
    return lines or [""]


def _chunks(word: str, width: int) -> list[str]:
    return [word[k : k + width] for k in range(0, len(word), width)]


def _hanging(
    text: str, width: int, indent: str, later: str, style: str, short: Shortener
) -> list[Line]:
    """``text`` at ``indent``, its later lines at ``later``, within ``width``."""
    parts = _wrapped(text, width - len(indent), short, width - len(later))
    leads = [indent] + [later] * (len(parts) - 1)
    return [((lead + part, style),) for lead, part in zip(leads, parts, strict=True)]


def _wrapped_line(text: str, width: int, style: str) -> list[Line]:
    return _hanging(text, width, "", "", style, Shortener(()))


def _table(entries: Sequence[CardEntry], width: int, short: Shortener) -> list[Line] | None:
    """The card as columns, each verdict over lines within its column, then the labelling state
    and each flag on a line of its own under its row; None when the verdict would have less
    than ``MIN_VERDICT``."""
    rows = [CARD_HEADER, *(e.cells() for e in entries)]
    widths = [max(len(row[k]) for row in rows) for k in range(len(CARD_HEADER))]
    room = width - sum(widths) + widths[1] - len(_GAP) * (len(widths) - 1)
    if room < MIN_VERDICT:
        return None
    widths[1] = min(widths[1], room)
    lines = [*_wrapped_line(TITLE, width, ""), _row(CARD_HEADER, widths, ["head"] * 5)]
    lines.append(_row(["─" * w for w in widths], widths, ["rule"] * 5))
    flag_indent = " " * (widths[0] + len(_GAP))
    for entry in entries:
        styles = ["metric", _verdict_style(entry), "", "", ""]
        verdict = _wrapped(entry.verdict, widths[1], short)
        lines.append(_row([entry.metric, verdict[0], *entry.cells()[2:]], widths, styles))
        lines += [_row(["", more], widths, styles) for more in verdict[1:]]
        if entry.state:
            lead = flag_indent + " " * len(STATE_LEAD)
            lines += _hanging(entry.state_words(), width, flag_indent, lead, "state", short)
        for flag in entry.flags:
            lines += _hanging("! " + flag, width, flag_indent, flag_indent + "  ", "flag", short)
    return lines


def _row(cells: Sequence[str], widths: Sequence[int], styles: Sequence[str]) -> Line:
    """One line of a table: its cells padded to their columns, each styled."""
    pieces: list[Piece] = []
    for k, (cell, w, style) in enumerate(zip(cells, widths, styles, strict=False)):
        pieces += [(_GAP, "")] if k else []
        pieces.append((cell.ljust(w), style))
    return _rstripped(pieces)


def _rstripped(pieces: list[Piece]) -> Line:
    """The line without the spaces that pad its last columns."""
    while pieces and not pieces[-1][0].strip():
        pieces.pop()
    if pieces:
        pieces[-1] = (pieces[-1][0].rstrip(), pieces[-1][1])
    return tuple(pieces)


def _verdict_style(entry: CardEntry) -> str:
    return "verdict" if entry.named else ""


def _stacked(entries: Sequence[CardEntry], width: int, short: Shortener) -> list[Line]:
    """Each metric on a line of its own, its verdict, figures, labelling state and flags on
    lines beneath."""
    lines = [*_wrapped_line(TITLE, width, ""), *_wrapped_line(STACKED_KEY, width, "")]
    lines.append((("─" * min(width, len(TITLE)), "rule"),))
    deeper = _INDENT * 2
    for entry in entries:
        lines += _hanging(entry.metric, width, "", _INDENT, "metric", short)
        lines += _hanging(entry.verdict, width, _INDENT, deeper, _verdict_style(entry), short)
        lines += _hanging(entry.figure_words(), width, _INDENT, deeper, "", short)
        if entry.state:
            lines += _hanging(entry.state_words(), width, _INDENT, deeper, "state", short)
        for flag in entry.flags:
            lines += _hanging("! " + flag, width, _INDENT, deeper, "flag", short)
    return lines


def _probe_lines(rows: Sequence[tuple[str, ...]], width: int, short: Shortener) -> list[Line]:
    """The probes' grid within ``width``: a judge's name cut in its column's header if need
    be (never to less than its cells); empty when it still does not fit."""
    if not rows:
        return []
    floors = [max(len(row[k]) for row in rows[1:]) for k in range(len(rows[0]))]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    floors[0] = widths[0]  # metric names whole
    spare = width - len(_GAP) * (len(widths) - 1)
    while sum(widths) > spare:
        k = max(range(len(widths)), key=lambda c: widths[c] - floors[c])
        if widths[k] <= max(floors[k], 6):
            return []
        widths[k] -= 1
    header = tuple(short.fit(name, w) for name, w in zip(rows[0], widths, strict=True))
    if any(h is None for h in header):
        return []
    shown = [tuple(h or "" for h in header), *rows[1:]]
    rule = ["─" * w for w in widths]
    lines = [_row(shown[0], widths, ["head"] * len(widths))]
    lines.append(_row(rule, widths, ["rule"] * len(widths)))
    return lines + [_row(row, widths, [""] * len(widths)) for row in shown[1:]]


def _footer_lines(notes: Sequence[Note], width: int) -> list[Line]:
    """Each note on a line, or its words and then its path or command on a line of its own."""
    lines: list[Line] = []
    for note in notes:
        if len(note.words) + 1 + len(note.place) <= width:
            lines.append(((f"{note.words} {note.place}", "note"),))
            continue
        lines += _hanging(note.words, width, "", "", "note", Shortener(()))
        lines.append(((_INDENT + note.place, "note"),))
    return lines


def _probe_cell(record: Mapping[Hashable, object]) -> str:
    probes = number(record.get("probes")) or 0
    detected = f"{int(number(record.get('detected')) or 0)}/{int(probes)}" if probes else "–"
    rose = int(number(record.get("injection_rose")) or 0)
    if not rose:
        return detected
    return f"{detected} +{rose}{'!' if record.get('flagged') in (True, 'True') else ''}"


def _read_optional(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size <= 1:
        return pd.DataFrame()
    return pd.read_csv(path)
