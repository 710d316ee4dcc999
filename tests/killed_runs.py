"""Runs of the console script on the scripted provider as real processes: run to the end,
killed with SIGKILL once the database holds enough cells, resumed. The kill-and-resume tests
(plain grids, probes, criteria) share them."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from conftest import CELL_KEY

HELPER = Path(__file__).parent / "run_scripted_cli.py"
Cells = set[tuple]


def cells_in(db: Path) -> Cells:
    """The cells a run database holds (none while the run has made the file, not its tables)."""
    try:
        with sqlite3.connect(db) as con:
            return set(con.execute(f"SELECT {', '.join(CELL_KEY)} FROM scores"))
    except sqlite3.OperationalError:
        return set()


def database_with(
    reports: Path, enough: Callable[[Cells], bool], timeout: float = 120
) -> Path | None:
    """The run database under ``reports`` once its cells are ``enough`` (None: never)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = list(reports.glob("*/run.sqlite"))
        if found and enough(cells_in(found[0])):
            return found[0]
        time.sleep(0.05)
    return None


def at_least(count: int) -> Callable[[Cells], bool]:
    return lambda cells: len(cells) >= count


def judgegrid(args: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``judgegrid ARGS`` run to its end."""
    return subprocess.run(
        [sys.executable, str(HELPER), *args], env=env, capture_output=True, text=True, timeout=300
    )


def resume(run_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return judgegrid(["run", "--resume", str(run_dir), "--no-progress"], env)


def killed_and_resumed(
    args: Sequence[str], tmp_path: Path, env: dict[str, str], enough: Callable[[Cells], bool]
) -> tuple[Cells, Path]:
    """``judgegrid ARGS`` (a run without the cache) once to its end and once killed with
    SIGKILL when ``enough`` cells are in, then resumed: the whole run's cells and the killed
    run's database."""
    full = judgegrid([*args, "--no-cache", "--reports-dir", str(tmp_path / "full")], env)
    assert full.returncode == 0, full.stderr
    (full_dir,) = (tmp_path / "full").iterdir()
    everything = cells_in(full_dir / "run.sqlite")
    reports = tmp_path / "killed"
    db = killed([*args, "--no-cache", "--reports-dir", str(reports)], reports, env, enough)
    assert db is not None, "the run never wrote enough cells before the kill"
    assert len(cells_in(db)) < len(everything)
    resumed = resume(db.parent, env)
    assert resumed.returncode == 0, resumed.stderr
    return everything, db


def killed(
    args: Sequence[str], reports: Path, env: dict[str, str], enough: Callable[[Cells], bool]
) -> Path | None:
    """``judgegrid ARGS`` killed with SIGKILL once its database under ``reports`` holds
    ``enough`` cells; that database (None: it never did)."""
    proc = subprocess.Popen(
        [sys.executable, str(HELPER), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    db = database_with(reports, enough)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return db
