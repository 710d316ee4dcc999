"""How models are reached: litellm (``gateway``), and the in-process models registered with it
(``local``, loaded only when a matrix names a ``local/`` model); ``serve`` puts those models
behind OpenAI-compatible servers on 127.0.0.1 (``llama_server``) for `judgegrid serve-local`;
``logprobs`` reads (and the local models write) the tokens' log-probabilities of a reply.

May import: ``core``.
"""

from __future__ import annotations

from judgegrid.calls.providers import local
from judgegrid.calls.providers.local_models import JUDGES


def register_local_models(model_ids: list[str]) -> None:
    """Make the embedded models reachable when any id names them (loading them is deferred);
    the local judges among them will run side by side, so they share the free cores."""
    if any(str(m).startswith("local/") for m in model_ids):
        local.register(judges_side_by_side=len({m for m in model_ids if m in JUDGES}))
