"""Labels that count (issue 42): what a verdict on the people rung costs in labels, and how
often it is wrong when the card is looked at after every label, for three queue orders.

    PYTHONPATH=src python benches/bench_labels.py [--seeds 100] [--fixed-seeds 20]
        [--bias-seeds 800] [--judgebench ../shared/validation/judgebench] [--quick]
        [--plot PATH] [--floors] [--margin M] [--people 2,3] [--session 20]

A simulated person (``judgegrid.testing.labelling_person``) answers the truth (synthetic: with
10% noise; the JudgeBench replay: the pair's known truth) one label at a time in a queue's
order and stops at the first verdict. In a synthetic world each person labels a run of their
own, the scenario drawn anew (``person_world``: a wrong pick by the scenario is then one over
many runs, as users meet it); the replay is JudgeBench's one set of pairs. Orders, each pair
labelled at most once: uniform at random (a random permutation of the run's pairs), today's
preference queue (disagreements first, unweighted), the new queue (the product's labelling
queue since issue 42's commit 56c32c7: adaptive, once the leader beats chance it draws where
the leader and its open rivals disagree; drawn without replacement, each label weighted by its
kind, ``p_x / rho_t(x)``, and its tests filled in for the kinds all labelled). Rules: the
anytime rule (betting; weighted on the new queue, each draw within its own bounds) and the
card's fixed-n rule. Figures and goals:

- labels to a verdict: the new queue's median <= half of uniform's, at wrong pick <= 5%;
- wrong picks under peeking: the fixed-n rule's (measured) and the anytime rule's (<= 5%), the
  latter also judged on the person's own answers over the run (what the rule tests: a noisy
  person makes two judges equal in the scenario differ a little on the run);
- bias of the accuracy figure at 60 labels: today's queue unweighted (measured), the new
  queue's first 60 labels weighted as the product weighs them (Hansen-Hurwitz about chance, its
  t interval; |bias| <= 0.01 against the run's accuracy, 95% interval coverage >= 93%), on
  queues of its own (``--bias-seeds`` a world, the queue run to 60 labels only: with the
  people's 100 its standard error, about 0.01, could not tell 0.01 from 0), said with its
  standard error;
- "about N more" at 30 labels (``labels_to_come``: a label a draw, within the pairs left)
  against the labels it then took: median ratio in 0.67-1.5.

``--quick``: a smoke run for CI (a few seeds, 20 bias queues, the fixed-n rule looked at up to
20 labels).
``--plot PATH``: instead of the tables, the picture docs/labels.md shows: per world, the share
of people with a verdict of the anytime rule against the labels they gave, one line per order
(an empirical distribution function of labels to a verdict, cut at the budget), the wrong picks
dotted beneath; a PNG at PATH.
``--floors``: instead of the tables, the floors under the goals (``testing.label_floors``), per
world: the full rule in uniform order and the new queue (as above, without replacement); (a)
the paired tests alone in uniform order (chance given free); (b) an oracle queue told the
truly best judge, drawing only where it differs from a rival with the best fixed design over
the kinds of sample (chance given free); (b'') the same oracle with the chance test required
(its design scaled by 1 - s, s uniform over where the best agrees with every rival), s
scanned, one share or two phases (s1 until chance rejects, then s2), fixed and dropping
beaten rivals (on the world as drawn once, whose kinds
the oracle reads; the oracles draw *with* replacement, weighted by their own probabilities:
the floors of the rule the new queue followed before it drew without replacement, not of the
product's queue); and on the equal judges, (c) the anytime rule's wrong picks at the person's
noise 0, 0.05 and 0.10, each person's own run beside one run drawn once for all. ``FLOOR``
lines, not ``RESULT`` lines: they are no goals' verdicts.
``--margin M``: instead of the tables, the anytime rule under a non-inferiority margin M (the
card's ``decision: {margin}``: every judge shown at most M below each other and above chance),
per world and order: the share of people with a verdict, the median labels to it and the wrong
picks (a judge shown that is in truth more than M below the best, or at chance: ``acceptable``
lists the judges that are not); ``MARGIN`` lines, measured, the wrong picks against 5%.
``--people 2,3``: instead of the tables, several people labelling one run
(``testing.labelling_people``): one person alone and each number of people in turns, each
drawing ``--session`` (the page's ``--n``, 20) at a time from a pool of their own and from one
pool shared by all; per world the verdicts, median labels, wrong picks (by the scenario and on
the answers) and the share of the draws read that were repeats; ``PEOPLE`` lines, each number
of people against the goal of at most 5% wrong picks.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, emit, load_average, verdict, verdict_rows

from judgegrid.testing.label_floors import NOISES, best_share, floor_figures, wrong_picks
from judgegrid.testing.labelling_people import SESSION, crowd_figures, crowds_of
from judgegrid.testing.labelling_person import (
    BIAS_GOAL,
    BIAS_SEEDS,
    BUDGET,
    COVERAGE_GOAL,
    LABELS_GOAL,
    ORDERS,
    RATIO_GOAL,
    RULES,
    WRONG_PICK_GOAL,
    World,
    bank_worlds,
    label_person,
    margin_figures,
    person_world,
    replay_worlds,
    world_figures,
)

NAME = "labels"
DEFAULT_JUDGEBENCH = Path(__file__).resolve().parents[2] / "shared/validation/judgebench"
MIN_PROJECTIONS = 10  # people with a projection below which "about N more" is not judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--fixed-seeds", type=int, default=20, help="seeds the fixed-n rule runs")
    parser.add_argument("--fixed-budget", type=int, default=150, help="labels it is looked at")
    parser.add_argument(
        "--bias-seeds",
        type=int,
        default=BIAS_SEEDS,
        help="adaptive queues a world the weighted accuracy's bias and coverage rest on",
    )
    parser.add_argument("--judgebench", type=Path, default=DEFAULT_JUDGEBENCH)
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 3 seeds, 1 fixed, 20 bias queues"
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="PATH",
        help="draw labels to a verdict per world and order (PNG) instead of the tables",
    )
    parser.add_argument(
        "--floors",
        action="store_true",
        help="measure the floors under the labels goals (FLOOR lines) instead of the tables",
    )
    parser.add_argument(
        "--margin",
        type=float,
        metavar="M",
        help="the anytime rule under a non-inferiority margin M (MARGIN lines) instead",
    )
    parser.add_argument(
        "--people",
        type=_whole_numbers,
        metavar="2,3",
        help="several people labelling one run (PEOPLE lines) instead of the tables",
    )
    parser.add_argument(
        "--session", type=int, default=SESSION, help="draws a person makes at a time (--people)"
    )
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.fixed_seeds, args.fixed_budget, args.bias_seeds = 3, 1, 20, 20
    started = time.perf_counter()
    print(f"load average at start: {load_average()}", flush=True)
    worlds = bank_worlds()
    replays = replay_worlds(args.judgebench) if args.judgebench.is_dir() else []
    if not replays:
        print(f"no JudgeBench judge files in {args.judgebench}: the replay is left out")
    if args.quick:
        worlds, replays = worlds[:2], replays[:1]
    if args.plot is not None:
        plot_labels_to_verdict([*worlds, *replays], range(args.seeds), args.plot)
        print(
            f"wrote {args.plot}, {time.perf_counter() - started:.0f} s, "
            f"load average {load_average()}"
        )
        return
    if args.margin is not None:
        print_margin(worlds, replays, args.margin, range(args.seeds))
        print(
            f"{args.seeds} seeds a world, {time.perf_counter() - started:.0f} s, "
            f"load average {load_average()}"
        )
        return
    if args.people:
        print_people(worlds, range(args.seeds), args.people, args.session)
        print(
            f"{args.seeds} seeds a world, {time.perf_counter() - started:.0f} s, "
            f"load average {load_average()}"
        )
        return
    if args.floors:
        print_floors(worlds, replays, range(args.seeds))
        print(
            f"{args.seeds} seeds a world, {time.perf_counter() - started:.0f} s, "
            f"load average {load_average()}"
        )
        return
    every = []
    for world in [*worlds, *replays]:
        figures = world_figures(
            world, range(args.seeds), args.fixed_seeds, args.fixed_budget, range(args.bias_seeds)
        )
        every.append({**figures, "has a best": bool(world.acceptable)})
        _print_world(world, figures)
    rows = _results(pd.DataFrame(every))
    for row in rows:
        print(f"{row.figure}: {row.value} {row.unit} (goal {row.target or 'none'}) {row.verdict}")
    print(
        f"{args.seeds} seeds a world ({args.fixed_seeds} for the fixed-n rule, "
        f"{args.bias_seeds} queues for the new queue's bias), "
        f"{time.perf_counter() - started:.0f} s, load average {load_average()}"
    )
    emit(rows)


def _whole_numbers(text: str) -> list[int]:
    """``--people``'s comma-separated numbers of people."""
    return [int(part) for part in text.split(",") if part.strip()]


PEOPLE_COLUMNS = ["crowd", "verdicts", "median labels", "wrong pick", "wrong on answers", "repeats"]


def print_people(worlds: list[World], seeds: range, people: list[int], session: int) -> None:
    """Per synthetic world, one person alone and each number of ``people`` with their own pools
    and a shared one (``labelling_people``): a table, and a PEOPLE line a crowd."""
    crowds = crowds_of(people, session)
    for world in worlds:
        rows = crowd_figures(world, seeds, crowds)
        print(f"\n### {world.name} ({len(seeds)} seeds, sessions of {session} draws)")
        print(pd.DataFrame(rows)[PEOPLE_COLUMNS].to_markdown(index=False, floatfmt=".3f"))
        for row in rows:
            mark = "" if row["wrong pick"] <= WRONG_PICK_GOAL else " MISSED"
            print(
                f"PEOPLE {world.name}, {row['crowd']}: wrong picks {row['wrong pick']:.3f} by "
                f"the scenario (goal <= {WRONG_PICK_GOAL}){mark}, "
                f"{row['wrong on answers']:.3f} on the answers; verdicts {row['verdicts']:.2f}, "
                f"median labels {row['median labels']:g}; repeats {row['repeats']:.3f} of the "
                "draws read",
                flush=True,
            )


FLOOR_ROWS = {  # the floors table's rows: the key in floor_figures and its words
    "uniform": "uniform order, full rule",
    "new": "new queue, full rule",
    "paired alone": "(a) uniform order, paired tests alone (chance free)",
    "oracle": "(b) oracle queue, fixed best design, best's paired tests (chance free)",
    "oracle dropping": "(b') the same oracle, dropping each rival once beaten",
}
EQUAL = "pairs: two equally good judges"


def print_floors(worlds: list[World], replays: list[World], seeds: range) -> None:
    """Per world the floors table and its FLOOR line; then, on the equal judges, the anytime
    rule's wrong picks at each of the person's noise levels (``NOISES``)."""
    people_at: dict[float, list] = {}
    for world in [*worlds, *replays]:
        people = [label_person(world, seed, fixed=0) for seed in seeds]
        if world.name == EQUAL:
            people_at[world.noise] = people
        figures = floor_figures(world, seeds, people)
        print(f"\n### {world.name} ({len(seeds)} seeds; truly best: {figures['best'] or 'none'})")
        table = verdict_rows(figures, FLOOR_ROWS, "order and rule")
        print(pd.DataFrame(table).to_markdown(index=False, floatfmt=".3f"))
        print(floor_line(figures), flush=True)
        if "chance scans" in figures:
            print_chance_scans(figures)
    equal = next((w for w in worlds if w.name == EQUAL), None)
    if equal is None:
        return
    print(f"\n### {EQUAL}: the anytime rule's wrong picks by the person's noise")
    rows = []
    for noise in NOISES:
        noisy = dataclasses.replace(equal, noise=noise)
        if noise not in people_at:
            people_at[noise] = [label_person(noisy, seed, fixed=0) for seed in seeds]
        own = [label_person(person_world(noisy, seed), seed, fixed=0) for seed in seeds]
        for order in ("new", "uniform"):
            scenario, answers = wrong_picks(own, order)
            rows.append(
                {
                    "noise": noise,
                    "order": order,
                    "by the scenario": scenario,
                    "on answers": answers,
                    "one run for all, by the scenario": wrong_picks(people_at[noise], order)[0],
                }
            )
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3f"))
    for row in rows:
        print(
            f"FLOOR wrong picks, anytime rule, {EQUAL}, noise {row['noise']:.2f}, "
            f"{row['order']}, each person's own run: {row['by the scenario']:.3f} by the "
            f"scenario, {row['on answers']:.3f} on the person's answers (goal <= "
            f"{WRONG_PICK_GOAL}); one run drawn once for every person: "
            f"{row['one run for all, by the scenario']:.3f} by the scenario",
            flush=True,
        )


def print_margin(worlds: list[World], replays: list[World], margin: float, seeds: range) -> None:
    """Per world, the anytime rule under ``margin`` in each order (``margin_figures``): a table
    and a MARGIN line."""
    rows = {order: ORDER_WORDS[order] for order in ORDERS}
    for world in [*worlds, *replays]:
        f = margin_figures(world, margin, seeds)
        print(
            f"\n### {world.name}, margin {margin:g} ({len(seeds)} seeds; may be shown: "
            f"{f['acceptable']})"
        )
        keyed = {f"{order} anytime": words for order, words in rows.items()}
        table = pd.DataFrame(verdict_rows(f, keyed, "order"))
        print(table.to_markdown(index=False, floatfmt=".3f"))
        print(margin_line(f, margin), flush=True)


def margin_line(f: dict[str, object], margin: float) -> str:
    """The world's MARGIN line: the new queue's median labels to a verdict over uniform's, each
    order's share of people with a verdict, and the worst order's wrong picks against 5%."""
    new, uniform = (float(f[f"{o} anytime: median labels"]) for o in ("new", "uniform"))
    if math.isfinite(new) and math.isfinite(uniform):
        ratio = f"{new / uniform:.3f} ({new:.0f} / {uniform:.0f})"
    else:
        ratio = f"n/a (new {new:.0f}, uniform {uniform:.0f}; inf: no verdict for most people)"
    shares = ", ".join(f"{o} {float(f[f'{o} anytime: verdicts']):.2f}" for o in ORDERS)
    wrong = max(float(f[f"{o} anytime: wrong pick"]) for o in ORDERS)
    return (
        f"MARGIN {margin:g} ({f['world']}): labels to a verdict, new / uniform median {ratio}; "
        f"people with a verdict: {shares}; wrong picks (worst order) {wrong:.3f} "
        f"(goal <= {WRONG_PICK_GOAL}) {verdict(wrong <= WRONG_PICK_GOAL)}"
    )


def print_chance_scans(f: dict[str, object]) -> None:
    """(b'') the oracle with the chance test required, by the rest's share: a table for one
    share throughout, one for two phases, and a FLOOR line with the best of each over
    uniform's full-rule median."""
    scans = f["chance scans"]
    assert isinstance(scans, dict)
    for phased, words in (("", "one share s throughout"), ("two-phase ", "s1, then s2")):
        rows = [
            {
                "share of the rest": f"s {a:g}" if not phased else f"s1 {a:g}, s2 {b:g}",
                **{how: scans[f"{phased}{how}"][(a, b)] for how in ("fixed", "dropping")},
            }
            for a, b in scans[f"{phased}fixed"]
        ]
        print(f"\n(b'') oracle with the chance test required, {words}: median labels")
        print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".1f"))
    uniform = float(f["uniform: median labels"])
    parts, ratios = [], []
    for key, scan in scans.items():
        (a, b), median = best_share(scan)
        at = f"s {a:g}" if a == b else f"s1 {a:g}, s2 {b:g}"
        ratios.append(median / uniform if math.isfinite(median * uniform) else math.nan)
        value = f"{ratios[-1]:.3f} ({median:.0f} / {uniform:.0f})"
        parts.append(f"{key}, best {at}: {value if math.isfinite(ratios[-1]) else 'n/a'}")
    best = min(ratios)
    if not math.isfinite(best):
        reach = "no ratio"
    elif best <= LABELS_GOAL:
        reach = f"the best within {LABELS_GOAL}: not ruled out"
    else:
        reach = f"all above {LABELS_GOAL}: out of reach of such queues under this rule"
    print(
        "FLOOR labels to a verdict, chance test required / uniform's full-rule median "
        f"({f['world']}): (b'') " + "; ".join(parts) + f"; {reach}",
        flush=True,
    )


def floor_line(f: dict[str, object]) -> str:
    """The world's FLOOR line: each row's median over uniform's full-rule median (the goal's
    denominator), the oracle's over the paired tests alone, and what the oracle says of the
    goal."""
    uniform = float(f["uniform: median labels"])

    def share(key: str, over: float = uniform) -> str:
        value = float(f.get(f"{key}: median labels", math.nan))
        if not math.isfinite(value) or not math.isfinite(over):
            return "n/a"
        return f"{value / over:.3f} ({value:.0f} / {over:.0f})"

    line = (
        f"FLOOR labels to a verdict / uniform's full-rule median ({f['world']}): new "
        f"{share('new')}; (a) paired alone {share('paired alone')}"
    )
    if "oracle: median labels" not in f:
        return line + "; (b) oracle: no single truly best judge, none"
    line += (
        f"; (b) oracle {share('oracle')}, over (a) "
        f"{share('oracle', float(f['paired alone: median labels']))}"
        f", its design {f['design share']:.3f} of uniform's draws in theory ({f['kinds']} kinds)"
        f"; (b') dropping beaten rivals {share('oracle dropping')}"
    )
    return line + "; " + reach_words(f)


def reach_words(f: dict[str, object]) -> str:
    """What the oracles say of the goal (new / uniform median <= ``LABELS_GOAL``): each is told
    the truly best judge and skips the chance test, so above the goal it is out of reach of
    every queue of its kind under this rule; the fixed oracle bounds fixed designs only (a
    queue that drops beaten rivals may beat it)."""
    uniform = float(f["uniform: median labels"])
    fixed, dropping = (
        float(f[f"{key}: median labels"]) / uniform for key in ("oracle", "oracle dropping")
    )
    if not (math.isfinite(fixed) and math.isfinite(dropping)):
        return "no ratio"
    if min(fixed, dropping) > LABELS_GOAL:
        return f"both oracles above {LABELS_GOAL}: out of reach of such queues under this rule"
    if fixed > LABELS_GOAL:
        return (
            f"fixed oracle above {LABELS_GOAL} (out of reach of fixed designs), the dropping "
            "oracle within: not ruled out for an adaptive queue"
        )
    return f"oracles within {LABELS_GOAL}: the goal is not ruled out"


ORDER_WORDS = {  # as docs/labels.md names them
    "uniform": "uniform random",
    "today": "disagreements first (unweighted)",
    "new": "known probabilities (weighted by kind)",
}
ORDER_COLOURS = {"uniform": "#7f7f7f", "today": "#d62728", "new": "#1f77b4"}


def verdict_curves(
    world: World, seeds: range
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per order: labels given 0..budget, the share of people whose anytime verdict came by
    then, and the share whose verdict by then was a wrong pick (the fixed-n rule not run)."""
    people = [label_person(person_world(world, seed), seed, fixed=0) for seed in seeds]
    budget = min(BUDGET, len(world.truth))
    given = np.arange(budget + 1)
    curves = {}
    for order in ORDERS:
        runs = [r for p in people for r in p.runs if r.order == order and r.rule == "anytime"]
        at = np.array([r.labels for r in runs if r.labels], int)
        wrong = np.array([r.labels for r in runs if r.labels and r.wrong], int)
        share = np.searchsorted(np.sort(at), given, side="right") / len(runs)
        wrong_share = np.searchsorted(np.sort(wrong), given, side="right") / len(runs)
        curves[order] = (given, share, wrong_share)
    return curves


def plot_labels_to_verdict(worlds: list[World], seeds: range, path: Path) -> None:
    """One panel per world: the share of people with a verdict against labels given, one
    line per order (``verdict_curves``), the wrong picks dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(4, len(worlds))
    rows = -(-len(worlds) // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(3.4 * columns, 3.0 * rows), sharey=True, squeeze=False
    )
    for ax, world in zip(axes.flat, worlds, strict=False):
        for order, (given, share, wrong) in verdict_curves(world, seeds).items():
            colour = ORDER_COLOURS[order]
            ax.step(given, share, where="post", color=colour, label=ORDER_WORDS[order])
            if wrong[-1] > 0:
                ax.step(given, wrong, where="post", color=colour, linestyle=":", linewidth=1)
        ax.set_title(textwrap.fill(world.name, 34), fontsize=9)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        print(f"{world.name}: drawn", flush=True)
    for ax in axes.flat[len(worlds) :]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("labels given")
    for ax in axes[:, 0]:
        ax.set_ylabel("share of people with a verdict")
    handles, names = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=3, frameon=False)
    fig.suptitle(
        f"Labels to a verdict, anytime rule, {len(seeds)} simulated people a world "
        "(dotted: wrong picks)",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
            "wrong on answers": f.get(f"{order} {rule}: wrong on answers"),
        }
        for order, rule in RULES
        if f"{order} {rule}: verdicts" in f
    ]
    truth = (world.picks == world.truth[:, None]).mean(axis=0)
    where = (
        "the run's pairs"
        if world.scenario is None
        else "the run drawn once (the bias queues'; each person labels a run of their own)"
    )
    print(
        f"each judge's accuracy on {where} against the truth: "
        + ", ".join(f"{j} {a:.4f}" for j, a in zip(world.judges, truth, strict=True))
    )
    print(pd.DataFrame(table).to_markdown(index=False, floatfmt=".3f"))
    print(
        f"accuracy at 60 labels: today's bias {f['today bias']:+.3f}; new bias "
        f"{bias_words(f)}, coverage {f['new coverage']:.3f}; about-N ratio "
        f"{f['about-N ratio']:.2f} on {f['about-N cases']} runs",
        flush=True,
    )


def bias_words(f: dict[str, object] | pd.Series) -> str:
    """The new queue's bias with its standard error and queues, and whether it is within two
    standard errors of 0 (what the bench can tell from no bias at that many queues)."""
    bias, se = float(f["new bias"]), float(f["new bias SE"])
    near = "within" if abs(bias) <= 2 * se else "beyond"
    return f"{bias:+.4f} (SE {se:.4f}, {f['new bias queues']} queues; {near} 2 SE of 0)"


def _disputed_words(f: pd.Series) -> str:
    """For two judges, |D| / N: the paired test alone needs about that share of uniform's
    labels in any order (``labelling_person.disputed_share``)."""
    share = f.get("disputed share", float("nan"))
    return f"; they differ on {share:.2f} of the pairs" if math.isfinite(share) else ""


def _results(table: pd.DataFrame) -> list[Row]:
    rows = []
    for _, f in table.iterrows():
        new, uniform = f["new anytime: median labels"], f["uniform anytime: median labels"]
        if math.isinf(new) and math.isinf(uniform):
            if f["has a best"]:  # a best judge no order finds within the pairs: said, MISSED
                rows.append(_no_verdict_row(f))
            continue  # else no verdict is right (equal or chance judges)
        ratio = new / uniform if math.isfinite(uniform) else 0.0
        ok = ratio <= LABELS_GOAL and f["new anytime: wrong pick"] <= WRONG_PICK_GOAL
        rows.append(
            Row(
                NAME,
                f"labels to a verdict, new / uniform median ({f['world']})",
                round(ratio, 3) if math.isfinite(new) else "no verdict",
                f"({new:.0f} / {uniform:.0f} labels{_disputed_words(f)})",
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
    # the anytime rule's picks judged by the scenario, and on the person's own answers over the
    # run (what the rule tests: two judges equal in the scenario differ a little on a noisy
    # person's answers; README)
    for column, figure in (
        ("wrong pick", "wrong picks under peeking, anytime rule (worst world and order)"),
        ("wrong on answers", "the same, a pick wrong on the person's own answers over the run"),
    ):
        worst = float(table[[f"{o} anytime: {column}" for o in ("uniform", "new")]].max().max())
        rows.append(
            Row(
                NAME,
                figure,
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
    worst = table.loc[table["new bias"].abs().idxmax()]
    bias = abs(float(worst["new bias"]))
    near = int((table["new bias"].abs() <= 2 * table["new bias SE"]).sum())
    cover = float(table["new coverage"].min())
    rows.append(
        Row(
            NAME,
            "bias of the accuracy figure, new queue (largest |bias|)",
            round(bias, 4),
            f"({worst['world']}: {bias_words(worst)}; {near} of {len(table)} worlds within "
            "2 SE of 0)",
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
    for i, value in ratios.items():
        cases = int(table.at[i, "about-N cases"])
        few = cases < MIN_PROJECTIONS  # a median of a handful of ratios is no measurement
        rows.append(
            Row(
                NAME,
                f"about N more / realised, median ({table.at[i, 'world']})",
                round(float(value), 2),
                f"(on {cases} people: too few to judge)" if few else f"(on {cases} people)",
                f"in {low}-{high}",
                "" if few else verdict(low <= value <= high),
            )
        )
    return rows


def _no_verdict_row(f: pd.Series) -> Row:
    """A world with a best judge where neither the new queue nor uniform order names it within
    the pairs there are: the ratio is not there to read, and the goal is not shown."""
    shares = ", ".join(
        f"{order} {f[f'{order} anytime: verdicts']:.2f}" for order in ("uniform", "new")
    )
    return Row(
        NAME,
        f"labels to a verdict, new / uniform median ({f['world']})",
        "no verdict",
        f"(no verdict for most people in either order within the pairs; share with one: {shares})",
        f"<= {LABELS_GOAL} at wrong pick <= {WRONG_PICK_GOAL:.0%}",
        verdict(False),
    )


if __name__ == "__main__":
    main()
