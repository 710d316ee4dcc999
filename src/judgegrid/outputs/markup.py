"""Text made safe for HTML: every string the report shows (sample text, model names) goes
through ``esc``, so a hostile sample's ``<script>`` is shown, never run."""

from __future__ import annotations

import html
from typing import Any


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def breakable(text: Any) -> str:
    """``esc`` with a break allowed after each underscore: a column named
    ``latency_per_score_s`` may take three short lines instead of widening its table past the
    page, while the name still reads (and copies) as one word."""
    return esc(text).replace("_", "_<wbr>")
