"""Batch mode: requests through the provider's batch API, stage by stage, on the fault server.

The server's files and batches endpoints (``testing.fault_batches``) answer each line as the live
server would, fail a share of lines, let a chosen batch expire and refuse the first submission
with 429; a run killed while its batches are pending is resumed and pays for no batch twice.
Poll intervals and the gathering pause are cut to tens of milliseconds; nothing asserts on time.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from conftest import CELL_KEY, clean_fault_server, fault_server_matrix, save_matrix
from judgegrid import run_grid
from judgegrid.api import plan_grid
from judgegrid.calls.batches import BatchQueue, BatchRequest, LineFailed
from judgegrid.core.errors import MatrixError, OptionError
from judgegrid.core.options import BatchMode, ModelOptions, RetryPolicy
from judgegrid.core.records import BatchRecord
from judgegrid.inputs.matrix import matrix_from_data
from judgegrid.plan.table import render_plan
from judgegrid.run.orchestrate import execution_for
from judgegrid.store.run_db import RunStore
from judgegrid.testing.fault_batches import BatchPlan
from judgegrid.testing.fault_server import FaultPlan, FaultServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import grid as bench_grid  # benches/ is not a package

KEY_ENV = "JUDGEGRID_BATCH_KEY"
FAST = {"poll_interval": "20ms", "max_poll_interval": "100ms", "gather": "400ms"}
# cells per sample and judge: response_relevancy at 2 dimensions × 2 strictness values, and
# faithfulness, context_precision, context_recall
PER_SAMPLE = 2 * 2 + 3


@pytest.fixture(autouse=True)
def fresh(monkeypatch, request):
    monkeypatch.setenv(KEY_ENV, "sk-batch-test")
    clean_fault_server(request)


def batch_matrix(url: str, data: Path, **overrides: Any) -> dict[str, Any]:
    """Two priced judges (gpt-4o-mini, gpt-4.1-mini: litellm knows their batch prices) and an
    embedding model, all in batch mode, on the fault server."""
    matrix = fault_server_matrix(
        url,
        data,
        KEY_ENV,
        {"mini": "openai/gpt-4o-mini", "mini-41": "openai/gpt-4.1-mini"},
        "openai/text-embedding-3-small",
        name="batches",
        repeats=1,
    )
    matrix["defaults"]["batch"] = FAST
    matrix["retry"]["max_attempts"] = 4
    matrix.update(overrides)
    return matrix


def samples(tmp_path: Path, n: int) -> Path:
    return bench_grid.write_jsonl(tmp_path / f"samples{n}.jsonl", bench_grid.synthetic_samples(n))


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def batch_steps(db: Path) -> dict[str, set[str]]:
    """The step names each batch answered (or failed), by batch id."""
    rows = query(
        db,
        "SELECT c.batch_id, coalesce(n.step, c.kind) FROM calls c "
        "LEFT JOIN step_names n ON n.key = c.step_key WHERE c.batch_id IS NOT NULL",
    )
    steps: dict[str, set[str]] = {}
    for batch_id, step in rows:
        steps.setdefault(batch_id, set()).add(step)
    return steps


# -- the matrix, the plan and the workers -------------------------------------------------------


def test_batch_mode_is_checked_like_the_rest_of_the_matrix():
    matrix = matrix_from_data(
        {
            "defaults": {"batch": True},
            "judges": [
                {"id": "openai/a"},
                {"id": "openai/b", "batch": {"retry": "live", "poll_interval": "1m"}},
                {"id": "openai/c", "batch": False},
            ],
            "metrics": ["faithfulness"],
        }
    )
    modes = [matrix.batch_for(j) for j in matrix.judges]
    assert modes[0] == BatchMode() and modes[2] is None
    assert modes[1] is not None and (modes[1].retry, modes[1].poll_interval) == ("live", 60.0)
    with pytest.raises(MatrixError) as bad:
        matrix_from_data(
            {
                "judges": [{"id": "openai/a", "batch": {"retyr": "live"}}],
                "metrics": ["faithfulness"],
            }
        )
    assert "judges[0].batch.retyr" in str(bad.value)
    with pytest.raises(MatrixError) as local:
        matrix_from_data(
            {"judges": [{"id": "local/x", "batch": True}], "metrics": ["faithfulness"]}
        )
    assert "judges[0].batch" in str(local.value) and "openai" in str(local.value)


def test_batch_mode_refuses_workers_naming_the_option():
    matrix = matrix_from_data(
        {"judges": [{"id": "openai/a", "batch": True}], "metrics": ["faithfulness"]}
    )
    with pytest.raises(OptionError) as refused:
        execution_for(matrix, workers=2)
    assert "execution.workers" in str(refused.value) and "batch" in str(refused.value)
    assert execution_for(matrix).distributed is False


def test_the_plan_shows_the_grid_in_batch_mode(tmp_path):
    matrix = batch_matrix("http://127.0.0.1:9/v1", samples(tmp_path, 4))
    plan = plan_grid(matrix)
    assert plan.cost and plan.batch_cost
    assert plan.batch_cost == pytest.approx(plan.cost / 2, rel=0.05)  # gpt-4o(-mini) batch: half
    assert plan.batch is not None
    assert plan.batch.rounds == {"mini": 2, "mini-41": 2, "embed": 2}  # statements, then nli
    assert plan.batch.seconds == 2 * 24 * 3600
    table = render_plan(plan)
    assert "batch cost" in table.splitlines()[0]
    assert "at most 48h00m" in table and "entries in batch mode: mini, mini-41, embed" in table
    headline = next(line for line in table.splitlines() if line.startswith("cells:"))
    assert "est. time at most 48h00m (batch mode: mini, mini-41, embed;" in headline


# -- the queue on a scripted provider ---------------------------------------------------------


class ScriptedBatches:
    """litellm's five batch functions, answering every line at once with its custom id."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.created: list[str] = []  # input file ids, in order
        self.batches: dict[str, SimpleNamespace] = {}
        self.submit_429 = 0

    async def acreate_file(self, file: tuple[str, bytes], purpose: str, **kw: Any) -> Any:
        file_id = f"f{len(self.files) + 1}"
        self.files[file_id] = file[1]
        return SimpleNamespace(id=file_id)

    async def acreate_batch(self, input_file_id: str, **kw: Any) -> Any:
        if self.submit_429:
            self.submit_429 -= 1
            raise RateLimited()
        self.created.append(input_file_id)
        lines = [json.loads(x) for x in self.files[input_file_id].splitlines()]
        out = [
            {"custom_id": x["custom_id"], "response": {"status_code": 200, "body": {"n": i}}}
            for i, x in enumerate(lines)
        ]
        self.files[f"out-{input_file_id}"] = "\n".join(json.dumps(o) for o in out).encode()
        batch = SimpleNamespace(
            id=f"b{len(self.created)}",
            status="completed",
            input_file_id=input_file_id,
            output_file_id=f"out-{input_file_id}",
            error_file_id=None,
            request_counts=None,
            errors=None,
        )
        self.batches[batch.id] = batch
        return batch

    async def aretrieve_batch(self, batch_id: str, **kw: Any) -> Any:
        return self.batches[batch_id]

    async def afile_content(self, file_id: str, **kw: Any) -> Any:
        return SimpleNamespace(content=self.files[file_id])

    async def alist_batches(self, **kw: Any) -> Any:
        return SimpleNamespace(data=list(self.batches.values()))


class RateLimited(Exception):
    status_code = 429

    def __init__(self) -> None:
        super().__init__("rate limited")
        self.headers = {"retry-after": "0"}


def queue(store: RunStore, api: ScriptedBatches, **mode: Any) -> BatchQueue:
    return BatchQueue(
        "j",
        "openai/gpt-4o-mini",
        "completion",
        ModelOptions(api_base="http://127.0.0.1:9/v1"),
        BatchMode(poll_interval=0.001, gather=0.05, **mode),
        store,
        RetryPolicy(initial_interval=0.001, max_interval=0.001),
        api=api,
    )


def test_the_queue_gathers_requests_into_files_of_at_most_max_lines(tmp_path):
    store, api = RunStore(tmp_path / "run.sqlite"), ScriptedBatches()
    api.submit_429 = 1
    q = queue(store, api, max_lines=4)

    async def ask_all() -> list[Any]:
        return await asyncio.gather(*(q.answer(f"id{i}-1", {"i": i}) for i in range(10)))

    answers = asyncio.run(ask_all())
    batches = [batch for _, batch in answers]
    files = [batches[0:4], batches[4:8], batches[8:]]  # in the order they were asked
    assert all(len(set(f)) == 1 for f in files) and len(set(batches)) == 3
    assert len(api.created) == 3  # the 429 on submit was waited out, not a lost file
    records = store.load_batches("j")
    assert sorted(r.batch_id or "" for r in records) == ["b1", "b2", "b3"]
    assert {r.status for r in records} == {"completed"}
    assert sum(len(r.custom_ids) for r in records) == 10


def test_a_resumed_queue_reads_recorded_batches_and_adopts_a_file_left_without_one(tmp_path):
    """A batch recorded by a killed run answers its lines again without a new submission; a
    file recorded without its batch is found among the provider's batches by its id."""
    store, api = RunStore(tmp_path / "run.sqlite"), ScriptedBatches()
    first = queue(store, api)

    async def ask(q: BatchQueue, ids: list[str]) -> list[Any]:
        return await asyncio.gather(*(q.answer(i, {"x": i}) for i in ids))

    asyncio.run(ask(first, ["a-1", "b-1"]))
    # a file uploaded and submitted whose batch id the killed run never wrote down
    api.files["f9"] = b'{"custom_id": "c-1", "body": {}}\n'
    orphan = asyncio.run(api.acreate_batch(input_file_id="f9"))
    store.save_batch(BatchRecord("f9", None, "j", "/v1/chat/completions", "uploaded", ("c-1",), 0))
    created = len(api.created)

    resumed = queue(store, api)
    answers = asyncio.run(ask(resumed, ["a-1", "c-1", "d-1"]))
    assert [batch for _, batch in answers] == ["b1", orphan.id, "b3"]
    assert len(api.created) == created + 1  # only d-1 was new
    assert {r.file_id: r.batch_id for r in store.load_batches("j")}["f9"] == orphan.id


def test_a_failed_line_is_a_retryable_error_and_a_lost_batch_a_final_one(tmp_path):
    store, api = RunStore(tmp_path / "run.sqlite"), ScriptedBatches()
    q = queue(store, api)
    request = BatchRequest(q, "step", {"model": "openai/gpt-4o-mini", "api_base": "x", "n": 1})
    assert request.body == {"model": "gpt-4o-mini", "n": 1}  # litellm's own keys left out
    assert request.custom_id(1) != request.custom_id(2)
    assert request.takes(2) and not BatchRequest(queue(store, api, retry="live"), "step", {}).takes(
        2
    )

    async def lost(**kw: Any) -> Any:
        raise ConnectionError("the provider is gone")

    api.aretrieve_batch = lost  # type: ignore[method-assign]
    with pytest.raises(LineFailed) as failed:
        asyncio.run(q.answer("z-1", {}))
    assert failed.value.final and "--resume" in str(failed.value)
    assert store.load_batches("j")[0].batch_id is not None  # kept: a resume looks again


# -- whole grids on the fault server ----------------------------------------------------------


def test_batches_follow_the_stages_and_cost_half_the_live_price(tmp_path, server):
    """No faults: one batch per entry and stage (statements, questions and verdicts first; the
    nli verdicts of the statements next; the embeddings of the generated questions), each line
    the live answer; the cost table shows the batch price beside the live one."""
    server.set_plan(FaultPlan(batch=BatchPlan(delay_s=0.05)))
    data = samples(tmp_path, 6)
    result = run_grid(save_matrix(tmp_path, "m", batch_matrix(server.url, data)), use_cache=False)
    assert result.complete and set(result.scores["status"]) == {"scored"}
    db = result.run_dir / "run.sqlite"
    steps = batch_steps(db)
    assert len(steps) == len(server.batches.batches) == 5
    first, second = [], []
    for found in steps.values():
        (second if "nli" in found else first).append(found)
    assert len(first) == 3 and all(s == {"nli"} for s in second) and len(second) == 2
    assert query(db, "SELECT count(*) FROM calls WHERE batch_id IS NULL") == [(0,)]
    # the same answers as live
    live_matrix = batch_matrix(server.url, data)
    live_matrix["defaults"].pop("batch")
    live = run_grid(save_matrix(tmp_path, "live", live_matrix), use_cache=False)
    assert _cells(live.scores) == _cells(result.scores)
    summary = (result.run_dir / "summary.md").read_text()
    assert "cost if live" in summary and "calls in provider batches" in summary
    paid, if_live = query(db, "SELECT sum(cost), sum(live_cost) FROM calls")[0]
    assert paid == pytest.approx(if_live / 2, rel=1e-6)
    assert "cost if live" in (result.run_dir / "report.html").read_text()


def test_a_500_cell_grid_survives_failed_lines_an_expired_batch_and_a_429(tmp_path, server):
    server.set_plan(
        FaultPlan(
            batch=BatchPlan(delay_s=0.05, failed_lines=0.05, expire=(2,), submit_429=1),
        )
    )
    n = 40
    result = run_grid(
        save_matrix(tmp_path, "m", batch_matrix(server.url, samples(tmp_path, n))), use_cache=False
    )
    assert len(result.scores) == result.expected_cells == 2 * n * PER_SAMPLE >= 500
    statuses = set(result.scores["status"])
    assert statuses <= {"scored", "failed"}
    failed = result.scores[result.scores["status"] == "failed"]
    assert failed["error"].str.contains("batch").all()  # each with its cause
    desk = server.batches
    assert set(desk.created_for.values()) == {1}  # no file submitted twice
    assert desk.submits == len(desk.batches) + 1  # the 429 was waited out once
    assert max(desk.lines_submitted.values()) == 1  # a retry is a new line (attempt + 1)
    db = result.run_dir / "run.sqlite"
    errors = query(
        db,
        "SELECT step_key, attempt, error FROM calls "
        "WHERE status = 'error' AND batch_id IS NOT NULL",
    )
    failed_lines = [e for e in errors if "failed line" in e[2]]
    expired_lines = [e for e in errors if "expired" in e[2]]
    assert failed_lines and expired_lines
    later = {(k, a) for k, a in query(db, "SELECT step_key, attempt FROM calls")}
    max_attempts = 4
    for key, attempt, _ in errors:  # every failed or expired line tried again, up to the limit
        assert (key, attempt + 1) in later or attempt == max_attempts
    # the expired batch: its unfinished lines went into later batches, each once
    expired = [b for b in desk.batches.values() if b.status == "expired"]
    assert len(expired) == 1
    assert len({k for k, _, _ in expired_lines}) == len(expired_lines)
    assert "cost if live" in (result.run_dir / "summary.md").read_text()


def _cells(scores: Any) -> list[tuple[Any, ...]]:
    frame = scores.sort_values(CELL_KEY)
    return [
        (*row[:-2], row[-2], None if row[-1] != row[-1] else round(row[-1], 12))
        for row in frame[[*CELL_KEY, "status", "score"]].itertuples(index=False)
    ]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from judgegrid.cli import main; main()", *args]


def _start_with_batches_pending(
    tmp_path: Path, server: FaultServer, data: Path, batches: int
) -> tuple[subprocess.Popen[str], Path]:
    """``judgegrid run`` of the batch matrix in a subprocess, once ``batches`` batches are
    pending at the server (which holds them) and recorded in the run database."""
    server.set_plan(FaultPlan(batch=BatchPlan(delay_s=3600.0)))  # pending until released
    path = save_matrix(tmp_path, "m", batch_matrix(server.url, data))
    reports = tmp_path / "r"
    proc = subprocess.Popen(
        _cli("run", str(path), "--no-progress", "--no-cache", "--reports-dir", str(reports)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        found = list(reports.glob("*/run.sqlite"))
        if found and server.batches.pending >= batches:
            recorded = query(found[0], "SELECT count(*) FROM batches WHERE batch_id IS NOT NULL")
            if recorded[0][0] >= batches:
                return proc, found[0]
        time.sleep(0.05)
    raise AssertionError(proc.communicate()[1] if proc.poll() is not None else "no batch")


def test_a_run_killed_while_batches_are_pending_resumes_without_paying_twice(tmp_path, server):
    """SIGKILL once the first batches are submitted and pending; --resume looks at them again:
    no file is submitted twice, and the cells equal those of an uninterrupted batch run."""
    n = 36
    data = samples(tmp_path, n)
    proc, db = _start_with_batches_pending(tmp_path, server, data, batches=2)
    proc.kill()
    proc.communicate(timeout=60)
    pending = dict(server.batches.created_for)
    assert pending and server.batches.pending == len(pending)  # killed with batches pending

    server.plan.batch.delay_s = 0.05  # the provider finishes them
    resumed = subprocess.run(
        _cli("run", "--resume", str(db.parent), "--no-progress"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    desk = server.batches
    assert set(desk.created_for.values()) == {1}  # each input file's batch created once
    assert max(desk.lines_submitted.values()) == 1  # and no request sent in a second batch
    for file_id in pending:  # the pending batches answered the resumed run
        assert any(b.body["input_file_id"] == file_id for b in desk.batches.values())
    statuses = dict(query(db, "SELECT status, count(*) FROM batches GROUP BY status"))
    assert statuses == {"completed": len(desk.batches)}, statuses
    scores = pd_scores(db)
    assert len(scores) == 2 * n * PER_SAMPLE

    again = run_grid(
        save_matrix(tmp_path, "again", batch_matrix(server.url, data)), use_cache=False
    )
    assert _cells(again.scores) == _cells(scores)


def pd_scores(db: Path) -> Any:
    con = sqlite3.connect(db)
    try:
        return pd.read_sql_query("SELECT * FROM scores", con)
    finally:
        con.close()


def test_an_interrupted_run_says_which_batches_still_run_at_the_provider(tmp_path, server):
    """SIGTERM (as Ctrl-C) with batches pending: the message counts them and names --resume."""
    proc, db = _start_with_batches_pending(tmp_path, server, samples(tmp_path, 4), batches=1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert server.batches.pending >= 1
    lines = query(  # what the run had recorded as pending when it stopped
        db,
        "SELECT custom_ids FROM batches WHERE batch_id IS NOT NULL "
        "AND status NOT IN ('completed', 'expired', 'failed', 'cancelled')",
    )
    pending, requests = len(lines), sum(len(json.loads(ids)) for (ids,) in lines)
    assert pending >= 1
    batches = f"{pending} batch{'es' if pending != 1 else ''} ({requests} requests)"
    assert f"{batches} still run at the provider" in err
    assert "--resume reads their answers" in err and "judgegrid run --resume" in err


def test_retry_live_sends_a_failed_line_again_as_a_live_call(tmp_path, server):
    server.set_plan(FaultPlan(batch=BatchPlan(delay_s=0.05, failed_lines=0.2)))
    matrix = batch_matrix(server.url, samples(tmp_path, 6))
    matrix["defaults"]["batch"] = {**FAST, "retry": "live"}
    result = run_grid(save_matrix(tmp_path, "m", matrix), use_cache=False)
    assert result.complete and set(result.scores["status"]) == {"scored"}
    db = result.run_dir / "run.sqlite"
    failed = query(db, "SELECT step_key, attempt FROM calls WHERE status = 'error'")
    assert failed and all(attempt == 1 for _, attempt in failed)  # only first tries in batches
    retried = query(db, "SELECT batch_id, status FROM calls WHERE attempt > 1")
    assert len(retried) == len(failed)
    assert all(batch_id is None and status == "ok" for batch_id, status in retried)  # live
    assert max(server.batches.lines_submitted.values()) == 1
