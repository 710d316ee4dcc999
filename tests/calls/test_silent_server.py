"""A server that accepts the connection and never answers (a wrong ``base-url``): every call
over HTTP has a timeout by default, a timeout is tried once more at most, the run says while it
waits which model it waits for and where, and the cell ends failed, naming the timeout."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from judgegrid import load_run, run_grid
from judgegrid.calls import transport
from judgegrid.calls.providers.gateway import call_timeout
from judgegrid.core.options import EMBEDDING_TIMEOUT_S, JUDGE_TIMEOUT_S, ModelOptions
from judgegrid.testing.fault_server import FaultPlan, FaultServer, start_fault_server

KEYED_BASE = "http://user:sk-proj-SilentServerKey0123456789abc@127.0.0.1:{port}/v1"
SAMPLE = {"id": "s1", "user_input": "Who?", "response": "Ann.", "retrieved_contexts": ["Ann"]}


@pytest.fixture
def silent() -> Iterator[FaultServer]:
    """A server whose every answer never comes."""
    server = start_fault_server(FaultPlan(mix={"hang": 1.0}))
    yield server
    server.stop()


def write_inputs(tmp_path: Path, base: str, timeout: str) -> tuple[Path, Path]:
    matrix = {
        "judges": [{"id": "openai/silent", "label": "mute", "options": {"api_base": base}}],
        "defaults": {"judge": {"timeout": timeout}},
        "metrics": ["faithfulness"],
        "retry": {"initial_interval": "1ms", "max_interval": "2ms"},  # max-attempts: 5
    }
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(matrix), encoding="utf-8")
    (tmp_path / "d.jsonl").write_text(json.dumps(SAMPLE) + "\n", encoding="utf-8")
    return tmp_path / "m.yaml", tmp_path / "d.jsonl"


def test_the_run_ends_with_the_cell_failed_naming_the_timeout(tmp_path, silent):
    base = KEYED_BASE.format(port=silent.port)
    matrix, data = write_inputs(tmp_path, base, "1s")
    options = [
        str(matrix),
        "-d",
        str(data),
        "--limit",
        "1",
        "--reports-dir",
        str(tmp_path / "r"),
        "--no-cache",
    ]
    done = subprocess.run(
        [sys.executable, "-c", "from judgegrid.entry import main; main()", "run", *options],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JUDGEGRID_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "timed out" in done.stdout + done.stderr
    # its api_base carries credentials: said at the start, truthfully for --no-cache
    assert "judges[0].options.api_base carries credentials" in done.stderr
    assert "--resume cannot finish it" in done.stderr
    assert "under --no-cache every call is made again" in done.stderr
    (run_dir,) = (tmp_path / "r").iterdir()
    scores, calls = load_run(run_dir)
    (error,) = scores["error"]
    assert "no answer within the timeout of 1 s from http://***@127.0.0.1:" in error
    assert error.endswith("after 2 attempts")  # once more, not max-attempts (5) times
    assert list(calls["attempt"]) == [1, 2] and set(calls["http_status"]) == {408}
    assert all(json.loads(request)["timeout"] == 1.0 for request in calls["request"])
    assert silent.requests == 2


def test_a_call_still_waiting_is_named_with_where_and_its_timeout(
    tmp_path, silent, monkeypatch, caplog
):
    monkeypatch.setattr(transport, "WAITING_NOTICE_S", 0.2)  # the notice, long before 1 s
    base = KEYED_BASE.format(port=silent.port)
    matrix, data = write_inputs(tmp_path, base, "1s")
    with caplog.at_level(logging.WARNING, logger="judgegrid"):
        run_grid(matrix, data, run_dir=tmp_path / "run", use_cache=False)
    notices = [r.getMessage() for r in caplog.records if "waiting for" in r.getMessage()]
    masked = f"http://***@127.0.0.1:{silent.port}/v1"
    assert notices == [f"judgegrid: waiting for mute at {masked} (timeout 1 s)"] * 2


def test_a_timeout_under_the_notice_gives_no_notice():
    request = {"api_base": "http://127.0.0.1:1/v1", "timeout": 1.0}
    assert transport._notice("j", request) is None
    assert transport._notice("j", request | {"timeout": 60.0}) is not None
    assert transport._notice("local", {}) is None


def test_calls_over_http_have_a_timeout_and_in_process_models_none_unless_set():
    unset, set_ = ModelOptions(), ModelOptions(timeout="3s")
    assert call_timeout("openai/gpt-4o-mini", unset, "completion") == JUDGE_TIMEOUT_S
    assert call_timeout("openai/text-embedding-3-small", unset, "embedding") == EMBEDDING_TIMEOUT_S
    assert call_timeout("local/qwen2.5-0.5b", unset, "completion") is None
    assert call_timeout("local/qwen2.5-0.5b", set_, "completion") == 3.0
    assert call_timeout("openai/gpt-4o-mini", set_, "completion") == 3.0
