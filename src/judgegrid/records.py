"""Typed records of a run: one request sent to a model (``CallRecord``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judgegrid.usage import Usage


@dataclass
class CallRecord:
    """One request as sent (secrets removed) and what came back."""

    kind: str  # "completion" or "embedding"
    model: str
    label: str
    step_key: str
    attempt: int
    status: str  # "ok", "error"
    request: dict[str, Any]
    response: str | None = None
    error: str | None = None
    http_status: int | None = None
    finish_reason: str | None = None
    started_at: float = 0.0
    usage: Usage = field(default_factory=Usage)
