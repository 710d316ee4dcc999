"""The report's text and tables, pinned: three scripted-judge runs of the project's own demo
matrices (``model_matrices/local.yaml`` with probes and juries, with people's labels imported;
``criteria.yaml`` on its labelled data set; ``pairwise.yaml`` on WikiEval's pairs), each with
its judges made to disagree, write summary.md and tables/*.csv equal to the copies under
``tests/golden/report/``. The copies were written before ``analyses/`` was split into
sub-packages, so a move that changes a number or a word fails here.

Equal means: summary.md's text, and each CSV's header and cells; a cell that is a number equal
to 1e-9 (a statistic written once instead of twice may differ in its last bits). What a run's
clock decides (each call's and cell's latency and times) is set from its tokens before the
report is written, so the pinned figures are the same on every machine.

Rewrite the copies, after a change meant to move them:
``python tests/outputs/test_report_golden.py --write``.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "report"
SHARED = ROOT.parent / "shared"
RUNS = ("local", "criteria", "pairwise")
# the clock's columns of a run's database, set to figures its calls' tokens decide
FIXED_CLOCK = (
    "UPDATE calls SET latency_s = (tokens_in + tokens_out) / 10000.0, started_at = 1.7e9",
    "UPDATE scores SET latency_s = (coalesce(length(details), 0) + 10 * repeat) / 10000.0, "
    "finished_at = 1.7e9 + 1",
    "UPDATE labels SET labelled_at = 1.7e9 + 2",
)


def level_logprobs(step: str, prompt: str, model: str, text: str) -> dict[str, float] | None:
    """Judge a's log-probabilities at a scale's level (the others give none): most on the level
    it chose, the rest spread over the other four, so calibration has forecasts to score."""
    found = re.search(r'"level"\s*:\s*"?(\d)', text)
    if step != "criterion" or found is None or not model.endswith("judge-a"):
        return None
    chosen = found.group(1)
    return {str(v): math.log(0.6 if str(v) == chosen else 0.1) for v in range(1, 6)}


def _scripted(matrix: dict[str, Any], judges: int = 3) -> dict[str, Any]:
    """A demo matrix on the scripted judges and embedding model, with a short retry."""
    matrix = dict(matrix)
    matrix["judges"] = [{"id": f"scripted/judge-{c}", "label": c} for c in "abc"[:judges]]
    if matrix.get("embeddings"):
        matrix["embeddings"] = [{"id": "scripted/bow", "label": "bow", "dimensions": [64, 16]}]
    matrix["retry"] = {"initial-interval": "1ms", "max-interval": "5ms", "max-attempts": 2}
    return matrix


def _matrix(name: str, directory: Path) -> Path:
    from support.demo_sets import DEMO_REPORT_METRICS  # tests/ is on the path (see write)

    source = ROOT / "model_matrices" / f"{name}.yaml"
    spec = _scripted(yaml.safe_load(source.read_text()))
    dataset = spec.get("dataset")
    if isinstance(dataset, str) and dataset != "demo":
        spec["dataset"] = str((source.parent / dataset).resolve())
    if name == "local":
        spec["limit"] = 12
        spec["metrics"] = list(DEMO_REPORT_METRICS)
    if name == "criteria":
        spec["limit"] = 24
    if name == "pairwise":
        spec["limit"] = 16
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def build_run(name: str, directory: Path) -> Path:
    """One of the pinned runs, scored and reported under ``directory/name``."""
    from judgegrid import rebuild_report, run_grid
    from judgegrid.api import import_labels
    from support import scripted
    from support.disagreeing import disagreeing_answer, people_labels

    scripted.register()
    scripted.SCRIPT.reset()
    scripted.SCRIPT.answer = disagreeing_answer
    scripted.SCRIPT.alternatives = level_logprobs
    try:
        run = run_grid(_matrix(name, directory), run_dir=directory / name, use_cache=False)
    finally:
        scripted.SCRIPT.reset()
    if name == "local":
        import_labels(run.run_dir, people_labels(run.run_dir, directory))
    _fix_clock(run.run_dir / "run.sqlite")
    rebuild_report(run.run_dir)
    return run.run_dir


def _fix_clock(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        for statement in FIXED_CLOCK:
            connection.execute(statement)
    connection.close()


def report_texts(run_dir: Path) -> dict[str, str]:
    """summary.md and every table, as text (the run's directory named RUN_DIR)."""
    files = {"summary.md": run_dir / "summary.md"}
    files |= {f"tables/{p.name}": p for p in sorted((run_dir / "tables").glob("*.csv"))}
    out = {}
    for name, path in files.items():
        out[name] = path.read_text(encoding="utf-8").replace(str(run_dir), "RUN_DIR")
    return out


def _same_cell(expected: str, got: str) -> bool:
    if expected == got:
        return True
    try:
        a, b = float(expected), float(got)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def text_differences(expected: str, got: str) -> list[str]:
    """Where two texts differ: the words and counts to the character, each decimal to one unit
    of its last printed digit. A statistic a last bit from a rounding boundary (a bound at
    0.43750000000001) prints 0.437 on one machine and 0.438 on another."""
    if NUMBER.split(expected) != NUMBER.split(got):
        return ["the words differ (numbers aside)"]
    found = []
    for a, b in zip(NUMBER.findall(expected), NUMBER.findall(got), strict=True):
        places = len(a.partition(".")[2])  # a count (no decimals) must be the same
        unit = 10.0**-places if places else 0.0
        if places != len(b.partition(".")[2]) or abs(float(a) - float(b)) > unit * 1.000001:
            found.append(f"{a} before, {b} now")
    return found


def differences(expected: str, got: str) -> list[str]:
    """Where two CSV texts differ, cell by cell (numbers to 1e-9)."""
    old = list(csv.reader(io.StringIO(expected)))
    new = list(csv.reader(io.StringIO(got)))
    if len(old) != len(new):
        return [f"{len(old)} rows before, {len(new)} now"]
    found = []
    for i, (a, b) in enumerate(zip(old, new, strict=True)):
        if len(a) != len(b):
            found.append(f"row {i}: {len(a)} cells before, {len(b)} now")
            continue
        found += [
            f"row {i}, column {old[0][j]!r}: {x!r} before, {y!r} now"
            for j, (x, y) in enumerate(zip(a, b, strict=True))
            if not _same_cell(x, y)
        ]
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not (SHARED / "validation" / "wikieval_pairs.jsonl").exists():
        pytest.fail(
            "../shared/validation/wikieval_pairs.jsonl is missing: the pairwise demo needs it"
        )
    directory = tmp_path_factory.mktemp("golden")
    return {name: build_run(name, directory) for name in RUNS}


@pytest.mark.parametrize("name", RUNS)
def test_the_report_is_the_one_written_before_the_move(built: dict[str, Path], name: str) -> None:
    golden = GOLDEN / name
    expected = {
        p.relative_to(golden).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(golden.rglob("*"))
        if p.is_file()
    }
    got = report_texts(built[name])
    assert sorted(got) == sorted(expected), "the report writes other files than before"
    summary = text_differences(expected["summary.md"], got["summary.md"])
    assert not summary, summary[:5]
    for table in sorted(t for t in expected if t.endswith(".csv")):
        assert not differences(expected[table], got[table]), (
            table,
            differences(expected[table], got[table])[:5],
        )


def test_the_pinned_reports_have_something_to_compare() -> None:
    """The pins hold the tables a refactor of the analyses could move: people, pairs, probes,
    agreement, criteria, pairwise and the card, each with rows."""
    for name, tables in {
        "local": ["validity_people", "agreement_judges", "probes", "decision_card", "stability"],
        "criteria": ["criterion_validity", "criterion_agreement", "calibration", "wording_flags"],
        "pairwise": ["pairwise_validity", "pairwise_position", "pairwise_win_rates"],
    }.items():
        for table in tables:
            rows = (GOLDEN / name / "tables" / f"{table}.csv").read_text().splitlines()
            assert len(rows) > 1, (name, table)


def write() -> None:
    """Run the three demos and write their reports under tests/golden/report/."""
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    import shutil

    directory = Path(tempfile.mkdtemp(prefix="judgegrid-golden-"))
    for name in RUNS:
        texts = report_texts(build_run(name, directory))
        target = GOLDEN / name
        shutil.rmtree(target, ignore_errors=True)
        for relative, text in texts.items():
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        print(f"wrote {len(texts)} files under {target}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {Path(__file__).name} --write")
    write()
