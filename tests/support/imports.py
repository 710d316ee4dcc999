"""An import through the CLI, reported, and its figures checked against the source file's, for
the tests of ``judgegrid import``'s formats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from judgegrid import rebuild_report
from judgegrid.cli import app


def imported(out: Path, argv: Sequence[str], said: Sequence[str]) -> Path:
    """``judgegrid import ARGV --out OUT``, which must succeed saying each of ``said``, then
    reported; the run directory."""
    done = CliRunner().invoke(app, ["import", *argv, "--out", str(out)])
    assert done.exit_code == 0, done.output
    for words in said:
        assert words in done.output, (words, done.output)
    rebuild_report(out)
    return out


def assert_figures_are(run: Path, expected: Mapping[tuple[str, str], Sequence[float]]) -> None:
    """The report's count and mean of each (metric, judge) are those of ``expected``, the
    verdicts read from the source on their own, and it has no other."""
    summary = pd.read_csv(run / "tables" / "config_summary.csv").set_index(["metric", "judge"])
    assert set(summary.index) == set(expected)
    for key, values in expected.items():
        assert summary.loc[key, "scored"] == len(values), key
        assert summary.loc[key, "mean_score"] == pytest.approx(sum(values) / len(values)), key
