"""Error types. Every user-facing error says where the problem is (file, field path, sample id).

A small, flat tree, in the manner of httpx's: catch ``JudgegridError`` for everything judgegrid
raises on purpose, ``InputError`` for anything the user can fix before a model is called (the CLI
exits 2 on it), or one leaf for one kind of input::

    JudgegridError
    ├── InputError            bad input, refused before any model call; carries Problems
    │   ├── MatrixError       a matrix file or dict, or an option block given in Python
    │   ├── DatasetError      a data set, a sample given in Python, a pairs file, labels
    │   ├── RunDirError       a run directory or its database
    │   │   └── RunLockedError  another judgegrid process is writing to it
    │   └── OptionError       an argument: a limit, a metric and its parameters, a wrong type
    ├── ProviderError         a model call that failed for good (after the retry policy)
    ├── JudgeOutputError      a judge answer that is not JSON of the asked-for shape
    └── ScoringError          valid answers that leave the score undefined

The last three end a cell (recorded in the run, counted in its exit code); ``score_sample``
raises them for its one sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgegrid.core.redaction import redact_text


class JudgegridError(Exception):
    """Base class of every error judgegrid raises on purpose.

    ``usage`` (a ``transport.Usage``), where set, is what the calls that ended in this error
    cost, so a failed cell still accounts for the calls it made.
    """

    usage: Any = None


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located by a path like ``judges[2].options.temperature``."""

    where: str
    message: str

    def render(self, source: str | None = None) -> str:
        """``source: where: message``, with anything key-shaped redacted."""
        prefix = f"{source}: " if source else ""
        where = f"{self.where}: " if self.where else ""
        return redact_text(f"{prefix}{where}{self.message}")


class InputError(JudgegridError):
    """A matrix, data set or option that cannot be used; carries one Problem per fault found."""

    def __init__(self, source: str | None, problems: list[Problem]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(p.render(source) for p in problems))


class MatrixError(InputError):
    """The model matrix file is malformed or refers to something unknown."""


class DatasetError(InputError):
    """The data set file is malformed."""


class RunDirError(InputError):
    """A directory that is not a judgegrid run, or whose database or matrix was damaged."""


class RunLockedError(RunDirError):
    """Another judgegrid process holds the run directory's lock (``store.lock``): one writer at
    a time. The message names the holder: its PID, command line and start time."""


class OptionError(InputError):
    """An argument to a command or function: out of range, of the wrong type, or unknown."""


class JudgeOutputError(JudgegridError):
    """The judge answered, but not with JSON that fits the answer schema."""

    def __init__(self, message: str, raw: str | None = None, truncated: bool = False):
        self.raw = raw
        self.truncated = truncated
        super().__init__(message)


class ProviderError(JudgegridError):
    """A model provider failed after the retry policy gave up (or the failure is permanent)."""

    def __init__(self, message: str, status: int | None = None, permanent: bool = False):
        self.status = status
        self.permanent = permanent
        super().__init__(message)


class ScoringError(JudgegridError):
    """The judge's answers were valid but leave the score undefined (e.g. no statements)."""
