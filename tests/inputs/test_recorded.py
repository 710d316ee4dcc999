"""Recorded verdicts read (``inputs.recorded``) and written as a run (``run.importing``).

- the long table in CSV, JSON Lines and Parquet reads to the same verdicts; ``--columns`` maps an
  export's names (``judge=A|B``: a row's first with a value, as a Langfuse export needs);
  configuration columns make configurations; cost, tokens and latency unknown
  stay unknown; people's rows are labels; a pairwise criterion's two orders make one cell whose
  verdict is read back in the pair's terms;
- a reward model's ``judgments`` as a Python literal string is read with ``ast.literal_eval``
  (a call in it is refused, never run);
- Ragas' result table: a 0/1 column not judgegrid's is a binary criterion, another numeric one
  is refused at its row and column, text columns and pandas' index are left out and said, an
  ``id`` column names the samples, a ``retrieved_contexts`` cell is read as a literal (a call
  in it refused, never run), ``--judge`` names one judge per file and no other format's;
- DeepEval's test run: a metric judgegrid does not have (GEval) is a binary criterion of
  DeepEval's success, and a latest-run file that holds only Confident AI's link is refused;
- ``--format auto`` detects each format and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from judgegrid import api, import_verdicts, rebuild_report
from judgegrid.core.errors import DatasetError, OptionError
from judgegrid.inputs.recorded import deepeval_results, judgebench, ragas_results
from judgegrid.inputs.recorded.formats import ReadOptions, detect, read_recorded

FIXTURES = Path(__file__).parents[1] / "fixtures"
RAGAS_ROWS = [
    {"user_input": "Who?", "retrieved_contexts": "['Ann wrote it.', 'Bo read it.']",
     "response": "Ann.", "faithfulness": 1.0, "harmful": 0, "persona_name": "x"},
    {"user_input": "When?", "retrieved_contexts": "[]", "response": "1999.",
     "faithfulness": None, "harmful": 1, "persona_name": "y"},
]  # fmt: skip

ROWS = [
    {"sample_id": "s1", "judge": "gpt", "metric": "faithfulness", "score": 0.8, "cost": 0.001,
     "tokens_in": 120, "tokens_out": 30, "user_input": "Who?", "response": "Ann."},
    {"sample_id": "s1", "judge": "llama", "metric": "faithfulness", "score": 0.5},
    {"sample_id": "s2", "judge": "gpt", "metric": "faithfulness", "score": 1.0,
     "user_input": "When?", "response": "1999."},
    {"sample_id": "s2", "judge": "llama", "metric": "faithfulness", "score": 0.0},
    {"sample_id": "s1", "judge": "gpt", "metric": "polite", "answer": "pass"},
    {"sample_id": "s2", "judge": "gpt", "metric": "polite", "answer": "fail"},
    {"sample_id": "s1", "judge": "ann", "metric": "polite", "answer": "pass", "source": "people"},
]  # fmt: skip


def write(tmp_path: Path, name: str, rows: list[dict]) -> Path:
    path = tmp_path / name
    frame = pd.DataFrame(rows)
    if name.endswith(".csv"):
        frame.to_csv(path, index=False)
    elif name.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["v.csv", "v.jsonl", "v.parquet"])
def test_a_long_table_in_each_format_is_the_same_run(tmp_path, name):
    result = import_verdicts(write(tmp_path, name, ROWS), tmp_path / "run")
    assert (result.format, result.detected) == ("long", True)
    assert (result.judges, result.samples, result.cells, result.labels) == (
        ["gpt", "llama"],
        2,
        6,
        1,
    )
    scores = api.load_run(tmp_path / "run")[0].set_index(["metric", "judge", "sample_id"])
    first = scores.loc[("faithfulness", "gpt", "s1")]
    assert (first["score"], first["cost"], first["tokens_in"], first["calls"]) == (
        0.8,
        0.001,
        120,
        0,
    )
    other = scores.loc[("faithfulness", "llama", "s1")]
    assert pd.isna(other["cost"]) and pd.isna(other["tokens_in"]) and pd.isna(other["latency_s"])
    assert json.loads(other["details"])["imported"]["line"] in ("line 2", "row 3", "row 1")
    assert scores.loc[("polite", "gpt", "s2"), "answer"] == 0.0
    more = tmp_path / "more.csv"
    more.write_text("sample_id,metric,annotator,value\ns2,polite,bob,fail\n", encoding="utf-8")
    assert api.import_labels(tmp_path / "run", more) == 1  # labels import reads it as a run
    labels = api.export_labels(tmp_path / "run")
    assert labels[["sample_id", "metric", "annotator", "value"]].values.tolist() == [
        ["s1", "polite", "ann", 1.0],
        ["s2", "polite", "bob", 0.0],
    ]
    rebuild_report(tmp_path / "run")
    summary = (tmp_path / "run" / "summary.md").read_text(encoding="utf-8")
    assert "faithfulness" in summary and "polite" in summary


def test_columns_map_an_export_s_names_and_configuration_columns_make_configurations(tmp_path):
    rows = [
        {"id": "s1", "model": "gpt", "metric": "faithfulness", "value": 0.8, "config.t": 0},
        {"id": "s1", "model": "gpt", "metric": "faithfulness", "value": 0.6, "config.t": 1},
        {"id": "s1", "model": "gpt", "metric": "faithfulness", "value": 0.7, "config.t": 1,
         "repeat": 1, "notes": "kept out"},
    ]  # fmt: skip
    path = write(tmp_path, "v.jsonl", rows)
    columns = {"sample_id": "id", "judge": "model", "score": "value"}
    result = import_verdicts(path, tmp_path / "run", columns=columns)
    assert result.judges == ["gpt [t=0]", "gpt [t=1]"]
    assert any("notes" in note for note in result.notes)
    with pytest.raises(DatasetError, match=r"--columns judge=modell.*'model'"):
        import_verdicts(path, tmp_path / "other", columns={"judge": "modell"})
    assert not (tmp_path / "other").exists()


LANGFUSE = [  # a Langfuse score export's columns (its blob export, with score provenance)
    {"id": "c1", "trace_id": "t1", "name": "faithfulness", "value": 0.9, "source": "EVAL",
     "data_type": "NUMERIC", "evaluator_id": "gpt-4o", "author_user_id": None},
    {"id": "c2", "trace_id": "t1", "name": "faithfulness", "value": 0.6, "source": "EVAL",
     "data_type": "NUMERIC", "evaluator_id": "haiku", "author_user_id": ""},
    {"id": "c3", "trace_id": "t2", "name": "faithfulness", "value": 0.2, "source": "EVAL",
     "data_type": "NUMERIC", "evaluator_id": "gpt-4o", "author_user_id": None},
    {"id": "c4", "trace_id": "t2", "name": "faithfulness", "value": 0.5, "source": "API",
     "data_type": "NUMERIC", "evaluator_id": "haiku", "author_user_id": None},
    {"id": "c5", "trace_id": "t1", "name": "faithfulness", "value": 1.0, "source": "ANNOTATION",
     "data_type": "NUMERIC", "evaluator_id": " ", "author_user_id": "ann"},
]  # fmt: skip
LANGFUSE_COLUMNS = {
    "sample_id": "trace_id",
    "metric": "name",
    "score": "value",
    "judge": "evaluator_id|author_user_id",
}


@pytest.mark.parametrize("name", ["scores.csv", "scores.jsonl"])
def test_a_column_map_takes_a_row_s_first_column_with_a_value_and_annotations_are_people(
    tmp_path, name
):
    path = write(tmp_path, name, LANGFUSE)
    result = import_verdicts(path, tmp_path / "run", columns=LANGFUSE_COLUMNS)
    assert (result.judges, result.cells, result.labels) == (["gpt-4o", "haiku"], 4, 1)
    assert not any("evaluator_id" in note or "author_user_id" in note for note in result.notes)
    scores = api.load_run(tmp_path / "run")[0].set_index(["judge", "sample_id"])["score"]
    assert scores[("haiku", "t2")] == pytest.approx(0.5)  # API: a judge's, as EVAL is
    labels = api.export_labels(tmp_path / "run")
    assert labels[["sample_id", "annotator", "value"]].values.tolist() == [["t1", "ann", 1.0]]


def test_a_column_map_s_alternatives_must_each_be_the_file_s(tmp_path):
    path = write(tmp_path, "scores.csv", LANGFUSE)
    columns = {**LANGFUSE_COLUMNS, "judge": "evaluator_id|author_id"}
    with pytest.raises(DatasetError, match=r"--columns judge=evaluator_id\|author_id.*'author_id'"):
        import_verdicts(path, tmp_path / "run", columns=columns)
    assert not (tmp_path / "run").exists()


def test_a_pairwise_criterion_s_two_orders_are_one_cell_in_the_pair_s_terms(tmp_path):
    base = {
        "sample_id": "p1",
        "judge": "gpt",
        "metric": "better",
        "user_input": "Q?",
        "response_a": "x",
        "response_b": "y",
    }
    rows = [
        {**base, "order": "ab", "answer": "A"},  # a, shown first, chosen
        {**base, "order": "ba", "answer": "tie"},
        {**base, "sample_id": "p2", "order": "ab", "answer": "B>A"},  # b
        {**base, "sample_id": "p2", "order": "ba", "answer": "A>B"},  # b again, shown first
        {"sample_id": "p1", "judge": "ann", "metric": "better", "answer": "a", "source": "people"},
        {"sample_id": "p2", "judge": "ann", "metric": "better", "answer": "a", "source": "people"},
    ]  # fmt: skip
    for rule, p1 in (("mt-bench", 0.5), ("sum", 1.0)):
        out = tmp_path / rule
        import_verdicts(write(tmp_path, "v.csv", rows), out, combine=rule)
        scores = api.load_run(out)[0].set_index("sample_id")
        assert scores.loc["p1", "score"] == p1
        assert scores.loc["p2", "score"] == 0.0
        orders = json.loads(scores.loc["p2", "details"])["orders"]
        assert {o: v["winner"] for o, v in orders.items()} == {"ab": "b", "ba": "b"}
    rebuild_report(tmp_path / "sum")
    rules = pd.read_csv(tmp_path / "sum" / "tables" / "pairwise_rules.csv").set_index("rule")
    assert rules.loc["sum", "right"] == 1 and rules.loc["mt-bench", "right"] == 0


def test_a_reward_model_s_judgments_as_a_python_literal_are_read_not_run(tmp_path):
    pair = {
        "pair_id": "p1",
        "source": "livebench-math",
        "question": "1+1?",
        "response_A": "2",
        "response_B": "3",
        "label": "A>B",
        "judge_name": "reward_model",
    }
    trials = [
        {"judgment": {"judge_model": "rm", "scores": [2.5, 1.0]}, "decision": "A>B"},
        {"judgment": {"judge_model": "rm", "scores": [1.0, 2.5]}, "decision": "B>A"},
    ]  # fmt: skip
    path = tmp_path / "rm.jsonl"
    path.write_text(json.dumps({**pair, "judgments": repr(trials)}) + "\n", encoding="utf-8")
    recorded = judgebench.read([path])
    assert recorded.verdicts["winner"].tolist() == ["a", "a"]
    assert json.loads(recorded.verdicts["details"][0])["scores"] == [2.5, 1.0]
    assert recorded.groups == {"p1": "math"}
    called = tmp_path / "called.jsonl"
    evil = {**pair, "judgments": "__import__('os').system('touch " + str(tmp_path / "x") + "')"}
    called.write_text(json.dumps(evil) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 1: judgments: neither a list nor a Python"):
        judgebench.read([called])
    assert not (tmp_path / "x").exists()


def test_auto_detects_each_format(tmp_path):
    assert detect(write(tmp_path, "v.csv", ROWS)) == "long"
    pair = {"pair_id": "p", "question": "q", "response_A": "a", "response_B": "b", "label": "A>B"}
    assert detect(write(tmp_path, "j.jsonl", [pair])) == "judgebench"
    with pytest.raises(DatasetError, match="cannot tell its format: its first record has x"):
        detect(write(tmp_path, "x.jsonl", [{"x": 1}]))


def test_auto_detects_ragas_and_deepeval_files():
    assert detect(FIXTURES / "ragas_results" / "lenient-judge.csv") == "ragas"
    assert detect(FIXTURES / "ragas_results" / "strict-judge.parquet") == "ragas"
    assert detect(FIXTURES / "deepeval_results" / "test_run_judge_a.json") == "deepeval"
    assert detect(FIXTURES / "deepeval_results" / "latest_test_run.json") == "deepeval"


def test_a_ragas_table_s_columns(tmp_path):
    recorded = ragas_results.read([write(tmp_path, "run.csv", RAGAS_ROWS)], ["gpt"])
    verdicts = recorded.verdicts
    assert verdicts[["sample_id", "metric", "score"]].values.tolist() == [
        ["0", "faithfulness", 1.0],  # row 1's NaN: no verdict
        ["0", "harmful", 0.0],
        ["1", "harmful", 1.0],
    ]
    assert [(c.name, c.type) for c in recorded.criteria] == [("harmful", "binary")]
    assert recorded.samples[0].retrieved_contexts == ["Ann wrote it.", "Bo read it."]
    assert recorded.samples[1].retrieved_contexts == []
    assert any("columns left out: persona_name" in note for note in recorded.notes)
    assert any("faithfulness (1)" in note for note in recorded.notes)
    named = [{**row, "id": f"q{i}"} for i, row in enumerate(RAGAS_ROWS)]
    frame = pd.DataFrame(named)
    frame["retrieved_contexts"] = [["Ann wrote it."], []]
    frame.to_csv(tmp_path / "indexed.csv")  # pandas' index as a nameless first column
    frame.to_parquet(tmp_path / "named.parquet")
    for name in ("indexed.csv", "named.parquet"):
        read = ragas_results.read([tmp_path / name])
        assert [s.id for s in read.samples] == ["q0", "q1"]
        assert read.samples[0].retrieved_contexts == ["Ann wrote it."]
        assert read.judges == [Path(name).stem]


def test_a_ragas_score_column_of_unknown_range_is_refused_at_its_row(tmp_path):
    rows = [{**row, "rubric_score": 3.0} for row in RAGAS_ROWS]
    with pytest.raises(DatasetError, match="row 2: rubric_score: neither a metric judgegrid"):
        ragas_results.read([write(tmp_path, "run.csv", rows)])


def test_a_ragas_contexts_cell_is_read_not_run(tmp_path):
    touched = tmp_path / "x"
    evil = f"[__import__('os').system('touch {touched}')]"
    rows = [{**RAGAS_ROWS[0], "retrieved_contexts": evil}]
    with pytest.raises(DatasetError, match="row 2: retrieved_contexts: not a list"):
        ragas_results.read([write(tmp_path, "run.csv", rows)])
    assert not touched.exists()


def test_judge_names_fit_the_files_and_ragas_only(tmp_path):
    path = write(tmp_path, "run.csv", RAGAS_ROWS)
    with pytest.raises(OptionError, match="2 judge names for 1 files"):
        read_recorded([path], "ragas", ReadOptions(judges=("a", "b")))
    other = write(tmp_path, "v.csv", ROWS)
    with pytest.raises(OptionError, match=r"--judge.*long files name their own judges"):
        read_recorded([other], "auto", ReadOptions(judges=("a",)))


def _deepeval_run(metrics: list[dict]) -> dict:
    case = {"name": "test_case_0", "input": "Q?", "actualOutput": "A.", "metricsData": metrics}
    return {"testCases": [case], "conversationalTestCases": [{"name": "chat"}]}


def test_a_deepeval_metric_judgegrid_lacks_is_deepeval_s_pass(tmp_path):
    geval = {"name": "Correctness [GEval]", "score": 0.4, "threshold": 0.5, "success": False,
             "reason": "Wrong year.", "evaluationModel": "gpt-4.1", "evaluationCost": 0.002,
             "inputTokenCount": 310, "outputTokenCount": 42}  # fmt: skip
    path = tmp_path / "test_run_1.json"
    path.write_text(json.dumps(_deepeval_run([geval])), encoding="utf-8")
    recorded = deepeval_results.read([path])
    row = recorded.verdicts.iloc[0]
    assert (row["metric"], row["judge"], row["score"]) == ("correctness_geval", "gpt-4.1", 0.0)
    assert (row["cost"], row["tokens_in"], row["tokens_out"]) == (0.002, 310, 42)
    assert json.loads(row["details"])["score"] == 0.4
    assert [(c.name, c.type) for c in recorded.criteria] == [("correctness_geval", "binary")]
    assert "at threshold 0.5" in recorded.criteria[0].definition
    assert any(
        "multi-turn test cases (conversationalTestCases), left out: 1" in n for n in recorded.notes
    )


def test_a_deepeval_link_only_file_is_refused(tmp_path):
    path = tmp_path / ".latest_test_run.json"
    path.write_text(json.dumps({"testRunLink": "https://app.confident-ai.com/x"}), encoding="utf-8")
    with pytest.raises(DatasetError, match="only a link to the run on Confident AI"):
        deepeval_results.read([path])
