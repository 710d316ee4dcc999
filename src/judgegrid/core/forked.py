"""Work done in a forked child process while the parent goes on: the report's two halves on two
cores, and the report's scores read while the console script is still importing the tool.

A fork starts with the parent's imported modules and tables already in memory, so the child
begins at once; a spawned process would import pandas, scipy and matplotlib again (1.5 s) and be
sent the scores. Fork is used only where it is the safe default (Linux) and no other Python
thread runs (a notebook's kernel, a grid run's workers): a thread holding a lock at the fork
would leave the child waiting on it for ever. Elsewhere the work is done in this process when
its result is asked for: the same result, on one core.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")


class SecondProcessDied(RuntimeError):
    """The child died before it answered (killed, out of memory): its exit code says how."""


def can_fork() -> bool:
    return sys.platform.startswith("linux") and threading.active_count() == 1


class Forked(Generic[T]):
    """``work()`` started in a forked child at once, its value (or its exception, with the
    child's traceback as a note) handed back by ``result``; in this process, at ``result``,
    where a fork is not safe. As a context manager, a child whose result was not asked for is
    stopped on the way out."""

    def __init__(
        self, work: Callable[[], T], fork: bool | None = None, name: str = "the second process"
    ) -> None:
        self._work, self.name = work, name
        self._process: multiprocessing.process.BaseProcess | None = None
        if fork if fork is not None else can_fork():
            context = multiprocessing.get_context("fork")
            self._answer, sender = context.Pipe(duplex=False)
            self._process = context.Process(target=_answer_with, args=(work, sender), daemon=True)
            self._process.start()
            sender.close()  # the child holds the only writing end: its death reads as EOF

    @property
    def forked(self) -> bool:
        return self._process is not None

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        """Leaving without the result (the parent's own work failed, or it was not wanted):
        the child is stopped, not left blocked on a pipe no one reads. It is killed, not sent
        SIGTERM: it may have inherited a handler that turns SIGTERM into an exception
        (``cli.common.stop_on_sigterm``), which it would then try to send down that pipe."""
        if self._process is not None and self._process.is_alive():
            self._process.kill()
            self._process.join()

    def result(self) -> T:
        if self._process is None:
            return self._work()
        process, answer = self._process, self._answer
        try:
            outcome, value, trace = answer.recv()
        except EOFError:
            process.join()
            raise SecondProcessDied(
                f"{self.name} died before it answered (exit code {process.exitcode})"
            ) from None
        except BaseException:  # an interrupt while waiting: the child's work is not wanted
            process.kill()
            raise
        finally:
            answer.close()
        process.join()
        if outcome == "error":
            value.add_note(f"in {self.name}:\n{trace}")
            raise value
        return value


class FirstFree:
    """A piece of work that either of two processes may do, done by the first to come to it
    (``take`` answers True once, in whichever process asks first; ``do`` does the work then):
    the report's scores.csv goes to whichever half finishes its own work first, so neither core
    waits on the other for it. Made before the fork, so that both processes share its flag."""

    def __init__(self, work: Callable[[], object]) -> None:
        self._work = work
        self._taken = multiprocessing.get_context("fork" if can_fork() else None).Value("b", 0)

    def do(self) -> None:
        """The work, if no process has taken it yet."""
        if self.take():
            self._work()

    def take(self) -> bool:
        lock = self._taken.get_lock()
        # held for two statements: still held after seconds, it was by a process killed in
        # between (out of memory), which will not do the work
        if not lock.acquire(timeout=LOCK_WAIT_S):
            return True
        try:
            if self._taken.value:
                return False
            self._taken.value = 1
            return True
        finally:
            lock.release()


LOCK_WAIT_S = 10.0


def _answer_with(work: Callable[[], object], sender: Connection) -> None:
    try:
        sender.send(("ok", work(), ""))
    except BaseException as exc:  # every failure goes back to the parent
        trace = traceback.format_exc()
        try:
            sender.send(("error", exc, trace))
        except Exception:  # the exception itself would not pickle: its text does
            sender.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}"), trace))
    finally:
        sender.close()
