"""What the fuzz tests (tests/fuzz/) and the long campaign (benches/fuzz.py) share: the generated
inputs of each target and the properties every one of them must keep.

A target's ``check`` takes one generated example and returns the ``Failure``s it found (empty:
every property held), so a test asserts there are none and the campaign counts them by class
(the exception type and where it was raised, or the property broken and on which command).

- CLI: a matrix and a data set from ``judgegrid.testing.strategies`` (valid from the models'
  schemas, on the scripted judge, then one node mutated), and maybe one CLI option with a bad
  value, through ``validate``, ``plan`` and ``run --limit 1`` by the console script's ``main``
  in this process: exit 0 or 2 (3: cells failed, for ``run``), never 1 or a crash log; nothing
  new under reports/ or the cache on exit 2; no key-shaped string of the input in any output or
  file; and when ``run`` refuses, ``validate`` and ``plan`` refuse too.
- API: each public function called with one argument replaced by a generated value: a value of
  the wrong type must raise judgegrid's InputError, anything else only InputError or success;
  a refusal leaves no file behind.
- HTTP: the view's and the labelling page's routes with generated query parameters and bodies:
  never a 5xx; a 4xx answers a JSON error.
"""

from __future__ import annotations

import contextlib
import csv
import inspect
import io
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import traceback
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import typer
import yaml
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import judgegrid
from judgegrid.cli import app, main
from judgegrid.core.errors import InputError
from judgegrid.core.sample import SAMPLE_FIELDS, Sample
from judgegrid.inputs.matrix import Matrix
from judgegrid.inputs.probes import PROBES
from judgegrid.labels import page
from judgegrid.labels.queue import open_session
from judgegrid.labels.session import SessionAsk
from judgegrid.metrics import METRICS
from judgegrid.testing.strategies import (
    EMPTY,
    HUGE,
    KEY_PREFIX,
    OUT_OF_RANGE,
    UNICODE_DIGITS,
    WRONG_TYPES,
    Mutation,
    conforms,
    key_shaped,
    keys_in,
    model_values,
    mutated,
)
from judgegrid.view import app as view_app
from support import scripted
from support.servers import LoopbackServer, in_thread


def ci_settings(max_examples: int) -> settings:
    """The suite's settings: few examples, the same ones every run (derandomized, no example
    database), no deadline (a CLI example takes a second), and no shrinking: a failure is
    reported as drawn, the campaign (benches/fuzz.py) shrinks and groups them."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )


# Classes of failure still open on main while other branches of issue 39 close them: the CI
# examples leave them out (``closed``) and each one's own example is a strict xfail
# (``open_class``). Once a fix is merged, delete its line: the examples then hold it.
# Each entry: a part of a class (``Failure.klass``, "kind @ where") → the class.
OPEN_CLASSES: dict[str, str] = {}


def open_entry(klass: str) -> str | None:
    """The OPEN_CLASSES entry that covers ``klass``, if any."""
    return next((part for part in OPEN_CLASSES if part in klass), None)


def closed(failures: list[Failure]) -> list[Failure]:
    """The failures of classes no longer open (a CI example asserts there are none)."""
    return [f for f in failures if open_entry(f.klass) is None]


def open_class(part: str) -> tuple[Any, ...]:
    """A pytest param's marks: a strict xfail while ``part`` is in OPEN_CLASSES (an XPASS then
    says: delete its line), none once it is closed."""
    import pytest  # the campaign imports this module without pytest's plugins

    if part not in OPEN_CLASSES:
        return ()
    return (pytest.mark.xfail(strict=True, reason=f"open on main: {OPEN_CLASSES[part]}"),)


EXIT_INTERRUPTED = 130  # what `judgegrid` exits with on Ctrl-C (docs/errors.md#exit-codes)
EXAMPLE_SECONDS = 60  # an example still running after this is a hang (a failure of its own)
CACHE_ENV = "JUDGEGRID_CACHE_DIR"


@dataclass(frozen=True)
class Failure:
    """A property broken: its class (what and where) and the reproducer that showed it."""

    kind: str
    where: str
    detail: str
    reproducer: str

    @property
    def klass(self) -> str:
        return f"{self.kind} @ {self.where}"

    def __str__(self) -> str:
        return f"{self.klass}: {self.detail}\n  reproducer: {self.reproducer}"


class Hang(BaseException):
    """Raised into an example that outran EXAMPLE_SECONDS (a BaseException: ``main`` must not
    take it for an error of the tool's)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """SIGALRM raises Hang in the main thread after ``seconds``."""

    def _raise(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    # again each second after the first: a Hang raised where Python ignores exceptions (a gc
    # callback, a __del__) is lost, the next one lands
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def sandbox() -> Iterator[Path]:
    """A fresh working directory with its own cache directory (``cache/``), the scripted
    provider reset; the previous directory and cache are restored after."""
    old_cwd, old_cache = os.getcwd(), os.environ.get(CACHE_ENV)
    root = Path(tempfile.mkdtemp(prefix="judgegrid-fuzz-"))
    (root / "cache").mkdir()
    os.environ[CACHE_ENV] = str(root / "cache")
    os.chdir(root)
    scripted.register()
    scripted.SCRIPT.reset()
    try:
        yield root
    finally:
        os.chdir(old_cwd)
        if old_cache is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = old_cache
        shutil.rmtree(root, ignore_errors=True)


def listing(*roots: Path) -> set[Path]:
    return {p for root in roots if root.exists() for p in (root, *root.rglob("*"))}


# -- where a crash came from -------------------------------------------------------------------

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def crash_site(text: str) -> str:
    """The last frame of judgegrid's own code in a traceback: ``module.py:function``."""
    frames = [m for m in _FRAME.finditer(text) if "/judgegrid/" in m.group(1)]
    if not frames:
        frames = list(_FRAME.finditer(text))
    if not frames:
        return "?"
    path, _, function = frames[-1].groups()
    return (
        f"{path.split('/judgegrid/')[-1] if '/judgegrid/' in path else Path(path).name}:{function}"
    )


def exception_site(exc: BaseException) -> str:
    return crash_site("".join(traceback.format_exception(exc)))


# -- the CLI target ----------------------------------------------------------------------------

JUDGES = [
    {"id": "scripted/judge-a", "label": "a"},
    {"id": "scripted/judge-b", "label": "b"},
]
EMBEDDINGS = [{"id": "scripted/bow", "label": "bow", "dimensions": [16]}]
LIVE_OPTIONS = {"api_key_env": st.none(), "api_base": st.none(), "extra": st.just({})}


def matrix_pins() -> dict[str, st.SearchStrategy[Any]]:
    """What the schema cannot know of a matrix the scripted judge can run: its models, metric
    names, probe names, jury labels; and small, fast retries and timeouts (runs stay cheap)."""
    pins: dict[str, st.SearchStrategy[Any]] = {
        "name": st.sampled_from(["fuzz", "grid"]),
        "dataset": st.none(),
        "limit": st.just(1),  # validate has no --limit: the matrix's limit is run's --limit 1
        "judges": st.sampled_from([JUDGES, JUDGES[:1]]),
        "embeddings": st.just(EMBEDDINGS),
        "metrics": st.lists(st.sampled_from(sorted(METRICS)), min_size=1, max_size=2, unique=True),
        "probes.names": st.sampled_from(["all", *PROBES]).map(lambda n: n if n == "all" else [n]),
        "juries": st.sampled_from([False, True, [["a", "b"]]]),
        "execution.backend": st.sampled_from([None, "processes"]),
        "execution.address": st.none(),
        "execution.workers": st.sampled_from([1, 1, 1, 1, 1, 2]),  # 2: loky workers, slow
        "retry.initial_interval": st.just("1ms"),
        "retry.max_interval": st.just("2ms"),
        "defaults.batch": st.sampled_from([None, False]),
        # a criterion's answers the schema cannot tie together (a labels type needs labels, an
        # odd strictness): none, or a valid one whose fields every drawn sample may lack alike
        "criteria": st.sampled_from([[], [], [POLITE_CRITERION]]),
    }
    for entry in ("judge", "embedding"):
        pins |= {f"defaults.{entry}.{k}": v for k, v in LIVE_OPTIONS.items()}
        pins[f"defaults.{entry}.timeout"] = st.sampled_from([None, 20.0])
    return pins


POLITE_CRITERION = {
    "name": "polite",
    "definition": "Is the response polite?",
    "type": "binary",
    "strictness": 3,
    "wordings": ["Would a customer find the response courteous?"],
}


def dataset_pins() -> dict[str, st.SearchStrategy[Any]]:
    """A sample's values the schema leaves open: a language judgegrid knows, no probe tag or
    contrast (the tool's own), labels of the metrics."""
    return {
        "language": st.sampled_from([None, "en", "vi"]),
        "contrast": st.none(),
        "probe": st.none(),
        "labels": st.none()
        | st.dictionaries(st.sampled_from(sorted(METRICS)), st.floats(0, 1), max_size=1),
    }


def datasets() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Valid records, each with its own id."""
    records = st.lists(model_values(Sample, dataset_pins(), SAMPLE_FIELDS), min_size=1, max_size=3)
    return records.map(lambda rs: [{**r, "id": f"s{i}"} for i, r in enumerate(rs)])


def run_options() -> list[Any]:
    """``judgegrid run``'s options that take a value, from the command itself (not listed here);
    the ones that would point the run elsewhere (``--resume``, ``--reports-dir``) left out."""
    command = typer.main.get_command(app)
    run = command.commands["run"]  # type: ignore[attr-defined]
    skip = {"resume", "reports_dir", "backend", "address"}  # backend: ray starts a cluster
    return [p for p in run.params if getattr(p, "is_flag", None) is False and p.name not in skip]


def option_values() -> st.SearchStrategy[str]:
    """A bad value for a CLI option, as text."""
    pool = [*UNICODE_DIGITS, *map(str, HUGE), *map(str, OUT_OF_RANGE), "", " ", "x", "nan"]
    return st.sampled_from(pool) | key_shaped()


@dataclass
class CliExample:
    """A matrix, a data set (as records, written in ``fmt``), what was mutated, and maybe one
    CLI option with its value."""

    matrix: Any
    data: Any
    fmt: str
    mutation: Mutation | None
    option: tuple[str, str] | None = None
    mutated_data: bool = False

    def changed(self) -> str:
        """What this example changed, as a failure's place: the option, or the mutated path
        with list positions as []."""
        if self.option:
            return self.option[0]
        if self.mutation is None:
            return "valid input"
        path = "".join("[]" if isinstance(p, int) else f".{p}" for p in self.mutation.path)
        return f"{self.mutation.kind} at {'data' if self.mutated_data else 'matrix'}{path}"

    def __str__(self) -> str:
        option = f" {self.option[0]} {self.option[1]!r}" if self.option else ""
        return (
            f"[{self.mutation or 'valid'}]{option} matrix={json.dumps(self.matrix, default=str)}"
            f" data({self.fmt})={json.dumps(self.data, default=str)}"
        )[:1500]


def valid_cli_examples() -> st.SearchStrategy[CliExample]:
    """A matrix and a data set as drawn, unchanged: what every mutation starts from."""
    return st.builds(
        CliExample,
        model_values(Matrix, matrix_pins()),
        datasets(),
        st.sampled_from(["jsonl", "json", "csv"]),
        st.none(),
    )


@st.composite
def cli_examples(draw: st.DrawFn) -> CliExample:
    matrix = model_values(Matrix, matrix_pins())
    data = datasets()
    fmt = draw(st.sampled_from(["jsonl", "json", "csv"]))
    where = draw(st.sampled_from(["matrix", "data", "option", "none"]))
    option = None
    if where == "option":
        chosen = draw(st.sampled_from(run_options()))
        option = (chosen.opts[0], draw(option_values()))
    if where == "matrix":
        tree, mutation = draw(mutated(matrix))
        return CliExample(tree, draw(data), fmt, mutation, option)
    if where == "data":
        tree, mutation = draw(mutated(data))
        return CliExample(draw(matrix), tree, fmt, mutation, option, mutated_data=True)
    return CliExample(draw(matrix), draw(data), fmt, None, option)


def write_inputs(root: Path, example: CliExample) -> tuple[str, str]:
    inputs = root / "inputs"
    inputs.mkdir(exist_ok=True)
    matrix = inputs / "matrix.yaml"
    matrix.write_text(yaml.safe_dump(example.matrix, sort_keys=False, allow_unicode=True))
    data = inputs / f"data.{example.fmt}"
    records = example.data
    if example.fmt == "json":
        data.write_text(json.dumps(records, ensure_ascii=False))
    elif example.fmt == "csv" and _is_table(records):
        data.write_text(_csv(records), encoding="utf-8")
    else:
        data = data.with_suffix(".jsonl")
        lines = records if isinstance(records, list) else [records]
        data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines))
    return str(matrix), str(data)


def _is_table(records: Any) -> bool:
    return isinstance(records, list) and bool(records) and all(isinstance(r, dict) for r in records)


def _csv(records: list[dict[str, Any]]) -> str:
    columns = list(dict.fromkeys(k for r in records for k in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns)
    writer.writeheader()
    for record in records:
        writer.writerow({k: v if isinstance(v, str) else json.dumps(v) for k, v in record.items()})
    return out.getvalue()


@dataclass
class Outcome:
    code: int
    text: str
    crash: str = ""  # the crash log's text, or the exception that escaped ``main``


def run_cli(argv: list[str], seconds: float | None = None) -> Outcome:
    """``judgegrid ARGV`` by the console script's ``main`` in this process, its output caught;
    a crash log it wrote is read back (and its site is the failure's place)."""
    runner = CliRunner()
    crash = ""
    with runner.isolation() as streams:
        old_argv = sys.argv
        sys.argv = ["judgegrid", *argv]
        try:
            with time_limit(seconds or EXAMPLE_SECONDS):
                main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if code == EXIT_INTERRUPTED:  # the person's Ctrl-C, which main turned into 130
                raise KeyboardInterrupt from exc
        except BaseException as exc:  # a Hang, or what escaped main
            code, crash = -1, "".join(traceback.format_exception(exc))
        finally:
            sys.argv = old_argv
        text = "".join(s.getvalue().decode("utf-8", "replace") for s in streams if s is not None)
    log = re.search(r"the traceback is in (\S+)", text)
    if log and Path(log.group(1)).exists():
        crash = Path(log.group(1)).read_text(encoding="utf-8")
    return Outcome(code, text, crash)


COMMANDS = ("validate", "plan", "run")


def cli_argv(command: str, matrix: str, data: str, option: tuple[str, str] | None) -> list[str]:
    argv = [command, matrix, "--dataset", data]
    if command in ("run", "plan"):
        argv += ["--limit", "1"]
    if command == "run":
        argv += ["--no-progress"]
    if option and option_applies(command, option[0]):
        argv += list(option)
    return argv


def option_applies(command: str, option: str) -> bool:
    group = typer.main.get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    return any(option in p.opts for p in params)


def check_cli(example: CliExample) -> list[Failure]:
    """Every CLI property on one example (see the module's docstring)."""
    failures: list[Failure] = []
    with sandbox() as root:
        matrix, data = write_inputs(root, example)
        # the configuration's keys; a data set's texts are the user's data, kept as they are
        secrets = keys_in(Path(matrix).read_text() + str(example.option))
        codes: dict[str, int] = {}
        messages: dict[str, str] = {}
        for command in COMMANDS:
            argv = cli_argv(command, matrix, data, example.option)
            before = listing(root / "reports", root / "cache")
            outcome = run_cli(argv)
            codes[command], messages[command] = outcome.code, _first_line(outcome)
            failures += _outcome_failures(command, outcome, example)
            made = sorted(listing(root / "reports", root / "cache") - before)
            if outcome.code == 2 and made:
                failures.append(
                    Failure(
                        "left files on exit 2",
                        f"{command}, {example.changed()}",
                        ", ".join(str(p.relative_to(root)) for p in made[:3]),
                        str(example),
                    )
                )
            failures += _leaks(command, secrets, outcome.text, root, example)
        failures += _accepted_though_due(example, codes)
        if codes["run"] == 2 and example_applies_everywhere(example):
            for command in ("validate", "plan") if one_sample_seen(example) else ("plan",):
                if codes[command] != 2:
                    failures.append(
                        Failure(
                            f"run refuses, {command} accepts",
                            refusal_kind(messages["run"]),
                            f"{command} exit {codes[command]}; run: {messages['run']}",
                            str(example),
                        )
                    )
    return failures


def _accepted_though_due(example: CliExample, codes: dict[str, int]) -> list[Failure]:
    """A mutation that must be refused (a boolean or NaN where a number is due, an empty or
    multi-line sample id, a key that names nothing) accepted by a command that reads it."""
    mutation = example.mutation
    if mutation is None or not mutation.refusal_due or not mutation_seen(example):
        return []
    return [
        Failure(
            f"accepted: {mutation.refusal_due}",
            f"{command}, {example.changed()}",
            f"{command} exit {codes[command]}",
            str(example),
        )
        for command in COMMANDS
        if codes[command] in (0, 3)
    ]


def mutation_seen(example: CliExample) -> bool:
    """Whether every command reads the mutated node: the matrix, or the first record (the one
    ``limit: 1`` keeps), with no option that only some commands take."""
    first = example.mutation is not None and example.mutation.path[:1] in ((), (0,))
    return (not example.mutated_data or first) and example_applies_everywhere(example)


def refusal_kind(message: str) -> str:
    """A refusal's message as a class: without its file, names, quoted values and numbers."""
    text = re.sub(r"^\S+?: (line \d+[^:]*: )?", "", message)
    text = re.sub(r"'[^']*'|\([^)]*\)|\d+", "…", text)
    return text[:70]


def one_sample_seen(example: CliExample) -> bool:
    """Whether ``validate`` looks at the one sample ``run --limit 1`` scores: the matrix says
    ``limit: 1`` (its only limit) or the data set has one record."""
    limited = isinstance(example.matrix, dict) and example.matrix.get("limit") == 1
    return limited or (isinstance(example.data, list) and len(example.data) <= 1)


def example_applies_everywhere(example: CliExample) -> bool:
    """Whether all three commands see the whole input (an option only ``run`` takes cannot be
    judged by the others)."""
    return example.option is None or all(option_applies(c, example.option[0]) for c in COMMANDS)


def _outcome_failures(command: str, outcome: Outcome, example: CliExample) -> list[Failure]:
    allowed = {0, 2, 3} if command == "run" else {0, 2}
    if outcome.crash:
        kind = outcome.crash.strip().splitlines()[-1].split(":")[0].rsplit(".", 1)[-1]
        return [Failure(kind, crash_site(outcome.crash), _first_line(outcome), str(example))]
    if "Traceback" in outcome.text or "unexpected error" in outcome.text:
        return [Failure("traceback printed", command, _first_line(outcome), str(example))]
    if outcome.code not in allowed:
        return [Failure(f"exit {outcome.code}", command, _first_line(outcome), str(example))]
    return []


def _first_line(outcome: Outcome) -> str:
    """The outcome's last line of text: a refusal's message or a crash's one line."""
    lines = [ln for ln in outcome.text.splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[:300]


def _leaks(
    command: str, secrets: list[str], text: str, root: Path, example: CliExample
) -> list[Failure]:
    """A key of the input found in the output or in a file the command wrote (inputs aside)."""
    found = []
    for secret in secrets:
        middle = secret[len(KEY_PREFIX) - 4 : len(KEY_PREFIX) + 12]  # what a partial mask keeps
        if middle in text:
            where = f"{command}, {example.changed()}"
            found.append(Failure("key printed", where, _around(text, middle), str(example)))
        for path in listing(root / "reports", root / "cache"):
            if path.is_file() and middle.encode() in path.read_bytes():
                where = f"{command}: {path.name}, {example.changed()}"
                found.append(Failure("key written", where, str(path), str(example)))
                break
    return found


def _around(text: str, needle: str) -> str:
    at = text.find(needle)
    return text[max(0, at - 80) : at + 40].replace("\n", " ")


# -- the API target ----------------------------------------------------------------------------

BAD_ARGUMENTS: list[Any] = [*WRONG_TYPES, *EMPTY, *OUT_OF_RANGE, *HUGE, *UNICODE_DIGITS, 5, b"x"]


@dataclass
class ApiPlace:
    """A sandbox's inputs: a matrix and data set on the scripted judge, a finished run, a pairs
    file."""

    root: Path
    matrix: str
    data: str
    run_dir: Path
    pairs: str
    verdicts: str = ""  # a long table of recorded verdicts (judgegrid import)


SAMPLE = {
    "id": "s1",
    "user_input": "Who wrote it?",
    "response": "Ann.",
    "retrieved_contexts": ["Ann wrote it."],
    "reference": "Ann.",
}
PAIR = {
    "id": "p1",
    "question": "Who?",
    "context": "Ann wrote it.",
    "answer": "Ann.",
    "ungrounded_answer": "Bob.",
    "poor_answer": "Someone.",
}


VERDICT = {"sample_id": "s1", "judge": "gpt", "metric": "faithfulness", "score": 0.5}


def make_api_place(root: Path, finished_run: Path) -> ApiPlace:
    inputs = root / "inputs"
    inputs.mkdir()
    matrix = {
        "name": "fuzz",
        "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
        "judges": JUDGES,
        "embeddings": EMBEDDINGS,
        "metrics": ["faithfulness", "response_relevancy"],
    }
    (inputs / "m.yaml").write_text(yaml.safe_dump(matrix))
    (inputs / "d.jsonl").write_text(json.dumps(SAMPLE) + "\n")
    (inputs / "p.jsonl").write_text(json.dumps(PAIR) + "\n")
    (inputs / "v.jsonl").write_text(json.dumps(VERDICT) + "\n")
    run_dir = inputs / "run"
    shutil.copytree(finished_run, run_dir)
    return ApiPlace(
        root,
        str(inputs / "m.yaml"),
        str(inputs / "d.jsonl"),
        run_dir,
        str(inputs / "p.jsonl"),
        str(inputs / "v.jsonl"),
    )


def finished_run(root: Path) -> Path:
    """A one-sample scripted run, made once and copied into each example's sandbox."""
    scripted.register()
    place_root = root / "base"
    place_root.mkdir(parents=True, exist_ok=True)
    inputs = place_root / "inputs"
    inputs.mkdir(exist_ok=True)
    matrix = {
        "name": "fuzz",
        "judges": JUDGES,
        "embeddings": EMBEDDINGS,
        "metrics": ["faithfulness", "response_relevancy"],
    }
    (inputs / "m.yaml").write_text(yaml.safe_dump(matrix))
    (inputs / "d.jsonl").write_text(json.dumps(SAMPLE) + "\n")
    run = judgegrid.run_grid(inputs / "m.yaml", str(inputs / "d.jsonl"), run_dir=place_root / "run")
    return Path(run.run_dir)


# Each public function: its valid call in a sandbox (the arguments by name).
API_CALLS: dict[str, Callable[[ApiPlace], dict[str, Any]]] = {
    "run_grid": lambda p: {
        "matrix": p.matrix,
        "dataset": p.data,
        "run_dir": p.root / "new",
        "limit": 1,
    },
    "plan_grid": lambda p: {"matrix": p.matrix, "dataset": p.data, "limit": 1},
    "score_sample": lambda p: {
        "metric": judgegrid.Faithfulness(),
        "sample": dict(SAMPLE),
        "judge": "scripted/judge-a",
    },
    "load_run": lambda p: {"run_dir": p.run_dir},
    "resume_run": lambda p: {"run_dir": p.run_dir},
    "rebuild_report": lambda p: {"run_dir": p.run_dir},
    "export_run": lambda p: {"run_dir": p.run_dir},
    "import_verdicts": lambda p: {"files": p.verdicts, "out": p.root / "imported"},
    "run_pairs": lambda p: {
        "matrix": p.matrix,
        "pairs_path": p.pairs,
        "reports_dir": p.root / "pairs",
        "limit": 1,
    },
}


def public(name: str) -> Callable[..., Any]:
    """A public function by name: ``judgegrid``'s own, else ``judgegrid.api``'s."""
    return getattr(judgegrid, name, None) or getattr(judgegrid.api, name)


def parameters(name: str) -> dict[str, Any]:
    """A public function's parameters and their types, read from its signature."""
    function = public(name)
    if name == "score_sample":  # **kwargs: the keywords of the async form it runs
        function = judgegrid.ascore_sample
    hints = typing.get_type_hints(function, include_extras=False)
    return {
        p: hints.get(p, Any)
        for p in inspect.signature(function).parameters
        if p not in ("kwargs", "args")
    }


@dataclass
class ApiExample:
    function: str
    argument: str
    value: Any

    def __str__(self) -> str:
        return f"judgegrid.{self.function}(<valid arguments>, {self.argument}={self.value!r})"


@st.composite
def api_examples(draw: st.DrawFn) -> ApiExample:
    function = draw(st.sampled_from(sorted(API_CALLS)))
    names = sorted(parameters(function))
    if takes_any_keyword(function):  # score_sample(**kwargs): a misspelt keyword too
        names += [n[:-1] for n in names if len(n) > 3]
    argument = draw(st.sampled_from(names))
    value = draw(st.sampled_from(BAD_ARGUMENTS) | key_shaped() | st.just(object()))
    return ApiExample(function, argument, value)


def takes_any_keyword(name: str) -> bool:
    """Whether the public function takes ``**kwargs`` (so Python itself checks no keyword)."""
    kinds = [p.kind for p in inspect.signature(public(name)).parameters.values()]
    return inspect.Parameter.VAR_KEYWORD in kinds


def check_api(example: ApiExample, base_run: Path) -> list[Failure]:
    """One public function with one argument replaced: a wrong type is an InputError; other
    values an InputError or a result; never another exception, never a file left on refusal."""
    known = parameters(example.function)
    expected_type = known.get(example.argument, "no such keyword")
    wrong = bool(example.argument) and (
        example.argument not in known or not conforms(example.value, expected_type)
    )
    with sandbox() as root:
        place = make_api_place(root, base_run)
        kwargs = API_CALLS[example.function](place)
        if example.argument:  # "": the valid call itself
            kwargs[example.argument] = example.value
        before = listing(root)
        try:
            with time_limit(EXAMPLE_SECONDS):
                public(example.function)(**kwargs)
        except InputError:
            made = sorted(listing(root) - before)
            if made:
                where = ", ".join(str(p.relative_to(root)) for p in made[:3])
                return [Failure("left files on InputError", example.function, where, str(example))]
            return []
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            site = exception_site(exc)
            return [Failure(type(exc).__name__, site, str(exc)[:200], str(example))]
        if wrong:
            return [
                Failure(
                    "wrong type accepted",
                    f"{example.function}({example.argument})",
                    f"expected {expected_type}",
                    str(example),
                )
            ]
    return []


# -- the HTTP target ---------------------------------------------------------------------------

QUERY_VALUES: list[str] = [
    *UNICODE_DIGITS,
    *map(str, HUGE),
    *map(str, OUT_OF_RANGE),
    "",
    " ",
    "x",
    "nan",
    "1e3",
    "0x10",
    "%00",
    "\x00",
    "-0",
    "+1",
    "1.0",
]


@dataclass
class HttpExample:
    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    route: str = ""  # the path's template (``/api/view/calls/{sample_id}``)
    numbers: list[str] = field(default_factory=list)  # the values given to whole-number slots
    unknown: list[str] = field(default_factory=list)  # query parameters the route does not read
    raw: bytes | None = None  # a body sent as it is: nesting or numbers json.dumps cannot write
    shape: str = ""  # what the raw body is, for its reproducer (the bytes may be megabytes)
    non_finite: str = ""  # the body's field that holds infinity or NaN

    def target(self) -> str:
        query = urlencode(self.query, quote_via=quote)
        return quote(self.path, safe="/") + (f"?{query}" if query else "")

    def __str__(self) -> str:
        body = f" body={json.dumps(self.body, default=str)[:300]}" if self.body is not None else ""
        if self.raw is not None:
            body = f" body=<{self.shape}, {len(self.raw):,} bytes> {self.raw[:120]!r}"
        return f"{self.method} {self.target()}{body}"


# the parameters (query or path) that take a whole number: ASCII digits only (issue 31)
WHOLE_NUMBERS = {"page", "per_page", "repeat", "position", "member"}
MANY_VALUED = {"judge", "embedding", "wording"}  # the Samples page's filters: once per value


def http_examples(
    routes: dict[str, list[str]], valid: dict[str, list[str]]
) -> st.SearchStrategy[HttpExample]:
    """Requests to ``routes`` (path template → its query parameters; ``{x}`` a path segment);
    each parameter a valid value of ``valid[name]`` or a bad one, sometimes given twice or an
    unknown one added."""

    def value(name: str) -> st.SearchStrategy[str]:
        return (
            st.sampled_from(valid.get(name) or ["1"]) | st.sampled_from(QUERY_VALUES) | key_shaped()
        )

    @st.composite
    def build(draw: st.DrawFn) -> HttpExample:
        template = draw(st.sampled_from(sorted(routes)))
        segments = {m: draw(value(m)) or "x" for m in re.findall(r"\{(\w+)\}", template)}
        path = template.format(**segments)
        known = routes[template]
        names = draw(st.lists(st.sampled_from(known), max_size=3)) if known else []
        if draw(st.booleans()):
            names.append(draw(st.sampled_from(["colour", "pag", "PAGE", "page"])))
        query = [(n, draw(value(n))) for n in names]
        given = [*segments.items(), *((n, v) for n, v in query if n in known)]
        numbers = [v for n, v in given if n in WHOLE_NUMBERS]
        unknown = [n for n in names if n not in known]
        return HttpExample("GET", path, query, route=template, numbers=numbers, unknown=unknown)

    return build()


def post_examples(
    path: str, valid: st.SearchStrategy[dict[str, Any]]
) -> st.SearchStrategy[HttpExample]:
    """POSTs to ``path`` with a valid body mutated at one node."""
    return mutated(valid).map(lambda pair: HttpExample("POST", path, body=pair[0], route=path))


NESTED_LEVELS = 5000
BIG_STRING_BYTES = 5 * 1024 * 1024
# numbers Python's json reads as infinity or NaN, or refuses (an int past 4,300 digits)
HOSTILE_NUMBERS = ("1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1" + "0" * 5000)
NON_FINITE = {"1e400", "-1e400", "NaN", "Infinity", "-Infinity"}


def hostile_bodies(
    path: str, valid: st.SearchStrategy[dict[str, Any]]
) -> st.SearchStrategy[HttpExample]:
    """POSTs to ``path`` whose body is shaped to hurt a JSON reader (issue 39): 5,000 levels of
    nesting (alone or in a field), a 5 MB string, a number that is infinite, NaN or 5,000
    digits long in a field of a valid body (infinity or NaN as the label's value must be
    refused)."""

    @st.composite
    def build(draw: st.DrawFn) -> HttpExample:
        body = draw(valid)
        name = draw(st.sampled_from(sorted(body)))
        shape = draw(st.sampled_from(["nested", "nested in a field", "big string", "number"]))
        non_finite = ""
        if shape == "nested":
            raw, what = _nested(draw(st.booleans())), "5,000 levels"
        elif shape == "nested in a field":
            raw, what = _in_field(body, name, _nested(False)), f"5,000 levels in {name}"
        elif shape == "big string":
            big = b'"' + b"x" * BIG_STRING_BYTES + b'"'
            raw, what = _in_field(body, name, big), f"5 MB string in {name}"
        else:
            number = draw(st.sampled_from(HOSTILE_NUMBERS))
            raw = _in_field(body, name, number.encode())
            what = f"{number if len(number) < 20 else '1 and 5,000 zeros'} in {name}"
            non_finite = name if number in NON_FINITE and name == "value" else ""
        return HttpExample("POST", path, route=path, raw=raw, shape=what, non_finite=non_finite)

    return build()


def _nested(mapping: bool) -> bytes:
    if mapping:
        return b'{"a":' * NESTED_LEVELS + b"1" + b"}" * NESTED_LEVELS
    return b"[" * NESTED_LEVELS + b"]" * NESTED_LEVELS


def _in_field(body: dict[str, Any], name: str, value: bytes) -> bytes:
    """``body`` as JSON with ``name``'s value replaced by ``value``'s bytes as they are."""
    marker = "\u0000FUZZ\u0000"
    text = json.dumps({**body, name: marker}).encode()
    return text.replace(json.dumps(marker).encode(), value)


def check_http(
    example: HttpExample, send: Callable[[HttpExample], tuple[int, Any]]
) -> list[Failure]:
    """Never a 5xx; a 4xx's answer is a JSON error; a whole number only in ASCII digits, and
    no page past the last, no parameter given twice and no unknown parameter answered 200;
    a body whose field holds infinity or NaN never answered 200."""
    status, answer = send(example)
    route = example.route or example.path
    if status >= 500:
        return [Failure(f"HTTP {status}", route, str(answer)[:200], str(example))]
    if example.raw is not None:
        return _raw_body_failures(example, status, answer, route)
    if 400 <= status < 500 and not (isinstance(answer, dict) and "error" in answer):
        return [
            Failure(f"HTTP {status} without a JSON error", route, str(answer)[:200], str(example))
        ]
    names = [n for n, _ in example.query if n not in example.unknown and n not in MANY_VALUED]
    twice = sorted({n for n in names if names.count(n) > 1})
    if status == 200 and twice:
        detail = f"{twice[0]} given {names.count(twice[0])} times, one of them used"
        return [Failure("HTTP 200 for a parameter given twice", route, detail, str(example))]
    odd = [n for n in example.numbers if not re.fullmatch(r"[0-9]+", n)]
    if status == 200 and odd:
        detail = f"{odd[0]!r} read as a whole number"
        return [Failure("HTTP 200 for a number not in ASCII digits", route, detail, str(example))]
    if status == 200 and example.unknown:
        detail = f"unknown parameter {example.unknown[0]!r} ignored"
        return [Failure("HTTP 200 for an unknown parameter", route, detail, str(example))]
    if status == 200 and _beyond_last_page(answer):
        detail = f"page {answer['page']} of {answer['pages']}"
        return [Failure("HTTP 200 for a page beyond the last", route, detail, str(example))]
    return []


def _raw_body_failures(example: HttpExample, status: int, answer: Any, route: str) -> list[Failure]:
    """A raw body's answer: a 4xx is a JSON error; a non-finite number is never stored."""
    if 400 <= status < 500 and not (isinstance(answer, dict) and "error" in answer):
        return [
            Failure(f"HTTP {status} without a JSON error", route, str(answer)[:200], str(example))
        ]
    if status == 200 and example.non_finite:
        detail = f"{example.shape} accepted"
        return [Failure("HTTP 200 for a non-finite number", route, detail, str(example))]
    return []


def _beyond_last_page(answer: Any) -> bool:
    """A page answered although the pages end before it (a wrong page is a 4xx)."""
    if not isinstance(answer, dict) or not {"page", "pages"} <= set(answer):
        return False
    return bool(answer["page"] > max(answer["pages"], 1))


# the query parameters each API route reads (its contract, as the pages' script sends them);
# the routes themselves are read from the running app's router
QUERY_PARAMETERS: dict[str, list[str]] = {
    "/api/view/samples": [
        "metric",
        "sort",
        "judge",
        "embedding",
        "wording",
        "fold",
        "language",
        "status",
        "q",
        "page",
        "per_page",
    ],
    "/api/view/sample/{sample_id}": ["metric"],
    "/api/view/compare/{sample_id}": ["metric", "a", "b", "repeat"],
    "/api/view/calls/{sample_id}": ["judge", "page"],
}


def api_routes(app: Any) -> tuple[dict[str, list[str]], list[str]]:
    """The app's GET routes under /api/ (template → its query parameters) and POST routes."""
    gets, posts = {}, []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        template = info.get("formatter") or info.get("path") or ""
        if not template.startswith("/api/"):
            continue
        if route.method == "GET":
            gets[template] = QUERY_PARAMETERS.get(template, [])
        elif route.method == "POST":
            posts.append(template)
    return gets, posts


def label_bodies(session: Any) -> st.SearchStrategy[dict[str, Any]]:
    """A valid label of the session's queue: its sample and metric, a value, maybe a note."""
    items = [(i.sample_id, i.metric) for i in session.queue] or [("s1", "faithfulness")]
    return st.sampled_from(items).flatmap(
        lambda item: st.fixed_dictionaries(
            {"sample_id": st.just(item[0]), "metric": st.just(item[1]), "value": st.floats(0, 1)},
            optional={"note": st.text(max_size=20), "skip": st.booleans()},
        )
    )


@dataclass
class HttpTarget:
    """A running server and the requests to send it."""

    name: str
    examples: st.SearchStrategy[HttpExample]
    send: Callable[[HttpExample], tuple[int, Any]]
    routes: list[str] = field(default_factory=list)  # the API's paths, as the app lists them


@contextlib.contextmanager
def http_targets(run_dir: Path) -> Iterator[list[HttpTarget]]:
    """``judgegrid view``'s server and ``judgegrid label``'s over copies of ``run_dir``, each on
    127.0.0.1 in a thread of this process."""
    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="judgegrid-fuzz-http-")))
        targets = []
        for name, opener, serve in (
            ("view", lambda d: view_app.open_view(d, "ann"), view_app.serve),
            ("label", lambda d: open_session(d, "ann", ask=SessionAsk(n=5)), page.serve),
        ):
            copy = root / name
            shutil.copytree(run_dir, copy)
            session = opener(copy)
            runner, port = stack.enter_context(in_thread(serve, session))
            server = LoopbackServer(session, port, runner)
            labels = getattr(session, "labels", session)
            gets, posts = api_routes(runner.app)
            valid = _valid_query_values(session, labels)
            examples = http_examples(gets, valid)
            for path in posts:
                examples = examples | post_examples(path, label_bodies(labels))
                examples = examples | hostile_bodies(path, label_bodies(labels))
            targets.append(HttpTarget(name, examples, _sender(server), [*gets, *posts]))
        yield targets


def _valid_query_values(session: Any, labels: Any) -> dict[str, list[str]]:
    ids = sorted(labels.samples)
    run = getattr(session, "run", None)
    metrics = list(run.metrics) if run else sorted({i.metric for i in labels.queue})
    judges = run.judges() if run else []
    return {
        "sample_id": ids,
        "metric": metrics,
        "judge": judges,
        "a": judges,
        "b": judges,
        "embedding": run.embeddings() if run else [],
        "wording": ["0", "1", "2"],  # a criterion's wordings; a built-in metric has only 0
        "fold": ["wording"],
        "per_page": ["1", "50"],
        "repeat": ["0"],
        "position": ["0", "1"],
        "member": ["0", "1"],
    }


def _sender(server: Any) -> Callable[[HttpExample], tuple[int, Any]]:
    def send(example: HttpExample) -> tuple[int, Any]:
        return server.request(example.method, example.target(), example.body, raw=example.raw)

    return send
