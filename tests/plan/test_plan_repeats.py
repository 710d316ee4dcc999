"""The plan of many repeats: the later repeats counted from one repeat give the same figures as
walking every cell, and a million repeats is planned without a million cells."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from judgegrid import api
from judgegrid.core.errors import InputError, OptionError
from judgegrid.inputs.dataset import load_demo
from judgegrid.inputs.matrix import matrix_from_data
from judgegrid.plan.estimate import estimate
from judgegrid.plan.requests import WALKED_REPEATS, Known, plan_requests, walk_requests


def matrix(repeats: int, probes: dict | None = None):
    data = {
        "judges": [{"id": "openai/gpt-4o-mini"}, {"id": "openai/gpt-4.1-mini"}],
        "embeddings": [{"id": "openai/text-embedding-3-small", "dimensions": [256]}],
        "metrics": ["faithfulness", "response_relevancy", "context_precision"],
        "strictness": [1, 3],
        "repeats": repeats,
    }
    if probes is not None:
        data["probes"] = probes
    return matrix_from_data(data)


TOTALS = ("calls", "cache_hits", "prompt_tokens", "output_tokens")


def totals(grid, m):
    plan = estimate(m, grid)
    return {name: plan.total(name) for name in TOTALS}, plan.cost


@pytest.mark.parametrize(
    "probes",
    [None, {"names": "all", "per_metric": 2}, {"names": "all", "per_metric": 2, "repeats": 5}],
    ids=["no probes", "probes", "probes with their own repeats"],
)
def test_counting_later_repeats_equals_walking_them(probes):
    """Cell by cell and counted from one repeat, the calls, tokens and cost agree exactly."""
    repeats = WALKED_REPEATS + 3
    m = matrix(repeats, probes)
    data = load_demo().head(4)
    counted = plan_requests(m, data, Known())
    walked = walk_requests(m, data, Known())
    assert counted.cells == walked.cells
    assert counted.skipped_cells == walked.skipped_cells
    assert counted.rounds == walked.rounds
    (counted_totals, counted_cost), (walked_totals, walked_cost) = (
        totals(counted, m),
        totals(walked, m),
    )
    assert counted_totals == walked_totals
    assert counted_cost == pytest.approx(walked_cost)
    assert len(counted.requests) < len(walked.requests)  # the later repeats are not walked
    assert any("counted from one repeat" in note for note in counted.notes)
    assert not walked.notes


def test_a_million_repeats_is_planned_without_a_cell_each():
    m = matrix(1_000_000)
    data = load_demo().head(1)
    one = plan_requests(matrix(1), data, Known())
    grid = plan_requests(m, data, Known())
    assert grid.cells == 1_000_000 * one.cells
    assert len(grid.requests) < 10 * len(one.requests)

    def calls(plan, kind):
        return sum(r.calls for r in plan.rows if r.kind == kind)

    single, million = estimate(matrix(1), one), estimate(m, grid)
    # a judge answers every repeat afresh; a vector is fetched once for all repeats
    assert calls(million, "completion") == 1_000_000 * calls(single, "completion")
    assert calls(million, "embedding") == calls(single, "embedding") > 0


def test_the_plan_refuses_what_the_run_refuses_but_the_keys(monkeypatch):
    """plan_grid goes through check_run: a model no provider serves is refused; a key the
    environment lacks is not (the plan needs none), while the run refuses it."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    good = {"judges": [{"id": "openai/gpt-4o-mini"}], "metrics": ["faithfulness"]}
    plan = api.plan_grid(good, limit=1)
    assert plan.cells > 0
    assert any("run would refuse" in n and "OPENAI_API_KEY" in n for n in plan.notes)
    with pytest.raises(InputError) as refused:
        api.check_run(good, None, api.RunOptions(limit=1))
    assert "OPENAI_API_KEY" in str(refused.value)
    bad = {"judges": [{"id": "nosuch/model"}], "metrics": ["faithfulness"]}
    with pytest.raises(Exception, match=r"judges\[0\].id"):
        api.plan_grid(bad, limit=1)


def test_run_options_are_one_frozen_value_checked_strictly():
    options = api.run_options(limit=2, workers=3, columns={"user_input": "q"})
    assert options.limit == 2 and options.workers == 3
    with pytest.raises(ValidationError):
        options.limit = 5  # type: ignore[misc]
    for bad in ({"limit": "2"}, {"workers": 0}, {"margin": 1.0}, {"colums": {}}):
        with pytest.raises(OptionError) as e:
            api.run_options(**bad)
        assert next(iter(bad)) in str(e.value)
