"""What every benchmark shares: the environment, the figures it prints, and how run_all reads them.

A benchmark prints its figures for a reader, then one ``RESULT {json}`` line with the same
figures as rows (benchmark, figure, value, unit, target, verdict) for ``run_all.py``'s table.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULT_PREFIX = "RESULT "

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


def use_scripted_provider() -> None:
    """The scripted judge of the test suite (canned JSON through litellm, no network)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import scripted

    scripted.register()
    scripted.SCRIPT.reset()
    scripted.SCRIPT.calls = _Unrecorded()  # tests count earlier calls by scanning this list
    # (to fail the n-th attempt of a request); over a grid of 10,000 calls that scan is
    # quadratic and would dominate the benchmark. The benchmarks inject no failures.


class _Unrecorded(list):
    """A call log that keeps nothing."""

    def append(self, item: object) -> None:
        pass


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"
