"""Your system's true score (issue 43): how well a few people's labels correct a judge's mean
(prediction-powered inference, PPI++: ``judgegrid.analyses.ppi_mean``).

    PYTHONPATH=src python benches/bench_true_score.py [--datasets 1000]
        [--judgebench ../shared/validation/judgebench]

Simulation: people's score of a sample is Beta(3, 2) (true people-standard mean 0.6); four
judges score every one of N = 2,000 samples: a lenient one (+0.15, small noise), a strict one
(0.8 y - 0.1), a noisy-but-unbiased one (y plus noise of SD 0.3) and one that ignores the
sample (rho 0, to show that it gains nothing). People label n = 50, 100 or 200 samples drawn
uniformly without replacement; PPI's unlabelled set is the other N - n. Goals, over
``--datasets`` data sets a judge and n:

- the corrected 95% interval covers 0.6 in >= 93% of data sets;
- it is narrower than the labels-only interval in every data set whenever the judge
  correlates with people at rho >= 0.5;
- the judge's raw mean is printed beside (its bias), and the labels it is worth.

Weighted labels (the labelling queue's draws): per data set, N = 2,000 samples, a third of them
hard (people's score Beta(2, 3) there, Beta(4, 2) elsewhere); the chosen judge and two others
score each, and the queue's design is built from how far the three are apart
(``decision.sampling.label_design``: 40% uniform share, three strata by disagreement, the
queue's own code), then the labelling page's own draw (``analyses.queue_draw``: without
replacement, each label weighted by its kind, here its stratum) draws 60, 150 or 400 labels;
``--with-replacement`` draws them with replacement instead (``draw_labels``, Hansen-Hurwitz),
as the queue did before it drew without. Two
chosen judges: one lenient mostly where the judges disagree (+0.3 on the hard samples, +0.05
elsewhere: the queue draws where it errs) and one lenient everywhere (+0.15). The target is
people's mean over the data set's N samples. Goal: the weighted 95% interval covers it in 93%
to 98% of data sets (not narrow, and not needlessly wide); its width is printed beside the
labels-only interval that ignores the weights (which is off-centre: its coverage beside).

JudgeBench: each judge's verdicts on the 350 pairs (both orders by JudgeBench's sum rule: A
wins 1, B wins 0, a tie 0.5) with the truth revealed on 50 random pairs: the judge's "A wins"
rate corrected toward the truth's; the first draw's estimate, interval and truth, then coverage
and widths over ``--datasets`` draws of 50.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, emit, load_average, verdict

from judgegrid.analyses import (
    LabelDesign,
    classical_mean,
    draw_labels,
    fixed_queue,
    label_design,
    ppi_mean,
    queue_draw,
)
from judgegrid.inputs.recorded import judgebench

NAME = "true-score"
TRUE_MEAN = 0.6  # Beta(3, 2)
BIG_N = 2000
LABELS = (50, 100, 200)
COVERAGE_GOAL = 0.93
COVERAGE_CEILING = 0.98  # a weighted interval that covers more is needlessly wide
DRAWS = (60, 150, 400)
HARD_SHARE = 1 / 3
RHO_GOAL = 0.5
JUDGEBENCH_LABELS = 50
DEFAULT_JUDGEBENCH = Path(__file__).resolve().parents[2] / "shared/validation/judgebench"

Judge = Callable[[np.ndarray, np.random.Generator], np.ndarray]
JUDGES: dict[str, Judge] = {
    "lenient": lambda y, rng: y + 0.15 + rng.normal(0, 0.10, len(y)),
    "strict": lambda y, rng: 0.8 * y - 0.1 + rng.normal(0, 0.12, len(y)),
    "noisy, unbiased": lambda y, rng: y + rng.normal(0, 0.30, len(y)),
    "uncorrelated": lambda y, rng: rng.normal(0.75, 0.2, len(y)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=1000)
    parser.add_argument("--judgebench", type=Path, default=DEFAULT_JUDGEBENCH)
    parser.add_argument(
        "--with-replacement",
        action="store_true",
        help="the queue's labels drawn with replacement (Hansen-Hurwitz), not as the page draws",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"load average at start: {load_average()}", flush=True)
    rows: list[Row] = []
    for name, judge in JUDGES.items():
        rows += _simulated(name, judge, args.datasets)
    for name, queue_judge in QUEUE_JUDGES.items():
        rows += _weighted(name, queue_judge, args.datasets, args.with_replacement)
    files = sorted(args.judgebench.glob("*judge_name=*.jsonl")) if args.judgebench.is_dir() else []
    if files:
        rows += _judgebench(files, args.datasets)
    else:
        print(f"\nno JudgeBench judge files in {args.judgebench}: that check is left out")
    print()
    for row in rows:
        print(f"{row.figure}: {row.value} {row.unit} (goal {row.target or 'none'}) {row.verdict}")
    print(
        f"{args.datasets} data sets a judge and n, {time.perf_counter() - started:.0f} s, "
        f"load average {load_average()}"
    )
    emit(rows)


# ---------------------------------------------------------------- simulation


def _simulated(name: str, judge: Judge, datasets: int) -> list[Row]:
    rng = np.random.default_rng(43)
    big = rng.beta(3, 2, 200_000)
    rho = float(np.corrcoef(big, judge(big, rng))[0, 1])
    table = []
    for n in LABELS:
        found = [_one_dataset(judge, n, rng) for _ in range(datasets)]
        frame = pd.DataFrame(found)
        table.append(
            {
                "n": n,
                "judge mean": frame["judge"].mean(),
                "corrected mean": frame["corrected"].mean(),
                "people mean": frame["people"].mean(),
                "coverage": frame["covered"].mean(),
                "coverage, labels only": frame["people covered"].mean(),
                "width": frame["width"].mean(),
                "width, labels only": frame["people width"].mean(),
                "narrower": frame["narrower"].mean(),
                "lambda": frame["lam"].median(),
                "labels worth": frame["effective"].median(),
            }
        )
    print(f"\n### {name} judge (rho with people {rho:.2f}; true mean {TRUE_MEAN}; N = {BIG_N})")
    print(pd.DataFrame(table).to_markdown(index=False, floatfmt=".3f"), flush=True)
    rows = []
    for t in table:
        rows.append(
            Row(
                NAME,
                f"coverage, {name} judge, n = {t['n']}",
                round(t["coverage"], 3),
                f"(judge's raw mean {t['judge mean']:.3f}, truth {TRUE_MEAN})",
                f">= {COVERAGE_GOAL}",
                verdict(t["coverage"] >= COVERAGE_GOAL),
            )
        )
        rows.append(
            Row(
                NAME,
                f"share narrower than labels alone, {name} judge (rho {rho:.2f}), n = {t['n']}",
                round(t["narrower"], 3),
                f"(width {t['width']:.3f} vs {t['width, labels only']:.3f}; "
                f"worth {t['labels worth']:.0f} labels)",
                "1.0 (rho >= 0.5)" if rho >= RHO_GOAL else "measured (rho < 0.5)",
                verdict(t["narrower"] >= 1.0) if rho >= RHO_GOAL else "",
            )
        )
    return rows


def _one_dataset(judge: Judge, n: int, rng: np.random.Generator) -> dict[str, float]:
    y = rng.beta(3, 2, BIG_N)
    f = judge(y, rng)
    picked = _picked(BIG_N, n, rng)
    found = ppi_mean(y[picked], f[picked], f[~picked])
    c, p = found.corrected, found.people
    return {
        "judge": float(f.mean()),
        "corrected": c.mean,
        "people": p.mean,
        "covered": c.low <= TRUE_MEAN <= c.high,
        "people covered": p.low <= TRUE_MEAN <= p.high,
        "width": c.high - c.low,
        "people width": p.high - p.low,
        "narrower": c.high - c.low < p.high - p.low,
        "lam": found.lam,
        "effective": found.effective_labels,
    }


def _picked(population: int, labels: int, rng: np.random.Generator) -> np.ndarray:
    """Which samples people label: a uniform draw without replacement, as a mask (PPI's
    unlabelled set is the rest)."""
    mask = np.zeros(population, bool)
    mask[rng.choice(population, labels, replace=False)] = True
    return mask


# ---------------------------------------------------------------- weighted: the queue's draws

QueueJudge = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]
QUEUE_JUDGES: dict[str, QueueJudge] = {
    "lenient where judges disagree": lambda y, hard, rng: (
        y + np.where(hard, 0.3, 0.05) + rng.normal(0, 0.08, len(y))
    ),
    "lenient everywhere": lambda y, hard, rng: y + 0.15 + rng.normal(0, 0.08, len(y)),
}


def _weighted(
    name: str, judge: QueueJudge, datasets: int, with_replacement: bool = False
) -> list[Row]:
    rng = np.random.default_rng(4343)
    table = []
    for n in DRAWS:
        frame = pd.DataFrame(
            [_queue_dataset(judge, n, rng, with_replacement) for _ in range(datasets)]
        )
        table.append(
            {
                "draws": n,
                "judge mean - truth": frame["judge bias"].mean(),
                "corrected - truth": frame["bias"].mean(),
                "coverage": frame["covered"].mean(),
                "width": frame["width"].mean(),
                "people (weighted): coverage": frame["people covered"].mean(),
                "people: width": frame["people width"].mean(),
                "labels only (unweighted): coverage": frame["plain covered"].mean(),
                "labels only: width": frame["plain width"].mean(),
                "lambda": frame["lam"].median(),
                "weights max/min": frame["spread"].median(),
            }
        )
    print(
        f"\n### weighted labels, {name} judge (the queue's draws; N = {BIG_N}; target: "
        "people's mean over the N samples)"
    )
    print(pd.DataFrame(table).astype({"draws": int}).to_markdown(index=False, floatfmt=".3f"))
    return [
        Row(
            NAME,
            f"weighted coverage, {name} judge, {t['draws']} draws",
            round(t["coverage"], 3),
            f"(width {t['width']:.3f} vs labels only, unweighted {t['labels only: width']:.3f})",
            f"{COVERAGE_GOAL} to {COVERAGE_CEILING}",
            verdict(COVERAGE_GOAL <= t["coverage"] <= COVERAGE_CEILING),
        )
        for t in table
    ]


def _queue_dataset(
    judge: QueueJudge, draws: int, rng: np.random.Generator, with_replacement: bool = False
) -> dict[str, float]:
    """One data set: people's scores, three judges, the queue's design from how far the
    judges are apart, and ``draws`` labels drawn by it."""
    hard = rng.random(BIG_N) < HARD_SHARE
    y = np.where(hard, rng.beta(2, 3, BIG_N), rng.beta(4, 2, BIG_N))
    f = judge(y, hard, rng)
    others = [
        y + rng.normal(0, np.where(hard, 0.25, 0.05)),
        y - np.where(hard, 0.1, 0.0) + rng.normal(0, 0.05, BIG_N),
    ]
    all_three = np.vstack([f, *others])
    ids = [f"s{i:05d}" for i in range(BIG_N)]
    plan = label_design(pd.Series(all_three.max(0) - all_three.min(0), index=ids))
    picked, probability = _drawn(plan, draws, int(rng.integers(2**31)), with_replacement)
    picks = pd.Index(ids).get_indexer(picked)
    w = 1.0 / (BIG_N * probability)
    found = ppi_mean(y[picks], f[picks], f, weights=w)
    c, p = found.corrected, found.people
    plain = classical_mean(y[picks])
    truth = float(y.mean())
    return {
        "judge bias": float(f.mean()) - truth,
        "bias": c.mean - truth,
        "covered": c.low <= truth <= c.high,
        "width": c.high - c.low,
        "people covered": p.low <= truth <= p.high,
        "people width": p.high - p.low,
        "plain covered": plain.low <= truth <= plain.high,
        "plain width": plain.high - plain.low,
        "lam": found.lam,
        "spread": float(w.max() / w.min()),
    }


def _drawn(
    plan: LabelDesign, draws: int, seed: int, with_replacement: bool
) -> tuple[list[str], np.ndarray]:
    """``draws`` labels from ``plan`` as the labelling page draws them (``queue_draw``: without
    replacement, each stored with the probability whose ``1 / (N q)`` is its kind's weight), or
    with replacement (``draw_labels``) under ``--with-replacement``: the samples, in order, and
    their stored probabilities."""
    if with_replacement:
        found = draw_labels(plan, draws, seed)
        return list(found["sample_id"]), found["probability"].to_numpy(float)
    queue, rng = fixed_queue(plan), np.random.default_rng(seed)
    asked: list[str] = []
    probabilities = []
    for _ in range(draws):
        drawn = queue_draw(queue, asked, rng)
        assert drawn is not None  # fewer draws than samples
        asked.append(drawn[0])
        probabilities.append(drawn[1])
    return asked, np.asarray(probabilities)


# ---------------------------------------------------------------- JudgeBench


def _judgebench(files: list[Path], draws: int) -> list[Row]:
    """Each judge's A-wins value per pair (its two trials by the sum rule) and the truth's,
    read by judgegrid's own JudgeBench reader."""
    recorded = judgebench.read(files)
    truth = pd.Series(
        {s.id: float((s.labels or {}).get(judgebench.CRITERION) == "a") for s in recorded.samples}
    ).sort_index()
    votes = recorded.verdicts.assign(
        vote=recorded.verdicts["winner"].map({"a": 1, "b": -1}).fillna(0)
    )
    summed = votes.pivot_table(index="sample_id", columns="judge", values="vote", aggfunc="sum")
    wins = (np.sign(summed.reindex(truth.index)) + 1) / 2  # A 1, B 0, tie (or none) 0.5
    print(
        f"\n### JudgeBench: the judge's 'A wins' rate on {len(truth)} pairs corrected with the "
        f"truth on {JUDGEBENCH_LABELS} random pairs (truth's rate {truth.mean():.3f})"
    )
    table, rows = [], []
    y_all = truth.to_numpy()
    for judge in wins.columns:
        f = wins[judge].fillna(0.5).to_numpy()
        rng = np.random.default_rng(43)
        runs = []
        for _ in range(draws):
            picked = _picked(len(y_all), JUDGEBENCH_LABELS, rng)
            runs.append(ppi_mean(y_all[picked], f[picked], f[~picked]))
        first = runs[0]
        covered = np.mean([r.corrected.low <= y_all.mean() <= r.corrected.high for r in runs])
        width = np.mean([r.corrected.high - r.corrected.low for r in runs])
        people_width = np.mean([r.people.high - r.people.low for r in runs])
        table.append(
            {
                "judge": judge,
                "judge's rate": f.mean(),
                "estimate": first.corrected.mean,
                "interval": f"[{first.corrected.low:.3f}, {first.corrected.high:.3f}]",
                "labels only": f"{first.people.mean:.3f} "
                f"[{first.people.low:.3f}, {first.people.high:.3f}]",
                "truth": y_all.mean(),
                "coverage": covered,
                "width": width,
                "width, labels only": people_width,
                "labels worth": np.median([r.effective_labels for r in runs]),
            }
        )
        rows.append(
            Row(
                NAME,
                f"JudgeBench {judge}: corrected 'A wins' rate (first draw of 50)",
                round(first.corrected.mean, 3),
                f"[{first.corrected.low:.3f}, {first.corrected.high:.3f}]; truth "
                f"{y_all.mean():.3f}; judge's own {f.mean():.3f}",
                "measured",
                "",
            )
        )
        rows.append(
            Row(
                NAME,
                f"JudgeBench {judge}: coverage over {draws} draws of 50",
                round(float(covered), 3),
                f"(width {width:.3f} vs labels alone {people_width:.3f})",
                f">= {COVERAGE_GOAL}",
                verdict(covered >= COVERAGE_GOAL),
            )
        )
    print(pd.DataFrame(table).to_markdown(index=False, floatfmt=".3f"), flush=True)
    return rows


if __name__ == "__main__":
    main()
