"""The `judgegrid` console script: for `judgegrid report`, start reading the run's scores in a
second process, then import the tool and run the command.

Importing the tool (scipy, matplotlib, the analyses) takes as long as reading 200,000 score
rows, and neither needs the other: the reader (``store.read_ahead``) is forked before the
import, which is why ``cli`` is imported inside ``main`` and not at the top. Every other command
goes straight to the CLI. May import: every layer.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path

from judgegrid.core.forked import can_fork
from judgegrid.store.read_ahead import ScoresReadAhead
from judgegrid.store.run_db import DB_NAME


def main() -> None:
    database = report_database(sys.argv[1:])
    read_ahead = ScoresReadAhead(database) if database is not None and can_fork() else None
    with read_ahead or nullcontext():
        from judgegrid.cli.command import main as run_command  # after the fork: see above

        run_command(read_ahead)


def report_database(args: list[str]) -> Path | None:
    """The run database ``judgegrid report ARGS`` will read: the first argument after `report`
    that is a directory holding one. A wrong guess costs only the read: the report takes the
    frame only for the database it opens itself."""
    if not args or args[0] != "report":
        return None
    for arg in args[1:]:
        if not arg.startswith("-") and (Path(arg) / DB_NAME).is_file():
            return Path(arg) / DB_NAME
    return None
