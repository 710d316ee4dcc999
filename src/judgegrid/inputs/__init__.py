"""What a user hands in: the model matrix, the data set in any of its formats, the probes made
from it, and the cells and shards they unroll into.

Every reader names the file, field or sample at fault. ``demo.jsonl`` is the demo data set.

May import: ``metrics`` (the metric names a matrix may use) and ``core``.
"""
