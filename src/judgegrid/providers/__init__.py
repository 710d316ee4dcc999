"""How models are reached: litellm, and the in-process models registered with it."""

from __future__ import annotations

from typing import Any


def litellm_module() -> Any:
    """litellm, imported on first use (it takes a second) and told not to print help banners."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def register_local_models(model_ids: list[str]) -> None:
    """Make the embedded models reachable when any id names them (loading them is deferred)."""
    if any(str(m).startswith("local/") for m in model_ids):
        from judgegrid.providers import local

        local.register()
