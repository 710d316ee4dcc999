"""The long fuzz campaign of issues 31 and 39: generated bad inputs through the CLI, the Python
API and the view's and labelling page's HTTP APIs (``tests/support/fuzz_targets.py``), and YAML
as YAML, colliding output paths, the environment and secrets in written fields
(``tests/support/fuzz_files.py``), each with its properties.

    PYTHONPATH=src python benches/fuzz.py --examples 5000
        [--targets cli,api,view,label,cli-yaml,cli-paths,cli-env,cli-secrets]
        [--seed 0] [--minutes M] [--findings FILE]

``--examples`` is per target. The CLI runs in this process (the console script's ``main`` with
its exit code caught), so an example costs a few hundred milliseconds, not a Python start-up.
Prints, per target, the examples run, the examples that broke a property, and the classes of
failure (the exception and where it was raised, or the property and the command) with a count
and the smallest reproducer seen of each; ``--findings`` writes the same as Markdown.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benches")]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("JUDGEGRID_CACHE_DIR", tempfile.mkdtemp(prefix="judgegrid-fuzz-cache-"))

from common import Row, emit  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from support import fuzz_files as files  # noqa: E402
from support import fuzz_targets as targets  # noqa: E402

TARGETS = ("cli", "api", "view", "label", "cli-yaml", "cli-paths", "cli-env", "cli-secrets")
# the targets over a copy of a finished run, each example in a sandbox of its own
RUN_TARGETS: dict[
    str, tuple[Callable[[], st.SearchStrategy[Any]], Callable[[Any, Path], list[Any]]]
] = {
    "api": (targets.api_examples, targets.check_api),
    "cli-paths": (files.path_examples, files.check_paths),
    "cli-env": (files.env_examples, files.check_env),
    "cli-secrets": (files.secret_examples, files.check_secrets),
}
PROGRESS_EVERY = 100


class OutOfTime(BaseException):
    """The target's --minutes are spent (a BaseException: Hypothesis lets it through)."""


@dataclass
class Tally:
    """One target's examples, the failing ones, and each failure class's count and smallest
    reproducer."""

    target: str
    examples: int = 0
    failing: int = 0
    seconds: float = 0.0
    classes: dict[str, list[Any]] = field(default_factory=dict)  # class → [count, Failure]
    interrupted: bool = False

    def add(self, failures: list[targets.Failure]) -> None:
        self.examples += 1
        self.failing += bool(failures)
        for failure in failures:
            if failure.klass not in self.classes:  # said at once: a long campaign loses nothing
                print(f"  {self.target}: new class at example {self.examples}: {failure.klass}\n"
                      f"      {failure.detail[:200]}\n      reproducer: {failure.reproducer[:600]}",
                      file=sys.stderr, flush=True)  # fmt: skip
            seen = self.classes.setdefault(failure.klass, [0, failure])
            seen[0] += 1
            if len(failure.reproducer) < len(seen[1].reproducer):
                seen[1] = failure

    def lines(self) -> list[str]:
        rate = self.examples / self.seconds if self.seconds else 0.0
        head = (
            f"{self.target}: {self.examples} examples in {self.seconds:.0f} s "
            f"({rate:.1f}/s), {self.failing} failing, {len(self.classes)} classes"
            + (" (stopped early)" if self.interrupted else "")
        )
        body = []
        for klass, (count, failure) in sorted(self.classes.items(), key=lambda kv: -kv[1][0]):
            body += [
                f"  [{count}] {klass}",
                f"      {failure.detail[:200]}",
                f"      reproducer: {failure.reproducer[:600]}",
            ]
        return [head, *body]


def campaign(
    tally: Tally,
    examples: st.SearchStrategy[Any],
    check: Callable[[Any], list[Any]],
    n: int,
    number: int,
    minutes: float | None = None,
) -> None:
    """``n`` examples of ``examples``, each checked; failures counted, never raised (the
    campaign goes on past them)."""

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(examples)
    def one(example: Any) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
        try:
            failures = check(example)
        except targets.Hang as exc:
            failures = [targets.Failure("hang", tally.target, str(exc), str(example))]
        tally.add(failures)
        if tally.examples % PROGRESS_EVERY == 0:
            print(f"  {tally.target}: {tally.examples} examples, {tally.failing} failing, "
                  f"{len(tally.classes)} classes", file=sys.stderr, flush=True)  # fmt: skip

    start = time.monotonic()
    deadline = start + minutes * 60 if minutes else None
    try:
        seed(number)(one)()
    except (KeyboardInterrupt, OutOfTime):  # Ctrl-C or --minutes: the counts so far
        tally.interrupted = True
    tally.seconds = time.monotonic() - start
    print("\n".join(tally.lines()), flush=True)


def run_targets(names: list[str], n: int, seed: int, minutes: float | None) -> list[Tally]:
    tallies = []
    work = Path(tempfile.mkdtemp(prefix="judgegrid-fuzz-base-"))
    base_run = targets.finished_run(work) if set(names) - {"cli", "cli-yaml"} else None
    for name in names:
        if name == "cli":
            tallies.append(Tally("cli"))
            campaign(tallies[-1], targets.cli_examples(), targets.check_cli, n, seed, minutes)
        elif name == "cli-yaml":
            tallies.append(Tally(name))
            campaign(tallies[-1], files.yaml_examples(), files.check_yaml, n, seed, minutes)
        elif name in RUN_TARGETS:
            assert base_run is not None
            examples, check = RUN_TARGETS[name]
            tallies.append(Tally(name))
            campaign(tallies[-1], examples(), lambda ex, c=check: c(ex, base_run), n, seed, minutes)
    http = [t for t in names if t in ("view", "label")]
    if http:
        assert base_run is not None
        with targets.http_targets(base_run) as running:
            for target in running:
                if target.name in http:
                    tallies.append(Tally(target.name))
                    send = target.send
                    campaign(
                        tallies[-1],
                        target.examples,
                        lambda ex, s=send: targets.check_http(ex, s),
                        n,
                        seed,
                        minutes,
                    )
    return tallies


def markdown(tallies: list[Tally], n: int, seed: int) -> str:
    lines = [f"# Fuzz campaign: `benches/fuzz.py --examples {n} --seed {seed}`", ""]
    for tally in tallies:
        lines += ["```", *tally.lines(), "```", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200, help="examples per target")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--hang-seconds",
        type=float,
        default=targets.EXAMPLE_SECONDS,
        help="an example still running after this is counted as a hang",
    )
    parser.add_argument(
        "--minutes", type=float, default=None, help="stop each target after this long"
    )
    parser.add_argument(
        "--findings", type=Path, default=None, help="write the classes here (Markdown)"
    )
    args = parser.parse_args()
    names = [t for t in args.targets.split(",") if t]
    unknown = set(names) - set(TARGETS)
    if unknown:
        parser.error(f"unknown target {sorted(unknown)[0]}; known: {', '.join(TARGETS)}")
    targets.EXAMPLE_SECONDS = args.hang_seconds
    tallies = run_targets(names, args.examples, args.seed, args.minutes)
    if args.findings:
        args.findings.write_text(markdown(tallies, args.examples, args.seed), encoding="utf-8")
    rows = []
    for tally in tallies:
        rows += [
            Row("fuzz", f"{tally.target}: examples", tally.examples),
            Row(
                "fuzz",
                f"{tally.target}: failing examples",
                tally.failing,
                target="0",
                verdict="met" if tally.failing == 0 else "MISSED",
            ),
            Row("fuzz", f"{tally.target}: failure classes", len(tally.classes), target="0"),
            Row("fuzz", f"{tally.target}: time", round(tally.seconds, 1), "s"),
        ]
    emit(rows)


if __name__ == "__main__":
    main()
