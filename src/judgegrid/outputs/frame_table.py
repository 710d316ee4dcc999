"""A table of the analyses (a DataFrame) as an HTML table that fits the report's column.

Every column is as wide as its longest unbroken word at the least, so a header such as
``latency_per_score_s`` made a column of short numbers wide, and a dozen of them a table wider
than a 1280-pixel window. Here a header may break after an underscore, a number is
right-aligned and never broken, and text is left-aligned and wraps at its spaces and hyphens.
Every string is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import pandas as pd

from judgegrid.outputs.markup import breakable, esc

MISSING = "–"


def frame_table(frame: pd.DataFrame, index: bool = False) -> str:
    """``frame`` as an HTML table; ``index``: its index as the first column, each a row's
    header."""
    numeric = [_numeric(frame.iloc[:, k]) for k in range(frame.shape[1])]
    head = "".join(_header(c, n) for c, n in zip(frame.columns, numeric, strict=True))
    if index:
        head = f"<th>{breakable(frame.index.name or '')}</th>{head}"
    rows = "".join(
        "<tr>"
        + (f"<th>{esc(cell_text(label))}</th>" if index else "")
        + "".join(_cell(v, n) for v, n in zip(values, numeric, strict=True))
        + "</tr>"
        for label, values in zip(frame.index, frame.itertuples(index=False, name=None), strict=True)
    )
    return f'<table class="frame"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def cell_text(value: object) -> str:
    """A cell as the report writes it: a missing value as a dash, a float in three decimals
    (``number``), anything else as itself."""
    if is_missing(value):
        return MISSING
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, float | np.floating):
        return number(float(value))
    return str(value)


def is_missing(value: object) -> bool:
    """Whether a cell holds no value: None, NaN, pandas' NA or NaT (a list or text is a value)."""
    if isinstance(value, float | np.floating):
        return math.isnan(value)
    return value is None or value is pd.NA or value is pd.NaT


def number(value: float) -> str:
    """Three decimals; a small value (a cost per score of $0.00005) in two significant digits,
    never as 0.000."""
    if value == 0 or abs(value) >= 0.001 or not math.isfinite(value):
        return f"{value:.3f}"
    return f"{value:.2g}"


def _numeric(column: pd.Series) -> bool:
    """Whether a column holds numbers (right-aligned, never broken); booleans are words."""
    dtype = column.dtype
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _header(name: Hashable, numeric: bool) -> str:
    return f'<th class="n">{breakable(name)}</th>' if numeric else f"<th>{breakable(name)}</th>"


def _cell(value: object, numeric: bool) -> str:
    text = esc(cell_text(value))
    return f'<td class="n">{text}</td>' if numeric else f"<td>{text}</td>"
