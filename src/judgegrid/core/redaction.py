"""Secrets are never echoed: a key-like value is shown as ``sk-…1234`` in every message.

A key can reach a message in two ways: written where a key does not belong (the matrix's
``api_key_env`` holding the key itself, ``extra: {api_key: …}``), and inside a provider's error
text. ``redact_value`` shortens a value known to be secret; ``redact_text`` finds key-shaped
tokens (the prefixes providers use, and long unbroken tokens mixing letters and digits) in any
text. Messages, failure causes and logs pass through ``redact_text`` before they are shown or
written.
"""

from __future__ import annotations

import re
from typing import Any

# Field names whose values are secrets wherever they occur (matrix options, provider arguments).
SECRET_FIELDS = frozenset({"api_key", "apikey", "key", "token", "password", "secret"})

_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9])(?:sk|pk|rk|hf|ghp|gho|ghs|glpat|xox[abpr]|AIza|AKIA|ya29)[-_.]?"
    r"[A-Za-z0-9_\-]{12,}"
)
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-/.])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-/.])")


def redact_value(value: Any) -> str:
    """A secret shortened to what identifies it to its owner: ``sk-…1234``."""
    text = str(value)
    if len(text) < 12:
        return "…"
    head = text[:3]
    return f"{head}…{text[-4:]}"


def _looks_like_key(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    is_hex_digest = len(token) in (40, 64) and all(c in "0123456789abcdef" for c in token)
    return has_digit and has_letter and not is_hex_digest


def redact_text(text: str) -> str:
    """``text`` with every key-shaped token replaced by ``redact_value`` of it."""
    text = _PREFIXED.sub(lambda m: redact_value(m.group(0)), text)
    return _LONG_TOKEN.sub(
        lambda m: redact_value(m.group(0)) if _looks_like_key(m.group(0)) else m.group(0), text
    )


def redact_secret_fields(value: Any) -> Any:
    """A copy of a mapping (nested) with the values of secret-named fields redacted."""
    if isinstance(value, dict):
        return {
            k: redact_value(v)
            if str(k).lower().replace("-", "_") in SECRET_FIELDS
            else redact_secret_fields(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_secret_fields(v) for v in value]
    return value
