"""Sharded runs: one process, local worker processes (loky) and Ray workers give the same grid.

The workers reach the judges over HTTP (the fault-injection server on 127.0.0.1), since the
scripted provider of the other tests lives only in this process. No assertion here is on time.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from bisect import bisect_left
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import CELL_KEY, clean_fault_server, fault_server_matrix, save_matrix
from judgegrid import run_grid
from judgegrid.calls.transport import RateLimit
from judgegrid.cli import app
from judgegrid.core.cells import Cell
from judgegrid.core.errors import OptionError
from judgegrid.inputs.matrix import matrix_from_data
from judgegrid.inputs.shards import (
    SHARDS_PER_WORKER,
    shard_count,
    split_shards,
    window_safe_share,
    worker_matrix,
)
from judgegrid.run.orchestrate import execution_for
from judgegrid.testing.fault_server import FaultPlan, FaultServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import grid as bench_grid  # benches/ is not a package

KEY_ENV = "JUDGEGRID_WORKER_KEY"


@pytest.fixture(autouse=True)
def fresh(monkeypatch, request):
    monkeypatch.setenv(KEY_ENV, "sk-worker-test")
    clean_fault_server(request)


def grid_matrix(url: str, data: Path, **overrides: Any) -> dict[str, Any]:
    """Two judges, one embedding model at two dimensions, four metrics, two repeats."""
    judges = {n: f"openai/fake-{n}" for n in ("a", "b")}
    concurrency = {"total": 16, "per_model": 8}
    matrix = fault_server_matrix(url, data, KEY_ENV, judges, "openai/fake-embed", name="workers")
    return {**matrix, "concurrency": concurrency, **overrides}


@pytest.fixture
def samples(tmp_path) -> Path:
    return bench_grid.write_jsonl(tmp_path / "samples.jsonl", bench_grid.synthetic_samples(6))


# -- the pure parts -------------------------------------------------------------------------


def _cells(samples: int) -> list[Cell]:
    return [
        Cell(m, j, "", 0, 0, f"s{i}", r)
        for m in ("faithfulness", "context_recall")
        for j in ("a", "b")
        for i in range(samples)
        for r in range(2)
    ]


def test_a_shard_holds_whole_samples_so_shared_steps_stay_together():
    cells = _cells(samples=40)
    shards = split_shards(cells, workers=2, slots=1)
    assert sorted(c for s in shards for c in s.cells) == sorted(cells)
    owner = {}
    for shard in shards:
        for cell in shard.cells:
            assert owner.setdefault(cell.sample_id, shard.number) == shard.number
    assert len(shards) >= 2 * 2  # more shards than workers: a lost one is a small part


def test_a_shard_keeps_its_workers_slots_busy_before_the_run_is_cut_finer():
    # 16 cells behind each of a worker's slots, else fewer shards: each one's drain idles slots
    assert shard_count(cells=1080, samples=60, workers=2, slots=32) == 2
    assert shard_count(cells=4 * 1080, samples=240, workers=2, slots=32) == 2 * 4
    assert shard_count(cells=10**6, samples=2000, workers=4, slots=16) == 4 * SHARDS_PER_WORKER
    assert shard_count(cells=10**6, samples=3, workers=4, slots=16) == 3  # whole samples only
    assert shard_count(cells=5, samples=5, workers=2, slots=64) == 2
    assert len(split_shards(_cells(samples=60), workers=2, slots=32)) == 2


def test_each_worker_gets_its_share_of_every_limit():
    matrix = matrix_from_data(
        {
            "judges": [
                {"id": "openai/x", "max_concurrency": 6, "requests_per_minute": 600},
                {"id": "openai/y", "tokens_per_minute": 10000},
            ],
            "metrics": ["faithfulness"],
            "concurrency": {"total": 64, "per_model": 32},
        }
    )
    share = worker_matrix(matrix, 4)
    assert (share.concurrency.total, share.concurrency.per_model) == (16, 8)
    assert share.judges[0].max_concurrency == 1
    assert share.judges[0].requests_per_minute == pytest.approx(window_safe_share(600, 4))
    assert share.judges[1].requests_per_minute is None
    assert worker_matrix(matrix, 1) is matrix


@pytest.mark.parametrize(("per_minute", "workers"), [(600, 2), (120, 2), (60, 4), (5000, 3)])
def test_workers_together_never_pass_the_limit_in_any_60_second_window(per_minute, workers):
    """Each worker's buckets (new per shard, starting empty) kept busy on a simulated clock; the
    busiest 60-second window of all their requests together stays within the matrix's limit."""
    rate = window_safe_share(per_minute, workers)
    times: list[float] = []
    for w in range(workers):
        now = [w * 0.37]  # workers start at different moments

        async def sleep(seconds: float, now=now) -> None:
            now[0] += seconds

        async def busy(now=now) -> None:
            for _shard in range(3):  # a new bucket for every shard, as a worker has
                bucket = RateLimit(rate, clock=lambda: now[0], sleep=sleep, start_full=False)
                for _ in range(int(per_minute)):
                    await bucket.acquire(1)
                    times.append(now[0])

        asyncio.run(busy())
    times.sort()
    # the requests in [start, start + 60) of each start, counted by bisection (times are sorted)
    busiest = max(bisect_left(times, start + 60, lo=i) - i for i, start in enumerate(times))
    assert busiest <= per_minute


def test_execution_is_checked_like_the_rest_of_the_matrix():
    matrix = matrix_from_data({"judges": [{"id": "openai/x"}], "metrics": ["faithfulness"]})
    assert execution_for(matrix).distributed is False
    assert execution_for(matrix, workers=3).engine == "processes"
    with pytest.raises(OptionError) as bad:
        execution_for(matrix, backend="rey")
    assert "processes" in str(bad.value.problems[0])
    with pytest.raises(OptionError) as bad:
        execution_for(matrix, address="auto")
    assert "ray" in str(bad.value.problems[0])
    with pytest.raises(Exception) as typo:
        matrix_from_data(
            {"judges": [{"id": "x"}], "metrics": ["faithfulness"], "execution": {"worker": 2}}
        )
    assert "did you mean 'workers'" in str(typo.value.problems[0])


# -- the same grid on every backend -----------------------------------------------------------


def _steps_per_group(run_dir: Path) -> Counter[tuple[str, str]]:
    """How often each answered judge step was asked (ok completions per step key)."""
    con = sqlite3.connect(run_dir / "run.sqlite")
    try:
        rows = con.execute(
            "SELECT c.step_key, n.step FROM calls c JOIN step_names n ON n.key = c.step_key "
            "WHERE c.kind = 'completion' AND c.status = 'ok'"
        ).fetchall()
    finally:
        con.close()
    return Counter(rows)


@pytest.mark.ray
def test_one_process_two_processes_and_two_ray_workers_score_the_same_grid(
    tmp_path, server, samples, monkeypatch
):
    pytest.importorskip("ray")
    # Ray starts its workers at nice 15 (its worker_niceness setting, RAY_worker_niceness in the
    # environment of the Ray instance the run starts): beside the other xdist worker's busy
    # cores they got a few percent of a core, and the Ray run took minutes. The priority is not
    # what is tested here.
    monkeypatch.setenv("RAY_worker_niceness", "0")
    results = {}
    for name, execution in [
        ("one", {}),
        ("processes", {"workers": 2}),
        ("ray", {"workers": 2, "backend": "ray"}),
    ]:
        matrix = grid_matrix(server.url, samples, execution=execution)
        result = run_grid(
            save_matrix(tmp_path, name, matrix), run_dir=tmp_path / name, use_cache=False
        )
        assert result.complete and set(result.scores["status"]) == {"scored"}, name
        results[name] = result
        asked = _steps_per_group(tmp_path / name)
        # each step (one per judge × sample × repeat and step name) asked exactly once
        assert asked and set(asked.values()) == {1}, name
    one = results["one"].scores.sort_values(CELL_KEY).reset_index(drop=True)
    for name in ("processes", "ray"):
        other = results[name].scores.sort_values(CELL_KEY).reset_index(drop=True)
        assert other[CELL_KEY].equals(one[CELL_KEY]), name
        assert other["score"].tolist() == pytest.approx(one["score"].tolist(), nan_ok=True)
        # the same requests answered (a retried timeout on a loaded machine adds an attempt row)
        answered = results[name].calls["status"] == "ok"
        assert answered.sum() == (results["one"].calls["status"] == "ok").sum(), name


# -- faults: a worker killed, the driver killed ------------------------------------------------


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from judgegrid.cli import main; main()", *args]


def _scores(db: Path) -> int:
    """Score rows in a run database another process is writing (0 before it exists)."""
    try:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT count(*) FROM scores").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _wait_for_scores(reports: Path, proc: subprocess.Popen, timeout: float = 240) -> Path:
    """The run database once the driver has written a first shard."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        found = list(reports.glob("*/run.sqlite"))
        if found and _scores(found[0]) > 0:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no shard was written: {proc.communicate()[1] if proc.poll() else ''}")


def _wait_for_a_held_request(server: FaultServer, proc: subprocess.Popen) -> None:
    """Until a request arrives under the current plan (its answer held back by the latency):
    the shard that sent it cannot finish before the kill. (A request count above the database's
    calls is not enough: a finished shard's rows may be on their way to the driver.)"""
    arrived = server.requests
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if server.requests > arrived:
            return
        time.sleep(0.02)
    raise AssertionError("no request reached the server from a worker")


def _worker_pids(driver: int) -> list[int]:
    """loky's worker processes under the driver (children running loky's process entry)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[1]) == driver and "loky" in cmdline and "resource_tracker" not in cmdline:
            pids.append(int(proc.name))
    return pids


def _start_sharded_run(
    tmp_path: Path, server: FaultServer, samples: Path, *options: str
) -> tuple[subprocess.Popen, Path]:
    """``judgegrid run --workers 2`` at 50 ms a call, once its first shard is written."""
    server.set_plan(FaultPlan(latency_s=0.05))
    matrix = grid_matrix(server.url, samples, concurrency={"total": 4, "per_model": 2})
    reports = tmp_path / "r"
    path = save_matrix(tmp_path, "m", matrix)
    proc = subprocess.Popen(
        _cli("run", str(path), "--workers", "2", "--no-progress", "--reports-dir", str(reports))
        + list(options),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as in a terminal (see tests/cli/test_cli.py): SIGINT at its default in the driver
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    return proc, _wait_for_scores(reports, proc)


def _resume_on_workers(db: Path) -> subprocess.CompletedProcess[str]:
    resumed = subprocess.run(
        _cli("run", "--resume", str(db.parent), "--workers", "2", "--no-progress"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    return resumed


def _check_complete(db: Path, expected: int) -> None:
    con = sqlite3.connect(db)
    try:
        statuses = dict(con.execute("SELECT status, count(*) FROM scores GROUP BY status"))
        cells = con.execute(
            f"SELECT count(*) FROM (SELECT DISTINCT {', '.join(CELL_KEY)} FROM scores)"
        ).fetchone()[0]
        repeated = con.execute(
            "SELECT count(*) FROM (SELECT step_key FROM calls WHERE status = 'ok' "
            "AND kind = 'completion' GROUP BY step_key HAVING count(*) > 1)"
        ).fetchone()[0]
    finally:
        con.close()
    assert sum(statuses.values()) == cells == expected, statuses
    assert set(statuses) <= {"scored", "failed", "skipped"}
    assert repeated == 0  # a finished cell's calls are never made (or kept) twice


def test_a_worker_killed_mid_run_loses_only_its_shard_which_runs_again(tmp_path, server, samples):
    proc, db = _start_sharded_run(tmp_path, server, samples, "--no-cache")
    workers = _worker_pids(proc.pid)
    assert workers, "no loky worker found under the driver"
    # hold answers so that a shard is surely mid-flight when a worker dies; loky's pool breaks
    # with any dead worker, and every shard then in flight runs again
    server.set_plan(FaultPlan(latency_s=5.0))
    _wait_for_a_held_request(server, proc)
    os.kill(workers[0], signal.SIGKILL)
    server.set_plan(FaultPlan(latency_s=0.05))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "shards run again after a worker was lost" in out
    expected = 2 * 6 * 2 * (2 * 2 + 1 + 1 + 1)  # judges × samples × repeats × cells per sample
    _check_complete(db, expected)
    # the killed shard's requests reached the server but not the run database: made again
    calls = sqlite3.connect(db).execute("SELECT count(*) FROM calls").fetchone()[0]
    assert server.requests > calls


def test_a_killed_driver_resumes_on_workers_to_a_complete_run(tmp_path, server, samples):
    proc, db = _start_sharded_run(tmp_path, server, samples, "--no-cache")
    proc.kill()
    proc.communicate(timeout=60)
    before = _scores(db)
    resumed = _resume_on_workers(db)
    assert f"{before} were already done" in resumed.stdout
    _check_complete(db, 2 * 6 * 2 * 7)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_a_kill_stops_a_sharded_run_with_exit_130_and_it_resumes(
    tmp_path, server, samples, signum
):
    """The workers are killed, the finished shards stay, and --resume finishes the run."""
    proc, db = _start_sharded_run(tmp_path, server, samples)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert f"judgegrid run --resume {db.parent}" in err and "Traceback" not in err
    assert _worker_pids(proc.pid) == []
    _resume_on_workers(db)
    _check_complete(db, 2 * 6 * 2 * 7)


def test_a_bad_backend_on_the_command_line_is_one_line_and_exit_2(write_matrix):
    result = CliRunner().invoke(app, ["run", str(write_matrix()), "--backend", "rey"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if "execution" in line]
    assert len(lines) == 1 and "'processes' or 'ray'" in lines[0], result.output
