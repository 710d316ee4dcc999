"""Krippendorff's alpha for interval data, for a units x raters table with missing ratings.

alpha = 1 - D_o / D_e with squared differences. Every unit with at least two ratings takes
part ("pairable values"); a unit with a single rating cannot be compared and is left out, as
Krippendorff prescribes. Vectorised: within-unit sums of squared differences are computed from
each unit's centred values, so no Python loop runs over units.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def krippendorff_alpha_interval(table: np.ndarray) -> dict[str, Any]:
    """{'alpha', 'pairable' (values used), 'units' (units used), 'note'}."""
    x = np.asarray(table, dtype=float)
    if x.ndim != 2:
        raise ValueError("alpha needs a 2-D units x raters table")
    present = ~np.isnan(x)
    per_unit = present.sum(axis=1)
    usable = per_unit >= 2
    x, present, per_unit = x[usable], present[usable], per_unit[usable]
    n_values = int(per_unit.sum())
    out: dict[str, Any] = {"alpha": float("nan"), "pairable": n_values, "units": int(usable.sum())}
    if x.shape[1] < 2:
        return out | {"note": "fewer than two raters"}
    if n_values < 2 or out["units"] == 0:
        return out | {"note": "no sample has two ratings"}
    values = np.where(present, x, 0.0)
    unit_means = values.sum(axis=1) / per_unit
    centred = np.where(present, x - unit_means[:, None], 0.0)
    # sum over ordered pairs (i != j) in a unit of (v_i - v_j)^2 = 2 m sum (v - mean)^2
    within = 2 * per_unit * (centred**2).sum(axis=1)
    observed = (within / (per_unit - 1)).sum() / n_values
    pooled = x[present]
    between = 2 * n_values * ((pooled - pooled.mean()) ** 2).sum()
    expected = between / (n_values * (n_values - 1))
    if np.ptp(pooled) == 0:
        return out | {"note": "every rating is the same value"}
    return out | {"alpha": float(1 - observed / expected), "note": ""}
