from __future__ import annotations

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
# No test may read or write the user's cache: a session-wide one here (module-scoped fixtures run
# before the per-test one below), and a fresh one per test.
os.environ["JUDGEGRID_CACHE_DIR"] = tempfile.mkdtemp(prefix="judgegrid-test-cache-")
sys.path.insert(0, str(Path(__file__).parent))

import scripted
from demo_sets import ENGLISH_DEMO
from judgegrid.core.cells import Cell
from judgegrid.testing.fault_server import FaultPlan, FaultServer, start_fault_server

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


# a cell's coordinates, the columns that name a score row's cell
CELL_KEY = list(Cell._fields)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory, monkeypatch) -> Path:
    """This test's own cross-run cache directory (JUDGEGRID_CACHE_DIR)."""
    path = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("JUDGEGRID_CACHE_DIR", str(path))
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
