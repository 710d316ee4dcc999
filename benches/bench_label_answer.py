"""What a person waits for after each answer on ``judgegrid label``'s page, on a large run.

    PYTHONPATH=src python benches/bench_label_answer.py [--sizes 500,2000,5000] [--judges 4]
        [--labels 20,100,300] [--answers 20] [--repeats 7] [--batch B]
        [--baseline OTHER/src] [--profile] [--keep DIR]

After every answer the page POSTs ``/api/label``; the server stores the label and replies with
the metric's state line (``analyses.label_state_of``: the anytime rule of
``decision.anytime``, "about N more" projected when no verdict has come), which the person
reads before the next sample shows. On a run of a few thousand samples with a few hundred
labels that reply is the wait between two answers.

The run: a scripted run (the test suite's scripted judge, ``judgegrid.api.run_grid``) of
faithfulness on ``--sizes`` samples and ``--judges`` judges, each judge's pass/fail then set to
agree with a fixed truth on 85%, 80%, 75%, 70% of the samples (close judges: no verdict at a
few hundred labels, so every answer projects "about N more"). Per size and ``--labels`` L, the
page's own queue (``judgegrid label``'s default: all ``--n`` drawn at once) draws L samples and
a person's L labels are stored; then, in a process of its own per checkout:

(a) the label state of the metric, from the frames the page reads, ``--repeats`` times
    (median): the analyses' share of the wait (and, once, the session opened: the queue built
    before the page is served, what ``judgegrid label`` takes to start);
(b) ``--answers`` answers through the real page: a session of ``--n`` answers (``--batch B``:
    drawn B at a time, the next batch drawn from the adaptive design inside the answer that
    ends a batch), the server started on 127.0.0.1 port 0 as ``judgegrid label`` starts it,
    each answer a POST of ``/api/label`` with the token header, its reply carrying the state
    line (median and p90 of the answers' wall time).

``--baseline`` times another checkout's ``src`` (``git archive``) on the same runs, case for
case in turn with this one; the ratio is taken in this one run, and the state lines the two
gave are compared (a faster rule must say the same words). ``--profile``: cProfile of the
server's thread over the answers of the largest case (a run of its own, after the timed ones),
the top functions by cumulative time. ``--keep DIR`` keeps the built runs there and reuses
them (building 5,000 samples takes minutes).
Figures only: no target, no timed assertion anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1] / "tests"),
    str(Path(__file__).parent),
]

import numpy as np  # noqa: E402
import yaml  # noqa: E402
from aiohttp import web  # noqa: E402
from common import ROOT, Row, bench_environment, emit, load_average  # noqa: E402

import judgegrid  # noqa: E402
from conftest import matrix_dict  # noqa: E402
from judgegrid import run_grid  # noqa: E402
from judgegrid.analyses import RunFacts, label_state_of  # noqa: E402
from judgegrid.api import LabelSession, SessionAsk, open_label_session  # noqa: E402
from judgegrid.core.records import Label  # noqa: E402
from judgegrid.labels import page  # noqa: E402
from judgegrid.labels.files import human_labels  # noqa: E402
from judgegrid.store.run_db import RunStore  # noqa: E402
from support import scripted  # noqa: E402
from support.servers import LabelServer, in_thread  # noqa: E402

NAME = "label-answer"
METRIC = "faithfulness"
AGREEMENT = (
    0.85,
    0.80,
    0.75,
    0.70,
)  # each judge's share of samples agreeing with the truth
SEED = 7
ANNOTATOR = "bench"


def truth_of(sample_id: str) -> float:
    """The person's label of a sample, fixed by its id: pass on a sample whose hash is odd."""
    return float(int(sample_id[1:]) * 2654435761 % 97 % 2)


def build_run(root: Path, samples: int, judges: int) -> Path:
    """The scripted run of ``samples`` samples and ``judges`` judges, its scores then set."""
    scripted.register()
    scripted.SCRIPT.reset()
    data = root / "data.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"s{k:05d}",
                    "user_input": f"Which river runs through city number {k}?",
                    "response": f"The river of city {k} is the Nile.",
                    "retrieved_contexts": [f"City {k} lies on the Nile."],
                }
            )
            + "\n"
            for k in range(samples)
        )
    )
    names = [chr(ord("a") + j) for j in range(judges)]
    settings = matrix_dict(
        dataset=str(data),
        metrics=[METRIC],
        embeddings=[],
        strictness=[1],
        repeats=1,
        judges=[{"id": f"scripted/judge-{n}", "label": n} for n in names],
        concurrency={"total": 64, "per_model": 16},
    )
    matrix = root / "m.yaml"
    matrix.write_text(yaml.safe_dump(settings))
    run_dir = run_grid(matrix, run_dir=root / "run").run_dir
    rng = np.random.default_rng(SEED)
    rows = []
    for j, name in enumerate(names):
        agree = rng.random(samples) < AGREEMENT[j % len(AGREEMENT)]
        for k in range(samples):
            sid = f"s{k:05d}"
            truth = truth_of(sid)
            rows.append((truth if agree[k] else 1.0 - truth, sid, name, METRIC))
    db = sqlite3.connect(run_dir / "run.sqlite")
    db.executemany(
        "UPDATE scores SET score = ? WHERE sample_id = ? AND judge = ? AND metric = ?",
        rows,
    )
    db.commit()
    db.close()
    return run_dir


def labelled_copy(run_dir: Path, target: Path, labels: int) -> Path:
    """A copy of ``run_dir`` where the page's queue drew ``labels`` samples (stored as the
    server stores them on start) and the person answered them."""
    shutil.copytree(run_dir, target)
    session = open_label_session(target, ANNOTATOR, [METRIC], SessionAsk(n=labels))
    with in_thread(page.serve, session):
        pass  # the draws are stored when the page is made, as `judgegrid label` makes it
    start = time.time()
    given = [
        Label(
            item.sample_id,
            METRIC,
            ANNOTATOR,
            truth_of(item.sample_id),
            labelled_at=start + t / 1000,
        )
        for t, item in enumerate(session.queue)
    ]
    store = RunStore(target / "run.sqlite")
    store.write_labels(given)
    store.close()
    return target


def child(
    run_dir: Path, answers: int, repeats: int, batch: int | None, profile: bool
) -> dict[str, object]:
    """(a) and (b) on ``run_dir`` with the code on this process's path (a copy: the answers
    are stored)."""
    work = Path(tempfile.mkdtemp(prefix="bench-answer-")) / "run"
    shutil.copytree(run_dir, work)
    ask = SessionAsk(n=answers, batch=batch)
    start = time.perf_counter()
    session = open_label_session(work, ANNOTATOR, [METRIC], ask)
    opened = time.perf_counter() - start
    store = RunStore(work / "run.sqlite")
    stored = store.labels_frame()
    frame = human_labels(stored, session.sample_info, session.criteria.values(), skips=True)
    facts = RunFacts(sample_info=session.sample_info, criteria=session.criteria)
    draws = store.draws_frame()
    state_s = []
    line = None
    for _ in range(repeats):
        start = time.perf_counter()
        found = label_state_of(METRIC, session.scores, frame, draws, facts)
        state_s.append(time.perf_counter() - start)
        line = found.words(True) if found is not None else ""
    figures: dict[str, object] = {
        "state_s": state_s,
        "line": line,
        "code": judgegrid.__file__,
        "open_s": opened,
    }
    store.close()
    answer_s = []
    lines = []
    profiler = Served(cProfile.Profile() if profile else None)
    with in_thread(profiler.serve, session) as (runner, port):
        server = LabelServer(session, port, runner)
        for asked in range(answers):
            item = session.queue[asked]  # a batch's answer may draw the next batch
            start = time.perf_counter()
            status, reply = server.label(item.sample_id, METRIC, value=truth_of(item.sample_id))
            answer_s.append(time.perf_counter() - start)
            if status != 200:
                raise SystemExit(f"the page answered {status}: {reply}")
            lines.append(str(reply["state"]))
        figures["profile"] = profiler.stop()
    shutil.rmtree(work.parent)
    return figures | {"answer_s": answer_s, "lines": lines}


@dataclass
class Served:
    """The page served as ``judgegrid label`` serves it, and, with a profiler, what its thread
    does from its start on (the answers) until ``stop``: the server's own thread, where the
    answers are handled, which a profiler of the bench's thread would not see."""

    profiler: cProfile.Profile | None
    loop: asyncio.AbstractEventLoop | None = None

    async def serve(self, session: LabelSession, port: int) -> tuple[web.AppRunner, int]:
        started = await page.serve(session, port)
        self.loop = asyncio.get_running_loop()
        if self.profiler is not None:
            self.profiler.enable()
        return started

    def stop(self) -> str:
        """The profile's top functions by cumulative time ("" without a profiler)."""
        if self.profiler is None or self.loop is None:
            return ""
        profiler = self.profiler

        async def disable() -> None:
            profiler.disable()

        asyncio.run_coroutine_threadsafe(disable(), self.loop).result(10)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(32)
        return out.getvalue()


def run_child(
    src: Path,
    run_dir: Path,
    args: argparse.Namespace,
    answers: int,
    repeats: int,
    profile: bool,
) -> dict[str, object]:
    env = dict(os.environ) | {
        "PYTHONPATH": os.pathsep.join([str(src), str(ROOT / "tests"), str(ROOT / "benches")])
    }
    command = [
        sys.executable,
        __file__,
        "--child",
        str(run_dir),
        "--answers",
        str(answers),
    ]
    command += ["--repeats", str(repeats)] + (["--profile"] if profile else [])
    command += ["--batch", str(args.batch)] if args.batch else []
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-4000:])
        raise SystemExit(f"the child on {src} failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,5000")
    parser.add_argument("--judges", type=int, default=4)
    parser.add_argument("--labels", default="20,100,300")
    parser.add_argument("--answers", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--batch", type=int, help="the page's --batch (default: all at once)")
    parser.add_argument("--baseline", type=Path, help="another checkout's src, timed in turn")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the built runs here")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.answers, args.repeats, args.batch, args.profile)))
        return
    bench_environment()
    sizes = [int(s) for s in args.sizes.split(",")]
    label_counts = [int(s) for s in args.labels.split(",")]
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-label-answer-"))
    print(f"load average at start: {load_average()}")
    cases = []
    for size in sizes:
        base = root / f"n{size}-j{args.judges}"
        if not (base / "run" / "run.sqlite").exists():
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir(parents=True)
            start = time.perf_counter()
            build_run(base, size, args.judges)
            took = time.perf_counter() - start
            print(f"built {size:,} samples x {args.judges} judges in {took:.0f} s")
        for labels in label_counts:
            copy = root / f"n{size}-j{args.judges}-l{labels}"
            if not (copy / "run.sqlite").exists():
                shutil.rmtree(copy, ignore_errors=True)
                labelled_copy(base / "run", copy, labels)
            cases.append((size, labels, copy))
    checkouts = {"this": ROOT / "src"} | ({"baseline": args.baseline} if args.baseline else {})
    found: dict[tuple[str, int, int], dict[str, object]] = {}
    for size, labels, copy in cases:  # case for case, each checkout in turn
        for name, src in checkouts.items():
            found[name, size, labels] = run_child(
                src, copy, args, args.answers, args.repeats, False
            )
    first = cases[0][:2]
    for name in checkouts:
        print(f"{name}: {found[(name, *first)]['code']}")
    rows = report(found, cases, checkouts, args)
    if args.profile:
        size, labels, copy = max(cases)
        for name, src in checkouts.items():
            profile = run_child(src, copy, args, args.answers, 1, True)["profile"]
            print(
                f"\ncProfile of the page's thread over {args.answers} answers, {name}, "
                f"{size:,} samples, {labels} labels:"
            )
            print(profile)
    print(f"load average at end: {load_average()}")
    emit(rows)


def report(
    found: dict[tuple[str, int, int], dict[str, object]],
    cases: list[tuple[int, int, Path]],
    checkouts: dict[str, Path],
    args: argparse.Namespace,
) -> list[Row]:
    """The figures printed, a line per case and checkout, and as RESULT rows; with a baseline,
    this checkout's medians over the baseline's and whether every state line was the same."""
    rows = []
    print(
        f"\n{args.judges} judges, faithfulness; (a) label state, median of {args.repeats}; "
        f"(b) one answer through the page, median and p90 of {args.answers}"
        + (f", drawn {args.batch} at a time" if args.batch else "")
    )
    for size, labels, _ in cases:
        for name in checkouts:
            got = Timed.of(found[name, size, labels])
            print(
                f"{name:>8} {size:>6,} samples {labels:>4} labels: (a) {got.state * 1000:6.1f} ms"
                f"   (b) {got.answer * 1000:6.1f} ms, p90 {got.late * 1000:6.1f} ms, "
                f"max {max(got.answer_s) * 1000:6.0f} ms   opened in {got.open_s:5.2f} s"
                f"   {got.last}"
            )
            key = f"{name}, {size} samples, {labels} labels"
            rows += [
                Row(NAME, f"label state, {key}", round(got.state * 1000, 1), "ms"),
                Row(NAME, f"answer median, {key}", round(got.answer * 1000, 1), "ms"),
                Row(NAME, f"answer p90, {key}", round(got.late * 1000, 1), "ms"),
                Row(NAME, f"answer max, {key}", round(max(got.answer_s) * 1000, 1), "ms"),
                Row(NAME, f"session opened, {key}", round(got.open_s, 2), "s"),
            ]
        if "baseline" in checkouts:
            rows += compared(
                Timed.of(found["this", size, labels]),
                Timed.of(found["baseline", size, labels]),
                f"{size} samples, {labels} labels",
            )
    return rows


@dataclass(frozen=True)
class Timed:
    """One child's figures: (a)'s times and line, (b)'s times and the line after each answer."""

    state_s: list[float]
    line: str
    answer_s: list[float]
    lines: list[str]
    open_s: float  # the session opened (the queue built), before the page is served

    @classmethod
    def of(cls, found: dict[str, object]) -> Timed:
        keys = ("state_s", "line", "answer_s", "lines", "open_s")
        return cls(**{k: found[k] for k in keys})  # type: ignore[arg-type]

    @property
    def state(self) -> float:
        return statistics.median(self.state_s)

    @property
    def answer(self) -> float:
        return statistics.median(self.answer_s)

    @property
    def late(self) -> float:
        return p90(self.answer_s)

    @property
    def last(self) -> str:
        return self.lines[-1] if self.lines else ""


def compared(this: Timed, base: Timed, case: str) -> list[Row]:
    """This checkout over the baseline on one case, and whether they said the same words."""
    same = this.line == base.line and this.lines == base.lines
    state, answer = this.state / base.state, this.answer / base.answer
    print(
        f"{'':>8} this / baseline: (a) {state:.2f}, (b) {answer:.2f}; "
        f"the same {len(this.lines) + 1} state lines: {'yes' if same else 'NO'}"
    )
    return [
        Row(NAME, f"label state, this / baseline, {case}", round(state, 2)),
        Row(NAME, f"answer median, this / baseline, {case}", round(answer, 2)),
        Row(NAME, f"same state lines as the baseline, {case}", "yes" if same else "NO"),
    ]


if __name__ == "__main__":
    main()
