"""Calls per grid against Ragas's call pattern, then an identical rerun on a warm cache.

    PYTHONPATH=src python benches/bench_calls.py [--samples N] [--repeats R]

The full grid of issue 6: all seven metrics, 3 judges, 2 embedding models x 2 dimensions,
strictness 1/3/5, 3 repeats, 50 synthetic samples with 4 contexts each, on the scripted judge
of the test suite (canned JSON through litellm's custom-provider path; the count is what
matters, not the answers). It counts the judge calls judgegrid sends and compares them, metric
by metric, with what Ragas's documented pattern would send for the same cells. Then it runs the
identical grid again: with the cross-run cache that rerun must make 0 calls.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import yaml
from common import (
    Row,
    emit,
    fake_model_options,
    fault_server_available,
    start_fault_server,
    verdict,
)
from grid import (
    ALL_METRICS,
    judgegrid_calls,
    matrix_dict,
    ragas_embedding_calls,
    ragas_pattern_calls,
    shape_of,
    synthetic_samples,
    write_jsonl,
)

TARGET_RATIO = 0.7


def models(url: str) -> tuple[list[dict], list[dict]]:
    """3 judges and 2 embedding models x 2 dimensions, all served by the fault server."""
    options = fake_model_options(url)
    judges = [
        {"id": f"openai/fake-judge-{c}", "label": f"judge-{c}", "options": options} for c in "abc"
    ]
    embeddings = [
        {
            "id": f"openai/fake-embedding-{c}",
            "label": f"emb-{c}",
            "dimensions": [64, 32],
            "dimension_method": "truncate",
            "options": options,
        }
        for c in "ab"
    ]
    return judges, embeddings


def has_cross_run_cache() -> bool:
    try:
        import judgegrid.store.cache  # noqa: F401  (issue 4's cross-run cache)
    except ImportError:
        return False
    return True


def count_run(run_dir: Path) -> dict:
    from judgegrid.store.run_db import DB_NAME, RunStore

    store = RunStore(run_dir / DB_NAME)
    try:
        return judgegrid_calls(store.scores_frame(), store.calls_frame(), store.step_names_frame())
    finally:
        store.close()


def used_n(run_dir: Path) -> bool:
    """Whether any request of the run asked the provider for several choices (``n``)."""
    from judgegrid.store.run_db import DB_NAME, RunStore

    store = RunStore(run_dir / DB_NAME)
    try:
        requests = store.calls_frame()["request"]
    finally:
        store.close()
    return any(json.loads(r).get("n", 1) > 1 for r in requests)


def comparison_rows(counted: dict, shape, n_used: bool) -> tuple[list[Row], list[str]]:
    """Per metric and in total: judgegrid against Ragas (the pattern matching the provider)."""
    separate = ragas_pattern_calls(shape, n_per_call=False)
    with_n = ragas_pattern_calls(shape, n_per_call=True)
    baseline = with_n if n_used else separate
    assumption = "1 call with n" if n_used else "n separate calls"
    lines = [
        f"Ragas ResponseRelevancy assumed to send {assumption} per score (as judgegrid's "
        "provider does here)",
        f"{'metric':<24}{'Ragas (n sep.)':>15}{'Ragas (with n)':>15}{'judgegrid':>11}{'ratio':>8}",
    ]
    rows = []
    for metric in shape.metrics:
        ours = counted["per_metric"].get(metric, 0)
        ratio = ours / baseline[metric]
        lines.append(
            f"{metric:<24}{separate[metric]:>15}{with_n[metric]:>15}{ours:>11}{ratio:>8.2f}"
        )
        rows.append(Row("calls per grid", f"{metric}: judgegrid / Ragas", round(ratio, 3), "x"))
    total_ragas = sum(baseline.values())
    ratio = counted["total"] / total_ragas
    lines.append(
        f"{'all (shared steps once)':<24}{sum(separate.values()):>15}{sum(with_n.values()):>15}"
        f"{counted['total']:>11}{ratio:>8.2f}"
    )
    rows.insert(
        0,
        Row(
            "calls per grid",
            f"judge calls, all seven metrics: {counted['total']} vs Ragas {total_ragas} "
            f"({assumption})",
            round(ratio, 3),
            "x",
            f"<= {TARGET_RATIO}",
            verdict(ratio <= TARGET_RATIO),
        ),
    )
    other = with_n if not n_used else separate
    other_name = "with n" if not n_used else "without n"
    rows.insert(
        1,
        Row(
            "calls per grid",
            f"same, against Ragas {other_name} ({sum(other.values())})",
            round(counted["total"] / sum(other.values()), 3),
            "x",
        ),
    )
    rows.append(
        Row(
            "calls per grid",
            f"embedding calls: judgegrid {counted['embedding']} vs Ragas "
            f"{ragas_embedding_calls(shape)}",
            round(counted["embedding"] / max(1, ragas_embedding_calls(shape)), 3),
            "x",
        )
    )
    return rows, lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-") as tmp:
        work = Path(tmp)
        os.environ["JUDGEGRID_CACHE_DIR"] = str(work / "cache")  # never the user's own cache
        if not fault_server_available():
            print("skipped: judgegrid.testing.fault_server (issue 4) is not on this branch")
            emit([Row("calls per grid", "not run: needs the fault server of issue 4", "-")])
            return
        server, url = start_fault_server(0.0)
        try:
            rows = measure(work, url, args.samples, args.repeats)
        finally:
            server.terminate()
            server.wait(timeout=30)
        emit(rows)


def measure(work: Path, url: str, n_samples: int, repeats: int) -> list[Row]:
    """Run the grid cold, count and compare its calls, then rerun it warm."""
    from judgegrid.api import resume_run, run_grid

    samples = synthetic_samples(n_samples, contexts=4)
    dataset = write_jsonl(work / "samples.jsonl", samples)
    matrix = matrix_dict(*models(url), str(dataset), repeats=repeats)
    matrix_path = work / "matrix.yaml"
    matrix_path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    shape = shape_of(matrix, samples)
    assert shape.metrics == ALL_METRICS

    start = time.perf_counter()
    cold = run_grid(matrix_path, reports_dir=work / "reports")
    cold_s = time.perf_counter() - start
    counted = count_run(cold.run_dir)
    n_used = used_n(cold.run_dir)
    print(
        f"full grid: {len(cold.scores)} cells ({cold.tally.failed} failed), "
        f"{counted['total']} judge calls + {counted['embedding']} embedding calls "
        f"in {cold_s:.1f} s"
    )
    rows, lines = comparison_rows(counted, shape, n_used)
    print("\n".join(lines))
    print("judgegrid calls by step:", counted["by_step"])

    start = time.perf_counter()
    if has_cross_run_cache():
        warm = run_grid(matrix_path, reports_dir=work / "reports")
        what = "identical rerun, new run directory (cross-run cache)"
        warm_calls = len(warm.calls)
    else:
        before = len(cold.calls)
        warm = resume_run(cold.run_dir)
        what = "resumed finished run (no cross-run cache on this branch)"
        warm_calls = len(warm.calls) - before
    warm_s = time.perf_counter() - start
    print(f"warm: {what}: {warm_calls} calls, {warm_s:.2f} s (cold {cold_s:.1f} s)")
    rows += [
        Row("warm cache", f"calls, {what}", warm_calls, "", "0", verdict(warm_calls == 0)),
        Row("warm cache", f"wall time ({len(warm.scores)} cells)", round(warm_s, 2), "s"),
        Row("warm cache", "cold run wall time, for comparison", round(cold_s, 2), "s"),
    ]
    return rows


if __name__ == "__main__":
    main()
