"""Generated requests to the view's and the labelling page's APIs (``fuzz_targets``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.fuzz_targets import (
    BIG_STRING_BYTES,
    HttpExample,
    HttpTarget,
    check_http,
    ci_settings,
    closed,
    finished_run,
    http_targets,
    open_class,
)


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
    failures = closed(check_http(example, target.send))  # open classes: their own tests below
    assert not failures, "\n".join(map(str, failures))


def test_the_routes_were_read_from_the_apps(targets: dict[str, HttpTarget]):
    """Both servers' API routes, GET and POST, are among the requests drawn."""
    assert set(targets) == {"view", "label"}
    for target in targets.values():
        assert target.routes, target.name
        assert any(r.startswith("/api/view/") for r in target.routes) == (target.name == "view")
        assert "/api/state" in target.routes and "/api/label" in target.routes


# issue 39: bodies shaped to hurt, each class on each POST route (a strict xfail while open)
LABEL = b'{"sample_id": "s1", "metric": "faithfulness", "value": %s}'
HOSTILE = [
    ("nested 5,000 deep", b"[" * 5000 + b"]" * 5000, "HTTP 500 @ /api/"),
    ("a mapping 5,000 deep", b'{"a":' * 5000 + b"1" + b"}" * 5000, "HTTP 500 @ /api/"),
    ("a 5 MB note", LABEL % (b'0.5, "note": "' + b"x" * BIG_STRING_BYTES + b'"'), "5 MB"),
    ("a value of -infinity", LABEL % b"-Infinity", "HTTP 200 for a non-finite number"),
    ("a value of NaN", LABEL % b"NaN", "HTTP 200 for a non-finite number"),
    ("a value of 1e400", LABEL % b"1e400", "HTTP 200 for a non-finite number"),
    ("a value of 5,000 digits", LABEL % (b"1" + b"0" * 5000), "HTTP 500 @ /api/"),
]


NON_FINITE = {"a value of -infinity", "a value of NaN", "a value of 1e400"}


@pytest.mark.parametrize(
    "route, shape, body",
    [
        pytest.param(
            r,
            h[0],
            h[1],
            marks=open_class(h[2]),
            id=f"{h[0]} {r}",
        )
        for r in ("/api/label", "/api/view/label")
        for h in HOSTILE
    ],
)
def test_a_body_shaped_to_hurt_is_refused_with_a_4xx(targets, route, shape, body):
    target = targets["view" if route.startswith("/api/view/") else "label"]
    non_finite = "value" if shape in NON_FINITE else ""
    example = HttpExample("POST", route, route=route, raw=body, shape=shape, non_finite=non_finite)
    failures = check_http(example, target.send)
    assert not failures, "\n".join(map(str, failures))
