"""Why the labelling page asks about a sample, where only one judge's rating stands behind it."""

from __future__ import annotations

import numpy as np

from judgegrid.analyses import label_queue, preference_queue
from judgegrid.analyses.decision.selection import label_priority
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


def _greedy(table) -> list[str]:
    """The queue's spread as its docstring says it, one sample at a time over every sample
    left: the highest priority / (1 + picks made in its quarter of the range), ties to the
    smallest id."""
    part = {s: min(int(m * 4), 3) for s, m in table["mean"].clip(0, 1).items()}
    left = dict(table["priority"].items())
    taken = dict.fromkeys(range(4), 0)
    order = []
    while left:
        top = max(p / (1 + taken[part[s]]) for s, p in left.items())
        sid = min(s for s, p in left.items() if p / (1 + taken[part[s]]) == top)
        taken[part[sid]] += 1
        order.append(sid)
        del left[sid]
    return order


def test_the_queue_spreads_its_picks_as_the_plain_greedy_does_and_words_each_alone():
    """300 samples of three judges, ratings on five levels (many equal priorities, spread
    over the range) and one judge missing some: the queue's order is the plain greedy's (which
    looks at every sample at every step), and a sample's reasons are those it gets in a queue
    of its own (the queue words samples alike once)."""
    rng = np.random.default_rng(5)
    values = {
        (METRIC, judge, "", 0, 0, f"s{k:03d}", 0): float(rng.integers(0, 5) / 4)
        for k in range(300)
        for judge in ("a", "b", "c")
        if judge != "c" or k % 7
    }
    scores = scores_frame(values)
    queue = label_queue(scores, METRIC)
    table, _ = label_priority(scores, METRIC)
    assert queue["sample_id"].tolist() == _greedy(table)
    assert table["priority"].value_counts().max() > 20  # ties the order must break alike
    for sid in ("s000", "s007", "s123", "s299"):
        alone = label_queue(scores[scores["sample_id"] == sid], METRIC).iloc[0]
        row = queue.set_index("sample_id").loc[sid]
        assert (row["reason"], row["blind_reason"]) == (alone["reason"], alone["blind_reason"])
