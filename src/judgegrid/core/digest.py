"""Content digests: the addresses under which answers and vectors are stored and looked up."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def text_sha(text: str) -> str:
    """SHA-256 of a text (UTF-8), in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_sha(value: Any) -> str:
    """SHA-256 of a JSON value written canonically (sorted keys, Unicode unescaped).

    Judge step keys are made this way: the cross-run cache depends on it staying byte-stable.
    """
    return text_sha(json.dumps(value, sort_keys=True, ensure_ascii=False))
