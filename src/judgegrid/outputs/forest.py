"""The evidence behind one metric's verdict as a forest plot (dot and whisker), in SVG.

One row per judge measured on the deciding rung: its figure as a dot, its 95% interval as a
whisker, a dashed line at chance. The chosen judge is green and filled, the judges it is not
separated from green and hollow, the others grey (red: a judge flagged, as in a pairwise
criterion's position bias, drawn by ``position_block``). Plain SVG text, so report.html embeds
it and the view serves it as an image: a person sees at a glance which intervals clear chance
and which overlap the chosen one. Every name is escaped; a name too long for its room is
shortened so that no two rows read the same (``short_labels``), its full name on hover.
"""

from __future__ import annotations

import math

import pandas as pd

from judgegrid.outputs.markup import esc
from judgegrid.outputs.short_labels import short_labels

ROW = 22
LABEL = 210  # the judges' names: a jury's with its embedding model, its members shortened
PLOT = 250
FIGURES = 140  # "0.75 [0.31, 0.93]", then the measure under the axis
TOP, BOTTOM = 8, 30
WIDTH = LABEL + PLOT + FIGURES
NAME_CHARS = 26
_COLOURS = {"chosen": "#1a7f37", "set": "#1a7f37", "measured": "#777", "flagged": "#c33"}
# Correlations run from -1; shares (accuracy, detection) from 0.
_SIGNED = {"rho", "tau-b"}
NAMESPACE = ' xmlns="http://www.w3.org/2000/svg"'


def forest_svg(block: pd.DataFrame, standalone: bool = True) -> str:
    """The forest plot of one metric's rows of ``decision_evidence`` (empty: ""): a file of its
    own (an image, with SVG's namespace), or ``standalone`` False inline in HTML, which needs
    none (and so names no URL: report.html loads nothing from elsewhere)."""
    if block.empty:
        return ""
    rows = block.reset_index(drop=True)
    measure = str(rows["measure"].iloc[0])
    lo = -1.0 if measure in _SIGNED else 0.0
    height = TOP + ROW * len(rows) + BOTTOM

    def x(value: float) -> float:
        return LABEL + (min(max(value, lo), 1.0) - lo) / (1.0 - lo) * PLOT

    parts = [
        f'<svg{NAMESPACE if standalone else ""} class="forest" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui,sans-serif" '
        f'font-size="12" role="img" aria-label="{esc(measure)} of each judge, 95% intervals">',
        _axis(x, lo, TOP + ROW * len(rows), measure),
        _chance(x, float(rows["chance"].iloc[0]), TOP, TOP + ROW * len(rows)),
    ]
    names = short_labels([str(judge) for judge in rows["judge"]], NAME_CHARS)
    parts += [
        _row(x, TOP + ROW * k + ROW / 2, r, names[k]) for k, r in enumerate(rows.to_dict("records"))
    ]
    return "".join(parts) + "</svg>"


def _row(x, y: float, r: dict, shown: str) -> str:
    """One judge's dot and whisker, ``shown`` its name as written (the full one on hover)."""
    colour = _COLOURS.get(str(r["role"]), "#777")
    name = str(r["judge"])
    value, low, high = float(r["value"]), float(r["low"]), float(r["high"])
    weight = ' font-weight="700"' if r["role"] == "chosen" else ""
    fill = colour if r["role"] == "chosen" else "#fff"
    whisker = (
        f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
        f'stroke="{colour}" stroke-width="2"/>'
        if math.isfinite(low) and math.isfinite(high)
        else ""
    )
    interval = f" [{low:.2f}, {high:.2f}]" if math.isfinite(low) else ""
    return (
        f"<g><title>{esc(name)}: {value:.2f}{interval}, n {int(r['n'])} ({esc(r['role'])})"
        f"</title>"
        f'<text x="{LABEL - 8}" y="{y + 4:.1f}" text-anchor="end"{weight}>{esc(shown)}</text>'
        f"{whisker}"
        f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="{colour}" '
        f'stroke-width="2"/>'
        f'<text x="{LABEL + PLOT + 10}" y="{y + 4:.1f}" fill="#444">{value:.2f}{interval}</text>'
        "</g>"
    )


def _axis(x, lo: float, y: float, measure: str) -> str:
    ticks = [lo + (1.0 - lo) * k / 4 for k in range(5)]
    marks = "".join(
        f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{y}" y2="{y + 4}" stroke="#999"/>'
        f'<text x="{x(t):.1f}" y="{y + 16}" text-anchor="middle" fill="#555">{t:g}</text>'
        for t in ticks
    )
    return (
        f'<line x1="{LABEL}" x2="{LABEL + PLOT}" y1="{y}" y2="{y}" stroke="#999"/>{marks}'
        f'<text x="{LABEL + PLOT + 10}" y="{y + 16}" fill="#555">{esc(measure)}</text>'
    )


def _chance(x, chance: float, top: float, bottom: float) -> str:
    if not math.isfinite(chance):
        return ""
    return (
        f'<line x1="{x(chance):.1f}" x2="{x(chance):.1f}" y1="{top}" y2="{bottom}" '
        f'stroke="#c33" stroke-dasharray="4 3"><title>chance: {chance:g}</title></line>'
    )


def position_block(position: pd.DataFrame) -> pd.DataFrame:
    """One pairwise criterion's rows of ``pairwise_position`` as a forest's rows: each judge's
    first-position rate with its Wilson interval against 0.5 (unbiased), red where flagged."""
    return pd.DataFrame(
        {
            "judge": position["judge"],
            "measure": "first-position rate",
            "value": position["first_rate"],
            "low": position["ci_low"],
            "high": position["ci_high"],
            "chance": 0.5,
            "n": position["verdicts"],
            "role": [
                "flagged" if str(flag) not in ("", "nan") else "measured"
                for flag in position["flag"].fillna("")
            ],
        }
    )
