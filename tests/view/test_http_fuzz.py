"""Generated requests to the view's and the labelling page's HTTP APIs (Hypothesis over their
routes): query parameters and path numbers in unicode digits, huge, negative, signed, spaced,
empty, junk, twice, and query strings over the limit. The properties: never a 5xx; every 4xx is
a JSON ``{"error": why}``; a query over the limit is the documented 414; and the run's database
is unchanged (no GET writes, and a refused POST writes nothing)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judgegrid.labels.page import serve as serve_labels
from judgegrid.labels.queue import open_session
from judgegrid.labels.server import MAX_QUERY_CHARS
from judgegrid.labels.session import SessionAsk
from judgegrid.view.app import open_view
from judgegrid.view.app import serve as serve_view
from support.fuzz_targets import QUERY_PARAMETERS
from support.servers import LoopbackServer, in_thread
from support.view_runs import DISPUTED, make_criteria_view_run, make_view_run

# per app in `make test`; a longer campaign: JUDGEGRID_FUZZ_EXAMPLES=5000 pytest this file
EXAMPLES = int(os.environ.get("JUDGEGRID_FUZZ_EXAMPLES", "120"))

# Each route with a query it answers with 200, which the generated parameters then spoil.
VIEW_ROUTES = {
    "/api/view/meta": [],
    "/api/view/samples": [("metric", "faithfulness")],
    "/api/view/sample/{sample}": [("metric", "faithfulness")],
    "/api/view/compare/{sample}": [("metric", "faithfulness"), ("a", "a||0|0"), ("b", "b||0|0")],
    "/api/view/calls/{sample}": [("judge", "a")],
    "/api/view/decision": [],
    "/api/state": [],
    "/api/sample/{sample}": [],
    "/api/pair/{number}/{number}": [],
    "/api/nosuch": [],
}
# The same routes on a run with criteria: a criterion in three wordings, its wording and fold
CRITERIA_ROUTES = {
    route: [(name, "polite" if name == "metric" else value) for name, value in query]
    for route, query in VIEW_ROUTES.items()
} | {
    "/api/view/samples": [("metric", "polite"), ("wording", "2"), ("fold", "wording")],
    "/api/view/compare/{sample}": [("metric", "polite"), ("a", "a||0|3|1"), ("b", "b||0|3")],
}
LABEL_ROUTES = {
    route: VIEW_ROUTES[route]
    for route in ("/api/state", "/api/sample/{sample}", "/api/pair/{number}/{number}")
} | {"/api/x": []}
NUMBERS = ("page", "per_page", "repeat")
# every parameter some route reads (fuzz_targets keeps the routes' contract), and the token
NAMES = sorted({name for names in QUERY_PARAMETERS.values() for name in names} | {"token"})

numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.integers(min_value=0, max_value=5).map(str),
    st.text(st.characters(categories=["Nd"]), min_size=1, max_size=4),  # '١', '٣', '𝟗'…
    st.sampled_from(["", " 1", "1 ", "+1", "-0", "0x10", "1e3", "1.0", "１", "²", "NaN"]),
    st.integers(min_value=10**18, max_value=10**60).map(str),
)
values = st.one_of(
    numbers,
    st.text(max_size=30),
    st.sampled_from(["faithfulness", "a", "b", "a||0|0", "b||0|0", "scored", "id", DISPUTED]),
    st.sampled_from(["polite", "helpful", "wording", "0", "2", "3", "a||0|3|2", "canal-grounded"]),
)
spoilers = st.one_of(
    st.tuples(st.sampled_from(NUMBERS), numbers),  # one number, spoilt or not
    st.tuples(st.sampled_from(NAMES) | st.text(max_size=8), values),
)
paths = st.one_of(numbers, st.text(max_size=20), st.just(DISPUTED))


def strict(text: str) -> bool:
    """What a 200 may have accepted as a number: ASCII digits, within the servers' bound."""
    return text.isascii() and text.isdigit() and int(text) <= 10**9


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    base = make_view_run(tmp_path_factory.mktemp("fuzzrun"))
    target = base.parent / "copy"
    shutil.copytree(base, target)
    return target


def digest(run_dir: Path) -> str:
    return hashlib.sha256((run_dir / "run.sqlite").read_bytes()).hexdigest()


@contextlib.contextmanager
def serving(serve: Any, session: Any) -> Iterator[LoopbackServer]:
    with in_thread(serve, session) as (runner, port):
        yield LoopbackServer(session, port, runner)


def request_for(route: str, query: list[tuple[str, str]], path_values: list[str]) -> str:
    """The route with its path parameters filled (percent-encoded) and the query attached."""
    path = route
    for value in path_values:
        for slot in ("{sample}", "{number}"):
            if slot in path:
                path = path.replace(slot, quote(value, safe="") or "x", 1)
                break
    return path + ("?" + urlencode(query) if query else "")


def check_reply(
    status: int, reply: dict[str, Any], target: str, query: list[tuple[str, str]]
) -> None:
    assert status < 500, (target, status, reply)
    if status >= 400:
        assert isinstance(reply.get("error"), str) and reply["error"], (target, status, reply)
    if len(target.partition("?")[2]) > MAX_QUERY_CHARS:
        assert status == 414, (target, status)
    if status == 200:  # accepted: every number given was one, and the page asked for exists
        assert all(strict(v) for k, v in query if k in NUMBERS), (target, reply)
        if "pages" in reply:
            assert 1 <= reply["page"] <= reply["pages"], (target, reply)


def fuzz(server: LoopbackServer, routes: dict[str, list[tuple[str, str]]], run_dir: Path) -> None:
    before = digest(run_dir)
    sent: list[int] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        route=st.sampled_from(sorted(routes)),
        spoilt=st.lists(spoilers, max_size=3),
        path_values=st.lists(paths, min_size=2, max_size=2),
        padding=st.sampled_from([0, 0, 0, MAX_QUERY_CHARS + 1]),
        post=st.booleans(),
    )
    # Both answers asked for every time: left to chance, about 1 run in 100 sent no request a
    # 200 can answer (seeds 203 and 234 of --hypothesis-seed on the labelling page's routes).
    @example(route="/api/state", spoilt=[], path_values=["x", "x"], padding=0, post=False)
    @example(
        route="/api/state", spoilt=[("page", "x")], path_values=["x", "x"], padding=0, post=False
    )
    def one(
        route: str,
        spoilt: list[tuple[str, str]],
        path_values: list[str],
        padding: int,
        post: bool,
    ) -> None:
        query = [*routes[route], *spoilt]
        if padding:
            query = [*query, ("q", "x" * padding)]
        target = request_for(route, query, path_values)
        if post:  # the two POST routes, with a junk query and a body that is not an answer
            target = ("/api/label" if "view" not in route else "/api/view/label") + (
                "?" + target.partition("?")[2] if "?" in target else ""
            )
            status, reply = server.request("POST", target, {"sample_id": path_values[0]})
        else:
            status, reply = server.get(target)
        sent.append(status)
        check_reply(status, reply, target, [] if post else query)
        if status == 200 and "/api/pair/" in target:
            assert all(strict(v) for v in path_values), (target, reply)

    one()
    assert len(sent) >= EXAMPLES  # every example was sent, none filtered away
    assert {200, 400} <= set(sent)  # both answers reached (the two examples above ask them)
    assert digest(run_dir) == before


def test_the_views_api_never_fails_and_always_says_why(run_dir):
    with serving(serve_view, open_view(run_dir, "ann")) as server:
        fuzz(server, VIEW_ROUTES, run_dir)


def test_the_views_api_on_criteria_never_fails_and_always_says_why(tmp_path_factory):
    """The criteria's parameters (wording, fold) and configurations (a wording's key) too."""
    run_dir = make_criteria_view_run(tmp_path_factory.mktemp("fuzzcriteria"))
    with serving(serve_view, open_view(run_dir, "ann")) as server:
        fuzz(server, CRITERIA_ROUTES, run_dir)


def test_the_labelling_pages_api_never_fails_and_always_says_why(run_dir):
    with serving(serve_labels, open_session(run_dir, "ann", ask=SessionAsk(n=4))) as server:
        fuzz(server, LABEL_ROUTES, run_dir)
