"""The runner against a local OpenAI-compatible server that misbehaves like real providers.

Every model here is reached through litellm's OpenAI provider (``openai/<name>`` with api_base
pointing at the server and a key from an environment variable), exactly as a hosted model.
"""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CELL_KEY
from judgegrid import run_grid
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.inputs.tasks import expand_cells
from judgegrid.store.cache import CACHE_FILE
from judgegrid.testing.fault_server import FaultPlan, FaultServer
from support.demo_sets import english_demo
from support.fault_matrices import ALL_METRICS, KEY_ENV, PLANTED, fault_matrix


@pytest.fixture(autouse=True)
def fresh_server(request, monkeypatch):
    monkeypatch.setenv(KEY_ENV, PLANTED)
    if "server" in request.fixturenames:
        srv: FaultServer = request.getfixturevalue("server")
        srv.set_plan(FaultPlan())
        srv.reset_counts()


def run(tmp_path: Path, name: str, matrix: dict[str, Any], limit: int | None = None):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return run_grid(path, limit=limit, run_dir=tmp_path / name)


def assert_no_key_on_disk(*dirs: Path) -> None:
    for directory in dirs:
        files = [p for p in directory.rglob("*") if p.is_file()]
        assert files, directory
        for path in files:
            assert PLANTED.encode() not in path.read_bytes(), path


def cause_of(error: str) -> str:
    for needle, cause in [
        ("cut off at max_tokens", "truncated output"),
        ("after one corrective retry", "malformed JSON twice"),
        ("HTTP 429", "429 after retries"),
        ("HTTP 500", "500 after retries"),
        ("HTTP 408", "timeout after retries"),
    ]:
        if needle in error:
            return cause
    return error[:80]


def test_grid_of_2000_calls_at_a_20_percent_fault_rate(server, tmp_path, cache_dir):
    server.set_plan(
        FaultPlan(
            mix={"429": 0.06, "500": 0.05, "slow": 0.03, "malformed": 0.03, "truncated": 0.03},
            slow_s=0.8,
            retry_after_s=0.002,
        )
    )
    matrix = fault_matrix(
        server.url,
        judges=[{"id": f"openai/fake-{n}", "label": f"fake-{n}"} for n in "abcd"],
        metrics=ALL_METRICS,
        repeats=8,
    )
    result = run(tmp_path, "grid", matrix)
    scores, calls = result.scores, result.calls

    # every cell the matrix implies, once, and each either scored or failed with its cause
    implied = {tuple(c) for c in expand_cells(parse_matrix(yaml.safe_dump(matrix)), english_demo())}
    written = [tuple(row) for row in scores[CELL_KEY].itertuples(index=False)]
    assert len(written) == len(set(written)) == result.expected_cells == len(implied)
    assert set(written) == implied
    assert set(scores["status"]) <= {"scored", "failed"}
    failed = scores[scores["status"] == "failed"]
    assert failed["error"].str.len().gt(0).all() and failed["score"].isna().all()

    # every request the server received is a row of the calls table, retries included
    assert len(calls) >= 2000
    statuses = Counter(int(s) for s in calls["http_status"].dropna())
    # a timeout (408) on a loaded machine can fire before its request reached the server: it is
    # a row the server never counted (CI once saw 2,195 rows for 2,194 requests)
    assert len(calls) - statuses[408] <= server.requests <= len(calls)
    assert statuses[429] > 0 and statuses[500] > 0 and statuses[408] > 0
    retried = calls[calls["attempt"] > 1]
    assert len(retried) > 0 and (calls.groupby("step_key")["attempt"].max() > 1).any()
    assert calls["finish_reason"].fillna("").str.contains("length").any()
    # a malformed reply is asked again once with the error shown (attempt 1 of a new request)
    corrections = calls[calls["request"].str.contains("That reply was not usable")]
    assert len(corrections) > 0
    causes = Counter(cause_of(e) for e in failed["error"])
    assert causes["truncated output"] > 0

    faults = Counter()
    for (_, _, outcome), n in server.outcomes.items():
        faults[outcome] += n
    print(
        f"\n[fault grid] cells: {len(scores)} (implied {result.expected_cells}); "
        f"scored {int((scores['status'] == 'scored').sum())}, failed {len(failed)}, lost 0, "
        f"duplicated 0\n[fault grid] requests: {len(calls)} (server saw {server.requests}); "
        f"retried attempts: {len(retried)}; HTTP statuses of failed attempts: "
        f"{dict(sorted(statuses.items()))}\n[fault grid] faults injected: {dict(faults)}\n"
        f"[fault grid] failure causes: {dict(causes)}"
    )
    assert_no_key_on_disk(tmp_path / "grid", cache_dir)
    assert PLANTED in server.keys_seen  # the key did reach the provider


def test_rerunning_an_identical_grid_against_the_server_makes_no_call(server, tmp_path, cache_dir):
    # no fault is planned here, so no short timeout: the matrices' 500 ms, meant for hanging
    # faults, fires on a loaded machine (12 and 16 timed-out attempts in 2 of 14 reruns at load
    # 6 to 8 on 2 cores, none in 12 with 60 s), and a timed-out attempt is a row of the calls
    # table whose request may never have reached the server (CI once saw 41 rows for 33
    # requests: 33 is this grid's count without a retry), so rows and requests would differ
    matrix = fault_matrix(server.url, timeout="60s", metrics=ALL_METRICS)
    first = run(tmp_path, "first", matrix, limit=3)
    assert (first.scores["status"] == "scored").all()
    made = server.requests
    assert made == len(first.calls) > 0

    second = run(tmp_path, "second", matrix, limit=3)
    assert server.requests == made  # not one request more
    assert second.calls.empty
    assert len(second.scores) == len(first.scores)
    assert_no_key_on_disk(tmp_path / "first", tmp_path / "second", cache_dir)


def test_temperature_change_of_one_judge_recalls_only_that_judge(server, tmp_path):
    matrix = fault_matrix(server.url)
    first = run(tmp_path, "first", matrix, limit=3)
    b_requests = int((first.calls["label"] == "fake-b").sum())
    server.reset_counts()

    hotter = [
        {"id": "openai/fake-a", "label": "fake-a"},
        {"id": "openai/fake-b", "label": "fake-b", "options": {"temperature": 0.7}},
    ]
    second = run(tmp_path, "second", {**matrix, "judges": hotter}, limit=3)
    assert set(second.calls["label"]) == {"fake-b"}
    assert len(second.calls) == b_requests == server.requests
    assert {json.loads(r)["temperature"] for r in second.calls["request"]} == {0.7}


def test_401_stops_that_judge_at_once_and_the_others_finish(server, tmp_path):
    server.set_plan(FaultPlan(by_model={"bad-key": "401"}))
    matrix = fault_matrix(
        server.url,
        judges=[
            {"id": "openai/fake-a", "label": "fake-a"},
            {"id": "openai/bad-key", "label": "bad-key"},
        ],
        concurrency={"total": 8, "per_model": 4},
        metrics=ALL_METRICS,
        repeats=2,
    )
    result = run(tmp_path, "auth", matrix, limit=6)
    scores = result.scores
    bad = scores[scores["judge"] == "bad-key"]
    assert len(bad) > 50 and (bad["status"] == "failed").all()
    core = "openai/bad-key: authentication failed (HTTP 401); check the key named in api_key_env"
    assert bad["error"].str.contains(core, regex=False).all()
    # one message for every cell of the stopped judge, not one per attempt
    assert bad["error"].nunique() == 1, bad["error"].unique()
    # no retry storm: at most one 401 per slot the model had in flight, never retried
    n_401 = server.outcomes[("completion", "bad-key", "401")]
    assert 1 <= n_401 <= 4
    assert (result.calls[result.calls["label"] == "bad-key"]["attempt"] == 1).all()
    good = scores[scores["judge"] == "fake-a"]
    assert len(good) == len(bad) and (good["status"] == "scored").all()


def test_strictness_uses_the_providers_n_and_costs_are_known_or_unknown(
    server, tmp_path, cache_dir
):
    matrix = fault_matrix(
        server.url,
        judges=[
            {"id": "openai/gpt-4o-mini", "label": "priced"},
            {"id": "openai/fake-a", "label": "unpriced"},
        ],
        embeddings=[
            {"id": "openai/text-embedding-3-small", "label": "te3", "dimensions": [64, 32]}
        ],
        metrics=["response_relevancy"],
        strictness=[2, 3],
    )
    result = run(tmp_path, "n", matrix, limit=2)
    scores, calls = result.scores, result.calls
    assert (scores["status"] == "scored").all()
    completions = calls[calls["kind"] == "completion"]
    # one request per (judge, sample) asks for all 3 generations; strictness 2 uses the first 2
    assert len(completions) == 2 * 2
    assert {json.loads(r).get("n") for r in completions["request"]} == {3}
    for _, row in scores.iterrows():
        assert len(json.loads(row["details"])["questions"]) == row["strictness"]
    # native dimensions were asked of the provider
    embeds = calls[calls["kind"] == "embedding"]
    assert {json.loads(r).get("dimensions") for r in embeds["request"]} == {64, 32}

    priced = completions[completions["label"] == "priced"]
    assert (priced["cost"] > 0).all()
    assert completions[completions["label"] == "unpriced"]["cost"].isna().all()
    unpriced_cells = scores[scores["judge"] == "unpriced"]
    assert unpriced_cells["cost"].isna().all()  # unknown, not 0
    assert (scores[scores["judge"] == "priced"]["cost"] > 0).all()
    assert (scores["latency_s"] > 0).all() and (scores["tokens_in"] > 0).any()

    summary = (tmp_path / "n" / "summary.md").read_text()
    assert "## Usage by judge and embedding model" in summary
    usage = summary.split("## Usage by judge and embedding model")[1].split("\n## ")[0]
    usage_rows = {line.split("|")[2].strip(): line for line in usage.splitlines() if "|" in line}
    assert "unknown" in usage_rows["unpriced"]
    assert "$" in usage_rows["priced"] and "unknown" not in usage_rows["priced"]
    assert_no_key_on_disk(tmp_path / "n", cache_dir)
    assert (cache_dir / CACHE_FILE).exists()


def test_a_judge_that_stalls_is_a_timeout_failure_named_as_such(server, tmp_path):
    server.set_plan(FaultPlan(by_model={"staller": "slow"}, slow_s=1.0))
    matrix = fault_matrix(
        server.url,
        judges=[{"id": "openai/staller", "label": "staller"}],
        defaults={
            "judge": {
                "api_base": server.url,
                "api_key_env": KEY_ENV,
                "timeout": "100ms",
                "seed": 1,
            },
            "embedding": {"api_base": server.url, "api_key_env": KEY_ENV},
        },
        retry={"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
        metrics=["faithfulness"],
    )
    result = run(tmp_path, "stall", matrix, limit=2)
    assert (result.scores["status"] == "failed").all()
    assert result.scores["error"].str.contains("HTTP 408").all()
    assert result.scores["error"].str.contains("after 2 attempts").all()
    assert set(result.calls["http_status"]) == {408}


def test_the_server_records_each_request_and_serves_a_joined_query_string(server: FaultServer):
    """An api_base with a query string (``/v1?key=K``) reaches the server as the openai SDK
    joins it, ``/v1?key=K/embeddings``; it is served, and its path, query and Authorization
    header are recorded, so a test can show what reached the provider."""
    server.reset_counts()
    request = urllib.request.Request(
        f"{server.url}?key=gw-K1/embeddings",
        data=json.dumps({"model": "fake-embed", "input": ["a b"], "dimensions": 8}).encode(),
        headers={"Authorization": "Basic dTpw", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        body = json.loads(reply.read())
    assert len(body["data"][0]["embedding"]) == 8
    assert server.received == [("/v1?key=gw-K1/embeddings", "Basic dTpw")]
    server.reset_counts()
    assert server.received == []
