"""Generated requests to the view's and the labelling page's APIs (``fuzz_targets``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.fuzz_targets import HttpTarget, check_http, ci_settings, finished_run, http_targets


@pytest.fixture(scope="module")
def targets(tmp_path_factory) -> Iterator[dict[str, HttpTarget]]:
    run = finished_run(tmp_path_factory.mktemp("fuzz-http"))
    with http_targets(run) as running:
        yield {t.name: t for t in running}


@pytest.mark.parametrize("name", ["view", "label"])
@ci_settings(max_examples=150)
@given(data=st.data())
def test_every_generated_request_is_answered_as_documented(
    targets: dict[str, HttpTarget], name: str, data
):
    target = targets[name]
    example = data.draw(target.examples)
    failures = check_http(example, target.send)
    assert not failures, "\n".join(map(str, failures))


def test_the_routes_were_read_from_the_apps(targets: dict[str, HttpTarget]):
    """Both servers' API routes, GET and POST, are among the requests drawn."""
    assert set(targets) == {"view", "label"}
    for target in targets.values():
        assert target.routes, target.name
        assert any(r.startswith("/api/view/") for r in target.routes) == (target.name == "view")
        assert "/api/state" in target.routes and "/api/label" in target.routes
