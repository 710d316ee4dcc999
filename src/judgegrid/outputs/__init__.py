"""What a run hands back: summary.md, tables/*.csv, report.html and its figures, and the scores
exported as Ragas' result table. The report computes no statistics of its own.

May import: ``analyses``, ``store`` (a run directory), ``inputs``, ``metrics`` and ``core``;
not ``calls`` or ``labels``.
"""
