"""The decision card's own error rates: synthetic judges of known quality on a bank of
scenarios (``judgegrid.testing.decision_bank``), many seeds each.

    PYTHONPATH=src python benches/bench_decision.py [--seeds 200] [--only "at chance"]

Per scenario: how often the card singles out a judge, names a "not separated" set, names a
wrong judge (goal <= 5%), recommends a judge at chance while a better one exists (goal <= 5%), and —
where one judge is better by 0.15 at n = 60 — how often it names that one (power, goal >= 80%).
benches/README.md has the table and what the goals mean.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from judgegrid.testing.decision_bank import BANK, POWER_GOAL, WRONG_PICK_GOAL, scenario_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--only", default="", help="the scenarios whose name holds this text")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = []
    for scenario in [s for s in BANK if args.only in s.name]:
        figures = scenario_figures(scenario, range(args.seeds))
        rows.append(figures)
        print(_line(figures), flush=True)
    table = pd.DataFrame(rows)
    missed = table[table["wrong_pick"] > WRONG_PICK_GOAL]["scenario"].tolist()
    weak = table[table["power"].notna() & (table["power"] < POWER_GOAL)]["scenario"].tolist()
    at_chance = table[table["take_at_chance"] > WRONG_PICK_GOAL]["scenario"].tolist()
    print()
    print(table.to_markdown(index=False, floatfmt=".3f"))
    print()
    print(f"wrong pick <= {WRONG_PICK_GOAL:.0%} in every scenario: " + _met(not missed, missed))
    print(f"power >= {POWER_GOAL:.0%} where the gap is 0.15 at n = 60: " + _met(not weak, weak))
    print(
        f"a judge at chance taken where a better one exists <= {WRONG_PICK_GOAL:.0%}: "
        + _met(not at_chance, at_chance)
    )
    print(f"{args.seeds} seeds a scenario, {time.perf_counter() - started:.0f} s")


def _line(f: dict[str, object]) -> str:
    power = "" if f["power"] is None else f", power {f['power']:.3f}"
    return (
        f"{f['scenario']}: named {f['named']:.3f}, set {f['set']:.3f}, "
        f"wrong pick {f['wrong_pick']:.3f}, take at chance {f['take_at_chance']:.3f}{power}"
    )


def _met(ok: bool, which: list[str]) -> str:
    return "met" if ok else "MISSED in " + "; ".join(which)


if __name__ == "__main__":
    main()
