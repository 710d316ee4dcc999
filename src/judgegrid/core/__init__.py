"""Value types and errors: the words every other layer speaks.

Plain config (``options``), a sample and its data set, a cell, what a metric asks a judge and the
``ScoreContext`` it is given, the typed rows of a run, content digests, redaction, and the
exception tree whose every error carries ``Problem(where, message)``.

May import: nothing of judgegrid outside ``core`` (pydantic and the standard library only).
"""
