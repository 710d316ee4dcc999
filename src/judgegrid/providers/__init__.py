"""How models are reached: litellm, and the in-process models registered with it."""

from __future__ import annotations

from typing import Any


def litellm_module() -> Any:
    """litellm, imported on first use (it takes a second) and told not to print help banners."""
    import litellm

    litellm.suppress_debug_info = True
    # litellm's OpenAI embedding path reads max_retries=0 as "unset" (``0 or DEFAULT``) and lets
    # the SDK retry twice unseen; judgegrid makes and records every attempt itself.
    litellm.DEFAULT_MAX_RETRIES = 0
    return litellm


def register_local_models(model_ids: list[str]) -> None:
    """Make the embedded models reachable when any id names them (loading them is deferred)."""
    if any(str(m).startswith("local/") for m in model_ids):
        from judgegrid.providers import local

        local.register()


def no_sdk_retries(model: str) -> dict[str, Any]:
    """Keyword arguments that stop a provider SDK (openai's retries twice) from retrying on its
    own: every attempt must be judgegrid's, under the matrix's policy, and in the calls table."""
    return {} if model.startswith("local/") else {"max_retries": 0}
