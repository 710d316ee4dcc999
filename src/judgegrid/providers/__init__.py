"""How models are reached: litellm, and the in-process models registered with it."""

from __future__ import annotations

from typing import Any


def litellm_module() -> Any:
    """litellm, imported on first use (it takes a second) and told not to print help banners."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def no_sdk_retries(model: str) -> dict[str, Any]:
    """Keyword arguments that stop a provider SDK (openai's retries twice) from retrying on its
    own: every attempt must be judgegrid's, under the matrix's policy, and in the calls table."""
    return {} if model.startswith("local/") else {"max_retries": 0}
