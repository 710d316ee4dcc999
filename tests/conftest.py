from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")  # before a test imports deepeval
# No test may read or write the user's cache: a session-wide one here (module-scoped fixtures run
# before the per-test one below), and a fresh one per test.
os.environ["JUDGEGRID_CACHE_DIR"] = tempfile.mkdtemp(prefix="judgegrid-test-cache-")
sys.path.insert(0, str(Path(__file__).parent))

from judgegrid.core.cells import Cell
from judgegrid.testing.fault_server import FaultPlan, FaultServer, start_fault_server
from support import scripted
from support.demo_sets import ENGLISH_DEMO

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


# a cell's coordinates, the columns that name a score row's cell
CELL_KEY = list(Cell._fields)

# The modules whose tests take seconds to minutes each: subprocesses killed and resumed, sharded
# runs on worker processes, the decision bank's simulations, the README's start. Marked ``slow``
# (with the ``local_models`` ones and those that drive headless Chromium, found by themselves):
# `make test` starts them first, so that its two workers end together instead of one waiting on
# the other's last long test, and `make test-fast` leaves them out. The figures behind the list:
# docs/development.md, "The test suite".
SLOW_MODULES = frozenset(
    {
        "tests/calls/test_batch_criteria.py",
        "tests/calls/test_batches.py",
        "tests/cli/test_card.py",
        "tests/cli/test_cli.py",
        "tests/cli/test_entry.py",
        "tests/cli/test_exit_codes.py",
        "tests/docs/test_doc_outputs.py",
        "tests/docs/test_readme_start.py",
        "tests/fuzz/test_fuzz_cli.py",
        "tests/outputs/test_export.py",
        "tests/outputs/test_export_criteria.py",
        "tests/outputs/test_report.py",
        "tests/outputs/test_report_two_processes.py",
        "tests/run/test_pairs.py",
        "tests/run/test_pairwise_runs.py",
        "tests/run/test_probe_runs.py",
        "tests/run/test_ray_cluster.py",
        "tests/run/test_run_lock.py",
        "tests/run/test_runner.py",
        "tests/run/test_workers.py",
        "tests/store/test_cache.py",
        "tests/store/test_read_ahead.py",
        "tests/test_secrets_end_to_end.py",
        "tests/testing/test_decision_bank.py",
    }
)


BROWSER_HELPERS = {"support.browser", "support.view_pages"}  # tests/support/browser.py, its pages


def _drives_chromium(item: pytest.Item) -> bool:
    """The test's module uses tests/support/browser.py (headless Chromium) or the pages over it."""
    module = getattr(item, "module", None)
    names = vars(module).values() if module is not None else ()
    return any(getattr(value, "__module__", None) in BROWSER_HELPERS for value in names)


def _shares_its_modules_fixture(item: pytest.Item) -> bool:
    """The test uses a fixture its own module defines for more than one test (a run, a server):
    built once per worker that runs one of the module's tests, so they had better be one."""
    module_id = item.nodeid.split("::")[0]
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(
        fixture.scope != "function" and fixture.baseid == module_id
        for defs in definitions
        for fixture in defs
    )


def _suite_path(item: pytest.Item) -> str:
    """The test's file as SLOW_MODULES names it (relative to the checkout)."""
    path = Path(item.path)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


# pytest-xdist 3.8 tells the controller a test's xdist_group by renaming the test
# (``nodeid@group``), which pytest 9 ignores (a node's id is no longer ``_nodeid``): its --dist
# loadgroup then spreads a group over both workers. So the workers write each grouped test's
# group to a file the controller names (GROUPS_ENV), which its scheduler (GroupScheduling) reads.
GROUPS_ENV = "JUDGEGRID_TEST_GROUPS"


def pytest_configure(config: pytest.Config) -> None:
    """On the controller of a distributed run: the file the workers write the groups to."""
    if not hasattr(config, "workerinput") and config.getoption("tx", None):
        handle, path = tempfile.mkstemp(prefix="judgegrid-test-groups-", suffix=".json")
        os.close(handle)
        os.environ[GROUPS_ENV] = path  # the workers, started after this, inherit it


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and os.environ.get(GROUPS_ENV):
        Path(os.environ.pop(GROUPS_ENV)).unlink(missing_ok=True)


def _write_groups(items: list[pytest.Item]) -> None:
    """Each grouped test's group, for the controller (every worker writes the same)."""
    path = os.environ.get(GROUPS_ENV)
    if not path:
        return
    groups = {
        item.nodeid: str(mark.args[0])
        for item in items
        for mark in item.iter_markers("xdist_group")
        if mark.args
    }
    spare = Path(f"{path}.{os.getpid()}")
    spare.write_text(json.dumps(groups), encoding="utf-8")
    spare.replace(path)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadgroup with the groups the workers wrote (see GROUPS_ENV)."""
    if config.getvalue("dist") != "loadgroup" or not os.environ.get(GROUPS_ENV):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """One unit of work per group, one per ungrouped test (as xdist's loadgroup)."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                text = Path(os.environ[GROUPS_ENV]).read_text(encoding="utf-8")
                self.groups = json.loads(text) if text else {}
            return self.groups.get(nodeid, nodeid)

    return GroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks for `make test`'s workers (pytest-xdist, ``--dist loadgroup``) and `make test-fast`.

    - ``ray``: one Ray at a time on this machine (a local ``ray.init()`` joins the test cluster
      another worker started, found through /tmp/ray): all on one worker, one after the other.
    - ``local_models``, and any module with a module-scoped fixture of its own: the module's
      tests share what it builds (a run of the real models, a run to browse, a server), so they
      stay together on one worker.
    - ``slow`` (SLOW_MODULES, local models, Chromium): first in the order, out of test-fast.
    """
    for item in items:
        relative = _suite_path(item)
        if relative in SLOW_MODULES or _drives_chromium(item):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("ray"):
            item.add_marker(pytest.mark.xdist_group("ray"))
        elif item.get_closest_marker("local_models") or _shares_its_modules_fixture(item):
            item.add_marker(pytest.mark.xdist_group(relative))
        if item.get_closest_marker("local_models"):
            item.add_marker(pytest.mark.slow)
    # a stable sort: whole modules move, each keeps its own order
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if hasattr(config, "workerinput"):
        _write_groups(items)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory, monkeypatch) -> Path:
    """This test's own cross-run cache directory (JUDGEGRID_CACHE_DIR)."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("JUDGEGRID_CACHE_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def work_dir(tmp_path_factory, monkeypatch) -> Path:
    """This test's own empty working directory: what a command writes to a relative path (a
    run's ``reports/``) lands there, never in the checkout nor beside another test's, which
    may be running at the same moment in another xdist worker (``make test``). A test that
    needs the checkout names it (``ROOT / ...``) or changes to it itself."""
    path = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(path)
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    """The fault-injection server on 127.0.0.1, one per test module (tests reset its plan)."""
    srv = start_fault_server()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def scripted_provider():
    scripted.register()
    scripted.SCRIPT.reset()
    yield scripted.SCRIPT
    scripted.SCRIPT.reset()


def matrix_dict(**overrides: Any) -> dict[str, Any]:
    """A small grid on the scripted provider: 2 judges, 1 embedding model at 2 dimensions."""
    base: dict[str, Any] = {
        "name": "scripted",
        "dataset": str(ENGLISH_DEMO),
        "defaults": {"judge": {"temperature": 0.0, "max_tokens": 200, "seed": 1}},
        "retry": {"initial_interval": "1ms", "max_interval": "5ms", "max_attempts": 3},
        "concurrency": {"total": 8, "per_model": 4},
        "judges": [
            {"id": "scripted/judge-a", "label": "a"},
            {"id": "scripted/judge-b", "label": "b"},
        ],
        "embeddings": [{"id": "scripted/bow", "label": "bow", "dimensions": [64, 16]}],
        "metrics": ["response_relevancy", "faithfulness"],
        "strictness": [1, 3],
        "repeats": 2,
    }
    base.update(overrides)
    return base


@pytest.fixture
def write_matrix(tmp_path: Path):
    def write(name: str = "matrix.yaml", **overrides: Any) -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(matrix_dict(**overrides), sort_keys=False))
        return path

    return write


def fault_server_matrix(
    url: str, data: Path, key_env: str, judges: dict[str, str], embedding: str, **overrides: Any
) -> dict[str, Any]:
    """A grid on the fault-injection server: the judges (label: ``openai/…`` id), one embedding
    model at 64 and 16 dimensions, the four metrics with shared steps (statements, verdicts,
    generated questions) and a shared vector per sample."""
    options = {"api_base": url, "api_key_env": key_env, "timeout": "20s"}
    matrix: dict[str, Any] = {
        "name": "fault-server",
        "dataset": str(data),
        "defaults": {"judge": {"temperature": 0.0, "seed": 1, **options}, "embedding": options},
        "retry": {"initial_interval": "1ms", "max_interval": "10ms", "max_attempts": 3},
        "judges": [{"id": model, "label": label} for label, model in judges.items()],
        "embeddings": [{"id": embedding, "label": "embed", "dimensions": [64, 16]}],
        "metrics": ["response_relevancy", "faithfulness", "context_precision", "context_recall"],
        "strictness": [1, 3],
        "repeats": 2,
    }
    matrix.update(overrides)
    return matrix


def save_matrix(directory: Path, name: str, matrix: dict[str, Any]) -> Path:
    """The matrix as ``directory/name.yaml``."""
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


def clean_fault_server(request: pytest.FixtureRequest) -> None:
    """The fault server a test uses (its ``server`` fixture), back to no faults and no counts."""
    if "server" in request.fixturenames:
        srv: FaultServer = request.getfixturevalue("server")
        srv.set_plan(FaultPlan())
        srv.reset_counts()
