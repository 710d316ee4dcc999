"""`judgegrid plan` starts light: its process imports none of litellm, scipy, matplotlib or
aiohttp, whose imports were all but 0.01 s of its time (benches/bench_plan_repeats.py has the
figures). Not timed: the modules a fresh console-script process ends with are checked, so a
heavy import that creeps back onto the plan's path fails here rather than in the benchmark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# litellm (3-5 s: litellm_tables answers for it), scipy and matplotlib (the card, labels and
# report: api and orchestrate import them when used), aiohttp (the pages), openai (litellm's)
HEAVY = ["litellm", "openai", "scipy", "matplotlib", "aiohttp", "sklearn"]
CONSOLE = (
    "import atexit, json, sys\n"
    "modules = lambda: print('MODULES ' + json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    "atexit.register(modules)\n"
    "from judgegrid.entry import main\n"
    "sys.argv = ['judgegrid', *sys.argv[1:]]\n"
    "main()\n"
)
SAMPLE = {
    "id": "s1",
    "user_input": "Who wrote the report?",
    "response": "Ann wrote it. She finished it in 1999.",
    "retrieved_contexts": ["Ann wrote the report in 1999."],
}


def plan_process(args: list[str], cwd: Path) -> tuple[str, set[str]]:
    """``judgegrid plan ARGS`` in a fresh interpreter: its output and the modules it imported."""
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE, "plan", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return done.stdout, {name.split(".")[0] for name in json.loads(line.removeprefix("MODULES "))}


def test_a_million_repeats_is_planned_without_the_heavy_imports(tmp_path):
    (tmp_path / "one.jsonl").write_text(json.dumps(SAMPLE) + "\n", encoding="utf-8")
    matrix = tmp_path / "million.yaml"
    matrix.write_text(
        "judges: [{id: openai/gpt-4o-mini}]\nmetrics: [faithfulness]\nrepeats: 1000000\n"
        "dataset: one.jsonl\n",
        encoding="utf-8",
    )
    output, modules = plan_process([str(matrix)], tmp_path)
    assert "cells: 1,000,000" in output and "$" in output  # counted and priced
    assert "OPENAI_API_KEY is not set" in output  # the run's key check, without litellm
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


@pytest.mark.parametrize("name", ["openai.yaml", "local.yaml"])
def test_the_shipped_matrices_are_planned_without_the_heavy_imports(name, tmp_path):
    output, modules = plan_process([str(ROOT / "model_matrices" / name), "-n", "2"], tmp_path)
    assert output.splitlines()[0].startswith("model") and "total" in output
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_a_provider_the_tables_do_not_know_is_still_asked_of_litellm(tmp_path):
    """The control: the check above can see litellm when the plan needs it."""
    path = ROOT / "model_matrices" / "openrouter.yaml"
    output, modules = plan_process([str(path), "-n", "1"], tmp_path)
    assert "total" in output and "litellm" in modules
