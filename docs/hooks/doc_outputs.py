"""The program's outputs the docs paste, each written by running the program: `make docs-outputs`.

Each output is a file ``docs/outputs/NAME.txt`` that a page includes in a fenced block with
pymdownx.snippets (``--8<-- "docs/outputs/NAME.txt"``), so the page shows the file and nothing
typed by hand. ``OUTPUTS`` names each one, what it needs and the function that makes it:

- ``nothing``: a command that calls no model (``validate``, ``plan``, a refusal);
- ``stand-ins``: a run on stand-in judges (``doc_runs.stand_in_matrix``), the same every time;
- ``demo``: the demo on the embedded models, one run for all of them (``doc_runs.Demo``).

``tests/docs/test_doc_outputs.py`` makes each output again and compares it with its file: to
the character, except the demo's, whose numbers (and what their width moves) are masked
(``masked``): the local models' figures vary from run to run, their names and words must not.

    python docs/hooks/doc_outputs.py            # every output (the demo kept while src is the same)
    python docs/hooks/doc_outputs.py NAME ...   # only these
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_runs import (  # docs/hooks is not a package: found by the line above
    COLUMNS,
    DEMO_ARGS,
    DEMO_CACHE,
    KEY_ENV,
    ROOT,
    Demo,
    Said,
    demo_from,
    digest_of_sources,
    display,
    link_checkout,
    run_command,
    run_demo,
    run_dir_of,
    shown,
    stand_in_matrix,
    started,
    temporary_folder,
    write_yaml,
)

OUTPUTS_DIR = ROOT / "docs" / "outputs"
SNIPPET = '--8<-- "docs/outputs/{}.txt"'
Needs = Literal["nothing", "stand-ins", "demo"]


# -- where the outputs are made -------------------------------------------------------------------


@dataclass
class Workspace:
    """One making of the outputs: a temporary folder (its runs in ``reports/``), the commands'
    cache, the stand-in judges' server and the runs, each made once when first needed."""

    demo_source: Callable[[], Demo]
    root: Path = field(default_factory=lambda: temporary_folder("judgegrid-docs-"))
    runs: dict[str, tuple[Said, Path]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        link_checkout(self.root)

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @cached_property
    def server(self) -> Any:
        from judgegrid.testing.fault_server import start_fault_server

        return start_fault_server(stand_in_plan())

    @cached_property
    def demo(self) -> Demo:
        return self.demo_source()

    def run(
        self,
        args: list[str],
        cwd: Path | None = None,
        expect: tuple[int, ...] = (0,),
        columns: int = COLUMNS,
    ) -> Said:
        """`judgegrid ARGS` here (or in ``cwd``) on a terminal ``columns`` wide, the stand-ins'
        key variable set."""
        width = str(columns)
        env = {KEY_ENV: "stand-in", "COLUMNS": width, "TERMINAL_WIDTH": width}
        return run_command(args, cwd or self.root, self.cache, expect, extra_env=env)

    def close(self) -> None:
        if "server" in self.__dict__:
            self.server.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def demo_kept_or_run() -> Demo:
    """The demo in DEMO_CACHE if it ran on these sources, else run now and kept there."""
    return demo_from(DEMO_CACHE) or run_demo(DEMO_CACHE)


# -- text helpers ---------------------------------------------------------------------------------


def transcript(args: list[str], printed: str) -> str:
    """A command as typed and what it printed, as a console block shows them."""
    return f"{shown(args)}\n{printed.strip(chr(10))}"


def card_of(out: str) -> str:
    """The decision card `run` and `report` print last: everything after the `outputs:` line
    (`run`'s, one line) or list (`report`'s, the files indented under it)."""
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("outputs:")]
    if not starts:
        raise RuntimeError(f"no card (no 'outputs:' line) in:\n{out}")
    end = starts[-1] + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return "\n".join(lines[end:]).strip("\n")


def sections(markdown: str, wanted: list[tuple[str, ...]]) -> str:
    """The sections of a Markdown text under one of the ``wanted`` heading paths (each path's
    headings from level 2 down, matched by their start): each heading on the way to one, and
    the whole text under one, in the text's order."""
    kept: list[str] = []
    path: list[str] = []
    keep_body = False
    for line in markdown.splitlines():
        heading = re.match(r"^(#{2,}) ", line)
        if heading:
            depth = len(heading.group(1)) - 1  # "## " is depth 1
            path = [*path[: depth - 1], *[""] * (depth - 1 - len(path)), line]
            keep_body = any(_matches(path, w) for w in wanted)
            if keep_body or any(_matches(list(w[: len(path)]), path) for w in wanted):
                while kept and not kept[-1].strip():
                    kept.pop()
                kept += ["", line] if kept else [line]
            continue
        if keep_body:
            kept.append(line)
    return "\n".join(kept).strip("\n")


def _matches(path: list[str], wanted: tuple[str, ...] | list[str]) -> bool:
    """Whether ``path`` is at or under ``wanted`` (each of its headings starting as wanted's)."""
    if len(path) < len(wanted):
        return False
    return all(p.startswith(w) for p, w in zip(path, wanted, strict=False))


NUMBER = re.compile(r"(?:(?<![\w.])[-+])?\d+(?:[.,:]\d+)*")


def masked(text: str) -> str:
    """What a demo output must keep from run to run: its words, names and lines, with every
    number a ``#``, a cell cut to its column ending in ``…`` only, and a run of spaces or of a
    rule's character as one (their widths follow the numbers')."""
    text = NUMBER.sub("#", text)
    text = re.sub(r"\S*…", "…", text)
    text = re.sub(r"([─\-=|:])\1+", r"\1", text)
    text = re.sub(r"[ \t]+", " ", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


# -- the demo's outputs ---------------------------------------------------------------------------


def demo_run(ws: Workspace) -> str:
    """What `make demo` prints (its progress bar, on stderr, aside)."""
    return transcript(list(DEMO_ARGS), ws.demo.out)


def demo_card(ws: Workspace) -> str:
    """The card at the end of the demo's run, on an 80-column terminal: stacked."""
    return card_of(ws.demo.out)


WIDE = 120  # a terminal wide enough for the card's table (and what a pipe gets)


def demo_card_wide(ws: Workspace) -> str:
    """The demo's card on a terminal 120 columns wide: `report` on a copy of its run."""
    run_dir = copy_run(ws.demo.folder / ws.demo.run_dir, ws.root / "wide")
    return card_of(ws.run(["report", str(run_dir)], cwd=ws.root / "wide", columns=WIDE).out)


def demo_summary(ws: Workspace) -> str:
    """summary.md, abridged: ResponseRelevancy's table, and its and Faithfulness' by language."""
    text = (ws.demo.folder / ws.demo.run_dir / "summary.md").read_text(encoding="utf-8")
    wanted = [("## ResponseRelevancy",), ("## By language", "### ResponseRelevancy")]
    return sections(text, [*wanted, ("## By language", "### Faithfulness")])


DEMO_LABELS = "docs/examples/demo-labels.csv"


def demo_true_score(ws: Workspace) -> str:
    """docs/true-score.md on the demo: its labels imported (a copy of its run directory) and
    summary.md's section on the score by people's standard."""
    folder = ws.root / "labelled-true"
    run_dir = copy_run(ws.demo.folder / ws.demo.run_dir, folder)
    ws.run(["labels", "import", str(run_dir), DEMO_LABELS], cwd=folder)
    ws.run(["report", str(run_dir)], cwd=folder)
    text = (folder / run_dir / "summary.md").read_text(encoding="utf-8")
    section = sections(text, [("## Your system's score by people's standard",)])
    shown = (
        f"$ judgegrid labels import {run_dir} {DEMO_LABELS}\n…\n$ judgegrid report {run_dir}\n…\n"
        f"$ cat {run_dir}/summary.md\n…\n"
    )
    return shown + section


def copy_run(run_dir: Path, folder: Path) -> Path:
    """A copy of a run directory at ``folder/reports/<its name>``; returns that relative path."""
    relative = Path("reports") / run_dir.name
    folder.mkdir(parents=True, exist_ok=True)
    link_checkout(folder)
    shutil.copytree(run_dir, folder / relative)
    return relative


# -- stand-in runs --------------------------------------------------------------------------------

MATRICES = ROOT / "model_matrices"
NO_KEY_JUDGE = "judge-b-no-key"  # the stand-in server refuses its every call (401)


def local_stand_in(url: str) -> dict[str, Any]:
    """The demo's matrix, small, on two stand-in judges, the second refused by the server (its
    cells fail: a run that ends with failed cells)."""
    matrix = stand_in_matrix(
        MATRICES / "local.yaml",
        url,
        limit=4,
        metrics=["faithfulness", "response_relevancy"],
        strictness=[1],
        repeats=1,
        juries=False,
    )
    matrix.pop("probes", None)
    matrix["judges"][1]["id"] = f"openai/{NO_KEY_JUDGE}"
    return matrix


def stand_in_plan() -> Any:
    """The stand-ins' server: every answer valid, but none for the judge without a key."""
    from judgegrid.testing.fault_server import FaultPlan

    return FaultPlan(by_model={NO_KEY_JUDGE: "401"})


def criteria_stand_in(url: str) -> dict[str, Any]:
    return stand_in_matrix(MATRICES / "criteria.yaml", url)


def pairwise_stand_in(url: str) -> dict[str, Any]:
    return stand_in_matrix(MATRICES / "pairwise.yaml", url)


STAND_INS: dict[str, Callable[[str], dict[str, Any]]] = {
    "local": local_stand_in,
    "criteria": criteria_stand_in,
    "pairwise": pairwise_stand_in,
}


def stand_in_run(ws: Workspace, name: str) -> tuple[Said, Path]:
    """The stand-in run of ``STAND_INS[name]`` in the workspace (made once): what `run`
    printed and its run directory (relative: reports/<stamp>-<name>)."""
    if name not in ws.runs:
        matrix = write_yaml(ws.root / f"{name}.yaml", STAND_INS[name](ws.server.url))
        said = ws.run(["run", matrix.name, "--no-progress"], expect=(0, 3))
        ws.runs[name] = (said, run_dir_of(said.out))
    return ws.runs[name]


def criteria_card(ws: Workspace) -> str:
    said, _ = stand_in_run(ws, "criteria")
    return card_of(said.out)


def pairwise_position(ws: Workspace) -> str:
    """summary.md's position-bias table of the pairwise demo on stand-ins."""
    _, run_dir = stand_in_run(ws, "pairwise")
    text = (ws.root / run_dir / "summary.md").read_text(encoding="utf-8")
    return sections(text, [("## Pairwise criteria", "### Position bias")])


def retry_line(ws: Workspace) -> str:
    """The end of a run with failed cells: the command that scores them again."""
    said, _ = stand_in_run(ws, "local")
    assert said.code == 3, said.out
    return "\n".join(said.out.rstrip("\n").splitlines()[-2:])


URL = re.compile(r"http://127\.0\.0\.1:\d+(?P<path>/\S*)\?token=\S+")


def served(ws: Workspace, args: list[str]) -> str:
    """What `view` or `label` prints once it serves (its port and token as examples)."""
    with started(args, ws.root, ws.cache, until="Ctrl-C stops it") as (_, printed):
        return transcript(args, URL.sub(r"http://127.0.0.1:38465\g<path>?token=…", printed))


def label_serves(ws: Workspace) -> str:
    _, run_dir = stand_in_run(ws, "local")
    return served(
        ws, ["label", str(run_dir), "--metric", "faithfulness", "--n", "15", "--annotator", "ann"]
    )


def view_serves(ws: Workspace) -> str:
    _, run_dir = stand_in_run(ws, "local")
    return served(ws, ["view", str(run_dir)])


def port_in_use(ws: Workspace) -> str:
    """`view --port P` where P is taken: the refusal (P shown as 8765)."""
    _, run_dir = stand_in_run(ws, "local")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        said = ws.run(["view", str(run_dir), "--port", str(port)], expect=(2,))
    return said.err.strip("\n").replace(f"port {port} ", "port 8765 ")


HOLDER = re.compile(r"PID \d+ \((?P<command>[^)]*)\), since \S+?;")


def run_locked(ws: Workspace) -> str:
    """`report` refused while a `run --resume` of the same run (a copy) works on it; the
    holder's PID and start shown as examples."""
    from judgegrid.testing.fault_server import FaultPlan

    _, run_dir = stand_in_run(ws, "local")
    folder = ws.root / "locked"
    copy = copy_run(ws.root / run_dir, folder)
    ws.server.set_plan(FaultPlan(by_model={NO_KEY_JUDGE: "hang"}))  # the resume waits on it
    try:
        resume = ["run", "--resume", str(copy), "--retry-failed", "--no-progress"]
        env = {KEY_ENV: "stand-in"}
        with started(resume, folder, ws.cache, until=None, extra_env=env) as (process, _):
            wait_for_lock(folder / copy, process)
            said = run_command(["report", str(copy)], folder, ws.cache, expect=(2,))
    finally:
        ws.server.set_plan(stand_in_plan())
    return HOLDER.sub(r"PID 4242 (\g<command>), since 2026-11-25T10:15:00+00:00;", said.err).strip()


def wait_for_lock(run_dir: Path, writer: subprocess.Popen[str]) -> None:
    """Until ``writer`` holds the run's lock (once it has checked its inputs); an error if it
    ends first."""
    from judgegrid.store.lock import holder_of

    while holder_of(run_dir) is None:
        if writer.poll() is not None:
            printed = writer.stdout.read() if writer.stdout else ""
            raise RuntimeError(f"{writer.args!r} ended before it took the lock:\n{printed}")
        time.sleep(0.1)


# -- commands that call no model ------------------------------------------------------------------


def validate_goldens(ws: Workspace) -> str:
    args = ["validate", "--dataset", "docs/examples/goldens.csv"]
    return transcript(args, ws.run(args, cwd=ROOT).both)


def promptfoo_init(ws: Workspace) -> str:
    """What `init --from` says of a promptfoo config (criteria.md's example) on stderr."""
    shutil.copy(ROOT / "docs" / "examples" / "promptfooconfig.yaml", ws.root)
    args = ["init", "rubrics.yaml", "--from", "promptfooconfig.yaml"]
    return ws.run(args).err.strip("\n")


def plan_openrouter(ws: Workspace) -> str:
    args = ["plan", "model_matrices/openrouter.yaml", "--limit", "5"]
    return transcript(args, ws.run(args, cwd=ROOT).both)


BAD_MATRIX = """\
judges:
  - id: local/gemma-3-270m
    options: {temprature: 0.2}
  - id: openai/gpt-4o-mini
metrics: [faithfulness, contxt_recall]
"""
START_MATRIX = """\
judges:
  - {id: openai/gpt-4o-mini, options: {api-key-env: OPENAI_API_KEY}}
embeddings:
  - {id: openai/text-embedding-3-small, options: {api-key-env: OPENAI_API_KEY}}
metrics: [faithfulness, response_relevancy, context_recall]
dataset: demo
"""
CHECKS_MATRIX = """\
judges: [{id: local/gemma-3-270m}]
metrics: [faithfulness]
"""
GOOD_LINE = (
    '{"id": "q%d", "user_input": "Where is the Eiffel Tower?", "response": "In Paris.", '
    '"retrieved_contexts": ["The Eiffel Tower is in Paris."]}\n'
)


def refused(ws: Workspace, files: dict[str, str], args: list[str]) -> str:
    """What a command refused (exit 2) says, with ``files`` written where it runs first."""
    for name, text in files.items():
        (ws.root / name).write_text(text, encoding="utf-8")
    return ws.run(args, expect=(2,)).err.strip("\n")


def matrix_refused(ws: Workspace) -> str:
    return refused(ws, {"bad.yaml": BAD_MATRIX}, ["validate", "bad.yaml"])


def key_missing(ws: Workspace) -> str:
    return refused(ws, {"matrix.yaml": START_MATRIX}, ["validate", "matrix.yaml"])


def data_refused(ws: Workspace) -> str:
    """An empty record, a sample no metric can score, a label file with no label."""
    check = ["validate", "checks.yaml", "--dataset", "data.jsonl"]
    empty = GOOD_LINE % 1 + GOOD_LINE % 2 + "{}\n"
    lacking = '{"id": "q7", "reference": "In Paris."}\n'
    _, run_dir = stand_in_run(ws, "local")
    return "\n".join(
        [
            refused(ws, {"checks.yaml": CHECKS_MATRIX, "data.jsonl": empty}, check),
            refused(ws, {"data.jsonl": lacking}, check),
            refused(
                ws,
                {"labels.csv": "sample_id,metric,annotator,value\n"},
                ["labels", "import", str(run_dir), "labels.csv"],
            ),
        ]
    )


JUDGEBENCH = ROOT.parent / "shared" / "validation" / "judgebench"


def judgebench_run(ws: Workspace) -> tuple[str, Path]:
    """JudgeBench's three judges' files imported and reported, once (docs/import.md): run
    where ``../shared`` is beside the folder, as it is beside the checkout, so the paths read
    as the docs type them; the transcript and the run directory."""
    folder = ws.root / "judgebench" / "judgegrid"
    if "judgebench" not in ws.runs:
        folder.mkdir(parents=True, exist_ok=True)
        shared = ROOT.parent / "shared"
        (folder.parent / "shared").symlink_to(shared, target_is_directory=True)
        files = [f"../shared/validation/judgebench/{p.name}" for p in sorted(
            JUDGEBENCH.glob("*judge_model*.jsonl")
        )]  # fmt: skip
        said = ws.run(["import", *files, "--format", "judgebench", "--out", "jb"], cwd=folder)
        ws.runs["judgebench"] = (said, folder / "jb")
    said, run_dir = ws.runs["judgebench"]
    typed = ["import", "../shared/validation/judgebench/*judge_model*.jsonl"]
    # the glob as typed, unquoted: the shell expands it
    command = shown([*typed, "--format", "judgebench", "--out", "jb"]).replace("'", "")
    return f"{command}\n{said.both.strip(chr(10))}", run_dir


def judgebench_import(ws: Workspace) -> str:
    """The import as typed and what it said, then the report's card."""
    imported, run_dir = judgebench_run(ws)
    report = ["report", "jb"]
    card = card_of(ws.run(report, cwd=run_dir.parent).out)
    return imported + "\n" + transcript(report, "…\n" + card)


def judgebench_groups(ws: Workspace) -> str:
    """summary.md's accuracy by rule and by category of the JudgeBench import."""
    _, run_dir = judgebench_run(ws)
    if not (run_dir / "summary.md").exists():
        ws.run(["report", "jb"], cwd=run_dir.parent)
    text = (run_dir / "summary.md").read_text(encoding="utf-8")
    return sections(
        text,
        [
            ("## Pairwise criteria", "### Accuracy by each rule"),
            ("## Pairwise criteria", "### Accuracy by group"),
        ],
    )


TRUE_SCORE_VERDICTS = "docs/examples/true-score-verdicts.csv"


def true_score(ws: Workspace) -> str:
    """docs/true-score.md's worked example: two judges' verdicts and 40 people's labels
    imported (no model called), reported, and summary.md's section on the true score."""
    args = ["import", TRUE_SCORE_VERDICTS, "--out", "reports/faithful"]
    imported = ws.run(args)
    ws.run(["report", "reports/faithful"])
    text = (ws.root / "reports" / "faithful" / "summary.md").read_text(encoding="utf-8")
    section = sections(text, [("## Your system's score by people's standard",)])
    shown_after = "\n$ judgegrid report reports/faithful\n…\n$ cat reports/faithful/summary.md\n…\n"
    return transcript(args, imported.both) + shown_after + section


# -- the outputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Output:
    """One pasted output: its file's name, what it needs, the function that makes it."""

    name: str
    needs: Needs
    make: Callable[[Workspace], str]

    @property
    def path(self) -> Path:
        return OUTPUTS_DIR / f"{self.name}.txt"


OUTPUTS = {
    o.name: o
    for o in (
        Output("demo-run", "demo", demo_run),
        Output("demo-card", "demo", demo_card),
        Output("demo-card-120", "demo", demo_card_wide),
        Output("demo-summary", "demo", demo_summary),
        Output("demo-true-score", "demo", demo_true_score),
        Output("criteria-card", "stand-ins", criteria_card),
        Output("pairwise-position", "stand-ins", pairwise_position),
        Output("run-retry", "stand-ins", retry_line),
        Output("run-locked", "stand-ins", run_locked),
        Output("label-serves", "stand-ins", label_serves),
        Output("view-serves", "stand-ins", view_serves),
        Output("view-port-in-use", "stand-ins", port_in_use),
        Output("data-refused", "stand-ins", data_refused),
        Output("matrix-refused", "nothing", matrix_refused),
        Output("key-missing", "nothing", key_missing),
        Output("validate-goldens", "nothing", validate_goldens),
        Output("plan-openrouter", "nothing", plan_openrouter),
        Output("promptfoo-init", "nothing", promptfoo_init),
        Output("judgebench-import", "nothing", judgebench_import),
        Output("judgebench-groups", "nothing", judgebench_groups),
        Output("true-score", "nothing", true_score),
    )
}


def made(output: Output, ws: Workspace) -> str:
    """The output's text as its file holds it."""
    return display(output.make(ws)).rstrip("\n") + "\n"


def write(names: list[str], ws: Workspace) -> None:
    OUTPUTS_DIR.mkdir(exist_ok=True)
    for name in names:
        output = OUTPUTS[name]
        output.path.write_text(made(output, ws), encoding="utf-8")
        print(f"wrote {output.path.relative_to(ROOT)}")


MADE_FROM = DEMO_CACHE.parent / ".docs-outputs.sha256"  # the sources every output was made from


def digest_of_inputs() -> str:
    """What the outputs depend on: the demo's sources, the other matrices, the examples the
    commands read and this code."""
    folders = [ROOT / "model_matrices", ROOT / "docs" / "examples", ROOT / "docs" / "hooks"]
    files = sorted(p for f in folders for p in f.rglob("*") if p.is_file() and p.suffix != ".pyc")
    return digest_of_sources(files)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"only these of {', '.join(OUTPUTS)}")
    parser.add_argument("--force", action="store_true", help="even if made from these sources")
    given = parser.parse_args(argv)
    unknown = sorted(set(given.names) - set(OUTPUTS))
    if unknown:
        parser.error(f"no output {', '.join(unknown)}; known: {', '.join(OUTPUTS)}")
    key = digest_of_inputs()
    if not (given.names or given.force) and _made_from() == key:
        print("docs/outputs/ was made from these sources (--force makes it again)")
        return
    ws = Workspace(demo_kept_or_run)
    try:
        write(given.names or list(OUTPUTS), ws)
    finally:
        ws.close()
    if not given.names:
        MADE_FROM.parent.mkdir(parents=True, exist_ok=True)
        MADE_FROM.write_text(key + "\n", encoding="utf-8")


def _made_from() -> str:
    return MADE_FROM.read_text(encoding="utf-8").strip() if MADE_FROM.is_file() else ""


if __name__ == "__main__":
    main()
