"""What producing a score, an answer or a vector cost: calls, tokens, money and time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Usage:
    """Calls, tokens in and out, money (None = price unknown, never 0) and time spent."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = 0.0
    latency_s: float = 0.0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        self.latency_s += other.latency_s

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
            "latency_s": self.latency_s,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(**data)

    @classmethod
    def total(cls, *parts: Usage | None) -> Usage:
        """The sum of several usages (None parts are skipped)."""
        out = cls()
        for part in parts:
            if part is not None:
                out.add(part)
        return out
