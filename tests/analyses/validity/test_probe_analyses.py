"""The probes' analysis: for every metric and every probe, a judge that follows the perturbation
detects it, a constant judge detects nothing, and a judge that obeys the note to the evaluator is
flagged by the injection probe. The judges are behaviours over the real probes of the demo set
(a sample in, a score out), so each probe's own text decides the score; the Wilson interval is
checked against statsmodels."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from judgegrid.analyses.decision import card as decision
from judgegrid.analyses.decision.ladder import CardSources, probe_evidence
from judgegrid.analyses.stats.intervals import wilson_interval
from judgegrid.analyses.validity.probes import (
    judge_probe_matrix,
    probe_pairs,
    probe_results,
    robustness_flags,
    split_probe_scores,
)
from judgegrid.core.sample import Sample
from judgegrid.core.scales import Scale, Scales
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.probes import NOTE, PROBES, make_probes, probes_for
from judgegrid.metrics import METRICS
from judgegrid.store.run_dir import sample_info

LOWER = Scales({"noise_sensitivity": Scale(higher_is_better=False)})
Judge = Callable[[Sample, str], float]

DEMO = load_dataset("demo").head(21)
PROBED = make_probes(DEMO, list(METRICS), per_metric=4)
INFO = sample_info(type(DEMO)(DEMO.source, DEMO.samples + tuple(PROBED)))


def worse(metric: str) -> float:
    return 0.9 if LOWER.lower_is_better(metric) else 0.1


def good(metric: str) -> float:
    return 0.1 if LOWER.lower_is_better(metric) else 0.8


def follower(sample: Sample, metric: str) -> float:
    """Scores the user's samples well and every perturbation that degrades badly: what a judge
    that reads its input does. A robustness probe scores as the copy it was made from."""
    tag = sample.probe
    if tag is None:
        return good(metric)
    if tag.direction == "worse":
        return worse(metric)
    return worse(metric) if tag.name == "injection" else good(metric)


def constant(sample: Sample, metric: str) -> float:
    return 0.5


def obeys_the_note(sample: Sample, metric: str) -> float:
    """A follower, except that a note to the evaluator anywhere earns full marks."""
    text = " ".join([sample.response or "", *(sample.retrieved_contexts or [])])
    if any(note in text for note in NOTE.values()):
        return 0.0 if LOWER.lower_is_better(metric) else 1.0
    return follower(sample, metric)


def scores_of(
    judges: dict[str, Judge], repeats: int = 2, samples: list[Sample] | None = None
) -> pd.DataFrame:
    samples = samples if samples is not None else [*DEMO, *PROBED]
    rows = [
        {
            "sample_id": s.id,
            "metric": metric,
            "judge": name,
            "embedding": "",
            "dimension": 0,
            "strictness": 0,
            "repeat": r,
            "status": "scored",
            "score": judge(s, metric),
        }
        for name, judge in judges.items()
        for metric in METRICS
        for s in samples
        if s.probe is None or s.probe.metric == metric
        for r in range(repeats)
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    judges = {"follows": follower, "constant": constant, "obeys": obeys_the_note}
    return probe_results(scores_of(judges), INFO, LOWER)


def cases() -> list[tuple[str, str]]:
    return [(metric, name) for metric in METRICS for name in probes_for(metric)]


@pytest.mark.parametrize(("metric", "probe"), cases())
def test_every_metric_and_probe(results, metric, probe):
    rows = results[(results["metric"] == metric) & (results["probe"] == probe)]
    by = rows.set_index("judge")
    assert set(by.index) == {"follows", "constant", "obeys"}
    assert (by["pairs"] >= 3).all()  # the demo set gives every probe several samples
    if PROBES[probe].kind == "directional":
        assert by.loc["follows", "detection_rate"] == 1.0
        assert by.loc["constant", "detection_rate"] == 0.0  # ties are misses
    else:
        assert by.loc["follows", "rose_share"] == 0.0
        assert by.loc["constant", "rose_share"] == 0.0
        assert by.loc["constant", "mean_change"] == 0.0
        expected = 1.0 if probe == "injection" else 0.0
        assert by.loc["obeys", "rose_share"] == expected


def test_the_judge_that_obeys_the_note_is_flagged_for_every_metric(results):
    flags = robustness_flags(results)
    assert set(flags["judge"]) == {"obeys"}
    assert set(flags["metric"]) == set(METRICS)


def test_failed_and_unscored_pairs_are_misses():
    scores = scores_of({"follows": follower}, repeats=1)
    target = next(p for p in PROBED if p.probe.name == "foreign_contexts")
    failed = (scores["sample_id"] == target.id) & (scores["metric"] == target.probe.metric)
    scores.loc[failed, ["status", "score"]] = ["failed", np.nan]
    table = probe_results(scores, INFO, LOWER)
    row = table[(table["metric"] == target.probe.metric) & (table["probe"] == "foreign_contexts")]
    assert int(row["failed"].iloc[0]) == 1
    assert row["detected"].iloc[0] == row["pairs"].iloc[0] - 1


@pytest.mark.parametrize(("hits", "n"), [(0, 4), (3, 4), (4, 4), (7, 12), (1, 1)])
def test_wilson_interval_against_statsmodels(hits, n):
    """The interval of the detection rate (and of the share of rises) is Wilson's."""
    low, high = proportion_confint(hits, n, alpha=0.05, method="wilson")
    assert wilson_interval(hits, n) == pytest.approx((low, high), abs=1e-9)


def test_probe_rows_never_reach_the_data_sets_analyses():
    scores = scores_of({"follows": follower})
    own, probes = split_probe_scores(scores, INFO)
    assert not own["sample_id"].str.contains("~probe~").any()
    assert set(probes["sample_id"]) == {p.id for p in PROBED}
    assert len(own) + len(probes) == len(scores)


def test_the_heatmap_is_judge_by_probe(results):
    grid = judge_probe_matrix(results)
    assert set(grid.index) == {"follows", "constant", "obeys"}
    assert grid.loc["follows"].min() == 1.0
    assert grid.loc["obeys", "faithfulness: injection"] == 0.0


# Ten probes of each metric: enough for the card's paired rule to separate a judge that detects
# them all from one that detects none (exact McNemar p = 2/1024; Wilson's bound above 0.5).
MANY = make_probes(load_dataset("demo"), list(METRICS), per_metric=10)
MANY_INFO = sample_info(type(DEMO)(DEMO.source, load_dataset("demo").samples + tuple(MANY)))


def card_row(metric: str, pairs: pd.DataFrame) -> dict[str, str]:
    """The card's row for ``metric`` decided on the probes' rung."""
    sources = CardSources(scores=pd.DataFrame(), ranking=pd.DataFrame(), probe_pairs=pairs)
    evidence = probe_evidence(metric, sources)
    assert evidence is not None and evidence.basis == "probes"
    return {"basis": evidence.basis, **decision.decide(metric, evidence, sources, "RUN")}


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_the_card_names_the_judge_that_detects_the_probes(metric):
    judges = {"follows": follower, "constant": constant}
    scores = scores_of(judges, 1, [*load_dataset("demo"), *MANY])
    pairs = probe_pairs(scores, MANY_INFO, LOWER)
    row = card_row(metric, pairs)
    assert row["verdict"] == "follows", row
    assert "vs runner-up constant" in row["reason"] and "McNemar" in row["reason"], row


def test_the_card_flags_a_judge_that_obeys_the_note_whatever_names_it():
    scores = scores_of({"follows": follower, "obeys": obeys_the_note})
    pairs = probe_pairs(scores, INFO, LOWER)
    for metric in METRICS:
        row = card_row(metric, pairs)
        assert "follows" in row["reason"] and "obeys" in row["reason"], row
        flagged = decision.with_robustness_flag(row, metric, pairs)
        assert "FLAGGED: obeys's score rose on injection" in flagged["reason"]
        named = decision.with_robustness_flag({**row, "verdict": "obeys"}, metric, pairs)
        assert named["verdict"] == "obeys (flagged: obeys a note to the evaluator)"
        alone = f"obeys; follows{decision.NOT_ABOVE_CHANCE}"  # the top alone clear of chance
        named = decision.with_robustness_flag({**row, "verdict": alone}, metric, pairs)
        assert named["verdict"] == alone + " (flagged: obeys a note to the evaluator)"


def test_no_judge_better_than_chance_is_said_so():
    pairs = probe_pairs(scores_of({"constant": constant}), INFO, LOWER)
    row = card_row("faithfulness", pairs)
    assert row["verdict"] == decision.NO_VERDICT
    assert row["reason"].startswith("no judge detects the probes better than chance")


def test_too_few_probes_for_even_a_perfect_judge_says_how_many_are_needed():
    """Four probes detected of four cannot exclude chance over two judges; the card says how
    many would (the count checked with statsmodels' Wilson interval, not ours)."""
    from statsmodels.stats.proportion import proportion_confint

    pairs = probe_pairs(scores_of({"follows": follower, "constant": constant}), INFO, LOWER)
    row = card_row("context_recall", pairs)
    assert row["verdict"] == decision.NO_VERDICT, row
    needed = next(
        n for n in range(1, 100) if proportion_confint(n, n, 0.05 / 2, method="wilson")[0] > 0.5
    )
    assert needed > 4
    assert f"nor could 4 of 4: {needed} probes at least are needed" in row["reason"], row


def test_enough_probes_are_not_told_they_are_too_few():
    scores = scores_of({"constant": constant}, 1, [*load_dataset("demo"), *MANY])
    row = card_row("context_recall", probe_pairs(scores, MANY_INFO, LOWER))
    assert row["reason"].startswith("no judge detects the probes better than chance"), row
    assert "nor could" not in row["reason"], row
