"""``judgegrid view`` on a synthetic run of 200,000 score rows and 50,000 calls.

    PYTHONPATH=src python benches/bench_view.py [ROWS] [CALLS]

Builds the run directory of ``bench_report_run.py`` (its generator: 4 judges x 2 embedding
models x 3 dimensions x 3 strictness x 5 repeats of ResponseRelevancy plus Faithfulness, 2%
failed), gives its Faithfulness rows statements and verdicts, and adds ``CALLS`` judge calls
(each prompt naming its sample's texts, with a reply). Then starts ``judgegrid view`` in a child
process, as a user would, and times over HTTP: the Samples page's first response (the first
request after the URL is printed; the server folds every metric's cells before it prints it,
so "server ready" includes that), a sort and filter after it, a Sample page and a page of its
calls; and reads the server's resident memory (VmRSS, and its peak
VmHWM) from /proc.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Row, emit, load_average, verdict
from synthetic_run import add_details_and_calls, write_run_dir

TARGET_MS = 300.0
TARGET_MIB = 300.0
COMMAND = "import sys; from judgegrid.entry import main; sys.argv[0] = 'judgegrid'; main()"


def timed_get(port: int, token: str, path: str) -> tuple[float, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    conn.request("GET", path, headers={"X-Judgegrid-Token": token})
    reply = conn.getresponse()
    body = reply.read()
    elapsed = (time.perf_counter() - start) * 1000
    conn.close()
    if reply.status != 200:
        raise SystemExit(f"{path}: HTTP {reply.status} {body[:300]!r}")
    return elapsed, json.loads(body)


def memory_mib(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    return rss, peak


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_400
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-view-") as tmp:
        run_dir = Path(tmp)
        written = write_run_dir(run_dir, rows)
        add_details_and_calls(run_dir, calls)
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-c", COMMAND, "view", str(run_dir), "--annotator", "bench"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            url = ""
            while not url and server.stdout:
                line = server.stdout.readline()
                if not line:
                    raise SystemExit(server.stderr.read() if server.stderr else "server stopped")
                url = next(iter(re.findall(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)), "")
            ready = time.perf_counter() - started
            port, token = int(url.split(":")[2].split("/")[0]), url.split("token=")[1]
            first, page = timed_get(port, token, "/api/view/samples?metric=response_relevancy")
            again, _ = timed_get(
                port, token, "/api/view/samples?metric=response_relevancy&sort=instability&page=2"
            )
            filtered, _ = timed_get(
                port, token, "/api/view/samples?metric=response_relevancy&judge=judge-1&q=1"
            )
            top = page["rows"][0]["id"]
            sample_ms, sample = timed_get(
                port, token, f"/api/view/sample/{top}?metric=response_relevancy"
            )
            faith_ms, _ = timed_get(port, token, f"/api/view/sample/{top}?metric=faithfulness")
            calls_ms, call_page = timed_get(
                port, token, f"/api/view/calls/{top}?judge={page['columns'][0]['judge']}"
            )
            rss, peak = memory_mib(server.pid)
        finally:
            server.terminate()
            server.wait(10)
    load = load_average()
    print(f"judgegrid view on {written} score rows and {calls} calls (load {load})")
    print(f"  server ready (URL printed) after {ready:.2f} s")
    print(f"  Samples, first response: {first:.0f} ms ({page['total']} samples, "
          f"{len(page['columns'])} configurations, {len(page['rows'])} rows shown)")  # fmt: skip
    print(f"  Samples, sorted by instability, page 2: {again:.0f} ms; filtered + search: "
          f"{filtered:.0f} ms")  # fmt: skip
    print(f"  Sample (ResponseRelevancy, {len(sample['cells'])} cells): {sample_ms:.0f} ms; "
          f"Faithfulness: {faith_ms:.0f} ms")  # fmt: skip
    print(f"  a page of calls ({call_page['total']} of the judge's): {calls_ms:.0f} ms")
    print(f"  server memory: {rss:.0f} MiB resident, peak {peak:.0f} MiB")
    emit(
        [
            Row("view", f"Samples page, first response ({written} rows)", round(first), "ms",
                f"< {TARGET_MS:g}", verdict(first < TARGET_MS)),
            Row("view", "Sample page (ResponseRelevancy, 360 cells)", round(sample_ms), "ms",
                f"< {TARGET_MS:g}", verdict(sample_ms < TARGET_MS)),
            Row("view", f"a page of a sample's calls ({calls} calls)", round(calls_ms), "ms"),
            Row("view", "server peak memory (VmHWM)", round(peak), "MiB", f"< {TARGET_MIB:g}",
                verdict(peak < TARGET_MIB)),
            Row("view", "load average (1, 5, 15 min) after the run", load, ""),
        ]
    )  # fmt: skip


if __name__ == "__main__":
    main()
