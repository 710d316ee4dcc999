"""Labels that count (issue 42): what a verdict on the people rung costs in labels, and how
often it is wrong when the card is looked at after every label, for three queue orders.

    PYTHONPATH=src python benches/bench_labels.py [--seeds 100] [--fixed-seeds 20]
        [--judgebench ../shared/validation/judgebench] [--quick]

A simulated person (``judgegrid.testing.labelling_person``) answers the truth (synthetic: with
10% noise; the JudgeBench replay: the pair's known truth) one label at a time in a queue's
order and stops at the first verdict. Orders: uniform at random, today's preference queue, the
new queue (adaptive: once the leader beats chance, it draws where the leader and its open rivals
disagree; each draw's probability known before it). Rules: the anytime rule (betting; weighted
on the new queue, each draw within its own bounds) and the card's fixed-n rule. Figures and
goals:

- labels to a verdict: the new queue's median <= half of uniform's, at wrong pick <= 5%;
- wrong picks under peeking: the fixed-n rule's (measured) and the anytime rule's (<= 5%);
- bias of the accuracy figure at 60 labels: today's queue unweighted (measured), the new
  queue's first 60 draws weighted (|bias| <= 0.01, 95% interval coverage >= 93%);
- "about N more" at 30 labels against the labels it then took: median ratio in 0.67-1.5.

``--quick``: a smoke run for CI (a few seeds, the fixed-n rule looked at up to 20 labels).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, emit, load_average, verdict

from judgegrid.testing.labelling_person import (
    BIAS_GOAL,
    COVERAGE_GOAL,
    LABELS_GOAL,
    RATIO_GOAL,
    RULES,
    WRONG_PICK_GOAL,
    World,
    bank_worlds,
    replay_worlds,
    world_figures,
)

NAME = "labels"
DEFAULT_JUDGEBENCH = Path(__file__).resolve().parents[2] / "shared/validation/judgebench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--fixed-seeds", type=int, default=20, help="seeds the fixed-n rule runs")
    parser.add_argument("--fixed-budget", type=int, default=150, help="labels it is looked at")
    parser.add_argument("--judgebench", type=Path, default=DEFAULT_JUDGEBENCH)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 seeds, 1 fixed")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.fixed_seeds, args.fixed_budget = 3, 1, 20
    started = time.perf_counter()
    print(f"load average at start: {load_average()}", flush=True)
    worlds = bank_worlds()
    replays = replay_worlds(args.judgebench) if args.judgebench.is_dir() else []
    if not replays:
        print(f"no JudgeBench judge files in {args.judgebench}: the replay is left out")
    if args.quick:
        worlds, replays = worlds[:2], replays[:1]
    every = []
    for world in [*worlds, *replays]:
        figures = world_figures(world, range(args.seeds), args.fixed_seeds, args.fixed_budget)
        every.append(figures)
        _print_world(world, figures)
    rows = _results(pd.DataFrame(every))
    for row in rows:
        print(f"{row.figure}: {row.value} {row.unit} (goal {row.target or 'none'}) {row.verdict}")
    print(
        f"{args.seeds} seeds a world ({args.fixed_seeds} for the fixed-n rule), "
        f"{time.perf_counter() - started:.0f} s, load average {load_average()}"
    )
    emit(rows)


def _print_world(world: World, f: dict[str, object]) -> None:
    named = ", ".join(sorted(world.acceptable)) or "none"
    print(f"\n### {world.name} ({f['seeds']} seeds; may be named: {named})")
    table = [
        {
            "order": order,
            "rule": rule,
            "verdicts": f.get(f"{order} {rule}: verdicts"),
            "median labels": f.get(f"{order} {rule}: median labels"),
            "wrong pick": f.get(f"{order} {rule}: wrong pick"),
        }
        for order, rule in RULES
        if f"{order} {rule}: verdicts" in f
    ]
    truth = (world.picks == world.truth[:, None]).mean(axis=0)
    print(
        "each judge's accuracy on the run's pairs against the truth: "
        + ", ".join(f"{j} {a:.4f}" for j, a in zip(world.judges, truth, strict=True))
    )
    print(pd.DataFrame(table).to_markdown(index=False, floatfmt=".3f"))
    print(
        f"accuracy at 60 labels: today's bias {f['today bias']:+.3f}; new bias "
        f"{f['new bias']:+.4f}, coverage {f['new coverage']:.3f}; about-N ratio "
        f"{f['about-N ratio']:.2f} on {f['about-N cases']} runs",
        flush=True,
    )


def _results(table: pd.DataFrame) -> list[Row]:
    rows = []
    for _, f in table.iterrows():
        new, uniform = f["new anytime: median labels"], f["uniform anytime: median labels"]
        if math.isinf(new) and math.isinf(uniform):
            continue  # no verdict either way within the budget (equal or chance judges)
        ratio = new / uniform if math.isfinite(uniform) else 0.0
        ok = ratio <= LABELS_GOAL and f["new anytime: wrong pick"] <= WRONG_PICK_GOAL
        rows.append(
            Row(
                NAME,
                f"labels to a verdict, new / uniform median ({f['world']})",
                round(ratio, 3) if math.isfinite(new) else "no verdict",
                f"({new:.0f} / {uniform:.0f} labels)",
                f"<= {LABELS_GOAL} at wrong pick <= {WRONG_PICK_GOAL:.0%}",
                verdict(ok),
            )
        )
    for key, label in (("uniform fixed-n", "uniform order"), ("today fixed-n", "today's queue")):
        rows.append(
            Row(
                NAME,
                f"wrong picks under peeking, fixed-n rule, {label} (worst world)",
                round(float(table[f"{key}: wrong pick"].max()), 3),
                "",
                "measured",
                "",
            )
        )
    anytime = [f"{o} anytime: wrong pick" for o in ("uniform", "new")]
    worst = float(table[anytime].max().max())
    rows.append(
        Row(
            NAME,
            "wrong picks under peeking, anytime rule (worst world and order)",
            round(worst, 3),
            "",
            f"<= {WRONG_PICK_GOAL}",
            verdict(worst <= WRONG_PICK_GOAL),
        )
    )
    rows.append(
        Row(
            NAME,
            "bias of the accuracy figure, today's queue (largest |bias|)",
            round(float(table["today bias"].abs().max()), 3),
            "",
            "measured",
            "",
        )
    )
    bias = float(table["new bias"].abs().max())
    cover = float(table["new coverage"].min())
    rows.append(
        Row(
            NAME,
            "bias of the accuracy figure, new queue (largest |bias|)",
            round(bias, 4),
            "",
            f"<= {BIAS_GOAL}",
            verdict(bias <= BIAS_GOAL),
        )
    )
    rows.append(
        Row(
            NAME,
            "95% interval coverage, new queue (lowest)",
            round(cover, 3),
            "",
            f">= {COVERAGE_GOAL}",
            verdict(cover >= COVERAGE_GOAL),
        )
    )
    ratios = table["about-N ratio"].dropna()
    low, high = RATIO_GOAL
    for world, value in zip(table.loc[ratios.index, "world"], ratios, strict=True):
        rows.append(
            Row(
                NAME,
                f"about N more / realised, median ({world})",
                round(float(value), 2),
                "",
                f"in {low}-{high}",
                verdict(low <= value <= high),
            )
        )
    return rows


if __name__ == "__main__":
    main()
