"""The run directory's lock through the commands: two `run --resume` of one run started within a
second pay for one run's calls and the second is refused naming the first; `report` and `labels
import` are refused while another process writes; readers go on; a new run is never written
into a run directory that holds another (or a finished) run."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.core.errors import RunDirError

HELPER = Path(__file__).resolve().parents[1] / "support" / "run_scripted_cli.py"
HOLD = textwrap.dedent(
    """
    import sys, time
    from judgegrid.store.run_dir import open_run
    _, _, store = open_run(sys.argv[1], write=True)
    print("held", flush=True)
    time.sleep(60)
    """
)


def _interrupted(run_dir: Path) -> None:
    """Judge b's cells, steps and calls gone, as if the run had stopped before them."""
    with contextlib.closing(sqlite3.connect(run_dir / "run.sqlite")) as db, db:
        db.execute("DELETE FROM scores WHERE judge = 'b'")
        db.execute("DELETE FROM steps WHERE label = 'b'")
        db.execute("DELETE FROM calls WHERE label = 'b'")


def _calls(run_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(run_dir / "run.sqlite")) as db:
        return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])


def _resume(run_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "SCRIPTED_DELAY_S": "0.2"}
    return subprocess.Popen(
        [sys.executable, str(HELPER), "run", "--resume", str(run_dir), "--no-progress"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def interrupted_run(tmp_path, write_matrix, scripted_provider) -> Path:
    run = run_grid(write_matrix(), run_dir=tmp_path / "run", limit=3, use_cache=False)
    _interrupted(run.run_dir)
    return run.run_dir


def test_two_resumes_started_within_a_second_pay_for_one(interrupted_run, tmp_path):
    alone = tmp_path / "alone"
    shutil.copytree(interrupted_run, alone)
    before = _calls(interrupted_run)
    reference = _resume(alone)
    assert reference.wait(300) == 0, reference.stderr.read() if reference.stderr else ""
    one_run = _calls(alone) - before

    first = _resume(interrupted_run)
    time.sleep(0.3)
    second = _resume(interrupted_run)
    codes = (first.wait(300), second.wait(300))
    outs = [(p.stdout.read(), p.stderr.read()) for p in (first, second)]  # type: ignore[union-attr]
    assert sorted(codes) == [0, 2], (codes, outs)
    finished, refused = (0, 1) if codes[0] == 0 else (1, 0)
    winner = (first, second)[finished]
    assert f"PID {winner.pid} " in outs[refused][1], outs[refused][1]
    assert "another judgegrid is writing this run" in outs[refused][1]
    assert one_run > 0 and _calls(interrupted_run) - before == one_run


def _holder(run_dir: Path) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run_dir)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def test_writers_are_refused_while_another_process_writes_and_readers_go_on(
    interrupted_run, tmp_path
):
    labels = tmp_path / "labels.csv"
    labels.write_text("sample_id,metric,annotator,value\ncanal-grounded,faithfulness,ann,1\n")
    holder = _holder(interrupted_run)
    try:
        runner = CliRunner()
        for args in (
            ["report", str(interrupted_run)],
            ["labels", "import", str(interrupted_run), str(labels)],
            ["run", "--resume", str(interrupted_run), "--no-progress"],
        ):
            result = runner.invoke(app, args)
            assert result.exit_code == 2, (args, result.output)
            assert f"PID {holder.pid} " in result.stderr and "Traceback" not in result.output
        out = tmp_path / "export.csv"
        read = runner.invoke(app, ["export", str(interrupted_run), "--out", str(out)])
        assert read.exit_code == 0, read.output  # a reader needs no lock
    finally:
        holder.kill()
        holder.wait()
    result = CliRunner().invoke(app, ["labels", "import", str(interrupted_run), str(labels)])
    assert result.exit_code == 0, result.output  # the holder gone, the lock is free again


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_finished_run_or_another_matrixs_is_never_written_into(
    tmp_path, write_matrix, scripted_provider
):
    matrix = write_matrix()
    run = run_grid(matrix, run_dir=tmp_path / "run", limit=2)
    before = _files(run.run_dir)
    with pytest.raises(RunDirError, match="holds a finished run"):
        run_grid(matrix, run_dir=run.run_dir, limit=2)
    other = write_matrix("other.yaml", judges=[{"id": "scripted/judge-c", "label": "c"}])
    with pytest.raises(RunDirError, match="another matrix or data set"):
        run_grid(other, run_dir=run.run_dir, limit=2)
    with pytest.raises(RunDirError, match="another matrix or data set"):
        run_grid(matrix, run_dir=run.run_dir, limit=3)  # another data set: one sample more
    assert _files(run.run_dir) == before


def test_an_interrupted_run_of_the_same_matrix_is_resumed(
    tmp_path, write_matrix, scripted_provider
):
    matrix = write_matrix()
    run = run_grid(matrix, run_dir=tmp_path / "run", limit=2, use_cache=False)
    complete = len(run.scores)
    _interrupted(run.run_dir)
    again = run_grid(matrix, run_dir=run.run_dir, limit=2, use_cache=False)
    assert again.complete and len(again.scores) == complete
    assert yaml.safe_load((run.run_dir / "matrix.resolved.yaml").read_text())["name"] == "scripted"
