"""Files a command writes and the environment it reads (issue 39), where the bad-input table's
properties do not fit: a refusal that leaves a run directory exactly as it was (names, sizes and
modification times, no -wal or -shm), --overwrite that does replace, a folder made, and the
environment variables that end in a warning or on the terminal rather than in a refusal."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import api, run_grid
from judgegrid.cli import EXIT_BAD_INPUT, app
from judgegrid.cli import command as cli_command
from judgegrid.core.errors import RunDirError
from judgegrid.entry import main as console_script
from support import scripted
from support.demo_sets import demo_with_hostile_sample
from support.view_runs import make_view_run

runner = CliRunner()


@pytest.fixture(scope="module")
def built_run(tmp_path_factory) -> Path:
    """A finished scripted run (and its matrix beside it), copied by each test that needs one."""
    scripted.register()
    return make_view_run(tmp_path_factory.mktemp("built"))


@pytest.fixture
def run_dir(built_run: Path, tmp_path: Path, cache_dir: Path) -> Path:
    scripted.register()
    shutil.copytree(built_run.parent, tmp_path / "copy")
    return tmp_path / "copy" / "run"


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under ``folder`` and the folder itself: (size, modification time in ns)."""
    entries = [folder, *folder.rglob("*")]
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in entries}


def spoil_matrix(run: Path) -> None:
    path = run / "matrix.resolved.yaml"
    path.write_text(path.read_text().replace("repeats: 2", "repeats: -4"))


REFUSED = {
    "report, --margin out of range": (["report", "{run}", "--margin", "5"], None),
    "report, a broken matrix.resolved.yaml": (["report", "{run}"], spoil_matrix),
    "export, --format unknown": (["export", "{run}", "--format", "nope"], None),
    "export, -o with no format": (["export", "{run}", "-o", "{tmp}/x.txt"], None),
    "export, -o into the run": (["export", "{run}", "-o", "{run}/x.csv"], None),
    "labels export, -o with no format": (["labels", "export", "{run}", "-o", "{tmp}/x"], None),
    "labels import, a missing file": (["labels", "import", "{run}", "{tmp}/none.csv"], None),
    "labels import, a blank --annotator": (
        ["labels", "import", "{run}", "{tmp}/none.csv", "--annotator", " "],
        None,
    ),
    "label, --metric unknown": (["label", "{run}", "--metric", "nope"], None),
    "label, --n 0": (["label", "{run}", "--n", "0"], None),
    "label, --margin out of range": (["label", "{run}", "--margin", "5"], None),
    "view, --port out of range": (["view", "{run}", "--port", "99999"], None),
    "run --resume, --workers 0": (["run", "--resume", "{run}", "--workers", "0"], None),
    "run --resume, --backend unknown": (["run", "--resume", "{run}", "--backend", "nope"], None),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_command_leaves_the_run_directory_as_it_was(
    name, run_dir: Path, tmp_path: Path, monkeypatch
):
    """Through the console script (for `report`, its scores' reader forked ahead): every check
    before the database is opened for writing, and a reader opens it read-only, so not one
    entry of the directory changes, not even the directory's own modification time."""
    argv, spoil = REFUSED[name]
    if spoil is not None:
        spoil(run_dir)
    before = snapshot(run_dir)
    args = [a.format(run=run_dir, tmp=tmp_path) for a in argv]
    monkeypatch.setattr(sys, "argv", ["judgegrid", *args])
    with pytest.raises(SystemExit) as exited:
        console_script()
    assert exited.value.code == EXIT_BAD_INPUT
    assert snapshot(run_dir) == before


def test_readers_and_a_refused_new_run_leave_a_finished_run_as_it_was(run_dir: Path):
    """export, labels export and load_run read without a -wal or -shm file, and the run given
    to a new run is refused (a run is never overwritten) before its database is opened to
    write."""
    before = snapshot(run_dir)
    for argv in (["export", str(run_dir)], ["labels", "export", str(run_dir)]):
        assert runner.invoke(app, argv).exit_code == 0
    api.load_run(run_dir)
    with pytest.raises(RunDirError, match="a run is never overwritten"):
        run_grid(run_dir.parent / "m.yaml", demo_with_hostile_sample(), run_dir=run_dir)
    assert snapshot(run_dir) == before


@pytest.mark.parametrize(
    "command",
    [["export", "{run}", "-o"], ["labels", "export", "{run}", "-o"], ["init"]],
    ids=["export", "labels export", "init"],
)
def test_overwrite_replaces_what_is_refused_without_it(command, run_dir: Path, tmp_path: Path):
    target = tmp_path / "mine.csv" if command[0] != "init" else tmp_path / "mine.yaml"
    target.write_text("mine\n")
    argv = [a.format(run=run_dir) for a in command] + [str(target)]
    refused = runner.invoke(app, argv)
    assert refused.exit_code == EXIT_BAD_INPUT and "--overwrite" in refused.output
    assert target.read_text() == "mine\n"
    replaced = runner.invoke(app, [*argv, "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert target.read_text() != "mine\n"


@pytest.mark.parametrize("spelling", ["--out", "--output", "-o"])
@pytest.mark.parametrize("command", [["export"], ["labels", "export"]], ids=" ".join)
def test_both_exports_take_the_same_out_option_and_name_it_alike(
    command, spelling, run_dir: Path, tmp_path: Path
):
    """``export --out`` and ``labels export --output`` were two names for one option, so a
    user who had learnt one met "No such option" at the other: both take every spelling now,
    and a refusal names ``--out`` whichever was typed."""
    target = tmp_path / "mine.csv"
    target.write_text("mine\n")
    refused = runner.invoke(app, [*command, str(run_dir), spelling, str(target)])
    assert refused.exit_code == EXIT_BAD_INPUT, refused.output
    assert "--out: " in refused.output and "already exists" in refused.output
    fresh = tmp_path / "fresh.csv"
    wrote = runner.invoke(app, [*command, str(run_dir), spelling, str(fresh)])
    assert wrote.exit_code == 0, wrote.output
    assert "sample_id" in pd.read_csv(fresh).columns  # a run with no labels: the header


def test_write_table_replaces_with_overwrite_in_python(tmp_path: Path):
    target = tmp_path / "t.csv"
    target.write_text("mine\n")
    api.write_table(pd.DataFrame({"sample_id": ["s1"]}), target, overwrite=True)
    assert pd.read_csv(target)["sample_id"].tolist() == ["s1"]


def test_init_into_a_missing_folder_makes_the_folder(tmp_path: Path):
    """The one rule of every writer (`export -o`, `labels export -o` too): the folder is made."""
    target = tmp_path / "new" / "deeper" / "judgegrid.yaml"
    result = runner.invoke(app, ["init", str(target)])
    assert result.exit_code == 0, result.output
    assert target.is_file() and (target.parent / "judgegrid.dataset.jsonl").is_file()


@pytest.mark.parametrize("value", ["abc", "0", "-5", "80.5", "99999999999999999999", "10001"])
def test_a_terminal_width_that_is_no_number_is_dropped_with_a_warning(value, monkeypatch, capsys):
    monkeypatch.setenv("TERMINAL_WIDTH", value)
    monkeypatch.setattr(sys, "argv", ["judgegrid", "run", "--help"])
    with pytest.raises(SystemExit) as exited:
        cli_command.main()
    out, err = capsys.readouterr()
    assert exited.value.code == 0, err
    assert f"TERMINAL_WIDTH={value!r} is not a whole number of columns" in err
    assert "; ignored" in err
    assert "--resume" in out and "unexpected error" not in err


def test_the_crash_logger_falls_back_to_the_terminal(tmp_path: Path, monkeypatch, capsys):
    """A cache folder that is a file: the crash log cannot be written, so the traceback (keys
    masked) is printed instead, with why; nothing is made."""
    cache = tmp_path / "cache-file"
    cache.write_text("x")
    monkeypatch.setenv("JUDGEGRID_CACHE_DIR", str(cache))

    def broken(*args, **keywords):
        raise RuntimeError("a bug, sk-proj-AAAABBBBCCCCDDDD1234 inside")

    monkeypatch.setattr(api, "rebuild_report", broken)
    monkeypatch.setattr(sys, "argv", ["judgegrid", "report", str(tmp_path)])
    with pytest.raises(SystemExit) as exited:
        cli_command.main()
    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert "unexpected error (please report it): RuntimeError" in err
    assert "no log file could be written" in err and "Traceback" in err and "broken" in err
    assert "AAAABBBBCCCC" not in err
    assert sorted(tmp_path.iterdir()) == [cache]


def test_xdg_cache_home_naming_a_file_is_named(tmp_path: Path, monkeypatch):
    cache = tmp_path / "xdg-file"
    cache.write_text("x")
    monkeypatch.delenv("JUDGEGRID_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    for argv in (["cache", "stats"], ["cache", "clear"]):
        result = runner.invoke(app, argv)
        assert result.exit_code == EXIT_BAD_INPUT
        assert f"XDG_CACHE_HOME={cache}" in result.output and "is a file" in result.output
    assert sorted(tmp_path.iterdir()) == [cache]


@contextlib.contextmanager
def unwritable_folder(folder: Path) -> Iterator[Path]:
    """A folder nobody may write in, root included: mode 0o500 for a user, the immutable
    attribute (``chattr +i``, which root's permission override does not pass) for root."""
    folder.mkdir(mode=0o500)
    as_root = os.geteuid() == 0
    if as_root:
        made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.fail(f"root cannot lock a folder here (chattr +i: {made.stderr.strip()})")
    try:
        yield folder
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o700)


def test_an_unwritable_cache_folder_is_named(tmp_path: Path, monkeypatch):
    with unwritable_folder(tmp_path / "locked") as folder:
        monkeypatch.setenv("JUDGEGRID_CACHE_DIR", str(folder / "cache"))
        result = runner.invoke(app, ["cache", "clear"])
        assert result.exit_code == EXIT_BAD_INPUT
        assert "JUDGEGRID_CACHE_DIR" in result.output and "cannot be written in" in result.output
        assert not any(folder.iterdir())


def test_cache_stats_makes_no_cache(cache_dir: Path):
    result = runner.invoke(app, ["cache", "stats"])
    assert result.exit_code == 0 and "judge answers: 0" in result.output
    assert not any(cache_dir.iterdir())


def test_local_threads_garbage_is_named_by_validate_plan_and_run(
    tmp_path: Path, monkeypatch, cache_dir
):
    """Before any model is loaded and before a run directory is made."""
    monkeypatch.setenv("JUDGEGRID_LOCAL_THREADS", "many")
    monkeypatch.chdir(tmp_path)
    matrix = Path(__file__).parents[2] / "model_matrices" / "local.yaml"
    for argv in (["validate"], ["plan"], ["run", "--no-progress", "--limit", "1"]):
        result = runner.invoke(app, [*argv, str(matrix)])
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        assert "JUDGEGRID_LOCAL_THREADS" in result.output and "'many'" in result.output
    assert not any(tmp_path.iterdir())


def test_a_port_in_use_leaves_the_run_directory_as_it_was(run_dir: Path, monkeypatch):
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = str(held.getsockname()[1])
    try:
        for argv in (["view", str(run_dir)], ["label", str(run_dir)]):
            before = snapshot(run_dir)
            result = runner.invoke(app, [*argv, "--port", port])
            assert result.exit_code == EXIT_BAD_INPUT, result.output
            assert "--port 0" in result.output
            assert snapshot(run_dir) == before
    finally:
        held.close()


def test_a_tokenizer_folder_that_is_a_file_is_named(tmp_path: Path):
    """CUSTOM_TIKTOKEN_CACHE_DIR (litellm's) naming a file: tiktoken can neither read the
    tokenizer there nor keep one it fetched. A process of its own: the encoding, once loaded,
    is kept for the process's life."""
    folder = tmp_path / "tokenizers"
    folder.write_text("x")
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        "judges: [{id: openai/fake-a, options: {api-base: 'http://127.0.0.1:9/v1'}}]\n"
        "metrics: [faithfulness]\ndataset: demo\n"
    )
    env = {**os.environ, "CUSTOM_TIKTOKEN_CACHE_DIR": str(folder)}
    script = "from judgegrid.entry import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", script, "plan", str(matrix)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert f"CUSTOM_TIKTOKEN_CACHE_DIR={folder}" in result.stderr
    assert "Traceback" not in result.stderr and "unexpected error" not in result.stderr
    assert sorted(tmp_path.iterdir()) == [matrix, folder]


@pytest.mark.parametrize("argv", [["cache", "stats"], ["validate"], ["run", "--no-progress"]])
def test_a_home_no_folder_can_be_found_from_is_named(tmp_path: Path, monkeypatch, argv):
    """HOME=~ (or a JUDGEGRID_CACHE_DIR under ~ then): pathlib's RuntimeError was a traceback."""
    monkeypatch.delenv("JUDGEGRID_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "~")
    monkeypatch.chdir(tmp_path)
    matrix = Path(__file__).parents[2] / "model_matrices" / "local.yaml"
    given = {"cache": argv, "validate": [*argv, str(matrix)]}.get(
        argv[0], [*argv, str(matrix), "--limit", "1"]
    )
    result = runner.invoke(app, given)
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert "HOME=~: no home folder can be found from it" in result.output
    assert "Traceback" not in result.output and not any(tmp_path.iterdir())
