"""The fenced blocks of the documentation (docs/*.md and README.md), and how each is checked.

A block's language says what it is:

- ``python``: code, run (on the scripted judge, see ``scripted_source``) unless its first line
  is ``# not run: <why>``, then only compiled;
- ``bash``: a shell script; every ``judgegrid`` line is parsed against the Typer app, and the
  whole block is run by bash in an empty directory (no API key set) and must exit 0, unless its
  first line is ``# not run: <why>``;
- ``console``: a command and what it printed; every ``$ judgegrid`` line is parsed, and run at the
  checkout's root when it calls no model (``plan``, ``validate``, ``metrics``), unless the first
  line says why not;
- ``yaml``: loaded; a whole matrix (``judges:`` and ``metrics:``) is validated too;
- ``text`` (or no language): output the program printed, included from a file it wrote
  (``docs/outputs/``, by ``docs/hooks/doc_outputs.py``) and compared with what it prints now
  (test_doc_outputs.py); console blocks take their output from there too;
- ``synopsis``: a synopsis or a drawing written by hand (the commands, the errors' tree): not
  checked, and it may not repeat a line of a program's output.

A block's lines ``--8<-- "PATH"`` are pymdownx.snippets' includes: ``text`` is the block as the
page shows it (each include replaced by its file), ``own`` the lines the page itself holds.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_RUN = re.compile(r"^#\s*not run:\s*(?P<why>\S.*)$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<ticks>```+)(?P<info>[^`]*)$")
SNIPPET = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')
# commands that call no model and need no run directory: safe to run from any test
CALL_NOTHING = {"plan", "validate", "metrics", "--version"}


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and its text."""

    path: Path
    line: int
    language: str
    text: str  # as the page shows it: each include replaced by its file
    own: str = ""  # the lines the page itself holds (an include as its --8<-- line)
    included: tuple[str, ...] = ()  # the files included, as their --8<-- lines name them

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def not_run_because(self) -> str | None:
        """The reason given on the block's first line for not running it, if any."""
        first = self.text.lstrip("\n").splitlines()[0] if self.text.strip() else ""
        match = NOT_RUN.match(first.strip())
        return match.group("why") if match else None

    def commands(self) -> list[list[str]]:
        """The block's judgegrid command lines as argument lists (after `judgegrid`)."""
        found = []
        for line in self.text.splitlines():
            line = line.strip()
            if self.language == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if line.startswith("judgegrid ") or line == "judgegrid":
                found.append(shlex.split(line, comments=True)[1:])
        return found


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file (a fence may be indented, as in a list)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match:
            ticks, indent = match.group("ticks"), match.group("indent")
            j = i + 1
            while j < len(lines) and lines[j].strip() != ticks:
                j += 1
            body = "\n".join(line.removeprefix(indent) for line in lines[i + 1 : j])
            language = match.group("info").strip().split(" ")[0].lower()
            text, included = expand_snippets(body)
            found.append(Block(path, i + 1, language, text, body, included))
            i = j
        i += 1
    return found


def expand_snippets(body: str) -> tuple[str, tuple[str, ...]]:
    """A block's text with each ``--8<-- "PATH"`` line replaced by the file (PATH from the
    checkout's root, mkdocs.yml's base_path), and the paths included."""
    lines, included = [], []
    for line in body.splitlines():
        match = SNIPPET.match(line.strip())
        if match is None:
            lines.append(line)
            continue
        included.append(match.group("path"))
        lines += (ROOT / match.group("path")).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines), tuple(included)


def all_blocks() -> list[Block]:
    return [block for path in doc_files() for block in blocks(path)]


# model ids of real providers, as they appear in the docs' Python blocks, and the scripted
# provider's id each is run under (tests/support/scripted.py: canned answers through litellm)
PROVIDER_ID = re.compile(r"""(?P<quote>["'])(?:openai|local|ollama|openrouter|anthropic)/""")


def scripted_source(block: Block) -> str:
    """The block as it is run: every model id of a real provider turned into a scripted one, so
    the same code runs through litellm on canned answers, with no network and no key."""
    return PROVIDER_ID.sub(lambda m: f"{m.group('quote')}scripted/", block.text)
