"""A run's scores read by a second process while the first is still importing the tool.

`judgegrid report` on 200,000 score rows spends 1.0 s importing scipy, matplotlib and the
analyses, and 1.0 s reading the scores; neither needs the other. So the console script
(``judgegrid.entry``) forks a reader as soon as it has pandas, and the report takes the frame
from it (pickled through a pipe: 0.1 s). The reader opens the database read-only. Whatever it
cannot do (a database of an older schema, a directory that is not a run) is left to the
report's own read, which says what is wrong.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from judgegrid.core.forked import Forked
from judgegrid.store.run_db import read_scores


class ScoresReadAhead:
    """The scores of one run database, being read in a forked child from the moment this is
    made. As a context manager, a reader whose frame was not taken is stopped on the way out."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path.resolve()
        self._reader = Forked(
            partial(read_scores, self.db_path), fork=True, name="the scores' reader"
        )
        self._taken = False

    def scores_of(self, db_path: Path) -> pd.DataFrame | None:
        """The frame read ahead, if it is of this database and was read; else None (read it
        here). It is handed out once."""
        if self._taken or db_path.resolve() != self.db_path:
            return None
        self._taken = True
        try:
            return self._reader.result()
        except Exception:  # the report's own read meets the same problem and names it
            return None

    def __enter__(self) -> ScoresReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self._reader.__exit__(*exc)
