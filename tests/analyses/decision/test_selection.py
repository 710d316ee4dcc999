"""Why the labelling page asks about a sample, where only one judge's rating stands behind it."""

from __future__ import annotations

from judgegrid.analyses import label_queue, preference_queue
from support.frames import scores_frame

METRIC = "faithfulness"


def test_a_sample_one_judge_scored_is_not_said_to_have_judges_agreeing():
    """A run of one judge (or a sample only one judge scored) has no "the judges agree": the
    page said so anyway, on every sample, blind or not."""
    scores = scores_frame(
        {
            (METRIC, "solo", "", 0, 0, "s1", 0): 0.2,
            (METRIC, "solo", "", 0, 0, "s2", 0): 0.9,
            (METRIC, "duo", "", 0, 0, "s2", 0): 0.88,
        }
    )
    queue = label_queue(scores, METRIC).set_index("sample_id")
    assert "judges agree" not in queue.loc["s1", "blind_reason"]
    assert queue.loc["s1", "blind_reason"].startswith("one judge scored this one")
    assert queue.loc["s1", "reason"].startswith("only solo scored this one (0.20)")
    # two judges within 0.05 of each other: they do agree, and the words stay
    assert queue.loc["s2", "blind_reason"].startswith("the judges agree on this one")


def test_a_pair_one_judge_compared_is_not_said_to_have_judges_agreeing():
    scores = scores_frame(
        {
            ("m", "solo", "", 0, 0, "x1", 0): 0.9,
            ("m", "solo", "", 0, 0, "x2", 0): 0.1,
        }
    )
    queue = preference_queue(scores, {"p1": ("x1", "x2")}).set_index("pair")
    assert queue.loc["p1", "blind_reason"] == "one judge compared these; a label checks it"
    assert queue.loc["p1", "reason"] == "only solo compared these (answer 1); a label checks it"
