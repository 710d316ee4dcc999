"""How models are reached: litellm, and the in-process models registered with it."""

from __future__ import annotations

from typing import Any


def litellm_module() -> Any:
    """litellm, imported on first use (it takes a second) and told not to print help banners."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm
