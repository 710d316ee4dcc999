"""Recorded and live judges in one run (issue 41): a judge added to an imported run with
``run --resume RUN --add-judges judges.yaml`` (or ``resume_run(add_judges=...)``) is scored on
exactly the imported samples and metrics, the recorded judges are never called and their cells
stay as imported, byte for byte, and the report compares the two judges paired on the same
samples. Refused before any call, leaving the run as it was: texts the metric reads missing from
the import, a judge named like a recorded one, an import with nothing to add."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy.stats import binomtest
from typer.testing import CliRunner

from judgegrid import api, import_verdicts, resume_run
from judgegrid.cli import app
from judgegrid.core.errors import DatasetError, MatrixError, OptionError, RunDirError
from judgegrid.inputs.recorded.formats import ReadOptions, read_recorded
from judgegrid.store.run_dir import RESOLVED_MATRIX

N = 12
OLD, NEW = "old-judge", "candidate"
QUESTIONS = [
    ("What is the capital of France?", "Paris is the capital of France.", "Paris is the capital."),
    ("Who wrote Hamlet?", "Hamlet was written by Shakespeare.", "Shakespeare wrote Hamlet."),
    ("What is water made of?", "Water is made of gold.", "Water is hydrogen and oxygen."),
    ("How many legs has a spider?", "A spider has eight legs.", "Spiders have eight legs."),
]


def _sample(i: int) -> dict[str, str]:
    question, response, context = QUESTIONS[i % len(QUESTIONS)]
    return {
        "user_input": f"{question} (case {i})",
        "response": response,
        "retrieved_contexts": json.dumps([context, f"Note {i}."]),
    }


def _pointwise_rows() -> list[dict[str, object]]:
    """The recorded judge's faithfulness and a binary criterion on every sample, people's
    labels of both, each sample's texts on its rows."""
    rows: list[dict[str, object]] = []
    for i in range(N):
        texts = _sample(i)
        sample = f"s{i}"
        rows.append({"sample_id": sample, "judge": OLD, "metric": "faithfulness",
                     "score": (i % 3) / 2, "cost": 0.001, "group": f"g{i % 2}",
                     **texts})  # fmt: skip
        rows.append({"sample_id": sample, "judge": OLD, "metric": "on_topic",
                     "score": i % 2, **texts})  # fmt: skip
        rows.append({"sample_id": sample, "judge": "ann", "metric": "faithfulness",
                     "score": float(i % 4 != 2), "source": "people"})  # fmt: skip
        rows.append({"sample_id": sample, "judge": "ann", "metric": "on_topic",
                     "answer": "pass" if i % 4 != 2 else "fail", "source": "people"})  # fmt: skip
    return rows


def _pairwise_rows() -> list[dict[str, object]]:
    """The recorded judge's verdicts in both orders on pairs, people's preference on each."""
    rows: list[dict[str, object]] = []
    for i in range(N):
        question, good, _ = QUESTIONS[i % len(QUESTIONS)]
        texts = {"user_input": f"{question} (case {i})", "response_a": good, "response_b": "No."}
        if i % 2:
            texts = {**texts, "response_a": texts["response_b"], "response_b": good}
        first = "A" if i % 3 else "B"
        for order, answer in (("ab", first), ("ba", "B" if first == "A" else "A")):
            rows.append({"sample_id": f"p{i}", "judge": OLD, "metric": "better",
                         "order": order, "answer": answer, **texts})  # fmt: skip
        rows.append({"sample_id": f"p{i}", "judge": "ann", "metric": "better",
                     "answer": "b" if i % 2 else "a", "source": "people"})  # fmt: skip
    return rows


def _csv(path: Path, rows: list[dict[str, object]]) -> Path:
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _judges_file(path: Path, *judges: dict[str, object], **more: object) -> Path:
    path.write_text(yaml.safe_dump({"judges": list(judges), **more}), encoding="utf-8")
    return path


ON_TOPIC = "Does the response answer the question asked?"


def _digest(run: Path) -> dict[str, str]:
    """Every file of a run directory by its bytes' digest (the database's rows by their text:
    the file itself changes as SQLite writes)."""
    files = {
        str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in run.rglob("*")
        if p.is_file() and not p.name.startswith("run.sqlite")
    }
    files["scores"] = hashlib.sha256(_rows(run, "1").encode()).hexdigest()
    return files


def _rows(run: Path, where: str) -> str:
    """The scores table's rows (``where`` one), as their text, in the key's order."""
    with sqlite3.connect(run / "run.sqlite") as db:
        rows = db.execute(
            f"SELECT * FROM scores WHERE {where} ORDER BY metric, judge, sample_id, repeat"
        ).fetchall()
    return json.dumps(rows)


def _invoke(*args: str) -> str:
    done = CliRunner().invoke(app, list(args))
    assert done.exit_code == 0, done.output
    return done.output


@pytest.fixture(scope="module")
def pointwise(tmp_path_factory) -> tuple[Path, str, list[dict[str, object]]]:
    """An import of faithfulness and a binary criterion, a scripted judge added through the
    CLI; the recorded judge's rows as imported, and the calls the resume made."""
    from support import scripted  # the module-scoped run sets the provider up itself

    scripted.register()
    scripted.SCRIPT.reset()
    folder = tmp_path_factory.mktemp("live")
    run = folder / "run"
    _invoke("import", str(_csv(folder / "verdicts.csv", _pointwise_rows())), "--out", str(run))
    before = _rows(run, f"judge = '{OLD}'")
    judges = _judges_file(
        folder / "judges.yaml",
        {"id": "scripted/judge-new", "label": NEW},
        criteria=[{"name": "on_topic", "definition": ON_TOPIC}],
    )
    output = _invoke("run", "--resume", str(run), "--add-judges", str(judges), "--no-progress")
    assert "score rows: 48; the matrix implies: 48" in output, output
    calls = list(scripted.SCRIPT.calls)
    scripted.SCRIPT.reset()
    return run, before, calls


def test_the_added_judge_scores_every_imported_sample_and_metric(pointwise):
    run, _, _ = pointwise
    scores, _ = api.load_run(run)
    new = scores[scores["judge"] == NEW]
    assert set(zip(new["metric"], new["sample_id"], strict=True)) == {
        (metric, f"s{i}") for metric in ("faithfulness", "on_topic") for i in range(N)
    }
    assert (new["status"] == "scored").all() and (new["calls"] > 0).all()


def test_the_recorded_judge_is_never_called_and_its_cells_are_as_imported(pointwise):
    run, before, calls = pointwise
    assert calls and {c["model"] for c in calls} == {"judge-new"}
    assert _rows(run, f"judge = '{OLD}'") == before
    _, table = api.load_run(run)
    assert set(table["label"]) == {NEW}  # the calls table: the added judge's only


def test_the_run_s_matrix_names_both_and_keeps_the_recorded_id(pointwise):
    run, _, _ = pointwise
    matrix = yaml.safe_load((run / RESOLVED_MATRIX).read_text(encoding="utf-8"))
    judges = {j["label"]: j for j in matrix["judges"]}
    assert judges[OLD]["id"] == f"imported/{OLD}" and judges[NEW]["id"] == "scripted/judge-new"
    assert judges[NEW]["options"] == judges[OLD]["options"]  # the matrix's defaults, merged in
    assert matrix["retry"]  # the matrix's own retry settings, which the added judge is called by


def test_the_criterion_s_definition_given_is_what_the_new_judge_is_asked(pointwise):
    run, _, calls = pointwise
    asked = [c["fingerprint"][1] for c in calls if c["step"] == "criterion"]
    assert len(asked) == N and all(ON_TOPIC in prompt for prompt in asked)
    matrix = yaml.safe_load((run / RESOLVED_MATRIX).read_text(encoding="utf-8"))
    assert [c["definition"] for c in matrix["criteria"]] == [ON_TOPIC]


def test_the_report_compares_both_judges_paired_on_the_same_samples(pointwise):
    run, _, _ = pointwise
    api.rebuild_report(run)
    pairs = pd.read_csv(run / "tables" / "agreement_judge_pairs.csv")
    both = pairs[(pairs["rater_a"] == OLD) & (pairs["rater_b"] == NEW)]
    assert list(both["metric"]) == ["faithfulness"] and list(both["n"]) == [N]
    kappa = pd.read_csv(run / "tables" / "criterion_agreement.csv")
    assert set(kappa[kappa["raters"] == f"{NEW} vs {OLD}"]["units"]) == {N}
    card = pd.read_csv(run / "tables" / "decision_card.csv").set_index("metric")
    for metric, test in (("faithfulness", "paired bootstrap"), ("on_topic", "exact McNemar")):
        reason = card.loc[metric, "reason"]
        assert OLD in reason and NEW in reason and test in reason, reason
        assert f"{N} samples people labelled" in reason


def test_the_paired_test_on_the_criterion_is_exact_mcnemar(pointwise):
    """The card's paired test of the two judges on the binary criterion, against scipy's
    binomial test on the discordant samples (McNemar's exact test is that test)."""
    run, _, _ = pointwise
    scores, _ = api.load_run(run)
    topic = scores[scores["metric"] == "on_topic"].pivot(
        index="sample_id", columns="judge", values="answer"
    )
    truth = pd.Series({f"s{i}": float(i % 4 != 2) for i in range(N)})
    right = topic.eq(truth.reindex(topic.index), axis=0)
    only_old = int((right[OLD] & ~right[NEW]).sum())
    only_new = int((~right[OLD] & right[NEW]).sum())
    discordant = only_old + only_new
    expected = binomtest(only_old, discordant, 0.5).pvalue if discordant else 1.0
    evidence = pd.read_csv(run / "tables" / "decision_evidence.csv")
    tested = evidence[(evidence["metric"] == "on_topic") & evidence["p_holm"].notna()]
    assert len(tested) == 1 and tested["p_holm"].iloc[0] == pytest.approx(expected)


def test_the_imported_marks_stay_the_recorded_judges_and_each_sample_s_group(pointwise):
    run, _, _ = pointwise
    with sqlite3.connect(run / "run.sqlite") as db:
        meta = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
    assert meta["imported"]["format"] == "long"
    assert {k: v["group"] for k, v in meta["samples"].items()} == {
        f"s{i}": f"g{i % 2}" for i in range(N)
    }


def test_a_plain_resume_of_the_finished_run_calls_nothing(pointwise, scripted_provider):
    run, before, _ = pointwise
    result = resume_run(run)
    assert scripted_provider.calls == [] and result.complete
    assert _rows(run, f"judge = '{OLD}'") == before


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    import_verdicts([_csv(tmp_path / "verdicts.csv", _pointwise_rows())], run)
    return run


def test_an_imported_run_with_nothing_added_is_refused_as_before(imported):
    before = _digest(imported)
    with pytest.raises(RunDirError, match=r"imported .*cannot be called from here.*--add-judges"):
        resume_run(imported)
    assert _digest(imported) == before


def test_a_judge_named_like_the_recorded_one_is_refused(imported, scripted_provider, tmp_path):
    before = _digest(imported)
    judges = _judges_file(tmp_path / "j.yaml", {"id": "scripted/judge-new", "label": OLD})
    done = CliRunner().invoke(app, ["run", "--resume", str(imported), "--add-judges", str(judges)])
    assert done.exit_code == 2
    assert "judges[0].label" in done.output and "imported judge's name" in done.output
    with pytest.raises(MatrixError, match="imported/"):
        resume_run(imported, add_judges=[{"id": f"imported/{OLD}", "label": "other"}])
    assert scripted_provider.calls == [] and _digest(imported) == before


def test_a_resume_refused_on_its_cost_leaves_the_run_as_it_was(
    imported, scripted_provider, tmp_path
):
    """The plan of the added judge's calls is held to --max-cost after every check: the run's
    matrix is rewritten only when scoring starts, so a refusal then changes nothing."""
    before = _digest(imported)
    judges = _judges_file(tmp_path / "j.yaml", {"id": "scripted/judge-new", "label": NEW})
    args = ["run", "--resume", str(imported), "--add-judges", str(judges), "--max-cost", "0.01"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2 and "--max-cost" in done.output and "candidate" in done.output
    assert scripted_provider.calls == [] and _digest(imported) == before


def test_a_bad_judge_is_named_at_its_place_in_the_file(imported, tmp_path):
    judges = _judges_file(tmp_path / "j.yaml", {"id": "scripted/x"}, {"id": "scripted/y", "tmp": 1})
    with pytest.raises(MatrixError, match=r"j\.yaml: judges\[1\]"):
        resume_run(imported, add_judges=str(judges))
    other = tmp_path / "other.yaml"
    other.write_text("judges: [{id: scripted/x}]\nmetrics: [faithfulness]\n", encoding="utf-8")
    with pytest.raises(MatrixError, match="metrics: only judges: "):
        resume_run(imported, add_judges=other)
    given = {"judges": [{"id": "scripted/x"}], "criteria": [{"name": "on_topc", "definition": "?"}]}
    with pytest.raises(MatrixError, match=r"criteria\[0\]\.name: unknown criterion 'on_topc'"):
        resume_run(imported, add_judges=given)


def test_texts_missing_from_the_import_are_refused_before_any_call(scripted_provider, tmp_path):
    rows = _pointwise_rows()
    for row in rows:
        if row["sample_id"] in ("s3", "s7") and row["judge"] == OLD:
            row.pop("retrieved_contexts")
    run = tmp_path / "run"
    import_verdicts([_csv(tmp_path / "verdicts.csv", rows)], run)
    before = _digest(run)
    with pytest.raises(DatasetError) as refused:
        resume_run(run, add_judges=[{"id": "scripted/judge-new", "label": NEW}])
    text = str(refused.value)
    assert "metric faithfulness" in text and "retrieved_contexts" in text
    assert "'s3' (retrieved_contexts)" in text and "'s7' (retrieved_contexts)" in text
    assert "on_topic" not in text  # the criterion reads user_input and response, all there
    judges = _judges_file(tmp_path / "j.yaml", {"id": "scripted/judge-new"})
    done = CliRunner().invoke(app, ["run", "--resume", str(run), "--add-judges", str(judges)])
    assert done.exit_code == 2 and "'s3' (retrieved_contexts)" in done.output
    assert scripted_provider.calls == [] and _digest(run) == before


def test_add_judges_only_with_resume_and_only_on_an_imported_run(tmp_path, write_matrix):
    with pytest.raises(OptionError, match="--add-judges: only with --resume"):
        api.check_resume_options(None, False, [], add_judges=True)
    run = tmp_path / "own"
    api.run_grid(write_matrix(metrics=["faithfulness"], embeddings=[]), limit=1, run_dir=run)
    with pytest.raises(RunDirError, match="--add-judges: adds judges to an imported run"):
        resume_run(run, add_judges=[{"id": "scripted/judge-c"}])


def test_an_interrupted_resume_loses_nothing_and_a_second_finishes(imported, scripted_provider):
    before = _rows(imported, f"judge = '{OLD}'")
    done = []

    def interrupt(tally, cell, status):
        done.append(cell)
        if len(done) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api.execute_run(
            api.prepare_resume(imported, api.resume_options(add_judges=({"id": "scripted/j"},))),
            on_progress=interrupt,
        )
    scores, _ = api.load_run(imported)
    kept = scores[scores["judge"] == "scripted/j"]
    assert 5 <= len(kept) < 2 * N
    result = resume_run(imported)  # the judge added is in the run's matrix: a plain resume
    scores = result.scores
    assert len(scores[scores["judge"] == "scripted/j"]) == 2 * N and result.complete
    assert _rows(imported, f"judge = '{OLD}'") == before


def test_a_live_judge_beside_a_recorded_one_on_a_pairwise_criterion(tmp_path, scripted_provider):
    run = tmp_path / "pairs"
    import_verdicts([_csv(tmp_path / "pairs.csv", _pairwise_rows())], run)
    before = _rows(run, f"judge = '{OLD}'")
    resume_run(run, add_judges=[{"id": "scripted/judge-new", "label": NEW}])
    assert {c["step"] for c in scripted_provider.calls} == {"pairwise"}
    assert len(scripted_provider.calls) == 2 * N  # both orders of each pair, the new judge only
    assert _rows(run, f"judge = '{OLD}'") == before
    combined = pd.read_csv(run / "tables" / "pairwise_combined.csv")
    assert set(combined["judge"]) == {OLD, NEW}
    comparisons = pd.read_csv(run / "tables" / "pairwise_comparisons.csv")
    assert {*comparisons["top"], *comparisons["other"]} == {OLD, NEW}
    # the paired test: exact McNemar on the pairs each judge got right, against scipy's
    # binomial test on the discordant pairs (McNemar's exact test is that test)
    truth = {f"p{i}": "b" if i % 2 else "a" for i in range(N)}
    combined["right"] = combined["combined"] == combined["pair"].map(truth)
    right = combined.pivot(index="pair", columns="judge", values="right")
    row = comparisons.iloc[0]
    top, other = right[row["top"]], right[row["other"]]
    only_top, only_other = int((top & ~other).sum()), int((~top & other).sum())
    expected = (
        binomtest(only_top, only_top + only_other, 0.5).pvalue if only_top + only_other else 1
    )
    assert row["p"] == pytest.approx(expected) and row["n"] == N


def test_retry_failed_never_drops_a_recorded_judge_s_cell(tmp_path, scripted_provider):
    """A recorded pair judged in one order only is a failed cell under MT-Bench's rule; it is
    the import's, never scored again, so ``retry_failed`` leaves it as it is."""
    rows = [r for r in _pairwise_rows() if not (r["sample_id"] == "p0" and r.get("order") == "ba")]
    run = tmp_path / "pairs"
    import_verdicts([_csv(tmp_path / "pairs.csv", rows)], run)
    before = _rows(run, f"judge = '{OLD}'")
    assert '"failed"' in _rows(run, f"judge = '{OLD}' AND sample_id = 'p0'")
    result = resume_run(run, retry_failed=True, add_judges=[{"id": "scripted/judge-new"}])
    assert _rows(run, f"judge = '{OLD}'") == before and result.complete
    assert len(result.scores) == 2 * N


def test_the_list_columns_read_alike_from_csv_jsonl_and_parquet(tmp_path):
    """retrieved_contexts: a JSON list in a CSV cell, a list in JSON Lines and in Parquet."""
    rows = [r for r in _pointwise_rows() if r["judge"] == OLD]
    listed = [{**r, "retrieved_contexts": json.loads(str(r["retrieved_contexts"]))} for r in rows]
    csv_file = _csv(tmp_path / "v.csv", rows)
    jsonl_file = tmp_path / "v.jsonl"
    jsonl_file.write_text("".join(json.dumps(r) + "\n" for r in listed), encoding="utf-8")
    parquet_file = tmp_path / "v.parquet"
    pd.DataFrame(listed).to_parquet(parquet_file, index=False)
    read = [read_recorded([f], "long", ReadOptions())[0].samples for f in (csv_file, jsonl_file)]
    read.append(read_recorded([parquet_file], "long", ReadOptions())[0].samples)
    assert read[0] == read[1] == read[2]
    assert read[0][1].retrieved_contexts == [QUESTIONS[1][2], "Note 1."]


def test_a_metric_read_with_an_unrecorded_embedding_is_refused(tmp_path, scripted_provider):
    """response_relevancy needs an embedding model; an import records none (its cells sit at an
    embedding no one can call), so a judge added to it is refused before any call."""
    rows = [
        {"sample_id": f"s{i}", "judge": OLD, "metric": "response_relevancy", "score": 0.5,
         **_sample(i)}
        for i in range(3)
    ]  # fmt: skip
    run = tmp_path / "run"
    import_verdicts([_csv(tmp_path / "v.csv", rows)], run)
    before = _digest(run)
    with pytest.raises(
        DatasetError, match=r"metric response_relevancy: .*needs an embedding model"
    ):
        resume_run(run, add_judges=[{"id": "scripted/judge-new"}])
    assert scripted_provider.calls == [] and _digest(run) == before
