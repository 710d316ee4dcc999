"""A run's scores read by a second process while the first is still importing the tool.

`judgegrid report` on 200,000 score rows spends 1.0 s importing scipy, matplotlib and the
analyses, and 1.0 s reading the scores; neither needs the other. So the console script
(``judgegrid.entry``) forks two readers, of half the columns each, as soon as it has pandas,
and the report takes the frame from them (pickled through a pipe: 0.1 s). The readers open the
database read-only. Whatever they cannot do (a database of an older schema, a directory that
is not a run, a table written to between their two reads) is left to the report's own read,
which says what is wrong.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from judgegrid.core.forked import Forked
from judgegrid.store.run_db import SCORE_HALVES, read_scores

ROWID = "rowid"  # read by both readers: their halves are of the same rows, or not used


class ScoresReadAhead:
    """The scores of one run database, being read in two forked children from the moment this
    is made, half the columns each (``run_db.SCORE_HALVES``: a million rows took one reader
    7 s). As a context manager, readers whose frames were not taken are stopped on the way
    out."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path.resolve()
        self._readers = [
            Forked(
                partial(read_scores, self.db_path, [ROWID, *half]),
                fork=True,
                name="a scores' reader",
            )
            for half in SCORE_HALVES
        ]
        self._taken = False

    def scores_of(self, db_path: Path) -> pd.DataFrame | None:
        """The frame read ahead, if it is of this database and was read; else None (read it
        here). It is handed out once."""
        if self._taken or db_path.resolve() != self.db_path:
            return None
        self._taken = True
        try:
            halves = [reader.result() for reader in self._readers]
        except Exception:  # the report's own read meets the same problem and names it
            return None
        rows = [half.pop(ROWID) for half in halves]
        if not rows[0].equals(rows[1]):  # written to between the two reads: not one table
            return None
        return pd.concat(halves, axis=1)

    def __enter__(self) -> ScoresReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        for reader in self._readers:
            reader.__exit__(*exc)
