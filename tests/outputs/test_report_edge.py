"""A run whose every cell failed still gets its whole report (nothing to rank, no crash)."""

from __future__ import annotations

from judgegrid import run_grid


def test_report_of_a_run_where_every_cell_failed(write_matrix, tmp_path, scripted_provider):
    scripted_provider.fail = lambda model, step, n: 500
    result = run_grid(write_matrix(metrics=["faithfulness"], repeats=1), run_dir=tmp_path / "r")
    assert set(result.scores["status"]) == {"failed"}
    for name in ("summary.md", "report.html", "scores.csv"):
        assert (result.run_dir / name).stat().st_size > 0
    assert "HTTP 500" in (result.run_dir / "summary.md").read_text()
