"""Value types and errors: the words every other layer speaks.

Plain config (``options``), a sample and its data set, a cell, what a metric asks a judge and the
``ScoreContext`` it is given, the typed rows of a run, content digests, redaction, and the
exception tree whose every error carries ``Problem(where, message)``; and one helper of the
standard library's kind, ``forked``: work in a forked child process, for the layers above that
split a job over two cores.

May import: nothing of judgegrid outside ``core`` (pydantic and the standard library only).
"""
