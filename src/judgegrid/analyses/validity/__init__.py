"""Does a judge agree with people, and does it catch what it should? Preference pairs and
designed contrasts (``pairs``), people's labels, their own agreement and the Alternative
Annotator Test (``people``), a criterion's answers against people (``criteria``), calibration
of log-probability weighted judges (``calibration``), and probes: copies made worse in known
ways (``probes``).

May import: ``analyses.stats``, ``analyses.frames`` and ``core``; not ``consistency`` beside
it, nor anything above.
"""
