"""A grid on the fault-injection server (two fake judges, one fake embedding model), and the
key the server expects, planted in the environment; the fault-server and plan tests share it."""

from __future__ import annotations

from typing import Any

from support.demo_sets import ENGLISH_DEMO

KEY_ENV = "JUDGEGRID_FAULT_KEY"
PLANTED = "sk-fault-PLANTED-5f0e1d2c3b4a"
ALL_METRICS = ["response_relevancy", "faithfulness", "context_precision", "context_recall"]


def fault_matrix(url: str, timeout: str = "500ms", **overrides: Any) -> dict[str, Any]:
    """``timeout``: short, so that the server's hanging faults are met quickly."""
    options = {"api_base": url, "api_key_env": KEY_ENV, "timeout": timeout}
    base: dict[str, Any] = {
        "name": "faults",
        "dataset": str(ENGLISH_DEMO),
        "defaults": {
            "judge": {"temperature": 0.0, "max_tokens": 300, "seed": 1, **options},
            "embedding": options,
        },
        "retry": {
            "initial_interval": "1ms",
            "max_interval": "10ms",
            "multiplier": 2,
            "max_attempts": 4,
        },
        "concurrency": {"total": 16, "per_model": 8},
        "judges": [{"id": f"openai/{name}", "label": name} for name in ("fake-a", "fake-b")],
        "embeddings": [{"id": "openai/fake-embed", "label": "embed", "dimensions": [64, 16]}],
        "metrics": ["response_relevancy", "faithfulness"],
        "strictness": [1, 3],
        "repeats": 1,
    }
    base.update(overrides)
    return base
