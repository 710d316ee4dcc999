"""A sharded run on Ray's own multi-node test cluster (a head and two worker nodes on this
machine, ``ray.cluster_utils.Cluster``), with a worker node removed while shards are in flight.

The judges are the fault-injection server on 127.0.0.1, slowed down so that the removal lands
mid-run: the node goes when the driver has written its first shard, while both worker nodes hold
a shard. The server counts every request body it receives, so the test sees what was paid for,
not only what the run database kept.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CELL_KEY, fault_server_matrix, save_matrix
from judgegrid import run_grid
from judgegrid.inputs import shards
from judgegrid.testing.fault_server import FaultPlan, FaultServer, start_fault_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import grid as bench_grid  # benches/ is not a package

ray_cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = pytest.mark.ray  # its cluster is the machine's current one: no other Ray beside it

KEY_ENV = "JUDGEGRID_CLUSTER_KEY"
SCORE_ROW = [*CELL_KEY, "score", "status"]
NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024**2}


@pytest.fixture
def slow_server() -> Iterator[FaultServer]:
    """A server of this test's own (its per-body counts start at zero), each answer 0.5 s late."""
    srv = start_fault_server(FaultPlan(latency_s=0.5))
    yield srv
    srv.stop()


@pytest.fixture
def cluster(monkeypatch) -> Iterator[Any]:
    """A head that runs no shard (num_cpus=0) and two worker nodes of one CPU each; the nodes'
    processes inherit the key from this environment."""
    monkeypatch.setenv(KEY_ENV, "sk-cluster-test")
    cluster = ray_cluster_utils.Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "object_store_memory": NODE["object_store_memory"]},
    )
    try:
        for _ in range(2):
            cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()


def _matrix(url: str, data: Path, execution: dict[str, Any]) -> dict[str, Any]:
    """One judge, two metrics, one repeat: a few calls per sample."""
    matrix = fault_server_matrix(
        url, data, KEY_ENV, {"a": "openai/fake-a"}, "openai/fake-embed", name="cluster"
    )
    return {
        **matrix,
        "metrics": ["faithfulness", "context_recall"],
        "repeats": 1,
        "concurrency": {"total": 4, "per_model": 4},
        "execution": execution,
    }


def _answered_per_step(run_dir: Path) -> Counter[str]:
    con = sqlite3.connect(run_dir / "run.sqlite")
    try:
        rows = con.execute("SELECT step_key FROM calls WHERE status = 'ok'").fetchall()
    finally:
        con.close()
    return Counter(key for (key,) in rows)


def _running_a_shard(node: Any) -> bool:
    """Whether one of the node's workers (children of its raylet) is in a shard now: Ray names
    a busy worker process ``ray::run_shard`` and an idle one ``ray::IDLE``."""
    raylets = [p.pid for name, p in node.live_processes() if name == "raylet"]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            title = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # a process that ended meanwhile
        if parent in raylets and title.startswith(b"ray::run_shard"):
            return True
    return False


def _score_rows(result: Any) -> list[tuple[Any, ...]]:
    frame = result.scores[SCORE_ROW].sort_values(CELL_KEY)
    return [tuple(row) for row in frame.itertuples(index=False)]


def test_a_node_lost_mid_run_loses_no_cell_and_pays_for_no_finished_cell_twice(
    tmp_path, slow_server, cluster, monkeypatch
):
    # a shard a sample (8), so that shards are still out after the first is written: at the
    # usual size this grid is two shards, one a worker, which a loaded machine finishes together
    monkeypatch.setattr(shards, "CELLS_PER_SLOT", 1)
    data = bench_grid.write_jsonl(tmp_path / "samples.jsonl", bench_grid.synthetic_samples(8))
    one = run_grid(
        save_matrix(tmp_path, "one", _matrix(slow_server.url, data, {})),
        run_dir=tmp_path / "one",
        use_cache=False,
    )
    assert one.complete and set(one.scores["status"]) == {"scored"}
    paid_one = sum(slow_server._seen.values())
    before, asked_before = Counter(slow_server._seen), slow_server.requests

    removed: list[int] = []  # calls the driver had written when the node went
    written = [0]  # calls the driver has written so far (its progress callback's tally)
    finished = threading.Event()

    def remove_a_busy_node() -> None:
        """Once a shard is written, remove a worker node while it runs a shard that has sent a
        request the driver has not written. Watched from a thread of its own, not from the
        driver's progress callback: the driver sends out two shards together, and on a loaded
        machine both could finish between two callbacks in every round (CI once saw no node
        busy at any callback, and nothing was removed)."""
        while not removed and not finished.wait(0.05):
            if not written[0]:
                continue
            busy = [n for n in cluster.worker_nodes if _running_a_shard(n)]
            if busy and slow_server.requests - asked_before > written[0]:
                removed.append(written[0])
                cluster.remove_node(busy[0], allow_graceful=False)

    def note_progress(tally: Any, cell: Any, status: str) -> None:
        written[0] = tally.calls

    # each answer later on the cluster: a shard then outlives its node's removal even on a
    # loaded machine (at 0.5 s, CI once saw the shard finish first, and nothing was lost)
    slow_server.plan.latency_s = 2.0
    execution = {"backend": "ray", "workers": 2, "address": cluster.address}
    watcher = threading.Thread(target=remove_a_busy_node, daemon=True)
    watcher.start()
    try:
        ray_run = run_grid(
            save_matrix(tmp_path, "ray", _matrix(slow_server.url, data, execution)),
            run_dir=tmp_path / "ray",
            use_cache=False,
            on_progress=note_progress,
        )
    finally:
        finished.set()
        watcher.join(timeout=60)
    assert removed and 0 < removed[0] < paid_one, "the node went mid-run"
    # no cell lost: every cell scored, and the same rows as one process
    assert ray_run.complete and set(ray_run.scores["status"]) == {"scored"}
    assert _score_rows(ray_run) == _score_rows(one)
    # what the run kept: each step answered once, as many answers as one process paid for
    answered = _answered_per_step(tmp_path / "ray")
    assert set(answered.values()) == {1}
    assert answered == _answered_per_step(tmp_path / "one")
    # what the server was paid for: the one-process run's requests, plus again some of those
    # not yet written when the node went (its shard's, redone whole), never a written one's
    paid = Counter(slow_server._seen) - before
    again = sum(paid.values()) - len(paid)
    assert set(paid) == set(before)
    # the removed node's shard is redone whole when it was still out (``again`` > 0); when its
    # worker had just finished (a loaded machine names a worker ``ray::run_shard`` for a moment
    # after its shard), nothing is redone: either way, no written call is asked again
    assert 0 <= again <= paid_one - removed[0], (again, paid_one, removed)
