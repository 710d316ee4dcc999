"""Issue 39's fuzz targets: the inputs a person reaches for and the campaign of issue 31 never
drew. Each target's ``check`` takes one example and returns the ``Failure``s it found, as the
targets of ``fuzz_targets`` do, and runs the console script's ``main`` in this process.

- cli-yaml: a matrix, a Spring ``application.yaml`` and a promptfoo config written as YAML
  text with one of YAML's own features (``strategies.yaml_documents``): a hostile feature
  (a key given twice, a boolean or ``.nan`` where a number is due, a foreign tag, an alias
  bomb, 5,000 levels of nesting) is refused by every command that reads the file, in under a
  second of CPU for a bomb; a benign one (an anchor and its alias, a merge key, a tag of the
  node's own type) changes nothing; a boolean where a name is due is refused with a hint to
  quote it.
- cli-paths: every command that writes a named file or folder, pointed at an existing file, at
  one of its own inputs, at a file inside a run directory, into a missing folder, at a folder:
  without ``--overwrite`` no existing file's bytes change; with it, never an input's or a run's
  file; a refusal (exit 2) changes and creates nothing, ``-wal``/``-shm`` included.
- cli-env: each environment variable the tool reads set to a file, a missing folder, a folder
  no one can write, garbage or nothing: exit 0 or 2 (3: failed cells), never 1, never a
  traceback, and the crash logger never crashes itself.
- cli-secrets: a key-shaped string in every field that is written down (a header, a label's
  note, an annotator, a Spring default, an ``api_base``'s userinfo): never seen in any output
  or in any file a command wrote or changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from judgegrid.inputs.matrix import Matrix
from judgegrid.testing.strategies import (
    KEY_PREFIX,
    YAML_FEATURES,
    YamlFeature,
    emit_yaml,
    key_shaped,
    model_values,
    yaml_documents,
)
from support.fuzz_targets import (
    EXAMPLE_SECONDS,
    JUDGES,
    PAIR,
    SAMPLE,
    Failure,
    Outcome,
    crash_site,
    listing,
    matrix_pins,
    option_applies,
    run_cli,
    sandbox,
)

OVERWRITE = "--overwrite"  # issue 39's flag; a build without it: the flag is not applicable


# -- what is on disk, before and after -----------------------------------------------------------


def snapshot(root: Path) -> dict[Path, str]:
    """Every file under ``root`` and a digest of its bytes (a folder as ``<dir>``)."""
    found = {}
    for path in listing(root):
        if path.is_symlink() or not path.exists():
            continue
        found[path] = "<dir>" if path.is_dir() else hashlib.sha1(path.read_bytes()).hexdigest()
    return found


@dataclass
class DiskChanges:
    """What a command did to the files that were there and what it made."""

    changed: list[Path] = field(default_factory=list)
    created: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.created or self.removed)

    def named(self, root: Path) -> str:
        parts = [
            f"{what} {', '.join(str(p.relative_to(root)) for p in paths[:3])}"
            for what, paths in (
                ("changed", self.changed),
                ("created", self.created),
                ("removed", self.removed),
            )
            if paths
        ]
        return "; ".join(parts)


def disk_changes(before: dict[Path, str], after: dict[Path, str]) -> DiskChanges:
    return DiskChanges(
        changed=sorted(p for p in before if p in after and after[p] != before[p]),
        created=sorted(p for p in after if p not in before),
        removed=sorted(p for p in before if p not in after),
    )


def outcome_failures(
    command: str, outcome: Outcome, reproducer: str, allowed: set[int]
) -> list[Failure]:
    """A crash (its site), a traceback or "unexpected error" printed, or an exit code outside
    ``allowed``."""
    if outcome.crash:
        kind = outcome.crash.strip().splitlines()[-1].split(":")[0].rsplit(".", 1)[-1]
        if outcome.code == -1 and "in _crash_log" in outcome.crash:  # escaped main itself
            kind = f"the crash logger failed ({kind})"
        return [Failure(kind, crash_site(outcome.crash), last_line(outcome), reproducer)]
    if "Traceback" in outcome.text or "unexpected error" in outcome.text:
        return [Failure("traceback printed", command, last_line(outcome), reproducer)]
    if outcome.code not in allowed:
        return [Failure(f"exit {outcome.code}", command, last_line(outcome), reproducer)]
    return []


def last_line(outcome: Outcome) -> str:
    lines = [ln for ln in outcome.text.splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[:300]


@contextlib.contextmanager
def environment(changes: dict[str, str | None]) -> Iterator[None]:
    """``os.environ`` with ``changes`` (None: unset) for the block, restored after."""
    old = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def write_json_lines(path: Path, records: list[dict[str, Any]]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


# -- cli-yaml --------------------------------------------------------------------------------------

SPRING_KEY_ENV = "FUZZ_SPRING_KEY"


def spring_trees() -> st.SearchStrategy[dict[str, Any]]:
    """A Spring AI ``application.yaml`` on an OpenAI-compatible server at 127.0.0.1, its key
    a ``${VAR}`` placeholder: its judges, their options and retry drawn."""
    temperature = st.sampled_from([0.0, 0.2, 0.7])
    models = st.lists(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["judge-a", "judge-b", "judge-c"])},
            optional={"options": st.fixed_dictionaries({"temperature": temperature})},
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda m: m["id"],
    )
    return st.fixed_dictionaries(
        {
            "spring": st.fixed_dictionaries(
                {
                    "ai": st.fixed_dictionaries(
                        {
                            "retry": st.fixed_dictionaries(
                                {"on-http-codes": st.just([429]), "max-attempts": st.integers(1, 3)}
                            ),
                            "openai": st.just(
                                {
                                    "base-url": "http://127.0.0.1:9",
                                    "api-key": f"${{{SPRING_KEY_ENV}}}",
                                }
                            ),
                            "chat-models": st.fixed_dictionaries(
                                {
                                    "default-options": st.fixed_dictionaries(
                                        {
                                            "temperature": temperature,
                                            "max-tokens": st.integers(100, 400),
                                        }
                                    ),
                                    "list": models,
                                }
                            ),
                        }
                    )
                }
            ),
            "judgegrid": st.just({"metrics": ["faithfulness"]}),
        }
    )


def promptfoo_trees() -> st.SearchStrategy[dict[str, Any]]:
    """A promptfoo config whose tests carry model-graded assertions (drawn rubrics, metric
    names and thresholds) and vars (a question, and an answer that makes them a data set)."""
    rubric = st.fixed_dictionaries(
        {
            "type": st.sampled_from(["llm-rubric", "g-eval", "model-graded-closedqa"]),
            "value": st.sampled_from(["Is polite", "Cites a source"]),
        },
        optional={
            "metric": st.sampled_from(["polite", "grounded"]),
            "threshold": st.sampled_from([0.5, 0.8]),
        },
    )
    tests = st.lists(
        st.fixed_dictionaries(
            {
                "vars": st.fixed_dictionaries(
                    {"question": st.sampled_from(["Why?", "Who?"])},
                    optional={"answer": st.sampled_from(["Because.", "Ann."])},
                ),
                "assert": st.lists(rubric, min_size=1, max_size=2),
            }
        ),
        min_size=1,
        max_size=2,
    )
    return st.fixed_dictionaries(
        {
            "prompts": st.just(["Answer briefly: {{question}}"]),
            "providers": st.just(["openai:gpt-4o-mini"]),
            "tests": tests,
        }
    )


YAML_FILES = {
    "matrix": "matrix.yaml",
    "spring": "application.yaml",
    "promptfoo": "promptfooconfig.yaml",
}
# the commands that read each file; the first also reads the plain rendering (the baseline)
YAML_COMMANDS = {
    "matrix": ("validate", "run"),
    "spring": ("validate", "init"),
    "promptfoo": ("init",),
}
BOMB_CPU_SECONDS = 1.0  # issue 39: an alias bomb is refused in under a second...
BOMB_GROWTH_MB = 50  # ...with memory growth under 50 MB
PROMPTFOO_UNREAD = {"providers", "prompts"}
NAME_HINT = "quot"  # a boolean refused where a name is due: the message says to quote it


@dataclass
class YamlExample:
    """A document of one ``kind`` (matrix, spring, promptfoo): its valid tree, and its text
    with one YAML feature placed."""

    kind: str
    tree: Any
    text: str
    feature: YamlFeature

    def __str__(self) -> str:
        return f"[{self.feature}] {YAML_FILES[self.kind]}: {self.text[:1200]!r}"


@st.composite
def yaml_examples(
    draw: st.DrawFn,
    kinds: tuple[str, ...] = tuple(YAML_FILES),
    features: tuple[str, ...] = YAML_FEATURES,
) -> YamlExample:
    kind = draw(st.sampled_from(kinds))
    valid = {
        "matrix": model_values(Matrix, matrix_pins()),
        "spring": spring_trees(),
        "promptfoo": promptfoo_trees(),
    }[kind]
    tree, text, feature = draw(yaml_documents(valid, features))
    return YamlExample(kind, tree, text, feature)


def yaml_argv(command: str, document: str, root: Path, out: str) -> list[str]:
    data = write_json_lines(root / "inputs" / "d.jsonl", [SAMPLE])
    if command == "validate":
        return ["validate", document, "--dataset", data]
    if command == "run":
        return ["run", document, "--dataset", data, "--limit", "1", "--no-progress"]
    return ["init", str(root / out), "--from", document]


def check_yaml(example: YamlExample) -> list[Failure]:
    """The plain rendering's verdict first (the first command), then every command on the text
    with the feature: see the module's docstring."""
    name, commands = YAML_FILES[example.kind], YAML_COMMANDS[example.kind]
    with sandbox() as root, environment({SPRING_KEY_ENV: "fuzz-placeholder"}):
        plain = root / "plain" / name
        plain.parent.mkdir()
        plain.write_text(emit_yaml(example.tree), encoding="utf-8")
        baseline = run_cli(yaml_argv(commands[0], str(plain), root, "plain-out.yaml"))
        featured = root / "inputs" / name
        featured.parent.mkdir(exist_ok=True)
        featured.write_text(example.text, encoding="utf-8")
        failures = []
        for command in commands:
            failures += _yaml_command(example, command, str(featured), root, baseline.code)
    return failures


def _yaml_command(
    example: YamlExample, command: str, document: str, root: Path, plain_code: int
) -> list[Failure]:
    before = snapshot(root)
    cpu, peak = time.process_time(), _peak_mb()
    outcome = run_cli(yaml_argv(command, document, root, "out.yaml"))
    cpu, growth = time.process_time() - cpu, _peak_mb() - peak
    where = f"{example.kind}: {command}"
    failures = outcome_failures(
        command, outcome, str(example), {0, 2, 3} if command == "run" else {0, 2}
    )
    made = disk_changes(before, snapshot(root))
    made.created = [
        p for p in made.created if "cache" not in p.relative_to(root).parts[:1] or outcome.code == 2
    ]
    if outcome.code == 2 and made:
        failures.append(Failure("left files on exit 2", where, made.named(root), str(example)))
    feature = example.feature
    if feature.kind == "alias bomb" and (cpu > BOMB_CPU_SECONDS or growth > BOMB_GROWTH_MB):
        detail = f"{cpu:.1f} s of CPU, peak memory +{growth:.0f} MB; exit {outcome.code}"
        failures.append(Failure("alias bomb not refused at once", where, detail, str(example)))
    if plain_code != 0:  # the document was refused without the feature: nothing to compare
        return failures
    accepted = outcome.code in (0, 3)
    # promptfoo's providers and prompts are not read by judgegrid (its assertions and its
    # tests' vars are): a boolean there is promptfoo's to refuse, not a name judgegrid takes
    name_due = feature.kind == "boolean where a name is due" and not (
        set(map(str, feature.path)) & PROMPTFOO_UNREAD
    )
    if (feature.hostile or name_due) and accepted:
        failures.append(
            Failure(f"accepted: {feature.kind}", where, f"exit {outcome.code}", str(example))
        )
    if name_due and outcome.code == 2 and NAME_HINT not in outcome.text.lower():
        failures.append(
            Failure(
                "a YAML boolean refused without a hint to quote",
                where,
                last_line(outcome),
                str(example),
            )
        )
    if feature.benign and command == YAML_COMMANDS[example.kind][0] and outcome.code != plain_code:
        failures.append(
            Failure(f"refused: {feature.kind}", where, last_line(outcome), str(example))
        )
    return failures


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- a sandbox with a finished run -----------------------------------------------------------------


@dataclass
class RunPlace:
    """A sandbox's inputs (a matrix, a data set, a pairs file, a Spring file, a label file),
    a copy of a finished run reading that data set, and unrelated files of the user's."""

    root: Path
    matrix: str
    data: str
    pairs: str
    spring: str
    labels: str
    run_dir: Path

    @property
    def inputs(self) -> Path:
        return self.root / "inputs"


USER_FILES = ("notes.csv", "notes.jsonl", "notes.parquet", "notes.yaml")  # bytes of the user's


def make_run_place(root: Path, finished_run: Path) -> RunPlace:
    inputs = root / "inputs"
    inputs.mkdir(exist_ok=True)
    matrix = {
        "name": "fuzz",
        "judges": JUDGES,
        "metrics": ["faithfulness"],
        "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
    }
    (inputs / "m.yaml").write_text(yaml.safe_dump(matrix), encoding="utf-8")
    data = write_json_lines(inputs / "d.jsonl", [SAMPLE])
    pairs = write_json_lines(inputs / "p.jsonl", [PAIR])
    spring = inputs / "application.yaml"
    spring.write_text(emit_yaml(SPRING_FILE), encoding="utf-8")
    labels = inputs / "labels.csv"
    labels.write_text("sample_id,metric,annotator,value,note\ns1,faithfulness,ann,1,fine\n")
    run_dir = root / "runs" / "r1"
    shutil.copytree(finished_run, run_dir)
    resolved = run_dir / "matrix.resolved.yaml"
    text = resolved.read_text(encoding="utf-8")
    resolved.write_text(_point_dataset_at(text, data), encoding="utf-8")
    for name in USER_FILES:
        (root / name).write_bytes(f"the user's own {name}\n".encode())
    for ext in ("csv", "jsonl", "parquet", "yaml"):
        (root / f"folder.{ext}").mkdir()
        (root / f"folder.{ext}" / "keep.txt").write_text("the user's\n")
    return RunPlace(root, str(inputs / "m.yaml"), data, pairs, str(spring), str(labels), run_dir)


def _point_dataset_at(resolved: str, data: str) -> str:
    """The run's resolved matrix reading the sandbox's own data set (a write over it then
    harms the sandbox only)."""
    lines = [
        f"dataset: {data}" if ln.startswith("dataset:") else ln for ln in resolved.splitlines()
    ]
    return "\n".join(lines) + "\n"


SPRING_FILE = {
    "spring": {
        "ai": {
            "openai": {"base-url": "http://127.0.0.1:9", "api-key": f"${{{SPRING_KEY_ENV}}}"},
            "chat-models": {"list": [{"id": "judge-a"}]},
        }
    },
    "judgegrid": {"metrics": ["faithfulness"]},
}


# -- cli-paths -------------------------------------------------------------------------------------

# where a command is told to write: a fresh path, or one that collides
PATH_PLACES = (
    "fresh",
    "unrelated file",
    "own input",
    "run's file",
    "missing folder",
    "a folder",
    "under a file",
)
FILE_COMMANDS = {
    "export": ("csv", "jsonl", "parquet"),
    "labels export": ("csv", "jsonl", "parquet"),
    "init": ("yaml",),
}
FOLDER_COMMANDS = ("run", "pairs")  # --reports-dir: a folder to make a run directory in
RUN_FILES = {
    "csv": "scores.csv",
    "jsonl": "scores.csv",
    "parquet": "scores.csv",
    "yaml": "matrix.resolved.yaml",
}
BAD_MARGINS = ("2", "-1", "x", "nan")
REPORT_SPOILS = (
    "none",
    "bad margin",
    "resolved matrix broken",
    "a file for the run",
    "missing run",
)
# what a command may change without --overwrite: its own products (report rebuilds a run's)
REPORT_PRODUCTS = ("summary.md", "report.html", "tables", "figures", "run.sqlite")


@dataclass
class PathExample:
    """One command writing to one place; ``ext``: the file's extension; ``overwrite``: the
    flag given; ``spoil``: what ``report`` is given."""

    command: str
    place: str
    ext: str = ""
    overwrite: bool = False
    spoil: str = "none"

    def __str__(self) -> str:
        flag = f" {OVERWRITE}" if self.overwrite else ""
        if self.command == "report":
            return f"judgegrid report <{self.spoil}>{flag}"
        return (
            f"judgegrid {self.command} → <{self.place}{'.' + self.ext if self.ext else ''}>{flag}"
        )

    @property
    def where(self) -> str:
        if self.command == "report":
            return f"report, {self.spoil}"
        return f"{self.command}, {self.place}"


@st.composite
def path_examples(draw: st.DrawFn) -> PathExample:
    command = draw(st.sampled_from([*FILE_COMMANDS, *FOLDER_COMMANDS, "report"]))
    overwrite = draw(st.booleans())
    if command == "report":
        return PathExample(
            command, "", overwrite=overwrite, spoil=draw(st.sampled_from(REPORT_SPOILS))
        )
    if command in FOLDER_COMMANDS:
        place = draw(
            st.sampled_from(
                ["fresh", "unrelated file", "own input", "run's file", "missing folder"]
            )
        )
        return PathExample(command, place, overwrite=overwrite)
    place = draw(st.sampled_from(PATH_PLACES))
    ext = "" if place == "own input" else draw(st.sampled_from(FILE_COMMANDS[command]))
    return PathExample(command, place, ext, overwrite)


def output_path(example: PathExample, place: RunPlace) -> Path:
    """The path the example names (a file for FILE_COMMANDS, a folder for FOLDER_COMMANDS)."""
    root, ext = place.root, example.ext or "csv"
    if example.command in FOLDER_COMMANDS:
        return {
            "fresh": root / "reports-new",
            "unrelated file": root / "notes.csv",
            "own input": place.inputs,
            "run's file": place.run_dir,
            "missing folder": root / "new" / "deeper",
        }[example.place]
    # its own input: the run's data set (export and labels export read the run it was made
    # from), the file init reads; a label file imported once is no input of labels export
    own = {"export": place.data, "labels export": place.data, "init": place.spring}
    return {
        "fresh": root / f"out.{ext}",
        "unrelated file": root / f"notes.{ext}",
        "own input": Path(own[example.command]),
        "run's file": place.run_dir / RUN_FILES[ext],
        "missing folder": root / "new" / "deeper" / f"out.{ext}",
        "a folder": root / f"folder.{ext}",
        "under a file": root / f"notes.{ext}" / f"out.{ext}",
    }[example.place]


def path_argv(example: PathExample, place: RunPlace) -> list[str]:
    run = str(place.run_dir)
    if example.command == "report":
        return _report_argv(example.spoil, place)
    out = str(output_path(example, place))
    argv = {
        "export": ["export", run, "--out", out],
        "labels export": ["labels", "export", run, "-o", out],
        "init": ["init", out, *(["--from", place.spring] if example.place == "own input" else [])],
        "run": [
            "run",
            place.matrix,
            "--dataset",
            place.data,
            "--limit",
            "1",
            "--no-progress",
            "--reports-dir",
            out,
        ],
        "pairs": [
            "pairs",
            place.matrix,
            "--pairs",
            place.pairs,
            "--limit",
            "1",
            "--no-progress",
            "--reports-dir",
            out,
        ],
    }[example.command]
    return argv


def _report_argv(spoil: str, place: RunPlace) -> list[str]:
    run = place.run_dir
    if spoil == "bad margin":
        return ["report", str(run), "--margin", BAD_MARGINS[hash(str(run)) % len(BAD_MARGINS)]]
    if spoil == "resolved matrix broken":
        (run / "matrix.resolved.yaml").write_text("judges: [a, b\n", encoding="utf-8")
    if spoil == "a file for the run":
        return ["report", str(run / "scores.csv")]
    if spoil == "missing run":
        return ["report", str(place.root / "runs" / "nope")]
    return ["report", str(run)]


def check_paths(example: PathExample, finished_run: Path) -> list[Failure]:
    """No crash; a refusal changes and makes nothing; no existing file's bytes change without
    ``--overwrite``; an input or a run's file never, whatever the flags."""
    with sandbox() as root:
        place = make_run_place(root, finished_run)
        argv = path_argv(example, place)
        overwrite = example.overwrite and option_applies(_command_path(example.command), OVERWRITE)
        if overwrite:
            argv.append(OVERWRITE)
        before = snapshot(root)
        outcome = run_cli(argv)
        changes = disk_changes(before, snapshot(root))
        reproducer = f"{example}{'' if overwrite or not example.overwrite else ' (no such option)'}"
        failures = outcome_failures(example.command, outcome, reproducer, {0, 2})
        failures += _path_failures(example, place, outcome.code, changes, overwrite, reproducer)
    return failures


def _command_path(command: str) -> str:
    return command.split()[-1] if command.startswith("labels") else command


def _path_failures(
    example: PathExample,
    place: RunPlace,
    code: int,
    changes: DiskChanges,
    overwrite: bool,
    reproducer: str,
) -> list[Failure]:
    root = place.root
    cache = [p for p in changes.created if p.relative_to(root).parts[0] == "cache"]
    changes.created = [p for p in changes.created if p not in cache]
    if code == 2 and changes:
        return [
            Failure(
                "refused but changed or made files", example.where, changes.named(root), reproducer
            )
        ]
    wal = [p for p in changes.created if p.name.endswith(("-wal", "-shm"))]
    if wal:
        return [Failure("left -wal/-shm", example.where, changes.named(root), reproducer)]
    products = _own_products(example, place)
    changed = [p for p in [*changes.changed, *changes.removed] if p not in products]
    protected = [p for p in changed if _protected(p, place)]
    if protected:
        detail = ", ".join(str(p.relative_to(root)) for p in protected[:3])
        return [Failure("wrote over an input or a run's file", example.where, detail, reproducer)]
    if changed and not overwrite:
        detail = ", ".join(str(p.relative_to(root)) for p in changed[:3])
        return [Failure("overwrote a file without --overwrite", example.where, detail, reproducer)]
    return []


def _own_products(example: PathExample, place: RunPlace) -> set[Path]:
    """The files a command rebuilds as its job: report's, in the run it reports."""
    if example.command != "report":
        return set()
    return {
        p
        for p in listing(place.run_dir)
        if p.relative_to(place.run_dir).parts[:1] in [(n,) for n in REPORT_PRODUCTS]
    }


def _protected(path: Path, place: RunPlace) -> bool:
    return (
        path.is_relative_to(place.inputs) or path.is_relative_to(place.run_dir) or not path.exists()
    )


# -- cli-env ---------------------------------------------------------------------------------------

# the variables judgegrid reads (grep environ/getenv in src/) and the ones its libraries read for it
ENV_VARIABLES = (
    "JUDGEGRID_CACHE_DIR",
    "XDG_CACHE_HOME",
    "HOME",
    "TERMINAL_WIDTH",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "HF_HOME",
    "JUDGEGRID_LOCAL_THREADS",
    "CUSTOM_TIKTOKEN_CACHE_DIR",
)
# HOME and XDG_CACHE_HOME are read only when JUDGEGRID_CACHE_DIR is not set
WITHOUT_CACHE_DIR = {"XDG_CACHE_HOME", "HOME"}
ENV_VALUES = (
    "a file",
    "a missing folder",
    "an unwritable folder",
    "under a file",
    "empty",
    "garbage",
)
GARBAGE = ("abc", "-1", "0", "99999999999999999999", "1.5", " ", "ü", "$HOME", "~")
ENV_COMMANDS = (
    "cache stats",
    "run --help",
    "--help",
    "validate",
    "run",
    "plan",
    "report",
    "export",
)
UNWRITABLE = "/proc/1"  # a folder no one, root included, can make a file in


# commands that read the environment when the CLI is imported (Typer reads TERMINAL_WIDTH then):
# run in a fresh interpreter, where a process of their own sees what a user's shell would
IMPORT_TIME_COMMANDS = ("--help", "run --help")


def run_cli_process(argv: list[str]) -> Outcome:
    """``judgegrid ARGV`` in a fresh interpreter with this process's environment; a traceback
    it prints is its crash."""
    process = subprocess.run(
        [sys.executable, "-c", "from judgegrid.cli import main; main()", *argv],
        capture_output=True,
        text=True,
        timeout=EXAMPLE_SECONDS,
        check=False,
    )
    text = process.stdout + process.stderr
    crash = text[text.index("Traceback") :] if "Traceback" in text else ""
    return Outcome(process.returncode, text, crash)


@dataclass
class EnvExample:
    variable: str
    value: str  # one of ENV_VALUES
    garbage: str
    command: str

    def __str__(self) -> str:
        shown = self.garbage if self.value == "garbage" else f"<{self.value}>"
        return f"{self.variable}={shown!r} judgegrid {self.command}"


def env_examples() -> st.SearchStrategy[EnvExample]:
    """Each variable, value and command once: garbage text is drawn only for the "garbage"
    value, so the 11 × (5 + 9) × 8 = 1,232 distinct cases are the whole space and a campaign
    can draw every one (as cli-paths does), rather than repeating a path value nine times."""
    named = st.tuples(st.sampled_from([v for v in ENV_VALUES if v != "garbage"]), st.just(""))
    garbage = st.tuples(st.just("garbage"), st.sampled_from(GARBAGE))
    return st.builds(
        lambda variable, value, command: EnvExample(variable, value[0], value[1], command),
        st.sampled_from(ENV_VARIABLES),
        named | garbage,
        st.sampled_from(ENV_COMMANDS),
    )


def env_value(example: EnvExample, root: Path) -> str:
    """The variable's value in a sandbox: a path there (or the unwritable folder), or text."""
    afile = root / "a-file"
    afile.write_text("not a folder\n")
    return {
        "a file": str(afile),
        "a missing folder": str(root / "missing" / "deeper"),
        "an unwritable folder": UNWRITABLE,
        "under a file": str(afile / "sub"),
        "empty": "",
        "garbage": example.garbage,
    }[example.value]


def env_argv(command: str, place: RunPlace) -> list[str]:
    run = str(place.run_dir)
    return {
        "cache stats": ["cache", "stats"],
        "run --help": ["run", "--help"],
        "--help": ["--help"],
        "validate": ["validate", place.matrix, "--dataset", place.data],
        "run": ["run", place.matrix, "--dataset", place.data, "--limit", "1", "--no-progress"],
        "plan": ["plan", place.matrix, "--dataset", place.data, "--limit", "1"],
        "report": ["report", run],
        "export": ["export", run],
    }[command]


def check_env(example: EnvExample, finished_run: Path) -> list[Failure]:
    """Exit 0 or 2 (3 for run), never 1, never a traceback; the crash logger never fails; a
    refusal leaves no run directory."""
    with sandbox() as root:
        place = make_run_place(root, finished_run)
        changes: dict[str, str | None] = {example.variable: env_value(example, root)}
        if example.variable in WITHOUT_CACHE_DIR:
            changes["JUDGEGRID_CACHE_DIR"] = None
        argv = env_argv(example.command, place)
        with environment(changes):
            read_at_import = example.command in IMPORT_TIME_COMMANDS
            outcome = run_cli_process(argv) if read_at_import else run_cli(argv)
        failures = outcome_failures(
            example.command,
            outcome,
            str(example),
            {0, 2, 3} if example.command == "run" else {0, 2},
        )
        made = sorted(listing(root / "reports"))
        if outcome.code == 2 and made:
            failures.append(
                Failure(
                    "left files on exit 2",
                    example.command,
                    str(made[0].relative_to(root)),
                    str(example),
                )
            )
    return failures


# -- cli-secrets -----------------------------------------------------------------------------------

SECRET_PLACES = (
    "judge extra header",
    "default extra header",
    "api_base userinfo",
    "label note",
    "annotator column",
    "--annotator",
    "spring default",
    "spring base-url userinfo",
)


@dataclass
class SecretExample:
    place: str
    key: str

    def __str__(self) -> str:
        return f"{self.key!r} as the {self.place}"


def secret_examples() -> st.SearchStrategy[SecretExample]:
    return st.builds(SecretExample, st.sampled_from(SECRET_PLACES), key_shaped())


def _matrix_with_key(place: str, key: str) -> dict[str, Any]:
    header = {"extra_headers": {"Authorization": f"Bearer {key}"}}
    judges = [dict(j) for j in JUDGES]
    defaults: dict[str, Any] = {}
    if place == "judge extra header":
        judges[0]["options"] = {"extra": header}
    elif place == "default extra header":
        defaults = {"judge": {"extra": header}}
    else:
        judges[0]["options"] = {"api_base": f"http://user:{key}@127.0.0.1:9/v1"}
    matrix = {
        "name": "fuzz",
        "judges": judges,
        "metrics": ["faithfulness"],
        "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 1},
    }
    return matrix | ({"defaults": defaults} if defaults else {})


def secret_argvs(example: SecretExample, place: RunPlace) -> list[list[str]]:
    """The commands that take the key in and then write or print what they hold."""
    run, key, out = str(place.run_dir), example.key, str(place.root / "out")
    if example.place in ("judge extra header", "default extra header", "api_base userinfo"):
        matrix = place.inputs / "keyed.yaml"
        matrix.write_text(emit_yaml(_matrix_with_key(example.place, key)), encoding="utf-8")
        data = place.data
        return [
            ["validate", str(matrix), "--dataset", data],
            ["plan", str(matrix), "--dataset", data, "--limit", "1"],
            ["run", str(matrix), "--dataset", data, "--limit", "1", "--no-progress"],
        ]
    if example.place in ("label note", "annotator column", "--annotator"):
        labels = place.inputs / "keyed.csv"
        note, annotator = (key, "ann") if example.place == "label note" else ("fine", key)
        header = (
            "sample_id,metric,annotator,value,note"
            if example.place != "--annotator"
            else "sample_id,metric,value,note"
        )
        row = (
            f"s1,faithfulness,{annotator},1,{note}"
            if example.place != "--annotator"
            else f"s1,faithfulness,1,{note}"
        )
        labels.write_text(f"{header}\n{row}\n", encoding="utf-8")
        extra = ["--annotator", key] if example.place == "--annotator" else []
        return [
            ["labels", "import", run, str(labels), *extra],
            ["labels", "export", run, "-o", f"{out}.csv"],
            ["export", run, "--out", f"{out}.jsonl"],
            ["report", run],
        ]
    spring = place.inputs / "keyed-application.yaml"
    tree = json.loads(json.dumps(SPRING_FILE))
    openai = tree["spring"]["ai"]["openai"]
    if example.place == "spring default":
        openai["api-key"] = f"${{{SPRING_KEY_ENV}:{key}}}"
    else:
        openai["base-url"] = f"http://user:{key}@127.0.0.1:9"
    spring.write_text(emit_yaml(tree), encoding="utf-8")
    return [
        ["init", f"{out}.yaml", "--from", str(spring)],
        ["validate", str(spring), "--dataset", place.data],
    ]


def check_secrets(example: SecretExample, finished_run: Path) -> list[Failure]:
    """The key never in any output, nor in any file a command wrote or changed; a Spring
    default that is a key is refused."""
    failures: list[Failure] = []
    middle = example.key[len(KEY_PREFIX) - 4 : len(KEY_PREFIX) + 12]  # what a partial mask keeps
    with sandbox() as root, environment({SPRING_KEY_ENV: None}):
        place = make_run_place(root, finished_run)
        for argv in secret_argvs(example, place):
            before = snapshot(root)
            outcome = run_cli(argv)
            command = " ".join(a for a in argv[:2] if not a.startswith("/"))
            failures += outcome_failures(command, outcome, str(example), {0, 2, 3})
            if middle in outcome.text:
                failures.append(
                    Failure(
                        "key printed",
                        f"{command}, {example.place}",
                        _around(outcome.text, middle),
                        str(example),
                    )
                )
            changes = disk_changes(before, snapshot(root))
            for path in [*changes.changed, *changes.created]:
                if path.is_file() and middle.encode() in path.read_bytes():
                    where = f"{command}: {path.name}, {example.place}"
                    failures.append(
                        Failure("key written", where, str(path.relative_to(root)), str(example))
                    )
                    break
            if example.place == "spring default" and argv[0] == "init" and outcome.code == 0:
                failures.append(
                    Failure(
                        "accepted: a key as a default in the file",
                        "init --from",
                        last_line(outcome),
                        str(example),
                    )
                )
    return failures


def _around(text: str, needle: str) -> str:
    at = text.find(needle)
    return text[max(0, at - 80) : at + 40].replace("\n", " ")
