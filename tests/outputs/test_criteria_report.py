"""The criteria in the report: summary.md's section, tables/*.csv, report.html's section with
the reliability curves, and the card's rows and flags, written from a scores table of scripted
judges of each type (the report computes nothing of its own)."""

from __future__ import annotations

import pandas as pd

from judgegrid.core import forked
from judgegrid.outputs import report
from judgegrid.outputs.export import worded_cells
from judgegrid.outputs.html_report import CRITERIA_TABLES, SECTIONS
from judgegrid.outputs.terminal_card import terminal_card
from support.criterion_frames import (
    SPECS,
    at_random,
    criterion_scores,
    follows,
    people_labels,
    truths,
    worded,
)


def _criteria_run(tmp_path, monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: False)  # one process: quicker here
    frames, labels = [], []
    for spec in SPECS.values():
        truth = truths(spec, 40)
        judges = {"follower": follows(), "rand": at_random(spec), "wordy": worded(spec)}
        wordings = len(spec.definitions)
        frames.append(
            criterion_scores(spec, judges, truth, wordings=wordings, weighting="logprobs")
        )
        labels.append(people_labels(spec.name, truth))
    scores = pd.concat(frames, ignore_index=True)
    gone = (scores["judge"] == "rand") & (scores["repeat"] == 0)
    scores.loc[gone, "weighting"] = "missing"
    info = {s: {"user_input": f"question {s}"} for s in scores["sample_id"].unique()}
    inputs = report.ValidityInputs(human_labels=pd.concat(labels, ignore_index=True))
    report.write_all(
        tmp_path,
        scores,
        inputs,
        title="criteria",
        expected_cells=len(scores),
        dimension_methods=None,
        facts=report.RunFacts(sample_info=info, criteria=SPECS),
    )
    return tmp_path


def test_the_report_shows_every_criterion_table(tmp_path, monkeypatch):
    run_dir = _criteria_run(tmp_path, monkeypatch)
    summary = (run_dir / "summary.md").read_text()
    assert "## Your criteria" in summary
    for name, title in CRITERIA_TABLES.items():
        assert (run_dir / "tables" / f"{name}.csv").exists(), name
        if name != "reliability_curve":
            assert f"### {title}" in summary
    agreement = pd.read_csv(run_dir / "tables" / "criterion_agreement.csv")
    assert set(agreement["type"]) == {"binary", "labels", "scale"}
    page = (run_dir / "report.html").read_text()
    assert 'id="criteria"' in page and SECTIONS["criteria"] in page
    section = page.split('id="criteria"')[1].split("</section>")[0]
    assert 'alt="reliability curves"' in section
    assert "tables/criterion_validity.csv" in section


def test_the_card_gives_each_criterion_a_verdict_on_people_with_its_flags(tmp_path, monkeypatch):
    run_dir = _criteria_run(tmp_path, monkeypatch)
    card = pd.read_csv(run_dir / "tables" / "decision_card.csv", keep_default_na=False)
    card = card.set_index("metric")
    assert set(card.index) == set(SPECS)
    for name in SPECS:
        assert card.loc[name, "basis"] == "people"
        assert card.loc[name, "measure"] == "accuracy"
        assert "follower" in card.loc[name, "verdict"]
        assert "rand: no logprobs" in card.loc[name, "flags"]  # its repeat 0 had none
    assert "wordy: wording changes verdict 40/40" in card.loc["helpful", "flags"]
    assert "wordy: wording" not in card.loc["polite", "flags"]  # one wording only
    text = "\n".join(terminal_card(run_dir).plain_lines())
    assert "helpful" in text and "acc 1.00" in text


def test_a_run_without_criteria_has_no_criteria_section_in_summary(tmp_path, monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    truth = truths(SPECS["polite"], 10)
    scores = criterion_scores(SPECS["polite"], {"a": follows(), "b": follows()}, truth)
    scores = scores.assign(metric="faithfulness", answer=None, weighting=None)  # built-in rows
    report.write_all(
        tmp_path,
        scores,
        report.ValidityInputs(),
        title="plain",
        expected_cells=None,
        dimension_methods=None,
        facts=report.RunFacts(),
    )
    assert "## Your criteria" not in (tmp_path / "summary.md").read_text()
    assert "No criterion of your own" in (tmp_path / "report.html").read_text()


def test_the_export_reads_a_criterions_definition_not_its_rewordings():
    spec = SPECS["helpful"]  # the wordings answer other levels than the definition
    scores = criterion_scores(spec, {"a": worded(spec)}, [3.0, 1.0, 5.0], wordings=3)
    cells = worded_cells(scores, {spec.name: spec}).xs(0, level="wording")
    means = cells["mean"].droplevel(["metric", "judge", "embedding", "dimension", "strictness"])
    assert means.to_dict() == {"s000": 3.0, "s001": 1.0, "s002": 5.0}
