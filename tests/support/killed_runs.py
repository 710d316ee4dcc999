"""A real `judgegrid run` on the scripted judge, killed with SIGKILL mid-run and resumed: the one
harness of every "killed and resumed to the same cells" test, so each test states only what it
waits for before the kill and what it checks after."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from conftest import CELL_KEY

HELPER = Path(__file__).resolve().parent / "run_scripted_cli.py"


def scripted_env() -> dict[str, str]:
    """The environment as the test has it now (its own cache directory, set by a fixture after
    this module was imported), with the scripted judge's delay."""
    return {**os.environ, "SCRIPTED_DELAY_S": "0.01"}


def cells(db: Path) -> set[tuple]:
    """The cell keys a run database holds (none while the run has not made its tables yet)."""
    try:
        with sqlite3.connect(db) as con:
            return set(con.execute(f"SELECT {', '.join(CELL_KEY)} FROM scores"))
    except sqlite3.OperationalError:
        return set()


def run_args(matrix: Path, *extra: str) -> list[str]:
    """`judgegrid run MATRIX` on the scripted judge, without a progress bar."""
    return [sys.executable, str(HELPER), "run", str(matrix), *extra, "--no-progress"]


def run_whole(args: Sequence[str], reports: Path) -> Path:
    """A run that is not killed, without the cache (so a later run makes its own calls); its
    run directory."""
    done = subprocess.run(
        [*args, "--reports-dir", str(reports), "--no-cache"],
        env=scripted_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (run_dir,) = reports.iterdir()
    return run_dir


def run_and_kill(
    args: Sequence[str], reports: Path, ready: Callable[[set[tuple]], bool], *extra: str
) -> Path:
    """Start the run, SIGKILL it once its cells satisfy ``ready``; its run database."""
    proc = subprocess.Popen(
        [*args, "--reports-dir", str(reports), *extra],
        env=scripted_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    db = database_when(reports, ready)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert db is not None, "the run never reached the point to kill it at"
    return db


def resume(run_dir: Path) -> subprocess.CompletedProcess[str]:
    """`judgegrid run --resume RUN_DIR` on the scripted judge."""
    return subprocess.run(
        [sys.executable, str(HELPER), "run", "--resume", str(run_dir), "--no-progress"],
        env=scripted_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def database_when(
    reports: Path, ready: Callable[[set[tuple]], bool], timeout: float = 120
) -> Path | None:
    """The run database under ``reports`` once its cells satisfy ``ready`` (None: never)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = list(reports.glob("*/run.sqlite"))
        if found and ready(cells(found[0])):
            return found[0]
        time.sleep(0.05)
    return None
