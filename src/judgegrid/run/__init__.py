"""Running a grid: prepare (every check before the first call), execute on this process or on
workers, resume, score one sample, run preference pairs; the grid runner itself.

May import: ``plan``, ``outputs``, ``labels``, ``calls``, ``store``, ``inputs``, ``metrics``,
``analyses`` and ``core``.
"""
