"""A run's score by people's standard (``validity.true_score``): the table per metric and
judge, its missing-data rule, and the card's line, against ppi_py on the same arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import ppi_py
import pytest

from judgegrid.analyses.bundle import chosen_judges
from judgegrid.analyses.decision.card import NO_VERDICT, with_true_score
from judgegrid.analyses.validity.true_score import (
    TRUE_SCORE_COLUMNS,
    pairwise_true_scores,
    true_scores,
    with_chosen,
)


def _rows(judge: str, values: dict[str, float | None], metric: str, repeat: int = 0):
    return [
        {
            "metric": metric,
            "judge": judge,
            "embedding": "",
            "dimension": 0,
            "strictness": 0,
            "sample_id": sid,
            "repeat": repeat,
            "score": v,
            "status": "failed" if v is None else "scored",
        }
        for sid, v in values.items()
    ]


def _run(seed: int = 0, n: int = 300, labelled: int = 60):
    """A lenient judge (two repeats, some failed cells) and a binary criterion's pass/fail
    judge; two annotators on the first ``labelled`` samples."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i:03d}" for i in range(n)]
    truth = rng.random(n)
    rows = []
    for repeat in range(2):
        values = np.clip(truth + 0.2 + rng.normal(0, 0.1, n), 0, 1)
        failed = rng.random(n) < 0.05
        rows += _rows(
            "lenient",
            {s: None if f else float(v) for s, v, f in zip(ids, values, failed, strict=True)},
            "faithfulness",
            repeat,
        )
    passed = (truth > 0.3).astype(float)
    rows += _rows("j", dict(zip(ids, map(float, passed), strict=True)), "polite")
    labels = [
        {"sample_id": s, "metric": m, "annotator": who, "value": v}
        for who, noise in (("ann1", 0.05), ("ann2", 0.1))
        for s, t in zip(ids[:labelled], truth[:labelled], strict=True)
        for m, v in (
            ("faithfulness", float(np.clip(t + rng.normal(0, noise), 0, 1))),
            ("polite", float(t > 0.5)),
        )
    ]
    return pd.DataFrame(rows), pd.DataFrame(labels)


def test_each_metric_and_judge_equals_ppi_py_on_its_own_arrays():
    scores, labels = _run()
    table = with_chosen(true_scores(scores, labels), {"faithfulness": "lenient"})
    assert list(table.columns) == TRUE_SCORE_COLUMNS
    assert set(zip(table["metric"], table["judge"], strict=True)) == {
        ("faithfulness", "lenient"),
        ("polite", "j"),
    }
    for _, row in table.iterrows():
        mine = scores[(scores["metric"] == row["metric"]) & (scores["status"] == "scored")]
        rating = mine.groupby("sample_id")["score"].mean()  # mean of scored repeats
        people = labels[labels["metric"] == row["metric"]].groupby("sample_id")["value"].mean()
        both = people[people.index.isin(rating.index)]
        y, f = both.to_numpy(), rating.reindex(both.index).to_numpy()
        rest = rating.drop(both.index).to_numpy()  # PPI's unlabelled set: the other samples
        low, high = ppi_py.ppi_mean_ci(y, f, rest, alpha=0.05)
        assert row["corrected_low"] == pytest.approx(float(np.ravel(low)[0]), abs=1e-9)
        assert row["corrected_high"] == pytest.approx(float(np.ravel(high)[0]), abs=1e-9)
        assert row["judge_mean"] == pytest.approx(rating.mean())
        assert row["scored"] == len(rating)
        assert row["labels"] + row["labels_unscored"] == people.size
        assert row["people_mean"] == pytest.approx(y.mean())
    lenient = table[table["metric"] == "faithfulness"].iloc[0]
    assert lenient["chosen"]
    assert lenient["judge_mean"] - lenient["corrected"] > 0.1  # the leniency, taken out
    assert lenient["effective_labels"] > lenient["labels"]


def test_a_label_on_a_sample_the_judge_never_scored_is_counted_not_used():
    scores, labels = _run(seed=1)
    lost = scores["sample_id"] == "s000"
    scores.loc[lost & (scores["metric"] == "faithfulness"), ["score", "status"]] = [
        None,
        "failed",
    ]
    row = true_scores(scores, labels).query("metric == 'faithfulness'").iloc[0]
    assert row["labels_unscored"] >= 1
    assert row["labels"] == 60 - row["labels_unscored"]
    assert row["scored"] < 300


def test_no_labels_no_table_and_a_judge_on_no_labelled_sample_says_so():
    scores, labels = _run(seed=2)
    assert true_scores(scores, None).empty
    assert true_scores(scores, labels.iloc[0:0]).empty
    away = labels.assign(sample_id="elsewhere")
    row = true_scores(scores, away).iloc[0]
    assert row["labels"] == 0
    assert "none of the labelled samples" in row["note"]
    assert np.isnan(row["corrected"])


def test_the_card_line_on_a_metric_decided_on_peoples_labels():
    scores, labels = _run(seed=3)
    card = pd.DataFrame(
        [
            {"metric": "faithfulness", "verdict": "lenient", "judge": "lenient"},
            {"metric": "polite", "verdict": "j", "judge": "j"},
        ]
    ).assign(basis=["people", "other judges"], reason=["r", "q"])
    table = with_chosen(true_scores(scores, labels), chosen_judges(card))
    assert table["chosen"].all()
    shown = with_true_score(card, table)
    row = table.query("metric == 'faithfulness'").iloc[0]
    expected = (
        f"r; judge {row['judge_mean']:.2f} · by people's standard {row['corrected']:.2f} "
        f"[{row['corrected_low']:.2f}, {row['corrected_high']:.2f}]"
    )
    assert shown.loc[0, "reason"] == expected
    assert shown.loc[1, "reason"] == "q"  # not decided on people's labels: unchanged
    assert card.loc[0, "reason"] == "r"  # the card given is not changed in place


def test_a_card_with_no_verdict_chooses_no_judge_and_shows_no_line():
    scores, labels = _run(seed=4)
    card = pd.DataFrame(
        [{"metric": "faithfulness", "verdict": NO_VERDICT, "judge": "lenient"}]
    ).assign(basis="people", reason="r")
    table = with_chosen(true_scores(scores, labels), chosen_judges(card))
    assert not table["chosen"].any()
    assert with_true_score(card, table).loc[0, "reason"] == "r"


def test_pairwise_win_rates_of_each_system_equal_ppi_py():
    """A judge that favours answer a: each system's win rate (a tie half a win) corrected by
    people's preferences on 50 of 300 pairs; system x wrote a in half the pairs."""
    rng = np.random.default_rng(9)
    pairs = [f"p{i}" for i in range(300)]
    truth = rng.choice(["a", "b", "tie"], 300, p=[0.45, 0.45, 0.1])
    judged = np.where(rng.random(300) < 0.3, "a", truth)  # a position-biased judge
    both = pd.DataFrame({"judge": "j", "pair": pairs, "combined": judged})
    people = pd.DataFrame({"pair": pairs[:50], "preferred": truth[:50]})
    swap = np.arange(300) % 2 == 1
    systems = pd.DataFrame(
        {"pair": pairs, "system_a": np.where(swap, "y", "x"), "system_b": np.where(swap, "x", "y")}
    )
    table = pairwise_true_scores(both, people, systems).set_index("system")
    outcome = {"a": 1.0, "tie": 0.5, "b": 0.0}
    a_wins = np.array([outcome[v] for v in judged])
    a_said = np.array([outcome[v] for v in truth[:50]])
    for system, mine in (("x", ~swap), ("y", swap)):
        f = np.where(mine, a_wins, 1 - a_wins)
        y = np.where(mine[:50], a_said, 1 - a_said)
        low, high = ppi_py.ppi_mean_ci(y, f[:50], f[50:], alpha=0.05)
        row = table.loc[system]
        assert row["judge_mean"] == pytest.approx(f.mean())
        assert (row["corrected_low"], row["corrected_high"]) == pytest.approx(
            (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
        )
        assert row["scored"] == 300 and row["labels"] == 50
    assert table.loc["x", "corrected"] + table.loc["y", "corrected"] == pytest.approx(1.0)


def test_pairwise_without_recorded_systems_names_the_answers():
    both = pd.DataFrame({"judge": "j", "pair": ["p1", "p2", "p3"], "combined": ["a", "b", "a"]})
    people = pd.DataFrame({"pair": ["p1", "p2", "p9"], "preferred": ["a", "a", "b"]})
    table = pairwise_true_scores(both, people, pd.DataFrame())
    assert list(table["system"]) == ["a", "b"]
    assert list(table["labels"]) == [2, 2]
    assert list(table["labels_unscored"]) == [1, 1]  # p9: preferred, never judged


def test_every_sample_labelled_gives_peoples_own_mean():
    scores, labels = _run(seed=5, n=60, labelled=60)
    row = true_scores(scores, labels).query("metric == 'faithfulness'").iloc[0]
    assert row["corrected"] == pytest.approx(row["people_mean"])
    assert (row["corrected_low"], row["corrected_high"]) == (row["people_low"], row["people_high"])
    assert "every sample" in row["note"]
