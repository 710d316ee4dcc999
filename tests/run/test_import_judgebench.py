"""JudgeBench's own files (``../shared/validation/judgebench/``, verbatim) imported and reported:
each judge's accuracy by JudgeBench's rule equals the paper's, overall (Tables 2 and 3: 65.71,
64.29, 59.43) and per category (knowledge, reasoning, math, coding); beside them o1-mini's
consistency (110 of 350 pairs inconsistent) and first-position rate, each judge's Wilson interval
against statsmodels, and the paired tests between judges (exact McNemar, Holm) against
statsmodels; the card, export, labels and the view's queries read the imported run; a resume is
refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

from conftest import SHARED
from judgegrid import api, export_run, import_verdicts, rebuild_report, resume_run
from judgegrid.analyses.decision.card import EVERY_SAMPLE_LABELLED
from judgegrid.cli import app
from judgegrid.core.errors import RunDirError
from judgegrid.view.app import open_view, serve
from support.servers import LoopbackServer, in_thread

JUDGEBENCH = SHARED / "validation" / "judgebench"
FILES = sorted(JUDGEBENCH.glob("*judge_model*.jsonl"))
pytestmark = pytest.mark.skipif(len(FILES) != 3, reason="../shared/validation/judgebench missing")

O1, SKYWORK, INTERNLM = (
    "o1-mini-2024-09-12",
    "Skywork/Skywork-Reward-Gemma-2-27B",
    "internlm/internlm2-7b-reward",
)
# The paper (arXiv 2410.12784), Table 2 (Arena-Hard judge, o1-mini) and Table 3 (reward models):
# knowledge, reasoning, math, coding, overall, in percent.
PAPER = {
    O1: {"knowledge": 58.44, "reasoning": 62.24, "math": 82.14, "coding": 78.57, "all": 65.71},
    SKYWORK: {"knowledge": 59.74, "reasoning": 66.33, "math": 83.93, "coding": 50.00, "all": 64.29},
    INTERNLM: {
        "knowledge": 56.49,
        "reasoning": 61.22,
        "math": 71.43,
        "coding": 50.00,
        "all": 59.43,
    },
}


@pytest.fixture(scope="module")
def jb(tmp_path_factory) -> Path:
    """The three judges' files imported through the CLI, then reported."""
    out = tmp_path_factory.mktemp("judgebench") / "jb"
    done = CliRunner().invoke(
        app, ["import", *map(str, FILES), "--format", "judgebench", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    assert "1050 cells of 3 judges on 350 samples" in done.output
    rebuild_report(out)
    return out


def _table(jb: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(jb / "tables" / f"{name}.csv")


def test_accuracy_by_judgebench_s_rule_is_the_paper_s_overall(jb):
    rules = _table(jb, "pairwise_rules")
    by_sum = rules[rules["rule"] == "sum"].set_index("judge")
    assert by_sum["chosen"].all()
    for judge, figures in PAPER.items():
        assert by_sum.loc[judge, "pairs"] == 350
        assert round(100 * by_sum.loc[judge, "accuracy"], 2) == figures["all"], judge
    validity = _table(jb, "pairwise_validity").set_index("judge")  # the card's figure
    assert round(100 * validity.loc[O1, "accuracy"], 2) == 65.71


def test_accuracy_per_category_is_the_paper_s_tables_2_and_3(jb):
    groups = _table(jb, "pairwise_groups")
    by_sum = groups[groups["rule"] == "sum"].set_index(["judge", "group"])
    sizes = {"knowledge": 154, "reasoning": 98, "math": 56, "coding": 42}
    for judge, figures in PAPER.items():
        for category, n in sizes.items():
            row = by_sum.loc[(judge, category)]
            assert row["pairs"] == n
            assert round(100 * row["accuracy"], 2) == figures[category], (judge, category)


def test_o1_mini_s_consistency_and_first_position_rate(jb):
    position = _table(jb, "pairwise_position").set_index("judge")
    o1 = position.loc[O1]
    assert (o1["pairs"], o1["consistent"]) == (350, 240)  # 110 of 350 inconsistent
    low, high = proportion_confint(o1["first"], o1["verdicts"], alpha=0.05, method="wilson")
    assert (o1["ci_low"], o1["ci_high"]) == pytest.approx((low, high))
    assert "position bias" in o1["flag"] and "inconsistent" in o1["flag"]
    assert position.loc[INTERNLM, "consistent"] == 350


def test_each_judge_s_wilson_interval_is_statsmodels(jb):
    rules = _table(jb, "pairwise_rules")
    for row in rules.to_dict("records"):
        low, high = proportion_confint(row["right"], row["pairs"], alpha=0.05, method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))


def test_the_paired_tests_are_exact_mcnemar_with_holm(jb):
    combined = _table(jb, "pairwise_combined")
    truth = {
        json.loads(line)["pair_id"]: {"A>B": "a", "B>A": "b"}[json.loads(line)["label"]]
        for line in FILES[0].read_text(encoding="utf-8").splitlines()
    }
    combined["right"] = combined["combined"] == combined["pair"].map(truth)
    right = combined.pivot(index="pair", columns="judge", values="right")
    comparisons = _table(jb, "pairwise_comparisons").set_index("other")
    assert set(comparisons["top"]) == {O1}
    raw = {}
    for other in (SKYWORK, INTERNLM):
        table = pd.crosstab(right[O1], right[other]).reindex(
            index=[True, False], columns=[True, False], fill_value=0
        )
        raw[other] = mcnemar(table.to_numpy(), exact=True).pvalue
        assert comparisons.loc[other, "p"] == pytest.approx(raw[other])
        assert comparisons.loc[other, "n"] == 350
    holm = multipletests(list(raw.values()), method="holm")[1]
    for other, p in zip(raw, holm, strict=True):
        assert comparisons.loc[other, "p_holm"] == pytest.approx(p)


def test_the_card_and_every_reader_of_a_run_read_it(jb):
    summary = (jb / "summary.md").read_text(encoding="utf-8")
    assert "Accuracy by group of pairs" in summary and "| sum " in summary
    card = _table(jb, "decision_card").set_index("metric").loc["judgebench"]
    assert O1 in str(card["verdict"]) and card["basis"] == "people"
    assert card["next_step"] == EVERY_SAMPLE_LABELLED  # the truth of every pair: none to ask
    wide = export_run(jb, "wide")
    assert len(wide) == 350
    labels = api.export_labels(jb)
    assert len(labels) == 350 and set(labels["value"]) == {0.0, 1.0}  # the known truth
    scores, calls = api.load_run(jb)
    assert calls.empty and (scores["calls"] == 0).all()
    details = json.loads(scores.iloc[0]["details"])
    assert details["imported"]["file"].endswith(".jsonl") and details["rule"] == "sum"
    assert scores["tokens_in"].isna().all() and scores["cost"].isna().all()  # unknown, not 0


def test_an_imported_run_is_not_resumed(jb):
    with pytest.raises(RunDirError, match="imported"):
        resume_run(jb)


def test_the_python_api_detects_the_format_and_writes_the_same_run(tmp_path, jb):
    result = import_verdicts(FILES[1:], tmp_path / "two")
    assert (result.format, result.detected) == ("judgebench", True)
    assert result.judges == [SKYWORK, INTERNLM]
    ours = api.load_run(tmp_path / "two")[0].drop(columns="finished_at")
    theirs = api.load_run(jb)[0].drop(columns="finished_at")
    theirs = theirs[theirs["judge"] != O1]
    assert (
        ours.sort_values(["judge", "sample_id"])
        .reset_index(drop=True)
        .equals(theirs.sort_values(["judge", "sample_id"]).reset_index(drop=True))
    )


def test_the_view_serves_the_imported_run(jb, tmp_path):
    run = tmp_path / "jb"
    shutil.copytree(jb, run)
    session = open_view(run, "ann")
    with in_thread(serve, session) as (runner, port):
        server = LoopbackServer(session, port, runner)
        status, page = server.get("/api/view/samples?metric=judgebench&sort=id")
        assert status == 200, page
        assert page["total"] == 350 and len(page["columns"]) == 3
        pair = page["rows"][0]["id"]
        status, detail = server.get(f"/api/view/sample/{pair}?metric=judgebench")
        assert status == 200, detail
        status, decision = server.get("/api/view/decision")
        assert status == 200, decision
