"""Which judge to trust, how sure, and what to label next: the rule's outcome on one rung
(``outcome``), the evidence ladder (``ladder``), the card (``card``), judges ranked against
cost (``recommendation``), what a larger strictness buys (``strictness``) and the labelling
queue (``selection``).

May import: ``analyses.consistency``, ``analyses.validity``, ``analyses.stats``,
``analyses.frames`` and ``core``; not ``pairwise`` beside it, nor ``bundle``.
"""
