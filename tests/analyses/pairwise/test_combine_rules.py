"""The two rules that combine a pair's two orders (``core.pairwise``), and the accuracy under
both side by side (``rule_accuracy``, ``group_accuracy``).

- JudgeBench's sum rule against the paper's own words (section 4: both A>B, or one A>B and the
  other a tie, is A>B; inconsistent orders and two ties are wrong), every pair of verdicts;
- MT-Bench's rule unchanged (the default) and a criterion's ``combine`` only for pairwise ones;
- the accuracy by each rule on a verdicts table written by hand, its interval against
  statsmodels' Wilson; per group the same counts.
"""

from __future__ import annotations

import itertools

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from judgegrid.analyses.pairwise.verdicts import combined, group_accuracy, rule_accuracy
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import OptionError
from judgegrid.core.pairwise import combine, combine_by_sum, combine_orders

VERDICTS = ("a", "b", "tie", None)


def judgebench_says(first: str | None, second: str | None) -> str:
    """The paper's rule, written as it reads (Tan et al. 2025, section 4), for a pair whose
    truth is a: right when both orders chose a or one chose a and the other tied."""
    decided = {v for v in (first, second) if v not in ("tie", None)}
    if decided == {"a"}:
        return "a"
    if decided == {"b"}:
        return "b"
    return "tie"  # inconsistent, two ties, or no verdict at all


@pytest.mark.parametrize("pair", list(itertools.product(VERDICTS, VERDICTS)))
def test_the_sum_rule_is_judgebench_s_words(pair):
    assert combine_by_sum(pair) == judgebench_says(*pair)
    assert combine(pair, "sum") == judgebench_says(*pair)


def test_mt_bench_is_the_default_and_ties_what_the_sum_decides():
    assert combine(["a", "tie"]) == combine_orders(["a", "tie"]) == "tie"
    assert combine(["a", "tie"], "sum") == "a"
    assert combine(["a", "b"]) == combine(["a", "b"], "sum") == "tie"


def test_combine_belongs_to_pairwise_criteria():
    pairwise = CriterionSpec(
        name="better", definition="Which?", type="pairwise", compare=("x", "y"), combine="sum"
    )
    assert pairwise.combine == "sum"
    assert CriterionSpec(name="p", definition="Polite?", type="binary").combine == "mt-bench"
    with pytest.raises(OptionError, match="combine: only for type pairwise"):
        CriterionSpec(name="p", definition="Polite?", type="binary", combine="sum")
    with pytest.raises(OptionError, match="combine"):
        CriterionSpec(
            name="b", definition="Which?", type="pairwise", compare=("x", "y"), combine="vote"
        )


def _verdicts(rows: list[tuple[str, str, str | None, str | None]]) -> pd.DataFrame:
    out = []
    for judge, pair, ab, ba in rows:
        out += [{"judge": judge, "pair": pair, "order": "ab", "winner": ab}]
        out += [{"judge": judge, "pair": pair, "order": "ba", "winner": ba}]
    return pd.DataFrame(out)


# judge j on six pairs whose truth is a: a+a, a+tie, tie+tie, a+b, b+b, a+None
ROWS = [
    ("j", "p1", "a", "a"),
    ("j", "p2", "a", "tie"),
    ("j", "p3", "tie", "tie"),
    ("j", "p4", "a", "b"),
    ("j", "p5", "b", "b"),
    ("j", "p6", "a", None),
]
PEOPLE = pd.DataFrame({"pair": [f"p{i}" for i in range(1, 7)], "preferred": ["a"] * 6})


def test_combined_by_sum_keeps_a_pair_with_one_order_judged():
    verdicts = _verdicts(ROWS)
    by_mt_bench = combined(verdicts).set_index("pair")["combined"].to_dict()
    by_sum = combined(verdicts, "sum").set_index("pair")["combined"].to_dict()
    assert by_mt_bench == {"p1": "a", "p2": "tie", "p3": "tie", "p4": "tie", "p5": "b"}
    assert by_sum == {"p1": "a", "p2": "a", "p3": "tie", "p4": "tie", "p5": "b", "p6": "a"}


def test_accuracy_by_each_rule_side_by_side_with_wilson_as_statsmodels():
    table = rule_accuracy(_verdicts(ROWS), PEOPLE, chosen="sum").set_index("rule")
    assert table.loc["mt-bench", ["pairs", "right"]].tolist() == [5, 1]
    assert table.loc["sum", ["pairs", "right"]].tolist() == [6, 3]
    assert table["chosen"].to_dict() == {"mt-bench": False, "sum": True}
    for rule, row in table.iterrows():
        low, high = proportion_confint(row["right"], row["pairs"], alpha=0.05, method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high)), rule


def test_accuracy_by_group():
    groups = pd.DataFrame({"pair": [f"p{i}" for i in range(1, 7)], "group": list("xxxyyy")})
    table = group_accuracy(_verdicts(ROWS), PEOPLE, groups, chosen="sum")
    by_sum = table[table["rule"] == "sum"].set_index("group")
    assert by_sum.loc["x", ["pairs", "right"]].tolist() == [3, 2]  # a+a, a+tie right
    assert by_sum.loc["y", ["pairs", "right"]].tolist() == [3, 1]  # a+None right
    low, high = proportion_confint(2, 3, alpha=0.05, method="wilson")
    assert (by_sum.loc["x", "ci_low"], by_sum.loc["x", "ci_high"]) == pytest.approx((low, high))
