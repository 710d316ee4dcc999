"""A pairwise criterion scored in a cell (``PairwiseMetric``): the pair asked in both orders,
each order's verdict recorded in the pair's terms, the orders combined by MT-Bench's rule, and
the log-probability weighting where every order has it."""

from __future__ import annotations

import asyncio
import math

import pytest

from judgegrid.core.context import ScoreContext, Weighted
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import DatasetError
from judgegrid.core.sample import Sample
from judgegrid.metrics.criterion import CriterionMetric
from judgegrid.metrics.pairwise import PairwiseMetric, criterion_metric

BETTER = CriterionSpec(
    name="better",
    definition="Which answer is better?",
    type="pairwise",
    compare=("response", "response_b"),
)
SAMPLE = Sample(
    id="p1",
    user_input="What is the capital of France?",
    response="Paris.",
    extra={"response_b": "Lyon, a large city."},
)


class OrderJudge:
    """Answers by the answer texts it is shown: ``choose(first, second)`` gives the position;
    ``logprobs`` (or None) the score token's alternatives of every answer."""

    def __init__(self, choose, logprobs=None):
        self.choose, self.logprobs, self.asked = choose, logprobs, []

    def _answer(self, q):
        text = q.messages[1]["content"]
        first = text.split("Answer A: ")[-1].split("\n")[0]
        second = text.split("Answer B: ")[-1].split("\n")[0]
        self.asked.append((first, second))
        return q.schema.model_validate({"verdict": self.choose(first, second), "reason": "r"})

    async def ask(self, q):
        return self._answer(q)

    async def ask_many(self, q, n):
        return [self._answer(q) for _ in range(n)]

    async def ask_weighted(self, q, n=1):
        return [Weighted(self._answer(q), self.logprobs) for _ in range(n)]


def score(judge, spec=BETTER, sample=SAMPLE):
    return asyncio.run(PairwiseMetric(spec).compute(sample, ScoreContext(judge, None, None, 0)))


def test_the_pair_is_asked_in_both_orders_and_each_verdict_read_in_the_pairs_terms():
    judge = OrderJudge(lambda first, second: "A" if first == "Paris." else "B")
    result = score(judge)
    assert judge.asked == [("Paris.", "Lyon, a large city."), ("Lyon, a large city.", "Paris.")]
    orders = result.details["orders"]
    assert (orders["ab"]["position"], orders["ab"]["winner"]) == ("A", "a")
    assert (orders["ba"]["position"], orders["ba"]["winner"]) == ("B", "a")
    assert result.details["combined"] == "a" and result.score == result.answer == 1.0
    assert result.details["systems"] == ["response", "response_b"]
    assert result.weighting == "none"


@pytest.mark.parametrize(
    ("choose", "combined", "expected"),
    [
        (lambda first, second: "A", "tie", 0.5),  # always the first: the orders disagree
        (lambda first, second: "B", "tie", 0.5),  # always the second
        (lambda first, second: "tie", "tie", 0.5),
        (lambda first, second: "A" if first.startswith("Lyon") else "B", "b", 0.0),
        # a tie in one order and a verdict in the other is a tie (MT-Bench)
        (lambda first, second: "A" if first == "Paris." else "tie", "tie", 0.5),
    ],
)
def test_the_two_orders_are_combined_by_mt_benchs_rule(choose, combined, expected):
    result = score(OrderJudge(choose))
    assert result.details["combined"] == combined and result.answer == expected


def test_weighting_is_the_mean_of_the_orders_expected_preferences():
    spec = BETTER.model_copy(update={"weighting": "auto"})
    logprobs = {"A": math.log(0.7), "B": math.log(0.2), "tie": math.log(0.1)}
    result = score(OrderJudge(lambda first, second: "A", logprobs), spec)
    # order ab: P(a) - P(b) = 0.5; order ba: position A is b, so -0.5; scores 0.75 and 0.25
    assert result.weighting == "logprobs"
    assert result.details["weighted"] == {"ab": pytest.approx(0.75), "ba": pytest.approx(0.25)}
    assert result.score == pytest.approx(0.5) and result.answer == 0.5


def test_an_order_without_log_probabilities_is_said_and_the_plain_verdicts_kept():
    spec = BETTER.model_copy(update={"weighting": "auto"})
    result = score(OrderJudge(lambda first, second: "A" if first == "Paris." else "B"), spec)
    assert result.weighting == "missing" and result.score == 1.0


def test_the_systems_are_the_rows_own_where_the_criterion_names_their_columns():
    spec = BETTER.model_copy(update={"systems": ("sys_a", "sys_b")})
    sample = SAMPLE.model_copy(update={"extra": {**SAMPLE.extra, "sys_a": "gpt", "sys_b": ""}})
    result = score(OrderJudge(lambda first, second: "A"), spec, sample)
    assert result.details["systems"] == ["gpt", "response_b"]  # a blank one: the column's name


def test_a_pairwise_criterion_is_scored_by_its_own_metric_and_reads_both_answers():
    metric = criterion_metric(BETTER)
    assert isinstance(metric, PairwiseMetric) and isinstance(metric, CriterionMetric)
    assert metric.required_fields == ("user_input", "response", "response_b")
    assert metric.missing_fields(SAMPLE.model_copy(update={"extra": None})) == ["response_b"]
    pointwise = CriterionSpec(name="polite", definition="Is it polite?", type="binary")
    assert type(criterion_metric(pointwise)) is CriterionMetric
    with pytest.raises(ValueError, match="pairwise"):
        PairwiseMetric(pointwise)


def test_score_sample_takes_a_pairwise_criterion_and_reads_its_compared_column():
    from judgegrid import score_sample

    sample = {
        "user_input": "What is the capital of France?",
        "response": "The capital of France is Paris.",
        "response_b": "I like trains.",
    }
    scored = score_sample(BETTER, sample, judge="scripted/judge-a")
    # the scripted judge picks the answer sharing more words with the question, in both orders
    assert (scored.metric, scored.answer, scored.details["combined"]) == ("better", 1.0, "a")
    assert len(scored.calls) == 2
    assert "I like trains." in scored.calls[0]["request"]
    with pytest.raises(DatasetError, match="response_b"):
        score_sample(BETTER, {**sample, "response_b": ""}, judge="scripted/judge-a")
