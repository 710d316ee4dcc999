"""What a run keeps on disk: the run database (``run.sqlite``), the cross-run cache of answers
and vectors, how both open SQLite, and a run directory's layout.

May import: ``inputs`` (a run directory holds its matrix and data set) and ``core``.
"""
