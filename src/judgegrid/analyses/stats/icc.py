"""Intraclass correlations ICC(1), ICC(2,1), ICC(3,1) with 95% confidence intervals, and the
Spearman-Brown count of raters (or repeats) whose mean reaches a target reliability.

Shrout & Fleiss (1979) from a two-way ANOVA of an n targets x k raters table; confidence
intervals as McGraw & Wong (1996). Rows with a missing rating are dropped (listwise), because
the ANOVA needs a complete table. An undefined value is NaN with the reason in ``note``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

ICC_KEYS = (
    "icc1",
    "icc1_low",
    "icc1_high",
    "icc2",
    "icc2_low",
    "icc2_high",
    "icc3",
    "icc3_low",
    "icc3_high",
)


def icc(table: np.ndarray, ci: float = 0.95) -> dict[str, Any]:
    """All three single-rater ICCs of a targets x raters table (NaN rows dropped listwise)."""
    x = np.asarray(table, dtype=float)
    if x.ndim != 2:
        raise ValueError("icc needs a 2-D targets x raters table")
    x = x[~np.isnan(x).any(axis=1)]
    n, k = x.shape
    out: dict[str, Any] = dict.fromkeys(ICC_KEYS, float("nan")) | {"n": n, "k": k, "note": ""}
    if k < 2:
        return out | {"note": "fewer than two raters"}
    if n < 2:
        return out | {"note": "fewer than two samples scored by every rater"}
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_total = ((x - grand) ** 2).sum()
    ss_error = max(ss_total - ss_rows - ss_cols, 0.0)
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_error / ((n - 1) * (k - 1))
    msw = (ss_cols + ss_error) / (n * (k - 1))
    if msr == 0 and msw == 0:
        return out | {"note": "no variance at all (every rating equal)"}
    out |= _icc1(msr, msw, n, k, ci)
    if msr == 0 and mse == 0:
        return out | {"note": "no variance between samples nor residual"}
    out |= _icc2(msr, msc, mse, n, k, ci)
    out |= _icc3(msr, mse, n, k, ci)
    return out


def _ratio(num: float, den: float) -> float:
    return float(num / den) if den != 0 else float("nan")


def _icc1(msr: float, msw: float, n: int, k: int, ci: float) -> dict[str, float]:
    value = _ratio(msr - msw, msr + (k - 1) * msw)
    q = 1 - (1 - ci) / 2
    df1, df2 = n - 1, n * (k - 1)
    f_obs = _ratio(msr, msw) if msw > 0 else float("inf")
    f_low = f_obs / stats.f.ppf(q, df1, df2)
    f_high = f_obs * stats.f.ppf(q, df2, df1)
    return {
        "icc1": value,
        "icc1_low": _bound(f_low, k),
        "icc1_high": _bound(f_high, k),
    }


def _icc3(msr: float, mse: float, n: int, k: int, ci: float) -> dict[str, float]:
    value = _ratio(msr - mse, msr + (k - 1) * mse)
    q = 1 - (1 - ci) / 2
    df1, df2 = n - 1, (n - 1) * (k - 1)
    f_obs = _ratio(msr, mse) if mse > 0 else float("inf")
    f_low = f_obs / stats.f.ppf(q, df1, df2)
    f_high = f_obs * stats.f.ppf(q, df2, df1)
    return {"icc3": value, "icc3_low": _bound(f_low, k), "icc3_high": _bound(f_high, k)}


def _bound(f_value: float, k: int) -> float:
    if np.isinf(f_value):
        return 1.0
    return float((f_value - 1) / (f_value + k - 1))


def _icc2(msr: float, msc: float, mse: float, n: int, k: int, ci: float) -> dict[str, float]:
    value = _ratio(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n)
    q = 1 - (1 - ci) / 2
    if mse == 0:
        return {"icc2": value, "icc2_low": float("nan"), "icc2_high": float("nan")}
    fc = msc / mse
    a = k * value * fc + n * (1 + (k - 1) * value) - k * value
    v_num = (k - 1) * (n - 1) * a**2
    v_den = (n - 1) * k**2 * value**2 * fc**2 + (n * (1 + (k - 1) * value) - k * value) ** 2
    v = v_num / v_den if v_den > 0 else float("nan")
    f_up = stats.f.ppf(q, n - 1, v)
    f_lo = stats.f.ppf(q, v, n - 1)
    c = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_up * mse) / (f_up * c + n * msr)
    high = n * (f_lo * msr - mse) / (c + n * f_lo * msr)
    return {"icc2": value, "icc2_low": float(low), "icc2_high": float(high)}


RELIABILITY_TARGET = 0.8
ROUNDING_ZERO = 1e-9  # a reliability this close to 0 is 0 (float noise of cancelling sums)


def spearman_brown_needed(reliability: float, target: float = RELIABILITY_TARGET) -> float:
    """How many parallel measurements (repeats or judges) averaged reach ``target``.

    Spearman-Brown: rho_k = k*rho / (1 + (k-1)*rho), solved for k and rounded up. NaN when the
    single-measurement reliability is undefined or not positive (no number of averages helps),
    zero within rounding error included: an ICC of 4.5e-17, mean squares that cancel, asked
    for 8.8e16 judges in the demo's report.
    """
    if not np.isfinite(reliability) or reliability <= ROUNDING_ZERO:
        return float("nan")
    if reliability >= target:
        return 1.0
    return float(np.ceil(target * (1 - reliability) / (reliability * (1 - target)) - 1e-9))
