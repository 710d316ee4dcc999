"""The runs behind the docs' pasted outputs (``doc_outputs.py``): the `judgegrid` command as a
user types it, in a clean environment, and the runs its outputs come from.

Two kinds of run:

- **the demo** (``model_matrices/local.yaml`` on the embedded models, what `make demo` runs):
  one run, minutes long, shared by every output that shows it. It is kept in ``DEMO_CACHE``
  with a digest of the sources it ran (``src/judgegrid`` and the matrix) and reused while they
  are unchanged; any change of the code makes the next `make docs-outputs` run it again.
- **stand-in runs**: a demo matrix whose judges are ``judgegrid.testing``'s fault-injection
  server with no fault planned (schema-valid answers read off each prompt, the same every
  time): seconds long, the same text on every machine.

Every command runs with the checkout's own code, no API key, an empty cross-run cache of its
own and a terminal of ``COLUMNS`` columns, in a folder where its run directories are
``reports/<stamp>-<name>``: what a user in a fresh clone sees, up to the stamp (``STAMP``).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "src") not in sys.path:  # the checkout's own code, as the commands run it
    sys.path.insert(0, str(ROOT / "src"))
COLUMNS = 80  # the terminal the docs' outputs are printed on: the same width on every machine
STAMP = "20261125-101500"  # every run directory's stamp as the docs show it
RUN_STAMP = re.compile(r"(?<=reports/)\d{8}-\d{6}(?=-)")
RUN_DIR_LINE = re.compile(r"^run directory: (?P<path>\S+)", re.MULTILINE)
DEMO_ARGS = ("run", "model_matrices/local.yaml", "--fail-under", "0.8")  # `make demo`
DEMO_CACHE = ROOT / "reports" / ".docs-demo"  # reports/* is never committed
DEMO_CODES = (0, 1)  # --fail-under 0.8: 0 while 80% of the cells scored, else 1
KEY_ENV = "DOCS_STAND_IN_KEY"  # the stand-in judges' key variable (any value will do)
# the checkout's folders that commands' relative paths name (model_matrices/…, docs/examples/…)
LINKED = ("model_matrices", "docs")


@dataclass(frozen=True)
class Said:
    """What a command printed and its exit code."""

    code: int
    out: str
    err: str

    @property
    def both(self) -> str:
        """Both streams, as a terminal shows them (what each says is on one of them alone)."""
        return self.out + self.err


def command_env(cache: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without keys and judgegrid's settings, the checkout's code first,
    offline, a cache of its own and a fixed terminal width."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("JUDGEGRID_")
    }
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT / "src"),
        PYTHONUNBUFFERED="1",
        HF_HUB_OFFLINE="1",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        JUDGEGRID_CACHE_DIR=str(cache),
        COLUMNS=str(COLUMNS),
        TERMINAL_WIDTH=str(COLUMNS),
    )
    env.update(extra or {})
    return env


def command_line(args: Sequence[str]) -> list[str]:
    """The console script of this interpreter's environment, as a user's shell finds it."""
    return [str(Path(sys.executable).parent / "judgegrid"), *args]


def shown(args: Sequence[str]) -> str:
    """A command as the docs show it typed."""
    return "$ " + shlex.join(["judgegrid", *args])


def link_checkout(folder: Path) -> None:
    """The checkout's folders in ``folder``, so a command's relative paths read as the docs
    type them."""
    for name in LINKED:
        link = folder / name
        if not link.exists():
            link.symlink_to(ROOT / name, target_is_directory=True)


def display(text: str) -> str:
    """A command's output as the docs show it: every run directory's stamp fixed."""
    return RUN_STAMP.sub(STAMP, text)


def digest_of_sources(more: Sequence[Path] = (ROOT / "model_matrices" / "local.yaml",)) -> str:
    """What the demo's output depends on: the package's files and the demo's matrix (or
    ``more`` files beside the package's)."""
    sha = hashlib.sha256()
    files = sorted(p for p in (ROOT / "src" / "judgegrid").rglob("*") if _source_file(p))
    for path in [*files, *more]:
        sha.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        sha.update(path.read_bytes() + b"\0")
    return sha.hexdigest()


def _source_file(path: Path) -> bool:
    return path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"


# -- the demo -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo:
    """A finished run of the demo: the folder it ran in, its directory there, what it printed."""

    folder: Path
    run_dir: Path  # relative to folder: reports/<stamp>-local
    out: str


def demo_from(folder: Path) -> Demo | None:
    """The demo kept in ``folder``, if it ran on the sources as they are now."""
    key, out = folder / "sources.sha256", folder / "stdout.txt"
    if not key.is_file() or key.read_text(encoding="utf-8").strip() != digest_of_sources():
        return None
    text = out.read_text(encoding="utf-8")
    return Demo(folder, run_dir_of(text), text)


def run_demo(folder: Path) -> Demo:
    """Run the demo in ``folder`` (emptied first) as `make demo` does; minutes on two cores."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    link_checkout(folder)
    key = digest_of_sources()  # before the run: a change made while it runs is not in it
    said = run_command(DEMO_ARGS, folder, folder / "cache", expect=DEMO_CODES)
    (folder / "stdout.txt").write_text(said.out, encoding="utf-8")
    (folder / "sources.sha256").write_text(key + "\n", encoding="utf-8")
    return Demo(folder, run_dir_of(said.out), said.out)


def run_dir_of(out: str) -> Path:
    """The run directory `judgegrid run` named."""
    found = RUN_DIR_LINE.search(out)
    if found is None:
        raise RuntimeError(f"judgegrid run named no run directory:\n{out}")
    return Path(found.group("path"))


# -- commands -------------------------------------------------------------------------------------


def run_command(
    args: Sequence[str],
    cwd: Path,
    cache: Path,
    expect: Sequence[int] = (0,),
    extra_env: Mapping[str, str] | None = None,
) -> Said:
    """Run `judgegrid ARGS` in ``cwd``; an exit code other than ``expect`` is an error here, so
    an output never shows a refusal or a crash where the docs mean a success (or the reverse)."""
    done = subprocess.run(
        command_line(args),
        cwd=cwd,
        env=command_env(cache, extra_env),
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if done.returncode not in expect:
        raise RuntimeError(
            f"judgegrid {shlex.join(args)} in {cwd}: exit {done.returncode}, expected "
            f"{list(expect)}\n{done.stdout}\n{done.stderr}"
        )
    return Said(done.returncode, done.stdout, done.stderr)


@contextmanager
def started(
    args: Sequence[str],
    cwd: Path,
    cache: Path,
    until: str | None,
    extra_env: Mapping[str, str] | None = None,
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`judgegrid ARGS` started: the process and what it printed up to the first line holding
    ``until`` (None: nothing read); it is stopped (by its own id) when the block ends."""
    process = subprocess.Popen(
        command_line(args),
        cwd=cwd,
        env=command_env(cache, extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process, "" if until is None else _read_until(process, until)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _read_until(process: subprocess.Popen[str], until: str) -> str:
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)
        if until in line:
            return "".join(lines)
    raise RuntimeError(f"{process.args!r} ended before printing {until!r}:\n{''.join(lines)}")


# -- stand-in runs -------------------------------------------------------------------------------


def stand_in_matrix(source: Path, url: str, **changes: Any) -> dict[str, Any]:
    """A demo matrix with its judges (and embedding models) replaced by stand-ins on the
    fault-injection server at ``url``; the data set's path made absolute."""
    matrix = yaml.safe_load(source.read_text(encoding="utf-8"))
    options = {"api-base": url, "api-key-env": KEY_ENV}
    matrix["judges"] = [
        {"id": f"openai/judge-{c}", "label": f"judge-{c}", "options": options} for c in "ab"
    ]
    if matrix.get("embeddings"):
        matrix["embeddings"] = [
            {"id": "openai/embed", "label": "embed", "dimensions": [64], "options": options}
        ]
    dataset = matrix.get("dataset")
    if isinstance(dataset, str) and dataset != "demo":
        matrix["dataset"] = str((source.parent / dataset).resolve())
    matrix.update(changes)
    return matrix


def write_yaml(path: Path, data: Mapping[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True))
    return path


def temporary_folder(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
