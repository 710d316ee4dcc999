"""One writer per run directory (``store.lock``): a second writer is refused and told who holds
the run; a lock left by a killed process is taken over, and said; readers need no lock."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judgegrid.core.errors import RunLockedError
from judgegrid.store.lock import LOCK_NAME, holder_of, lock_run

HOLD = textwrap.dedent(
    """
    import sys, time
    from judgegrid.store.lock import lock_run
    lock = lock_run(sys.argv[1])
    print("held", flush=True)
    time.sleep(60)
    """
)


def _holding_process(run_dir: Path) -> subprocess.Popen:
    """Another process that takes the run's lock and keeps it."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def test_a_second_writer_is_refused_and_told_who_holds_the_run(tmp_path):
    with lock_run(tmp_path) as lock:
        assert lock.held and (tmp_path / LOCK_NAME).exists()
        with pytest.raises(RunLockedError) as refused:
            lock_run(tmp_path)
        message = str(refused.value)
        assert f"PID {os.getpid()}" in message and "since 20" in message
        assert holder_of(tmp_path).pid == os.getpid()
    assert not (tmp_path / LOCK_NAME).exists() and holder_of(tmp_path) is None
    lock_run(tmp_path).release()  # free again


def test_another_process_holding_the_run_is_named_by_its_pid(tmp_path):
    process = _holding_process(tmp_path)
    try:
        with pytest.raises(RunLockedError, match=f"PID {process.pid} "):
            lock_run(tmp_path)
    finally:
        process.kill()
        process.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over_and_said(tmp_path, caplog):
    process = _holding_process(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert (tmp_path / LOCK_NAME).exists()  # left behind, held by no one
    assert holder_of(tmp_path) is None
    with caplog.at_level(logging.WARNING, logger="judgegrid"), lock_run(tmp_path):
        assert holder_of(tmp_path).pid == os.getpid()
    assert f"took over the lock of {tmp_path}" in caplog.text
    assert f"PID {process.pid}" in caplog.text


def test_a_lock_let_go_while_another_waits_on_its_file_is_not_taken_twice(tmp_path):
    """The file is removed before the lock is let go: a writer that opened the old file and
    locks it after its holder let go sees it is no longer the run's lock file and takes a new."""
    first = lock_run(tmp_path)
    stale = os.open(tmp_path / LOCK_NAME, os.O_RDWR)
    first.release()
    second = lock_run(tmp_path)
    try:
        fcntl.flock(stale, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the old, removed file: free
        assert os.fstat(stale).st_ino != os.stat(tmp_path / LOCK_NAME).st_ino
        with pytest.raises(RunLockedError):
            lock_run(tmp_path)
    finally:
        os.close(stale)
        second.release()


def test_the_holder_is_read_without_taking_the_lock(tmp_path):
    start = time.time()
    process = _holding_process(tmp_path)
    try:
        holder = holder_of(tmp_path)
        assert holder is not None and holder.pid == process.pid
        assert holder.command.startswith("judgegrid")
    finally:
        process.kill()
        process.wait()
    assert time.time() - start < 30
