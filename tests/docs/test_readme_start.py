"""README's start with one's own models, followed verbatim in an empty directory, works up to
the point that needs a key, and then says which key is missing and where it goes."""

from __future__ import annotations

from pathlib import Path

from doc_blocks import ROOT, Block, blocks
from test_doc_blocks import run_bash


def start_blocks() -> tuple[Block, Block]:
    """The two bash blocks under README's "Your own models in ten lines"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    heading = text.splitlines().index("## Your own models in ten lines") + 1
    after = [b for b in blocks(ROOT / "README.md") if b.line > heading and b.language == "bash"]
    return after[0], after[1]


def test_the_start_runs_up_to_the_key_then_names_it(tmp_path: Path):
    write_and_plan, with_a_key = start_blocks()
    assert "cat > matrix.yaml" in write_and_plan.text and with_a_key.not_run_because
    before_the_key = with_a_key.text.split("\nexport ")[0]  # the lines before the key is set

    planned = run_bash(write_and_plan.text, tmp_path)
    assert planned.returncode == 0, planned.stderr
    assert "gpt-4o-mini" in planned.stdout  # the plan names the judge's calls

    refused = run_bash(before_the_key, tmp_path)
    said = refused.stdout + refused.stderr
    assert refused.returncode == 2, said
    assert "OPENAI_API_KEY is not set" in said and "judges[0]" in said
    assert "Traceback" not in said


def test_the_readme_is_one_screen_and_starts_with_the_two_make_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    first = blocks(ROOT / "README.md")[0]
    assert [line.split()[:2] for line in first.text.splitlines()] == [
        ["make", "demo"],
        ["make", "test"],
    ]
