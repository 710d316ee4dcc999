"""NoiseSensitivity (Ragas ``noise_sensitivity``): how often the response is wrong in a way the
retrieved contexts explain. Lower is better.

Pure scoring only so far; the prompts and the judge steps (shared with Faithfulness) come with
issue 3.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from judgegrid.errors import ScoringError

Mode = Literal["relevant", "irrelevant"]


def noise_sensitivity_score(
    ref_vs_context: np.ndarray,
    response_vs_context: np.ndarray,
    response_vs_reference: np.ndarray,
    mode: Mode = "relevant",
) -> float:
    """Score from the three NLI verdict tables.

    ref_vs_context[g, k]: reference statement g is supported by context k (G×K);
    response_vs_context[a, k]: response statement a is supported by context k (A×K);
    response_vs_reference[a]: response statement a is supported by the reference (A).
    """
    r2gt = np.asarray(ref_vs_context, dtype=bool)
    r2a = np.asarray(response_vs_context, dtype=bool)
    gt2a = np.asarray(response_vs_reference, dtype=bool)
    if r2a.shape[0] == 0:
        raise ScoringError("the response has no statements; noise sensitivity is undefined")
    if r2gt.shape[0] == 0:
        raise ScoringError("the reference has no statements; noise sensitivity is undefined")
    if r2gt.shape[1] != r2a.shape[1] or r2a.shape[0] != gt2a.shape[0]:
        raise ScoringError("the NLI verdict tables do not fit together (statement/context counts)")
    incorrect = ~gt2a
    relevant_ctx = r2gt.any(axis=0)
    rel_faithful = (relevant_ctx[None, :] & r2a).any(axis=1)
    if mode == "relevant":
        return float(np.mean(rel_faithful & incorrect))
    irr_faithful = (~relevant_ctx[None, :] & r2a).any(axis=1) & ~rel_faithful
    return float(np.mean(irr_faithful & incorrect))
