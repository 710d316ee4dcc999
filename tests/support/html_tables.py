"""The tables of an HTML page as text, for tests that read the report's markup without a
browser: each table's classes, caption and rows of cell texts (tags inside a cell, such as a
``<wbr>``, leave only their text)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Table:
    classes: list[str]
    caption: str = ""
    rows: list[list[str]] = field(default_factory=list)


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(Table(classes=(dict(attrs).get("class") or "").split()))
        elif self.tables and tag == "tr":
            self.tables[-1].rows.append([])
        elif self.tables and tag in ("td", "th", "caption"):
            self.cell = []

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.tables and self.cell is not None and tag in ("td", "th", "caption"):
            text = "".join(self.cell)
            if tag == "caption":
                self.tables[-1].caption = text
            else:
                self.tables[-1].rows[-1].append(text)
            self.cell = None


def html_tables(html: str) -> list[Table]:
    """Every table of ``html``, in order."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables
