"""What the pages and the program's texts say: a pointer to README or to a docs page leads to a
heading that is there, and no page speaks of the project's history (an issue, a change, what
the program did before): a reader has the program as it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doc_blocks import ROOT, doc_files
from markdown.extensions.toc import slugify

# where pointers are written: the pages, the program's help texts and reports, the matrices
POINTING = [
    *doc_files(),
    *sorted((ROOT / "src" / "judgegrid").rglob("*.py")),
    *sorted((ROOT / "model_matrices").glob("*.yaml")),
    ROOT / "Makefile",
]
README_POINTER = re.compile(r"README: *\"?(?P<heading>[^\")\n]+?)\"?\)")
DOCS_POINTER = re.compile(r"\bdocs/(?P<page>[\w-]+\.md)(?:#(?P<anchor>[\w-]+))?")
# what a page says of the project's past, not of the program
HISTORY = re.compile(
    r"\bissues? *#? *\d+|\bthe issue that\b|\bfrom before\b|\bearlier versions?\b|"
    r"\bprevious(ly| versions?)\b|\bno longer\b|\bused to\b|\bthis release\b|"
    r"\bin this version\b|\btoday's\b|\bas it was then\b|\bearlier (run|one|demo)\b|"
    r"\buntil recently\b|\bnowadays\b",
    re.IGNORECASE,
)


def text_of(path: Path) -> str:
    """A file's text; in Python, strings split over lines joined again ("…(README: " "Probes)")."""
    text = path.read_text(encoding="utf-8")
    return re.sub(r"\"\s*\n\s*f?\"", "", text) if path.suffix == ".py" else text


def headings(path: Path) -> list[str]:
    """A Markdown file's headings (outside fenced blocks), as written."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"^#{1,6} ", line):
            found.append(line.lstrip("#").strip())
    return found


def test_every_readme_pointer_names_a_readme_heading():
    there = {h.lower() for h in headings(ROOT / "README.md")}
    pointers = [
        (path.relative_to(ROOT).as_posix(), m.group("heading"))
        for path in POINTING
        for m in README_POINTER.finditer(text_of(path))
    ]
    assert len(pointers) >= 3  # the search itself: the report's and the CLI's point at Probes
    assert [p for p in pointers if p[1].strip().lower() not in there] == []


def test_every_docs_pointer_names_a_page_and_a_heading_of_it():
    wrong = []
    for path in POINTING:
        for m in DOCS_POINTER.finditer(text_of(path)):
            page = ROOT / "docs" / m.group("page")
            anchors = {slugify(h, "-") for h in headings(page)} if page.is_file() else set()
            if not page.is_file() or (m.group("anchor") and m.group("anchor") not in anchors):
                wrong.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert wrong == []


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_speaks_of_the_projects_history(path: Path):
    said = [
        f"{path.name}:{n}: {m.group(0)!r}"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in HISTORY.finditer(line)
    ]
    assert said == []


@pytest.mark.parametrize(
    "line",
    [
        "These cards are from before the paired rule of issue 22",
        "the issue that asked for it",
        "(Earlier versions spelled this)",
        "today's tables count all 44",
        "an earlier run gave 0.34",
    ],
)
def test_history_is_found(line: str):
    """The check itself."""
    assert HISTORY.search(line)
