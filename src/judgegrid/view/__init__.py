"""``judgegrid view``: one local app over a run — the decision card, the samples × configurations
grid, one sample's intermediate answers and calls (a probe's with what it changed from its
base), two configurations side by side, and the labelling page — served by the loopback core of
``labels.server``.

It reads the run database through its own read-only SQL, a page at a time, and never sends the
whole run to the browser.

May import: ``labels`` (the labelling page and the server core), ``calls`` (how vectors were
truncated, for the cosines), ``store``, ``inputs``, ``metrics`` (titles, the cosine), ``analyses``
and ``core``; not ``plan``, ``run`` or anything above.
"""
