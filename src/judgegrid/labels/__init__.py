"""People's labels: the labelling page (a loopback server and its static files) and label files
imported, exported and gathered for the analyses.

May import: ``analyses`` (which samples to label first), ``store``, ``inputs``, ``metrics`` and
``core``; not ``calls`` or ``outputs``.
"""
