"""Wording sensitivity: a scripted judge whose answer depends on the wording is flagged, on the
card too; one that ignores the wording (however noisy) is not; wording is a facet of the
variance decomposition beside repeats; and cells without log-probabilities are counted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judgegrid.analyses.bundle import RunFacts, ValidityInputs, analyse
from judgegrid.analyses.consistency.variance import RESIDUAL, anova_components, variance_components
from judgegrid.analyses.consistency.weighting import weighting_counts
from judgegrid.analyses.consistency.wording import (
    CHANGED_LIMIT,
    disagreement_test,
    wording_flags,
    wording_variance,
)
from support.criterion_frames import (
    BINARY,
    LABELS,
    SCALE,
    at_random,
    criterion_scores,
    follows,
    people_labels,
    truths,
    worded,
)


def _flags(spec, judges, seed=0, repeats=3, wordings=3):
    truth = truths(spec, 40, seed)
    scores = criterion_scores(spec, judges, truth, repeats=repeats, wordings=wordings, seed=seed)
    return wording_flags(scores, {spec.name: spec}, seed).set_index("judge")


@pytest.mark.parametrize("spec", [BINARY, LABELS, SCALE])
def test_a_judge_whose_answer_depends_on_the_wording_is_flagged(spec):
    flags = _flags(spec, {"wordy": worded(spec), "steady": follows()})
    assert flags.loc["wordy", "flagged"]
    assert flags.loc["wordy", "changed_share"] == 1.0
    assert flags.loc["wordy", "p_value"] < 0.01
    assert not flags.loc["steady", "flagged"]
    assert flags.loc["steady", "changed"] == 0


@pytest.mark.parametrize("spec", [BINARY, LABELS, SCALE])
def test_a_noisy_judge_that_ignores_the_wording_is_not_flagged(spec):
    """Its modal answers differ between wordings by noise alone; the permutation test tells
    (a false flag about one time in twenty: five seeds, at most one)."""
    runs = [_flags(spec, {"noisy": follows(0.4, spec)}, seed).loc["noisy"] for seed in range(5)]
    assert min(r["changed_share"] for r in runs) >= CHANGED_LIMIT  # the share alone would flag
    assert sum(bool(r["flagged"]) for r in runs) <= 1


def test_the_permutation_tests_p_value_is_near_uniform_under_no_wording_effect():
    ps = []
    for seed in range(30):
        truth = truths(BINARY, 30, seed)
        scores = criterion_scores(
            BINARY, {"r": at_random(BINARY)}, truth, repeats=2, wordings=2, seed=seed
        )
        rows = scores.assign(code=scores["answer"])
        ps.append(disagreement_test(rows, seed)[2])
    assert float(np.mean(np.array(ps) < 0.05)) <= 0.2  # about 0.05 expected
    assert 0.35 < float(np.mean(ps)) < 0.65  # 0.5 expected


def test_with_one_repeat_the_share_alone_decides_and_the_note_says_so():
    flags = _flags(BINARY, {"wordy": worded(BINARY)}, repeats=1, wordings=2)
    assert flags.loc["wordy", "flagged"]
    assert np.isnan(flags.loc["wordy", "p_value"])
    assert "one repeat" in flags.loc["wordy", "note"]


def test_the_card_flags_the_wording_dependent_judge():
    truth = truths(SCALE, 40)
    scores = criterion_scores(
        SCALE, {"wordy": worded(SCALE), "steady": follows()}, truth, wordings=3
    )
    analysis = analyse(
        scores,
        RunFacts(criteria={SCALE.name: SCALE}),
        ValidityInputs(human_labels=people_labels(SCALE.name, truth)),
    )
    flags = analysis.card.iloc[0]["flags"]
    assert "wordy: wording changes verdict 40/40" in flags
    assert "steady" not in flags


def test_a_judges_variance_between_wordings_stands_beside_its_variance_between_repeats():
    truth = truths(SCALE, 40)
    scores = criterion_scores(
        SCALE, {"wordy": worded(SCALE), "noisy": follows(0.5, SCALE)}, truth, wordings=3
    )
    table = wording_variance(scores, {SCALE.name: SCALE})
    share = table.pivot_table(index="judge", columns="component", values="share")
    assert share.loc["wordy", RESIDUAL] == 0.0  # deterministic given the wording
    assert share.loc["wordy", "wording x sample"] > 0.9
    assert share.loc["noisy", RESIDUAL] > share.loc["noisy", "wording x sample"]
    one = scores[(scores["judge"] == "noisy")].drop_duplicates(["sample_id", "wording", "repeat"])
    array = np.stack(
        [
            one[one["sample_id"] == s].pivot(index="wording", columns="repeat", values="score")
            for s in sorted(one["sample_id"].unique())
        ]
    )
    expected = anova_components(array, ["sample_id", "wording"], 3)
    noisy = table[table["judge"] == "noisy"].set_index("component")["raw"]
    assert noisy.to_dict() == pytest.approx(expected)


def test_wording_is_a_facet_of_the_run_variance_decomposition_and_never_a_duplicate():
    truth = truths(SCALE, 30)
    scores = criterion_scores(SCALE, {"a": worded(SCALE), "b": follows()}, truth, wordings=3)
    components = variance_components(scores).set_index("component")
    assert {"wording", "wording x sample", "wording x judge x sample"} <= set(components.index)
    assert components.loc["wording x judge x sample", "share"] > 0.3
    built_in = variance_components(scores.drop(columns="wording")[scores["wording"] == 0])
    assert "wording" not in set(built_in["component"])


def test_cells_without_log_probabilities_are_counted_per_judge_and_flagged_on_the_card():
    truth = truths(BINARY, 20)
    scores = criterion_scores(
        BINARY, {"a": follows(), "b": follows()}, truth, repeats=2, weighting="logprobs"
    )
    gone = (scores["judge"] == "b") & (scores["repeat"] == 1)
    scores.loc[gone, "weighting"] = "missing"
    scores.loc[scores.index[0], ["status", "weighting"]] = ["failed", None]
    counts = weighting_counts(scores, {BINARY.name: BINARY}).set_index("judge")
    assert counts.loc["a", ["cells", "logprobs", "without_logprobs"]].tolist() == [39, 39, 0]
    assert counts.loc["b", ["cells", "logprobs", "without_logprobs"]].tolist() == [40, 20, 20]
    assert counts.loc["b", "without_share"] == 0.5
    card = analyse(
        scores,
        RunFacts(criteria={BINARY.name: BINARY}),
        ValidityInputs(human_labels=people_labels(BINARY.name, truth)),
    ).card
    assert "b: no logprobs 20/40" in card.iloc[0]["flags"]
    assert "a:" not in card.iloc[0]["flags"]


def test_a_run_without_criteria_columns_has_no_criterion_tables():
    truth = truths(BINARY, 10)
    scores = criterion_scores(BINARY, {"a": follows()}, truth)
    old = scores.drop(columns=["wording", "answer", "weighting"])
    analysis = analyse(old)
    for name in ("criterion_agreement", "wording_flags", "weighting", "calibration"):
        assert analysis.table(name).empty
    assert isinstance(analysis.card, pd.DataFrame) and len(analysis.card) == 1


def test_the_counted_disagreement_equals_the_shares_of_every_pair_of_cells():
    """The test counts pairs from each sample's wording x answer table; here every pair of a
    sample's cells is looked at one by one."""
    truth = truths(LABELS, 12, seed=7)
    scores = criterion_scores(LABELS, {"n": follows(0.5, LABELS)}, truth, repeats=3, wordings=3)
    scores = scores.drop(index=scores.index[::7])  # uneven cells per sample
    rows = scores.assign(code=scores["answer"] * 2)
    across, within, _ = disagreement_test(rows)
    differ = {True: [], False: []}
    for _, cells in rows.groupby("sample_id"):
        if cells["wording"].nunique() < 2:
            continue
        items = list(zip(cells["wording"], cells["code"], strict=True))
        for i, (w1, c1) in enumerate(items):
            for w2, c2 in items[i + 1 :]:
                differ[w1 == w2].append(c1 != c2)
    assert across == pytest.approx(np.mean(differ[False]))
    assert within == pytest.approx(np.mean(differ[True]))
