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
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CELL_KEY, fault_server_matrix, save_matrix
from judgegrid import run_grid
from judgegrid.testing.fault_server import FaultPlan, FaultServer, start_fault_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
import grid as bench_grid  # benches/ is not a package

ray_cluster_utils = pytest.importorskip("ray.cluster_utils")

KEY_ENV = "JUDGEGRID_CLUSTER_KEY"
SCORE_ROW = [*CELL_KEY, "score", "status"]
NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024**2}


@pytest.fixture
def slow_server() -> Iterator[FaultServer]:
    """A server of this test's own (its per-body counts start at zero), each answer 0.2 s late."""
    srv = start_fault_server(FaultPlan(latency_s=0.2))
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
    """One judge, two metrics, one repeat: a few calls per sample, many small shards."""
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


def _score_rows(result: Any) -> list[tuple[Any, ...]]:
    frame = result.scores[SCORE_ROW].sort_values(CELL_KEY)
    return [tuple(row) for row in frame.itertuples(index=False)]


def test_a_node_lost_mid_run_loses_no_cell_and_pays_for_no_finished_cell_twice(
    tmp_path, slow_server, cluster
):
    data = bench_grid.write_jsonl(tmp_path / "samples.jsonl", bench_grid.synthetic_samples(8))
    one = run_grid(
        save_matrix(tmp_path, "one", _matrix(slow_server.url, data, {})),
        run_dir=tmp_path / "one",
        use_cache=False,
    )
    assert one.complete and set(one.scores["status"]) == {"scored"}
    paid_one = sum(slow_server._seen.values())
    before = Counter(slow_server._seen)

    removed: list[int] = []  # cells the driver had written when the node went

    def remove_a_node_after_the_first_shard(tally: Any, cell: Any, status: str) -> None:
        if not removed and tally.done >= 1:
            removed.append(tally.done)
            cluster.remove_node(next(iter(cluster.worker_nodes)), allow_graceful=False)

    execution = {"backend": "ray", "workers": 2, "address": cluster.address}
    ray_run = run_grid(
        save_matrix(tmp_path, "ray", _matrix(slow_server.url, data, execution)),
        run_dir=tmp_path / "ray",
        use_cache=False,
        on_progress=remove_a_node_after_the_first_shard,
    )
    assert removed and removed[0] < len(one.scores), "the node went before the run ended"
    # no cell lost: every cell scored, and the same rows as one process
    assert ray_run.complete and set(ray_run.scores["status"]) == {"scored"}
    assert _score_rows(ray_run) == _score_rows(one)
    # what the run kept: each step answered once, as many answers as one process paid for
    answered = _answered_per_step(tmp_path / "ray")
    assert set(answered.values()) == {1}
    assert answered == _answered_per_step(tmp_path / "one")
    # what the server was paid for: the one-process run's requests, plus at most the lost
    # shard's own again (a shard is the unit of work: its node took its in-memory rows along)
    paid = Counter(slow_server._seen) - before
    again = sum(paid.values()) - len(paid)
    shard_calls = max(paid_one // 2, 1)  # at least 2 shards: one never holds over half
    assert set(paid) == set(before)
    assert 0 < again <= shard_calls, (again, sum(paid.values()), paid_one)
