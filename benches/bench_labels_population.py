"""A prototype's price (issue 42): the new queue's rule made valid for judges in general, not
only for the run's own samples (``judgegrid.testing.population_rule``), against today's rule on
the same people.

    PYTHONPATH=src python benches/bench_labels_population.py [--seeds 100] [--jobs 2]
        [--judgebench ../shared/validation/judgebench] [--quick] [--resample]

Synthetic worlds: a fresh pool per person (the claim is about judges in general, so the pool's
own luck must count against the rule); the JudgeBench replays: one fixed pool (finite by
nature; ``--resample``: only the replays, each person's pool 1,000 pairs drawn with replacement
from the replay's, its pairs taken as the population). Per world and order: median labels to a
verdict (censored at the budget), the share of people with a verdict, wrong picks (any judge
named where the judges are equally good), the queue over uniform order under each rule, and how
often the prototype's queue shifted or froze a test (a kind all labelled;
``population_rule.states_of_tests``): filled in at its worst (the prototype), frozen, or neither
(invalid: to see what the other two cost).
``FLOOR`` lines, not ``RESULT`` lines: a prototype's measure, no goal's verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_average, verdict_rows

from judgegrid.testing.labelling_person import (
    World,
    bank_worlds,
    person_world,
    replay_worlds,
)
from judgegrid.testing.population_rule import (
    MODES,
    ORDERS,
    PopulationPerson,
    population_figures,
    population_person,
    resampled_world,
)

DEFAULT_JUDGEBENCH = Path(__file__).resolve().parents[2] / "shared/validation/judgebench"
EQUAL = "pairs: two equally good judges"
SYNTHETIC_ROWS = ((EQUAL, 0.0), (EQUAL, 0.10), ("pairs: one better by 0.15", None))
SYNTHETIC_ROWS += (("pairs: four judges", None),)
REPLAYS = (("internlm", "o1-mini"), ("Skywork", "internlm"))  # judges' names contain these


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--judgebench", type=Path, default=DEFAULT_JUDGEBENCH)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 people a world")
    parser.add_argument(
        "--resample",
        action="store_true",
        help="only the JudgeBench replays, each person's pool 1,000 pairs drawn from the replay's",
    )
    args = parser.parse_args()
    seeds = range(4 if args.quick else args.seeds)
    start = time.perf_counter()
    print(f"load before: {load_average()}")
    chosen = worlds(args.judgebench)
    if args.resample:
        chosen = [(w, True) for w, fresh in chosen if not fresh]
    for world, fresh in chosen:
        people = Parallel(n_jobs=args.jobs)(delayed(person)(world, fresh, s) for s in seeds)
        print_world(world, fresh, population_figures(people))
    print(f"wall {time.perf_counter() - start:.0f} s, load after: {load_average()}")


def worlds(folder: Path) -> list[tuple[World, bool]]:
    """The synthetic worlds (noise as ``SYNTHETIC_ROWS``; None: the bank's) to be drawn afresh
    per person, then the JudgeBench replays asked for, fixed."""
    bank = {w.name: w for w in bank_worlds()}
    found = [
        (bank[name] if noise is None else dataclasses.replace(bank[name], noise=noise), True)
        for name, noise in SYNTHETIC_ROWS
    ]
    replays = replay_worlds(folder) if folder.exists() else []
    for first, second in REPLAYS:
        found += [(w, False) for w in replays if _names(w, first, second)]
    return found


def _names(world: World, first: str, second: str) -> bool:
    """Whether ``world`` is the two judges whose names hold ``first`` and ``second``."""
    judges = [j.lower() for j in world.judges]
    wanted = (first.lower(), second.lower())
    return len(judges) == 2 and all(any(w in j for j in judges) for w in wanted)


def person(world: World, fresh: bool, seed: int) -> PopulationPerson:
    """``seed``'s person, on a pool of their own where ``fresh`` (a replay's: drawn from its
    pairs, ``resampled_world``)."""
    if fresh and world.scenario is None:
        return population_person(resampled_world(world, seed), seed)
    return population_person(person_world(world, seed) if fresh else world, seed)


def print_world(world: World, fresh: bool, f: dict[str, float]) -> None:
    """The world's table (``verdict_rows``) and its FLOOR line."""
    replay = world.name.startswith("JudgeBench")
    pool = "one fixed pool" if not fresh else "a fresh pool per person"
    pool += ", drawn from its pairs" if fresh and replay else ""
    print(f"\n{world.name}, noise {world.noise:.2f}, {pool}, {f['people']:.0f} people")
    rows = verdict_rows(f, {order: order for order in ORDERS}, "order")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(
        f"FLOOR population rule ({world.name}, noise {world.noise:.2f}, {pool}): "
        f"queue / uniform median labels today {f['today: queue / uniform']:.2f}, "
        f"prototype {f['population: queue / uniform']:.2f}; wrong picks today queue "
        f"{f['today queue: wrong pick']:.3f}, uniform {f['today uniform: wrong pick']:.3f}, "
        f"prototype queue {f['population queue: wrong pick']:.3f}, uniform "
        f"{f['population uniform: wrong pick']:.3f}; a test shifted or frozen for "
        + ", ".join(f"{f[f'{order}: touched']:.2f} ({order})" for order in MODES)
        + " of people"
    )


if __name__ == "__main__":
    main()
