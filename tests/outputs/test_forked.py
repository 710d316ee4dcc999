"""The report's second process: what a forked child computes comes back whole, its failures come
back as errors that say where, and the report it helps write is the one a single process writes."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from demo_sets import demo_with_hostile_sample
from judgegrid import rebuild_report, run_grid
from judgegrid.outputs import forked
from judgegrid.outputs.forked import Forked, SecondProcessDied


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
        Forked(fails, fork=True).result()
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "in the report's second process" in notes and "fails" in notes


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

    with pytest.raises(SecondProcessDied, match="exit code -9"):
        Forked(killed, fork=True).result()


def test_no_fork_while_other_threads_run(monkeypatch):
    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)
    assert not forked.can_fork()
    assert not Forked(lambda: 1).forked


def _outputs(run_dir: Path) -> dict[str, bytes]:
    files = [run_dir / "scores.csv", run_dir / "summary.md", run_dir / "report.html"]
    files += sorted((run_dir / "tables").glob("*.csv"))
    return {p.relative_to(run_dir).as_posix(): p.read_bytes() for p in files}


def test_the_report_in_two_processes_is_the_report_in_one(tmp_path, write_matrix, monkeypatch):
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    rebuild_report(run.run_dir)
    two = _outputs(run.run_dir)
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    rebuild_report(run.run_dir)
    one = _outputs(run.run_dir)
    assert len(one) > 20 and one.keys() == two.keys()
    differing = [name for name in one if one[name] != two[name]]
    assert differing == []


def test_a_child_whose_result_is_not_wanted_is_stopped_on_the_way_out():
    import time

    with pytest.raises(ValueError), Forked(lambda: time.sleep(60), fork=True) as child:
        process = child._process
        raise ValueError("the parent's own half failed")
    assert process is not None and not process.is_alive()
