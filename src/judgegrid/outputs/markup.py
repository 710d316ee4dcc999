"""Text made safe for HTML: every string the report shows (sample text, model names) goes
through ``esc``, so a hostile sample's ``<script>`` is shown, never run."""

from __future__ import annotations

import html
from typing import Any


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)
