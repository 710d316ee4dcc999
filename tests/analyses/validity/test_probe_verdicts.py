"""A binary criterion's ``fails-when`` probes: detected when the judge's verdict on the probe is
fail (most of its scored repeats failed), not when its score merely fell from the base's. On a
base the judge fails already, a fall is impossible and a pass is no detection; on a vote that
slips from 3 of 3 to 2 of 3, the verdict is still pass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.validity.probes import judge_detection, probe_pairs, probe_results

# judge -> (the base's repeats, the probe's repeats): 1 pass, 0 fail, None failed to score
JUDGES = {
    "always_passes": ([1, 1, 1], [1, 1, 1]),
    "fails_both": ([0, 0, 0], [0, 0, 0]),  # the base fails already: its probe fails too
    "slips": ([1, 1, 1], [1, 1, 0]),  # fell, but the verdict is still pass
    "fails_probe": ([1, 1, 1], [0, 0, 1]),
    "split": ([1, 1], [1, 0]),  # half and half: no verdict
    "unscored": ([1, 1, 1], [None, None, None]),
}


def frame() -> pd.DataFrame:
    rows = []
    for judge, runs in JUDGES.items():
        for sample, scores in zip(("base", "probe"), runs, strict=True):
            for r, score in enumerate(scores):
                rows.append(
                    {
                        "sample_id": sample,
                        "metric": "on_topic",
                        "judge": judge,
                        "embedding": "",
                        "dimension": 0,
                        "strictness": 1,
                        "repeat": r,
                        "status": "failed" if score is None else "scored",
                        "score": np.nan if score is None else float(score),
                    }
                )
    return pd.DataFrame(rows)


def info(direction: str) -> dict:
    tag = {
        "metric": "on_topic",
        "name": "foreign_response",
        "base": "base",
        "direction": direction,
        "language": "en",
        "fallback": False,
    }
    return {"base": {}, "probe": {"probe": tag}}


def verdict_fail(probe: list) -> bool:
    """The rule, written out: most of the scored repeats are fails."""
    scored = [s for s in probe if s is not None]
    return bool(scored) and sum(s == 0 for s in scored) > len(scored) / 2


def test_a_fails_when_probe_is_detected_by_the_verdict_on_it():
    table = probe_results(frame(), info("fails"))
    got = dict(zip(table["judge"], table["detected"], strict=True))
    assert got == {j: int(verdict_fail(probe)) for j, (_, probe) in JUDGES.items()}
    assert got["always_passes"] == 0 and got["fails_probe"] == 1
    assert got["fails_both"] == 1 and got["slips"] == 0
    assert set(table["kind"]) == {"directional"}
    unscored = table[table["judge"] == "unscored"].iloc[0]
    assert (unscored["pairs"], unscored["failed"]) == (1, 1)


def test_a_fall_still_counts_for_a_metrics_directional_probe():
    table = probe_results(frame(), info("worse"))
    got = dict(zip(table["judge"], table["detected"], strict=True))
    # the old rule on the same scores: a fall, whatever the verdict
    assert got["slips"] == 1 and got["fails_both"] == 0 and got["fails_probe"] == 1


def test_the_card_and_the_brief_read_the_same_verdicts():
    pairs = probe_pairs(frame(), info("fails"))
    detection = judge_detection(pairs, "on_topic").set_index("judge")
    for judge, (_, probe) in JUDGES.items():
        assert detection.loc[judge, "detected"] == int(verdict_fail(probe)), judge
    assert pairs.loc[pairs["judge"] == "slips", "probe_score"].iloc[0] == pytest.approx(2 / 3)
