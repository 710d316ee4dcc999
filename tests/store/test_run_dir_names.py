"""A folder named where a run directory belongs: the error says which folder to name."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgegrid.core.errors import RunDirError
from judgegrid.store.run_db import DB_NAME
from judgegrid.store.run_dir import RESOLVED_MATRIX, check_run_dir


def _run(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / DB_NAME).write_bytes(b"")
    (folder / RESOLVED_MATRIX).write_text("{}\n")
    return folder


def _refusal(target: Path) -> str:
    with pytest.raises(RunDirError) as caught:
        check_run_dir(target)
    return str(caught.value)


def test_the_reports_folder_names_its_newest_run(tmp_path):
    reports = tmp_path / "reports"
    _run(reports / "20261129-115625-local")
    newest = _run(reports / "20261129-120833-criteria")
    (reports / "notes").mkdir()
    said = _refusal(reports)
    assert said.startswith(f"{reports}: not a run directory (needs {DB_NAME}")
    assert said.endswith(f"; it holds 2 run directories: name one, such as the newest, {newest}")


def test_the_project_folder_names_the_run_in_its_reports(tmp_path):
    run = _run(tmp_path / "reports" / "20261129-120711-criteria")
    assert _refusal(tmp_path).endswith(f"; it holds one run directory: name that, {run}")


def test_a_folder_without_runs_says_only_what_is_missing(tmp_path):
    (tmp_path / "data").mkdir()
    assert _refusal(tmp_path) == (
        f"{tmp_path}: not a run directory (needs {DB_NAME} and {RESOLVED_MATRIX})"
    )
