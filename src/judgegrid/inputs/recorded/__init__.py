"""Verdicts recorded elsewhere, read as they are: one module per format, each turning its files
into one ``Recorded`` value (``verdicts.py``): the samples, one row per verdict (judge, sample,
metric or criterion, repeat, the order a pair was shown in, where the row came from) and the
people's labels or known truth. ``run.importing`` writes any ``Recorded`` as a run directory, so a
new format (promptfoo, Inspect, Ragas, DeepEval) is one more module here and a line in
``formats.READERS``, the writer untouched. Readers do no analysis and call no model.
"""
