"""What every benchmark shares: the environment, the figures it prints, and how run_all reads them.

A benchmark prints its figures for a reader, then one ``RESULT {json}`` line with the same
figures as rows (benchmark, figure, value, unit, target, verdict) for ``run_all.py``'s table.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULT_PREFIX = "RESULT "
KEY_ENV = "JUDGEGRID_BENCH_KEY"  # the fault server takes any key; litellm wants one

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@dataclass
class Row:
    benchmark: str
    figure: str
    value: float | int | str
    unit: str = ""
    target: str = ""
    verdict: str = ""  # "met", "MISSED" or "" when the figure has no target


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def emit(rows: list[Row]) -> None:
    print(RESULT_PREFIX + json.dumps([asdict(r) for r in rows]), flush=True)


def peak_rss_mb(children: bool = False) -> float:
    """Peak resident memory of this process (or of its finished children), in MiB (Linux: KiB)."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024


def fault_server_available() -> bool:
    try:
        import judgegrid.testing.fault_server  # noqa: F401  (issue 4)
    except ImportError:
        return False
    return True


def start_fault_server(latency_s: float) -> tuple[subprocess.Popen, str]:
    """judgegrid's fault-injection server in a process of its own (so it does not share our
    interpreter lock or CPU account), answering after ``latency_s``, with no faults.
    Returns the process (``terminate`` it) and the api_base to give litellm."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judgegrid.testing.fault_server",
            "--latency-ms",
            str(latency_s * 1000),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise RuntimeError("the fault server did not start")
    return proc, url


def fake_model_options(url: str) -> dict[str, str]:
    """Options for an ``openai/...`` entry served by the fault server (any key will do)."""
    os.environ.setdefault(KEY_ENV, "sk-bench-not-a-real-key")
    return {"api_base": url, "api_key_env": KEY_ENV}


def bench_environment() -> None:
    """A cross-run cache of the benchmark's own (never the user's) and a key for litellm."""
    os.environ["JUDGEGRID_CACHE_DIR"] = tempfile.mkdtemp(prefix="judgegrid-bench-cache-")
    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


JUDGEGRID = "import sys; from judgegrid.entry import main; sys.argv[0] = 'judgegrid'; main()"


def timed_judgegrid(
    args: list[str], env: dict[str, str] | None = None, code: str = JUDGEGRID
) -> tuple[float, str]:
    """Wall seconds of one ``judgegrid ARGS`` in a child process, as a user runs it, and its
    output; bytecode is cached as on a user's machine (this sandbox sets
    PYTHONDONTWRITEBYTECODE). A failure ends the benchmark with the command's output. ``code``:
    the child's program (``JUDGEGRID``, or one that prints more at its end)."""
    env = {k: v for k, v in (env or os.environ).items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-4000:])
        raise SystemExit(f"judgegrid {args[0]} failed (exit {done.returncode})")
    return wall, done.stdout


def verdict_rows(
    figures: Mapping[str, object], rows: Mapping[str, str], heading: str
) -> list[dict[str, object]]:
    """The labels benches' table rows: per key of ``rows`` (``figures`` holds its figures as
    ``"<key>: verdicts"`` and so on; keys without them left out) its words under ``heading``,
    then the share of people with a verdict, the median labels to one and the wrong picks."""
    return [
        {
            heading: words,
            "verdicts": figures[f"{key}: verdicts"],
            "median labels": figures[f"{key}: median labels"],
            "wrong pick": figures[f"{key}: wrong pick"],
        }
        for key, words in rows.items()
        if f"{key}: verdicts" in figures
    ]
