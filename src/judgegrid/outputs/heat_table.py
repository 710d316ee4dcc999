"""A square of numbers as an HTML table coloured by value: a heatmap the browser lays out.

The agreement heatmaps (tau-b and mean |difference| between every two raters, per group) were
matplotlib figures whose per-cell text took most of ``judgegrid report``'s drawing time on a
large run. As a table they cost nothing to draw, stay sharp at any zoom, and their numbers can
be searched and copied. The colours are matplotlib's colour maps, so they read as its figures do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize, to_hex

from judgegrid.outputs.markup import esc

MISSING = "#eeeeee"


def heat_table(
    values: np.ndarray,
    rows: Sequence[str],
    columns: Sequence[str],
    scale: tuple[float, float, str],
    caption: str,
) -> str:
    """``values`` (rows × columns) as a table; ``scale``: (low, high, matplotlib colour map)."""
    low, high, cmap = scale
    rgba = colormaps[cmap](Normalize(low, high, clip=True)(values))  # every cell's colour at once
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><th>{esc(name)}</th>"
        + "".join(_cell(float(v), rgba[i, j]) for j, v in enumerate(values[i]))
        + "</tr>"
        for i, name in enumerate(rows)
    )
    return (
        f'<table class="heat"><caption>{esc(caption)}</caption>'
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _cell(value: float, rgba: np.ndarray) -> str:
    if not math.isfinite(value):
        return f'<td style="background:{MISSING}">–</td>'
    r, g, b = (float(c) for c in rgba[:3])
    ink = "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "#fff"
    return f'<td style="background:{to_hex((r, g, b))};color:{ink}">{value:.2f}</td>'
