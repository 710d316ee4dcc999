"""Every file a report writes, as bytes: for the tests that check two ways of writing a report
give the same files."""

from __future__ import annotations

from pathlib import Path


def report_files(run_dir: Path) -> dict[str, bytes]:
    files = [run_dir / "scores.csv", run_dir / "summary.md", run_dir / "report.html"]
    files += sorted((run_dir / "tables").glob("*.csv"))
    return {p.relative_to(run_dir).as_posix(): p.read_bytes() for p in files}
