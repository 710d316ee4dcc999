"""Does a judge agree with itself and with other judges? How far the scores move: variance
components and the decision study (``variance``), repeat to repeat (``stability``), judge to
judge and embedding to embedding (``agreement``), per sample (``disagreement``), by language
(``languages``), with a reworded criterion (``wording``), a criterion's agreement by statistics
fitting its type (``criterion_agreement``), and the cells without log-probabilities
(``weighting``).

May import: ``analyses.stats``, ``analyses.frames`` and ``core``; not ``validity`` beside it,
nor anything above.
"""
