"""The console script: `judgegrid report` reads its run's scores in a second process while the
tool imports, and writes what a plain report writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judgegrid import rebuild_report, run_grid
from judgegrid.entry import report_database
from support.demo_sets import demo_with_hostile_sample
from support.report_files import report_files

# the report through the console script, with the store's own read of the scores made to fail:
# it succeeds only if the scores came from the reader forked before the import
REPORT_FROM_READ_AHEAD_ONLY = """
import sys
from judgegrid.store import run_db

def read_here(self):
    raise AssertionError("the scores were read in this process, not ahead")

run_db.RunStore.scores_frame = read_here
from judgegrid.entry import main
sys.argv = ["judgegrid", *sys.argv[1:]]
main()
"""


def test_report_reads_the_scores_ahead_and_writes_the_plain_reports_files(tmp_path, write_matrix):
    run = run_grid(write_matrix(), demo_with_hostile_sample(), run_dir=tmp_path / "run")
    rebuild_report(run.run_dir)
    plain = report_files(run.run_dir)
    done = subprocess.run(
        [sys.executable, "-c", REPORT_FROM_READ_AHEAD_ONLY, "report", "--margin", "0.05", "x"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "x" in done.stderr  # no run there: the usual error
    done = subprocess.run(
        [sys.executable, "-c", REPORT_FROM_READ_AHEAD_ONLY, "report", str(run.run_dir)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "decision per metric" in done.stdout  # the card, printed
    ahead = report_files(run.run_dir)
    assert len(plain) > 20 and ahead.keys() == plain.keys()
    assert [name for name in plain if plain[name] != ahead[name]] == []


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["report", "{run}"], "{run}/run.sqlite"),
        (["report", "--margin", "0.05", "{run}", "--blind-only"], "{run}/run.sqlite"),
        (["report", "{empty}"], None),  # no run database there
        (["report"], None),
        (["view", "{run}"], None),  # only `report` reads every score
        ([], None),
    ],
)
def test_the_database_a_report_will_read_is_found_in_its_arguments(tmp_path, args, expected):
    run, empty = tmp_path / "run", tmp_path / "empty"
    run.mkdir(), empty.mkdir()
    (run / "run.sqlite").write_bytes(b"")
    names = {"run": run, "empty": empty}
    found = report_database([a.format(**names) for a in args])
    assert found == (Path(expected.format(**names)) if expected else None)
