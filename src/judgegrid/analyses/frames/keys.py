"""A key column (sample ids, pairs) looked up among many values.

pandas' ``isin`` on a column of Arrow strings makes a pyarrow scalar of each value to look up:
0.7 s for 100,000 sample ids, where the same look-up on objects takes 0.04 s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def among(column: pd.Series | pd.Index, values: pd.Series | pd.Index) -> np.ndarray:
    """``column.isin(values)`` as a boolean array, for many values: a set of them, once, and
    the column looked up as objects."""
    return pd.Series(column).astype(object).isin(set(values.to_numpy(object))).to_numpy(bool)
