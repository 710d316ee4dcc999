"""Does an A-against-B judge prefer the better answer, in both orders? Verdicts combined by
MT-Bench's rule, consistency and first-position rate, validity with ties stated, juries, probe
moves and win rates (``verdicts``), and a run's pairwise criteria read from its scores into
those tables and the card's evidence (``tables``).

May import: ``analyses.validity``, ``analyses.stats``, ``analyses.frames`` and ``core``; not
``decision`` beside it, nor ``bundle``.
"""
