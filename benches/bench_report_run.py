"""``judgegrid report RUN_DIR`` on a synthetic run database of 200,000 score rows and 50,000 calls.

    PYTHONPATH=src python benches/bench_report_run.py [ROWS] [CALLS]

Builds a run directory as a run leaves it (run.sqlite, matrix.resolved.yaml, the data set it
names) from the synthetic scores of ``bench_report.py`` (4 judges x 2 embedding models x 3
dimensions x 3 strictness x 5 repeats of ResponseRelevancy plus Faithfulness, 2% failed), then
adds the statements and verdicts of every Faithfulness row and 50,000 judge calls with their
prompts and replies (``synthetic_run.py``: the run ``judgegrid view`` is timed on),
then runs the command in a child process, as a user would: wall time includes start-up and
reading the database; peak memory is the largest resident set of its processes. It runs twice,
and the second is the figure: the first compiles judgegrid's bytecode, which on a user's machine
the run before it (or the install) has done.
"""

from __future__ import annotations

import resource
import sys
import tempfile
from pathlib import Path

from common import Row, emit, load_average, peak_rss_mb, timed_judgegrid, verdict
from synthetic_run import add_details_and_calls, write_run_dir

TARGET_S = 5.0  # issue 24, on an idle machine


def has_report_command() -> bool:
    from judgegrid import cli

    return any(
        c.name == "report" or getattr(c.callback, "__name__", "") == "report"
        for c in cli.app.registered_commands
    )


def timed_report(run_dir: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``judgegrid report RUN_DIR`` in a child process (its own
    CPU and that of the process it forks: both are waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, _ = timed_judgegrid(["report", str(run_dir)])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_400  # whole samples: >= 200,000
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
    if not has_report_command():
        print("skipped: `judgegrid report` (issue 5) is not on this branch")
        emit([Row("report", "not run: needs `judgegrid report` (issue 5)", "-")])
        return
    with tempfile.TemporaryDirectory(prefix="judgegrid-bench-report-") as tmp:
        run_dir = Path(tmp)
        written = write_run_dir(run_dir, rows)
        add_details_and_calls(run_dir, calls)
        # the first report compiles judgegrid's bytecode; a user's report follows a run that did
        first_wall, _ = timed_report(run_dir)
        wall, cpu = timed_report(run_dir)
        outputs = sorted(p.name for p in run_dir.iterdir())
    peak = peak_rss_mb(children=True)
    print(
        f"judgegrid report on {written} score rows and {calls} calls: {wall:.2f} s "
        f"({cpu:.2f} s CPU; the first report, compiling bytecode: {first_wall:.2f} s), "
        f"peak RSS {peak:.0f} MiB, load {load_average()}"
    )
    print(f"run directory afterwards: {', '.join(outputs)}")
    emit(
        [
            Row(
                "report",
                f"`judgegrid report` wall time, {written} score rows, {calls} calls",
                round(wall, 2),
                "s",
                f"< {TARGET_S:g}",
                verdict(wall < TARGET_S),
            ),
            Row("report", "the first report (bytecode compiled)", round(first_wall, 2), "s"),
            Row("report", "CPU time of the report (both its processes)", round(cpu, 2), "s"),
            Row("report", "peak memory (RSS) of the report's largest process", round(peak), "MiB"),
            Row("report", "load average (1, 5, 15 min) after the run", load_average()),
        ]
    )


if __name__ == "__main__":
    main()
