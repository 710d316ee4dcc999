"""A resumed run's options are one value (``ResumeOptions``) from ``resume_run`` and
``run --resume`` down to ``prepare_resume``: spelt out three times, the lists had drifted
(``resume_run`` took ``probes`` and dropped it, and had no ``address``)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgegrid import api, resume_run, run_grid
from judgegrid.cli import app
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.options import Execution
from judgegrid.run import orchestrate

RAY_HEAD = "ray://head:10001"


@pytest.fixture
def interrupted_run(write_matrix, tmp_path: Path) -> Path:
    """A run stopped (Ctrl-C, as it lands in a worker) after its fifth cell."""
    done = []

    def interrupt(tally, cell, status):
        done.append(cell)
        if len(done) == 5:
            raise KeyboardInterrupt

    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_grid(write_matrix(), limit=1, run_dir=run_dir, on_progress=interrupt)
    return run_dir


def test_resume_run_takes_the_resume_options_and_no_other():
    keywords = set(inspect.signature(resume_run).parameters) - {"run_dir", "on_progress"}
    assert keywords == set(api.ResumeOptions.model_fields)
    assert "address" in keywords and "probes" not in keywords


def test_every_option_given_to_resume_run_reaches_the_prepared_run(interrupted_run, monkeypatch):
    """Down to ``execution_for``, without starting Ray: the spy lays no backend over the
    matrix's, and the run is prepared and not executed."""
    given = []

    def spy(matrix, workers=None, backend=None, address=None):
        given.append((workers, backend, address))
        return Execution()

    prepared = []
    monkeypatch.setattr(orchestrate, "execution_for", spy)
    monkeypatch.setattr(api, "execute_run", lambda run, on_progress=None: prepared.append(run))
    options = {"workers": 2, "backend": "ray", "address": RAY_HEAD}
    resume_run(interrupted_run, retry_failed=True, use_cache=False, **options)
    prepared[0].close()
    assert given == [(2, "ray", RAY_HEAD)]
    assert prepared[0].retry_failed is True and prepared[0].use_cache is False


def test_an_address_is_checked_like_the_matrix_s_own(interrupted_run):
    """It reaches the execution block, where an address is for Ray only (were it dropped, the
    run would resume on processes; were it unknown, the refusal would be 'unknown argument')."""
    with pytest.raises(OptionError, match="address is for backend: ray only"):
        resume_run(interrupted_run, backend="processes", address="auto")
    with pytest.raises(OptionError, match="probes"):
        resume_run(interrupted_run, probes=True)


def test_run_resume_builds_the_value_once_and_hands_it_to_api(interrupted_run, monkeypatch):
    handed = []

    def refuse(run_dir, options=None):
        handed.append((run_dir, options))
        raise OptionError("--resume", [Problem("", "stopped by the test")])

    monkeypatch.setattr(api, "prepare_resume", refuse)
    args = ["--workers", "2", "--backend", "ray", "--address", RAY_HEAD, "--no-cache"]
    result = CliRunner().invoke(
        app, ["run", "--resume", str(interrupted_run), "--retry-failed", *args]
    )
    assert result.exit_code == 2 and "stopped by the test" in result.output
    assert handed == [
        (
            interrupted_run,
            api.ResumeOptions(
                retry_failed=True, use_cache=False, workers=2, backend="ray", address=RAY_HEAD
            ),
        )
    ]


def test_run_resume_finishes_an_interrupted_run(interrupted_run):
    before = len(api.load_run(interrupted_run)[0])
    result = CliRunner().invoke(
        app, ["run", "--resume", str(interrupted_run), "--workers", "1", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert f"{before} were already done" in result.output
    scores, _ = api.load_run(interrupted_run)
    assert (scores["status"] == "scored").all() and len(scores) == 20
