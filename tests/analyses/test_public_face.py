"""analyses/ as the rest of the tool sees it: one public face whose names load on first use,
each statistic defined once, one value for a metric's threshold and direction, and a table
name no analysis makes refused instead of read as an empty table."""

from __future__ import annotations

import ast
import functools
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import judgegrid.analyses as analyses
from judgegrid.analyses import TABLE_NAMES, Analysis, RunFacts, UnknownTable, analyse

SRC = Path(__file__).resolve().parents[2] / "src" / "judgegrid"


@functools.cache
def _definitions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function defined in src/ (read once for the tests below)."""
    found = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((path.relative_to(SRC).as_posix(), node))
    return found


def test_every_public_name_is_the_one_its_module_defines():
    homes = analyses._HOME_OF
    assert sorted(analyses.__all__) == sorted(homes)
    assert len(set(analyses.__all__)) == len(analyses.__all__)
    for name, module in homes.items():
        home = importlib.import_module(module)
        assert getattr(analyses, name) is getattr(home, name), name
    with pytest.raises(AttributeError, match="no attribute 'cohen_kappa'"):
        _ = analyses.cohen_kappa


def test_a_constant_of_the_face_does_not_import_scipy():
    """The CLI's quick commands read the face; its names load on first use."""
    code = "import sys, judgegrid.analyses as a; a.CONFIG_AXES; print('scipy' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "False", shown.stderr


@pytest.mark.parametrize(
    "name",
    [
        *("cohen_kappa", "krippendorff_alpha", "wilson_interval", "rho_interval"),
        *("tau_interval", "mean_interval", "combine_orders", "kendall_tau_b", "spearman_with_ci"),
    ],
)
def test_each_statistic_has_one_definition(name):
    places = [path for path, node in _definitions() if node.name == name]
    assert len(places) == 1, places


def test_no_function_takes_a_threshold_or_a_direction_of_its_own():
    """A metric's threshold and direction travel as one ``Scales``."""
    loose = [
        f"{path}:{node.name}"
        for path, node in _definitions()
        if {"thresholds", "lower_is_better"}
        & {a.arg for a in node.args.args + node.args.kwonlyargs}
    ]
    assert not loose


def test_a_table_no_analysis_makes_is_refused_with_the_nearest_name():
    from support.frames import simulated

    analysis = analyse(simulated(), RunFacts())
    with pytest.raises(UnknownTable, match="did you mean 'agreement_judges'") as refused:
        analysis.table("agreement_judge")
    assert "stability" in str(refused.value)  # the tables there are, named
    assert analysis.table("calls_by_step").empty  # made only with the steps' names: empty


def test_every_table_the_bundle_makes_is_a_known_name():
    from support.frames import simulated

    analysis = analyse(simulated(), RunFacts())
    assert set(analysis.tables) | set(analysis.usage) <= TABLE_NAMES
    assert isinstance(analysis, Analysis)
