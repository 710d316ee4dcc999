"""A jury of judges on a criterion votes, as people on a panel would: the majority of a binary or
labels criterion's answers, the median level of a scale, each wording a cell of its own."""

from __future__ import annotations

import pandas as pd
import pytest

from judgegrid.analyses.frames.juries import jury_name, with_juries
from support.frames import scores_frame


def criterion_rows(
    metric: str, answers: dict[tuple[str, str, int], float], **extra
) -> pd.DataFrame:
    """{(judge, sample_id, wording): answer} as a criterion's scored rows."""
    frame = pd.concat(
        [scores_frame({(metric, j, "", 0, 0, s, 0): a}) for (j, s, _), a in answers.items()],
        ignore_index=True,
    )
    frame["wording"] = [w for (_, _, w) in answers]
    frame["answer"] = frame["score"]
    frame["weighting"] = "none"
    for column, values in extra.items():
        frame[column] = values
    return frame


def jury_of(scores: pd.DataFrame, members: list[str], votes) -> pd.DataFrame:
    out = with_juries(scores, [members], votes)
    return out[out["judge"] == jury_name(members)].set_index(["sample_id", "wording"])


def test_a_jury_takes_the_majority_of_a_binary_criterion_per_wording():
    answers = {
        ("a", "s1", 0): 1.0, ("b", "s1", 0): 1.0, ("c", "s1", 0): 0.0,
        ("a", "s1", 1): 0.0, ("b", "s1", 1): 1.0, ("c", "s1", 1): 0.0,
    }  # fmt: skip
    jury = jury_of(criterion_rows("polite", answers), ["a", "b", "c"], {"polite": "majority"})
    assert jury.loc[("s1", 0), "answer"] == 1.0 and jury.loc[("s1", 0), "score"] == 1.0
    assert jury.loc[("s1", 1), "answer"] == 0.0  # not the mean 1/3: a vote
    assert list(jury["weighting"]) == ["none", "none"]


def test_a_split_jury_on_labels_takes_the_lower_label_and_a_scale_the_median():
    labels = {("a", "s1", 0): 1.0, ("b", "s1", 0): 0.5, ("c", "s1", 0): 0.5, ("d", "s1", 0): 1.0}
    jury = jury_of(criterion_rows("correct", labels), ["a", "b", "c", "d"], {"correct": "majority"})
    assert jury.loc[("s1", 0), "answer"] == 0.5
    levels = {("a", "s1", 0): 1.0, ("b", "s1", 0): 4.0, ("c", "s1", 0): 5.0}
    jury = jury_of(criterion_rows("helpful", levels), ["a", "b", "c"], {"helpful": "median"})
    assert jury.loc[("s1", 0), "answer"] == 4.0


def test_a_weighted_jury_scores_its_members_mean_probability():
    answers = {("a", "s1", 0): 1.0, ("b", "s1", 0): 0.0, ("c", "s1", 0): 1.0}
    scores = criterion_rows("polite", answers, weighting="logprobs")
    scores["score"] = [0.9, 0.2, 0.7]  # P(pass) of each member
    jury = jury_of(scores, ["a", "b", "c"], {"polite": "majority"})
    assert jury.loc[("s1", 0), "answer"] == 1.0
    assert jury.loc[("s1", 0), "score"] == pytest.approx(0.6)
    assert jury.loc[("s1", 0), "weighting"] == "logprobs"
