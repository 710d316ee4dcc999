"""`judgegrid plan`: the requests a grid will make, found by running each metric on stand-in
clients (``placeholders`` answer them), then their tokens, cost and time, and the table.

Calls no model. May import: ``calls`` (their step keys and sharing rules), ``store``, ``inputs``,
``metrics`` and ``core``.
"""
