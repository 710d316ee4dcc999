"""The scores table as the analyses read it: the grid's axes and the summary tables
(``tables``), a configuration's rating of a sample and the missing-data rules (``ratings``), a
criterion's answers and people's labels (``criteria``), juries as virtual judges (``juries``),
and calls, tokens and cost (``usage``).

May import: ``core`` (value types); nothing else of judgegrid, ``analyses.stats`` included (the
two are the floor of ``analyses``, side by side).
"""
