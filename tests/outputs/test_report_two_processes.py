"""The report in two processes (``report.write_all``'s forked half) is the report in one."""

from __future__ import annotations

from judgegrid import rebuild_report, run_grid
from judgegrid.core import forked
from support.demo_sets import demo_with_hostile_sample
from support.report_files import report_files


def test_the_report_in_two_processes_is_the_report_in_one(tmp_path, write_matrix, monkeypatch):
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    rebuild_report(run.run_dir)
    two = report_files(run.run_dir)
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    rebuild_report(run.run_dir)
    one = report_files(run.run_dir)
    assert len(one) > 20 and one.keys() == two.keys()
    differing = [name for name in one if one[name] != two[name]]
    assert differing == []
