"""A scripted run for the view's tests (tests/view/): two judges made to disagree on one sample
(judge b finds a statement judge a did not, and flips a verdict), plus a sample holding markup."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import yaml

from judgegrid import run_grid
from judgegrid.core.records import ScoreRow
from judgegrid.store.run_db import RunStore

DISPUTED = "tokyo-noisy"
EXTRA = "Judge b found a statement of its own."


_BUILT: list[Path] = []  # this process's one build of the run, copied for each test
REPORT_TEXT = {".md", ".html", ".csv", ".yaml"}  # the files that may name the run's directory


def make_view_run(root: Path) -> Path:
    """The run under ``root/run`` (its matrix beside it, ``root/m.yaml``), a test's own to label.
    Four modules each want it; it is built once per process (a scripted run and its report) and
    copied, since the same matrix on the scripted judge always gives the same run. The reports
    name their run directory: the copy's name it, as they would have."""
    if not _BUILT:
        template = Path(tempfile.mkdtemp(prefix="judgegrid-view-run-"))
        atexit.register(shutil.rmtree, template, ignore_errors=True)
        _build_view_run(template)
        _BUILT.append(template)
    shutil.copytree(_BUILT[0], root, dirs_exist_ok=True)
    for path in root.rglob("*"):
        if path.suffix in REPORT_TEXT:
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(str(_BUILT[0]), str(root)), encoding="utf-8")
    return root / "run"


def _build_view_run(root: Path) -> Path:
    import scripted
    from conftest import matrix_dict
    from demo_sets import demo_with_hostile_sample

    scripted.register()
    scripted.SCRIPT.reset()
    matrix = root / "m.yaml"
    matrix.write_text(
        yaml.safe_dump(
            matrix_dict(
                metrics=["faithfulness", "response_relevancy", "context_precision"],
                embeddings=[{"id": "scripted/bow", "label": "bow", "dimensions": [64]}],
                strictness=[1],
                repeats=2,
            )
        )
    )
    # no cross-run cache: a module-scoped fixture would read the session's, which another module
    # may have filled with these very answers, and the run would then have no calls to show
    run = run_grid(matrix, demo_with_hostile_sample(), run_dir=root / "run", use_cache=False)
    store = RunStore(run.run_dir / "run.sqlite")
    for row in store.scores_frame().itertuples(index=False):
        if row.metric == "faithfulness" and row.judge == "b" and row.sample_id == DISPUTED:
            values = row._asdict()
            details = json.loads(values["details"])
            verdicts = details["verdicts"]
            verdicts[0]["verdict"] = 1 - verdicts[0]["verdict"]  # b judges the first otherwise
            verdicts[0]["reason"] = "judge b thinks otherwise"
            verdicts.append({"statement": EXTRA, "reason": "not in the context", "verdict": 0})
            details = {"statements": [v["statement"] for v in verdicts], "verdicts": verdicts}
            values["details"] = json.dumps(details)
            values["score"] = sum(v["verdict"] for v in verdicts) / len(verdicts)
            store.write_score(ScoreRow(**values), replace=True)
    store.close()
    return run.run_dir
