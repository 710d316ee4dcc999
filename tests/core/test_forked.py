"""Work in a forked child: what it computes comes back whole, and its failures come back as
errors that say where (the report's two halves and the console script's read-ahead use it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from judgegrid.core import forked
from judgegrid.core.forked import Forked, SecondProcessDied


def test_the_childs_value_comes_back_and_it_ran_in_another_process():
    child = Forked(lambda: (os.getpid(), list(range(5))), fork=True)
    pid, values = child.result()
    assert child.forked and pid != os.getpid() and values == [0, 1, 2, 3, 4]


def test_without_a_fork_the_work_runs_here_when_asked():
    done = []
    child = Forked(lambda: done.append(os.getpid()) or "ok", fork=False)
    assert not child.forked and done == []  # nothing ran before the result was wanted
    assert child.result() == "ok" and done == [os.getpid()]


def test_an_error_in_the_child_is_raised_here_with_the_childs_traceback():
    def fails() -> None:
        raise KeyError("no such table: 'stability'")

    with pytest.raises(KeyError, match="stability") as caught:
        Forked(fails, fork=True, name="the scores' reader").result()
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "in the scores' reader" in notes and "fails" in notes


def test_an_error_that_cannot_be_pickled_comes_back_as_its_text():
    class Unpicklable(Exception):
        def __reduce__(self):
            raise TypeError("not picklable")

    def fails() -> None:
        raise Unpicklable("the local class")

    with pytest.raises(RuntimeError, match="Unpicklable: the local class"):
        Forked(fails, fork=True).result()


def test_a_child_killed_before_it_answers_is_an_error_with_its_exit_code():
    def killed() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(SecondProcessDied, match=r"the second process died .*exit code -9"):
        Forked(killed, fork=True).result()


def test_no_fork_while_other_threads_run(monkeypatch):
    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)
    assert not forked.can_fork()
    assert not Forked(lambda: 1).forked


def test_a_child_whose_result_is_not_wanted_is_stopped_on_the_way_out():
    with pytest.raises(ValueError), Forked(lambda: time.sleep(60), fork=True) as child:
        process = child._process
        raise ValueError("the parent's own half failed")
    assert process is not None and not process.is_alive()


# a child blocked sending a large result, with a SIGTERM handler that raises (inherited, as from
# `judgegrid run`'s stop_on_sigterm): leaving without its result must not wait on it for ever
UNWANTED_CHILD_WITH_A_SIGTERM_HANDLER = """
import signal, time
from judgegrid.core.forked import Forked

def raise_interrupt(signum, frame):
    raise KeyboardInterrupt

signal.signal(signal.SIGTERM, raise_interrupt)
with Forked(lambda: b"x" * 20_000_000, fork=True) as child:
    time.sleep(1)  # the child is now blocked writing to the pipe
print("left")
"""


def test_an_unwanted_child_with_a_sigterm_handler_is_still_stopped():
    done = subprocess.run(
        [sys.executable, "-c", UNWANTED_CHILD_WITH_A_SIGTERM_HANDLER],
        capture_output=True,
        text=True,
        timeout=60,  # the bug this guards against hangs
    )
    assert done.returncode == 0 and done.stdout == "left\n", done.stderr


@pytest.mark.parametrize("fork", [True, False])
def test_first_free_work_goes_to_one_process_only(fork):
    claim = forked.FirstFree(lambda: None)
    child = Forked(claim.take, fork=fork)
    if fork:
        child._process.join()  # the child asks first
    mine = claim.take()
    theirs = child.result()
    assert [mine, theirs].count(True) == 1
    assert theirs is fork  # a forked child came first; without a fork, this process did
    assert claim.take() is False
