"""Does a judge agree with people, and does it catch what it should? Preference pairs and
designed contrasts (``pairs``), people's labels, their own agreement and the Alternative
Annotator Test (``people``), a criterion's answers against people (``criteria``), calibration
of log-probability weighted judges (``calibration``), probes: copies made worse in known
ways (``probes``), and the system's score by people's standard (``true_score``).

May import: ``analyses.stats``, ``analyses.frames`` and ``core``; not ``consistency`` beside
it, nor anything above.
"""
