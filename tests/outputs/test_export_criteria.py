"""`judgegrid export` of criteria of the user's own, on a scripted run: a column per wording with
the judge's modal answer beside each (``polite``, ``polite.answer``, ``polite.w1``, …), in the
Ragas-style table and the wide one, read back from the files the CLI writes.

The expected values are computed here from ``load_run``'s rows with plain loops and
``collections.Counter`` (mean of the scored repeats, the most frequent answer, none on a tie),
not with the export's pandas code."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from conftest import matrix_dict
from judgegrid import load_run, run_grid
from judgegrid.cli import app
from judgegrid.outputs.export import criterion_column

runner = CliRunner()
LIMIT, REPEATS = 4, 3
WORDINGS = ["Is the reply courteous?", "Does the reply avoid rudeness?"]
CRITERIA = [
    {"name": "polite", "definition": "Is the reply polite?", "type": "binary",
     "wordings": WORDINGS},
    {"name": "correctness", "definition": "Is the reply correct?", "type": "labels",
     "labels": {"correct": 1, "partial": 0.5, "wrong": 0},
     "fields": ["user_input", "response", "reference"]},
    {"name": "helpful", "definition": "How helpful is the reply?", "type": "scale",
     "scale": {1: "no help", 2: "some help", 3: "helpful"}},
]  # fmt: skip
NAMES = {
    "polite": {1.0: "pass", 0.0: "fail"},
    "correctness": {1.0: "correct", 0.5: "partial", 0.0: "wrong"},
    "helpful": {1.0: 1.0, 2.0: 2.0, 3.0: 3.0},  # a scale's answer is its level, a number
}


def scripted_answers(default):
    """Answers that differ by judge, wording and repeat (the n-th call of one prompt): judge a
    passes the definition, passes wording 1 twice in three and fails wording 2; judge b's
    labels cycle through all three (a tie: no modal answer) and its levels go 1, 3, 3."""
    asked: Counter[tuple[str, str]] = Counter()

    def answer(step: str, prompt: str, model: str) -> Any:
        given = default(step, prompt, model)
        if step != "criterion":
            return given
        n = asked[(model, prompt)]
        asked[(model, prompt)] += 1
        b = model.endswith("judge-b")
        if "verdict" in given:
            fails = not b and (WORDINGS[1] in prompt or (WORDINGS[0] in prompt and n % 2 == 1))
            return {"verdict": "fail" if fails else "pass", "reason": "scripted"}
        if "label" in given and b:
            return {"label": ["correct", "partial", "wrong"][n % 3], "reason": "scripted"}
        if "level" in given and b:
            return {"level": [1, 3, 3][n % 3], "reason": "scripted"}
        return given

    return answer


@pytest.fixture
def run_dir(tmp_path, scripted_provider) -> Path:
    scripted_provider.answer = scripted_answers(scripted_provider.answer)
    spec = matrix_dict(metrics=[], embeddings=[], criteria=CRITERIA, repeats=REPEATS)
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    result = run_grid(path, limit=LIMIT, run_dir=tmp_path / "run", use_cache=False)
    assert result.complete and set(result.scores["status"]) == {"scored"}
    return result.run_dir


def expected_cells(run_dir: Path) -> dict[tuple, tuple[float, Any]]:
    """{(metric, judge, sample_id, wording): (mean score, modal answer or None on a tie)}."""
    scores, _ = load_run(run_dir)
    found: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    for row in scores.itertuples():
        if row.status == "scored":
            key = (row.metric, row.judge, row.sample_id, int(row.wording))
            found[key].append((float(row.score), float(row.answer)))
    out = {}
    for key, pairs in found.items():
        counts = Counter(NAMES[key[0]][a] for _, a in pairs).most_common()
        tie = len(counts) > 1 and counts[0][1] == counts[1][1]
        out[key] = (sum(s for s, _ in pairs) / len(pairs), None if tie else counts[0][0])
    return out


def same(value: Any, expected: Any) -> bool:
    if expected is None:
        return value is None or (isinstance(value, float) and math.isnan(value))
    if isinstance(expected, float):
        return abs(float(value) - expected) < 1e-12
    return value == expected


def export(run_dir: Path, tmp_path: Path, format: str) -> pd.DataFrame:
    out = tmp_path / f"{format}.csv"
    result = runner.invoke(app, ["export", str(run_dir), "--format", format, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return pd.read_csv(out, keep_default_na=False, na_values=[""])


def test_ragas_table_has_each_wordings_score_and_modal_answer(run_dir, tmp_path):
    table = export(run_dir, tmp_path, "ragas")
    polite = ["polite", "polite.answer", "polite.w1", "polite.w1.answer"]
    polite += ["polite.w2", "polite.w2.answer"]
    others = ["correctness", "correctness.answer", "helpful", "helpful.answer"]
    assert list(table.columns[4:14]) == polite + others
    assert len(table) == 2 * LIMIT  # a row per judge and sample (criteria: no embedding)
    expected = expected_cells(run_dir)
    checked = 0
    for row in table.to_dict("records"):
        for metric, wordings in (("polite", 3), ("correctness", 1), ("helpful", 1)):
            for wording in range(wordings):
                mean, answer = expected[(metric, row["judge"], row["sample_id"], wording)]
                score_column = criterion_column(metric, wording)
                assert same(row[score_column], mean), (score_column, row)
                assert same(row[criterion_column(metric, wording, answer=True)], answer), row
                checked += 1
        assert row["failed"] == row["skipped"] == 0
    assert checked == 2 * LIMIT * 5
    # what the script made them answer, to be sure the checks above saw every case
    a, b = table[table["judge"] == "a"], table[table["judge"] == "b"]
    assert set(a["polite.answer"]) == {"pass"} and set(a["polite.w2.answer"]) == {"fail"}
    assert set(a["polite.w1"].round(4)) == {round(2 / 3, 4)}  # pass, fail, pass
    assert set(a["polite.w1.answer"]) == {"pass"}
    assert b["correctness.answer"].isna().all()  # correct, partial, wrong: a tie
    assert set(b["correctness"]) == {0.5}
    assert set(b["helpful.answer"]) == {3.0} and set(b["helpful"].round(4)) == {round(7 / 3, 4)}


def test_wide_table_names_each_wording_and_answer_per_judge(run_dir, tmp_path):
    table = export(run_dir, tmp_path, "wide")
    expected = expected_cells(run_dir)
    for judge in ("a", "b"):
        for metric, wordings, vote in (("polite", 3, " | s=1"), ("correctness", 1, ""),
                                       ("helpful", 1, "")):  # fmt: skip
            for wording in range(wordings):
                score = f"{criterion_column(metric, wording)} | {judge}{vote}"
                answer = f"{criterion_column(metric, wording, True)} | {judge}{vote}"
                for row in table.to_dict("records"):
                    mean, modal = expected[(metric, judge, row["sample_id"], wording)]
                    assert same(row[score], mean) and same(row[answer], modal), (score, row)
    assert len(table) == LIMIT
    assert (table["failed"] == 0).all() and (table["skipped"] == 0).all()


def test_a_failed_wording_counts_in_its_row_and_leaves_no_answer(tmp_path, scripted_provider):
    """Judge b's cells under polite's wording 2 fail: their score and answer are empty, and the
    row's failed count holds them (every wording's cells are behind the row)."""
    scripted_provider.fail = lambda model, step, n: None
    plain = scripted_provider.answer

    def answer(step: str, prompt: str, model: str) -> Any:
        if step == "criterion" and model.endswith("judge-b") and WORDINGS[1] in prompt:
            return "not JSON"
        return plain(step, prompt, model)

    scripted_provider.answer = answer
    spec = matrix_dict(metrics=[], embeddings=[], criteria=CRITERIA[:1], repeats=1)
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    result = run_grid(path, limit=2, run_dir=tmp_path / "run", use_cache=False)
    failed = result.scores[result.scores["status"] == "failed"]
    assert set(zip(failed["judge"], failed["wording"], strict=True)) == {("b", 2)}
    table = export(result.run_dir, tmp_path, "ragas")
    b = table[table["judge"] == "b"]
    assert b["polite.w2"].isna().all() and b["polite.w2.answer"].isna().all()
    assert b["polite.answer"].notna().all() and (b["failed"] == 1).all()
    assert (table.loc[table["judge"] == "a", "failed"] == 0).all()
