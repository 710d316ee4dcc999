"""Synthetic scores tables in the run database's shape, for the analyses tests."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd


def scores_frame(
    values: dict[tuple[str, str, str, int, int, str, int], float | None],
) -> pd.DataFrame:
    """{(metric, judge, embedding, dimension, strictness, sample_id, repeat): score or None
    (None = a failed cell)} as a scores table."""
    rows = []
    for (metric, judge, emb, dim, strict, sample, rep), score in values.items():
        rows.append(
            {
                "sample_id": sample,
                "metric": metric,
                "judge": judge,
                "embedding": emb,
                "dimension": dim,
                "strictness": strict,
                "repeat": rep,
                "status": "failed" if score is None else "scored",
                "score": score,
                "reason": None,
                "error": "boom" if score is None else None,
                "details": None,
                "calls": 2 + strict,
                "tokens_in": 100 * (1 + strict),
                "tokens_out": 10,
                "cost": 0.001 * (1 + strict),
                "latency_s": 0.5 * (1 + strict),
                "finished_at": 0.0,
            }
        )
    return pd.DataFrame(rows)


def simulated(
    seed: int = 0,
    samples: int = 30,
    judges: tuple[str, ...] = ("a", "b", "c"),
    dims: tuple[int, ...] = (0,),
    repeats: int = 3,
    metric: str = "faithfulness",
    sd_sample: float = 0.2,
    sd_judge: float = 0.1,
    sd_judge_sample: float = 0.05,
    sd_residual: float = 0.05,
) -> pd.DataFrame:
    """Scores from a known random-effects model (not clipped to [0, 1], on purpose)."""
    rng = np.random.default_rng(seed)
    s_eff = rng.normal(scale=sd_sample, size=samples)
    j_eff = dict(zip(judges, rng.normal(scale=sd_judge, size=len(judges)), strict=True))
    values = {}
    emb = "" if dims == (0,) else "e"
    for j, (i, _) in itertools.product(judges, enumerate(range(samples))):
        js = rng.normal(scale=sd_judge_sample)
        for d, r in itertools.product(dims, range(repeats)):
            score = 0.5 + s_eff[i] + j_eff[j] + js + rng.normal(scale=sd_residual)
            values[(metric, j, emb, d, 0, f"s{i:03d}", r)] = float(score)
    return scores_frame(values)


LANGUAGES = {f"s{i}": lang for i, lang in enumerate(["en"] * 4 + ["vi"] * 4 + ["zh"] * 4)}


def multilingual(seed: int = 0) -> pd.DataFrame:
    """Two judges × two embeddings of ResponseRelevancy and a judge-only metric, two repeats;
    the 'mini' embedding scores Vietnamese and Chinese low, as an English-only model would;
    a few cells failed and one sample's every repeat failed for judge b."""
    rng = np.random.default_rng(seed)
    values: dict = {}
    for judge, sample, rep in itertools.product(("a", "b"), LANGUAGES, (0, 1)):
        for emb in ("mini", "e5"):
            low = emb == "mini" and LANGUAGES[sample] != "en"
            score = float(np.clip(rng.normal(0.4 if low else 0.8, 0.1), 0, 1))
            values[("response_relevancy", judge, emb, 384, 1, sample, rep)] = score
        values[("faithfulness", judge, "", 0, 0, sample, rep)] = float(rng.uniform())
    values[("faithfulness", "a", "", 0, 0, "s5", 1)] = None
    values[("faithfulness", "b", "", 0, 0, "s9", 0)] = None
    values[("faithfulness", "b", "", 0, 0, "s9", 1)] = None
    return scores_frame(values)
