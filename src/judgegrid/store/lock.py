"""One writer per run directory: an exclusive lock taken before anything writes to a run.

Two `judgegrid run --resume` of one run would both call the providers (every call paid twice)
and then collide on the same cells; a `report` during a `labels import` would read half the
labels. So every command that writes to a run — a new run, `run --resume`, `report`, `label`,
`labels import`, the view's labelling — holds this lock while it writes; readers (`view`
browsing, `export`, `load_run`) need none.

The lock is the operating system's (``flock`` on ``RUN_DIR/.judgegrid.lock``): the kernel lets go
of it when its process ends however it ends, so a lock is never left held by a dead process. The
file holds its holder (PID, command line, start time), which a refused writer names. A file
left behind by a killed holder is stale: the next writer takes it over and says so. The file is
removed when its holder lets go.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgegrid.core.errors import Problem, RunLockedError
from judgegrid.core.redaction import redact_text

LOCK_NAME = ".judgegrid.lock"
log = logging.getLogger("judgegrid")


@dataclass(frozen=True)
class Holder:
    """Who holds (or held) a run's lock."""

    pid: int
    command: str
    started: str

    def words(self) -> str:
        return f"PID {self.pid} ({self.command}), since {self.started}"

    @staticmethod
    def this_process() -> Holder:
        command = redact_text(" ".join(["judgegrid", *sys.argv[1:]]) if sys.argv else "python")
        started = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        return Holder(os.getpid(), command, started)


class RunLock:
    """The held lock of one run directory; ``release`` (or ``with``) lets go of it."""

    def __init__(self, run_dir: Path, fd: int):
        self.run_dir = run_dir
        self._fd: int | None = fd

    @property
    def path(self) -> Path:
        return self.run_dir / LOCK_NAME

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the file, then let go (a writer waiting on the old file retries on the new)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)  # closing lets go of the flock

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_run(run_dir: str | Path) -> RunLock:
    """Take ``run_dir``'s lock, or raise ``RunLockedError`` naming its holder. A lock file left
    by a process that is gone is taken over, with a warning that says whose it was."""
    target = Path(run_dir)
    for _ in range(10):  # the file was replaced under us: another writer let go meanwhile
        fd = os.open(target / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise _locked(target, holder) from None
        if not _still_the_file(fd, target / LOCK_NAME):
            os.close(fd)
            continue
        left = _read_holder(fd)
        if left is not None and left.pid != os.getpid():
            log.warning(
                "judgegrid: took over the lock of %s: a writer left %s behind (%s, gone)",
                target,
                LOCK_NAME,
                left.words(),
            )
        _write_holder(fd, Holder.this_process())
        return RunLock(target, fd)
    raise _locked(target, None)


def holder_of(run_dir: str | Path) -> Holder | None:
    """Who holds ``run_dir``'s lock now (None: nobody)."""
    path = Path(run_dir) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_holder(fd)
        return None
    finally:
        os.close(fd)


def _locked(target: Path, holder: Holder | None) -> RunLockedError:
    who = holder.words() if holder else "another judgegrid process"
    message = (
        f"another judgegrid is writing this run: {who}; wait until it has finished, or stop it "
        "(its cells and labels are kept)"
    )
    return RunLockedError(str(target), [Problem("", message)])


def _still_the_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _read_holder(fd: int) -> Holder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data: dict[str, Any] = json.loads(os.read(fd, 65536).decode("utf-8") or "null") or {}
        return Holder(int(data["pid"]), str(data["command"]), str(data["started"]))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def _write_holder(fd: int, holder: Holder) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    text = json.dumps({"pid": holder.pid, "command": holder.command, "started": holder.started})
    os.write(fd, text.encode("utf-8"))
