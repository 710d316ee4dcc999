"""The grid's coordinates: one cell is one score of one sample under one configuration.

A judge-only metric carries the empty embedding ``NO_EMBEDDING`` and dimension 0; a metric
without a strictness parameter carries strictness 0. ``wording`` is a criterion's: 0 its
definition, k its k-th other wording (built-in metrics: 0). It is the last field, with a
default, so that a cell written without it is a built-in metric's. The planner (``tasks.py``)
makes cells, the runner scores them and the store keys its ``scores`` table on them.
"""

from __future__ import annotations

from typing import NamedTuple

NO_EMBEDDING = ""


class Cell(NamedTuple):
    metric: str
    judge: str
    embedding: str
    dimension: int
    strictness: int
    sample_id: str
    repeat: int
    wording: int = 0
