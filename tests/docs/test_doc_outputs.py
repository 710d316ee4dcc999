"""Every output the docs paste (``docs/outputs/*.txt``, included by the pages) is what the
program prints today: each is made again here, by the function that wrote it
(``docs/hooks/doc_outputs.py``), and compared with its file.

The commands that call no model and the runs on stand-in judges print the same text on every
machine: compared to the character, in `make test`. The demo on the embedded models
(``local_models``) is run once for all its outputs (or taken from ``make docs-outputs``' copy
when that ran on these very sources); its figures vary from run to run, so numbers are masked
(``doc_outputs.masked``) and the names, words and lines must match. A demo is minutes of local
models that `make test` cannot afford: these tests are ``docs_demo``, run by `make docs-check`.
A difference means: run ``make docs-outputs``, and read the pages that include the file again.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from doc_blocks import ROOT

sys.path.insert(0, str(ROOT / "docs" / "hooks"))
import doc_outputs  # docs/hooks is not a package: imported from its folder
import doc_runs

MADE_ALIKE = [o for o in doc_outputs.OUTPUTS.values() if o.needs != "demo"]
OF_THE_DEMO = [o for o in doc_outputs.OUTPUTS.values() if o.needs == "demo"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[doc_outputs.Workspace]:
    """One making of the outputs for the module; the demo, when first needed, from
    make docs-outputs' copy if it ran on these sources, else run here (minutes)."""

    def demo() -> doc_runs.Demo:
        kept = doc_runs.demo_from(doc_runs.DEMO_CACHE)
        return kept or doc_runs.run_demo(tmp_path_factory.mktemp("demo"))

    ws = doc_outputs.Workspace(demo)
    yield ws
    ws.close()


def differences(expected: str, got: str, path: Path) -> str:
    diff = difflib.unified_diff(
        expected.splitlines(),
        got.splitlines(),
        str(path.relative_to(ROOT)),
        "printed now",
        lineterm="",
    )
    return "\n".join(diff) + "\n(make docs-outputs writes it again)"


@pytest.mark.parametrize("output", MADE_ALIKE, ids=[o.name for o in MADE_ALIKE])
def test_the_output_is_what_the_program_prints(
    output: doc_outputs.Output, workspace: doc_outputs.Workspace
):
    expected = output.path.read_text(encoding="utf-8")
    got = doc_outputs.made(output, workspace)
    assert got == expected, differences(expected, got, output.path)


@pytest.mark.local_models
@pytest.mark.docs_demo  # minutes of local models: `make docs-check`, not `make test`
@pytest.mark.parametrize("output", OF_THE_DEMO, ids=[o.name for o in OF_THE_DEMO])
def test_the_demos_output_is_what_the_demo_prints(
    output: doc_outputs.Output, workspace: doc_outputs.Workspace
):
    expected = doc_outputs.masked(output.path.read_text(encoding="utf-8"))
    got = doc_outputs.masked(doc_outputs.made(output, workspace))
    assert got == expected, differences(expected, got, output.path)
