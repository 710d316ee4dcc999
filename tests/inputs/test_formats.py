"""Drop-in for Ragas and DeepEval users: their files, their objects, a column map, each read to
the same Samples as the equivalent JSONL in judgegrid's own (Ragas v2) names.

Ragas' files are written by ragas itself (a test dependency); DeepEval's were written by deepeval
4.3.1 in a separate environment (tests/fixtures/deepeval/make_fixtures.py). The equivalent JSONL
is written with the same file stem, so the default ids agree too and Samples compare whole.
"""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from datasets import Dataset as HFDataset
from ragas import EvaluationDataset, SingleTurnSample
from typer.testing import CliRunner

from judgegrid import run_grid
from judgegrid.cli import app
from judgegrid.core.errors import DatasetError, OptionError
from judgegrid.inputs.dataset import dataset_from_object, load_dataset
from judgegrid.inputs.formats import parse_columns, parse_list

FIXTURES = Path(__file__).parents[1] / "fixtures" / "deepeval"
runner = CliRunner()

# Awkward on purpose: commas and quotes inside contexts, non-ASCII, a missing reference.
SAMPLES: list[dict[str, Any]] = [
    {
        "user_input": "Where is Paris?",
        "response": "Paris is in France, on the Seine.",
        "retrieved_contexts": ["Paris is the capital of France.", "France is in Europe, I'd say."],
        "reference": "In France.",
        "reference_contexts": ["Paris, the capital of France, lies on the Seine."],
    },
    {
        "user_input": "Who wrote Hamlet?",
        "response": "Shakespeare wrote it — «Hamlet».",
        "retrieved_contexts": ["Hamlet is a tragedy by William Shakespeare."],
    },
]


def equivalent_jsonl(tmp_path: Path, stem: str, samples: list[dict[str, Any]] = SAMPLES):
    """The same samples, in judgegrid's names, as a JSONL file of the given stem."""
    folder = tmp_path / "equivalent"
    folder.mkdir(exist_ok=True)
    path = folder / f"{stem}.jsonl"
    path.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples))
    return load_dataset(path).samples


def without_ids(samples) -> list[dict[str, Any]]:
    return [s.model_dump(exclude={"id"}) for s in samples]


def ragas_dataset() -> EvaluationDataset:
    return EvaluationDataset(samples=[SingleTurnSample(**s) for s in SAMPLES])


# -- Ragas -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_files_ragas_writes_read_as_the_jsonl(tmp_path, kind):
    path = tmp_path / f"set.{kind}"
    getattr(ragas_dataset(), f"to_{kind}")(path)
    if kind == "csv":  # Ragas writes lists as Python literals: ['a', "it's"]
        cell = pd.read_csv(path)["retrieved_contexts"][0]
        assert cell == "['Paris is the capital of France.', \"France is in Europe, I'd say.\"]"
    data = load_dataset(path)
    assert data.samples == equivalent_jsonl(tmp_path, "set")
    assert data.mapping is not None and data.mapping.scheme == "Ragas v2 names"
    assert data.samples[0].reference_contexts == SAMPLES[0]["reference_contexts"]


def test_a_save_to_disk_folder_arrow_and_parquet_read_as_the_jsonl(tmp_path):
    hf = ragas_dataset().to_hf_dataset()
    hf.save_to_disk(str(tmp_path / "set"))
    expected = equivalent_jsonl(tmp_path, "set")
    assert load_dataset(tmp_path / "set").samples == expected
    (arrow,) = (tmp_path / "set").glob("*.arrow")
    shutil.copy(arrow, tmp_path / "set.arrow")
    hf.to_parquet(str(tmp_path / "set.parquet"))
    assert load_dataset(tmp_path / "set.arrow").samples == expected
    assert load_dataset(tmp_path / "set.parquet").samples == expected


def test_a_ragas_v1_hugging_face_dataset_reads_as_the_jsonl(tmp_path):
    v1 = [
        {
            "question": s["user_input"],
            "answer": s["response"],
            "contexts": s["retrieved_contexts"],
            "ground_truth": s.get("reference"),
        }
        for s in SAMPLES
    ]
    HFDataset.from_list(v1).save_to_disk(str(tmp_path / "set"))
    data = load_dataset(tmp_path / "set")
    plain = [{k: v for k, v in s.items() if k != "reference_contexts"} for s in SAMPLES]
    assert data.samples == equivalent_jsonl(tmp_path, "set", plain)
    assert data.mapping is not None and data.mapping.scheme == "Ragas v1 names"


def test_ragas_objects_and_hugging_face_objects_in_python():
    expected = dataset_from_object(SAMPLES).samples
    assert dataset_from_object(ragas_dataset()).samples == expected
    assert dataset_from_object(list(ragas_dataset().samples)).samples == expected
    assert dataset_from_object(ragas_dataset().to_hf_dataset()).samples == expected
    assert dataset_from_object(pd.DataFrame(SAMPLES)) is not None
    assert without_ids(dataset_from_object(pd.DataFrame(SAMPLES))) == without_ids(expected)


def test_a_ragas_multi_turn_sample_is_refused_by_position():
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage

    turns = [HumanMessage(content="Hi"), AIMessage(content="Hello.")]
    with pytest.raises(DatasetError, match="item 0: a multi-turn MultiTurnSample"):
        dataset_from_object(EvaluationDataset(samples=[MultiTurnSample(user_input=turns)]))


def test_a_data_frame_with_csv_like_cells_and_a_column_map():
    frame = pd.DataFrame(
        {
            "q": [s["user_input"] for s in SAMPLES],
            "a": [s["response"] for s in SAMPLES],
            "docs": [json.dumps(s["retrieved_contexts"]) for s in SAMPLES],
        }
    )
    data = dataset_from_object(
        frame, columns={"user_input": "q", "response": "a"} | {"retrieved_contexts": "docs"}
    )
    assert [s.retrieved_contexts for s in data] == [s["retrieved_contexts"] for s in SAMPLES]


# -- DeepEval ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["goldens.json", "goldens.jsonl", "goldens.csv", "test_cases.jsonl", "test_cases.csv"]
)
def test_files_deepeval_writes_read_as_the_jsonl(tmp_path, name):
    data = load_dataset(FIXTURES / name)
    assert data.samples == equivalent_jsonl(tmp_path, Path(name).stem)
    assert data.mapping is not None and data.mapping.scheme.startswith("DeepEval")
    # the trap: DeepEval's context is the ideal context, its retrieval_context the retrieved
    assert dict(data.mapping.fields)["context"] == "reference_contexts"
    assert dict(data.mapping.fields)["retrieval_context"] == "retrieved_contexts"


def test_deepeval_camel_case_aliases(tmp_path):
    data = load_dataset(FIXTURES / "test_cases_camel.json")
    assert data.samples == equivalent_jsonl(tmp_path, "test_cases_camel")
    assert data.mapping is not None and "flaky" in data.mapping.ignored


def test_a_deepeval_csv_with_its_own_delimiter(tmp_path):
    path = tmp_path / "set.csv"
    pd.DataFrame(
        {
            "input": [s["user_input"] for s in SAMPLES],
            "actual_output": [s["response"] for s in SAMPLES],
            "retrieval_context": [" ;; ".join(s["retrieved_contexts"]) for s in SAMPLES],
        }
    ).to_csv(path, index=False)
    data = load_dataset(path, list_delimiter=" ;; ")
    plain = [{k: s[k] for k in ("user_input", "response", "retrieved_contexts")} for s in SAMPLES]
    assert data.samples == equivalent_jsonl(tmp_path, "set", plain)


def test_judgegrid_own_fields_read_in_any_scheme():
    record = {"input": "Q?", "actual_output": "A.", "language": "Vietnamese", "labels": {"x": 1}}
    (sample,) = dataset_from_object([record]).samples
    assert (sample.user_input, sample.language, sample.labels) == ("Q?", "vi", {"x": 1})


def fake_deepeval_module(monkeypatch) -> types.ModuleType:
    """Classes named and placed as deepeval's, for a test venv without deepeval: judgegrid
    recognises DeepEval's objects by their module and reads them by attribute."""
    module = types.ModuleType("deepeval.test_case")

    class LLMTestCase:
        def __init__(self, **fields: Any):
            self.input = fields["input"]
            self.actual_output = fields.get("actual_output")
            self.expected_output = fields.get("expected_output")
            self.context = fields.get("context")
            self.retrieval_context = fields.get("retrieval_context")

    class EvaluationDataset:
        def __init__(self, goldens=(), test_cases=()):
            self.goldens, self.test_cases = list(goldens), list(test_cases)

    for cls in (LLMTestCase, EvaluationDataset):
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


def deepeval_cases() -> list[dict[str, Any]]:
    renames = {
        "user_input": "input",
        "response": "actual_output",
        "retrieved_contexts": "retrieval_context",
        "reference": "expected_output",
        "reference_contexts": "context",
    }
    return [{renames[k]: v for k, v in s.items()} for s in SAMPLES]


def test_deepeval_objects_by_their_attributes(monkeypatch):
    deepeval = fake_deepeval_module(monkeypatch)
    cases = [deepeval.LLMTestCase(**c) for c in deepeval_cases()]
    expected = dataset_from_object(SAMPLES).samples
    assert dataset_from_object(cases).samples == expected
    assert dataset_from_object(deepeval.EvaluationDataset(test_cases=cases)).samples == expected
    both = deepeval.EvaluationDataset(goldens=cases, test_cases=cases)
    with pytest.raises(OptionError, match="2 goldens and 2 test cases"):
        dataset_from_object(both)


# -- any table: a column map and a list delimiter ----------------------------------------------


def test_a_csv_with_a_column_map_reads_as_the_jsonl(tmp_path):
    """A tracing tool's export: its own names, extra columns, contexts joined by ' || '."""
    path = tmp_path / "set.csv"
    pd.DataFrame(
        {
            "trace": ["t1", "t2"],
            "question_text": [s["user_input"] for s in SAMPLES],
            "llm_answer": [s["response"] for s in SAMPLES],
            "docs": [" || ".join(s["retrieved_contexts"]) for s in SAMPLES],
            "latency_ms": [120, 340],
        }
    ).to_csv(path, index=False)
    columns = parse_columns(
        "id=trace,user_input=question_text,response=llm_answer,retrieved_contexts=docs"
    )
    data = load_dataset(path, columns=columns, list_delimiter=" || ")
    plain = [
        {"id": f"t{i + 1}", **{k: s[k] for k in ("user_input", "response", "retrieved_contexts")}}
        for i, s in enumerate(SAMPLES)
    ]
    assert data.samples == equivalent_jsonl(tmp_path, "set", plain)
    assert data.mapping is not None and data.mapping.ignored == ("latency_ms",)


def test_validate_says_which_format_it_detected_and_how_each_field_was_mapped(
    tmp_path, write_matrix
):
    result = runner.invoke(
        app, ["validate", str(write_matrix()), "-d", str(FIXTURES / "goldens.csv")]
    )
    assert result.exit_code == 0, result.output
    assert "goldens.csv: read as DeepEval names (LLMTestCase, Golden)" in result.output
    assert "  input → user_input" in result.output
    assert "  retrieval_context → retrieved_contexts (a text cell is split on '|')" in result.output
    assert "  context → reference_contexts (DeepEval's ideal context: kept, not scored;" in (
        result.output
    )
    path = tmp_path / "t.csv"
    pd.DataFrame({"q": ["Q?"], "a": ["A."], "docs": ["x|y"], "extra": [1]}).to_csv(path)
    result = runner.invoke(
        app,
        [
            "validate",
            str(write_matrix()),
            "-d",
            str(path),
            "--columns",
            "user_input=q,response=a,retrieved_contexts=docs",
            "--list-delimiter",
            "|",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "read as your --columns" in result.output
    assert "  docs → retrieved_contexts (a text cell is split on '|')" in result.output
    assert "  left out: Unnamed: 0, extra" in result.output


def test_run_grid_takes_a_data_frame(tmp_path, write_matrix):
    frame = pd.DataFrame(SAMPLES)
    result = run_grid(write_matrix(repeats=1, strictness=[1]), frame, run_dir=tmp_path / "r")
    assert set(result.scores["sample_id"]) == {"row-000", "row-001"}
    assert set(result.scores["status"]) == {"scored"}


# -- lists in text cells ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "delimiter", "given", "expected"),
    [
        ('["a, b", "c"]', None, False, ["a, b", "c"]),  # JSON
        ("['a, b', \"it's\"]", None, False, ["a, b", "it's"]),  # Ragas' CSV: a Python literal
        ("a|b", "|", False, ["a", "b"]),  # DeepEval's delimiter
        ('["a|b"]', "|", False, ["a|b"]),  # a list literal wins over the scheme's delimiter
        ("", None, False, []),
        ("deepeval_source=w,deepeval_context=x, y", "|", False, ["x, y"]),
    ],
)
def test_parse_list(text, delimiter, given, expected):
    assert parse_list(text, delimiter, given) == (expected, None)


@pytest.mark.parametrize(
    ("text", "delimiter", "given", "words"),
    [
        ('["a", "b"]', "|", True, "would cut apart"),
        ("plain text", None, False, "not a list"),
        ("a||b", "|", True, "an empty item"),
        ("Paris, the capital, is big", ",", True, "cuts a sentence apart"),
    ],
)
def test_parse_list_refuses_what_it_would_misread(text, delimiter, given, words):
    value, error = parse_list(text, delimiter, given)
    assert value is None and error is not None and words in error


def test_a_bad_row_is_named_with_its_sample(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"input": ["Q?"], "actual_output": ["A."], "retrieval_context": ["x||y"]}).to_csv(
        path, index=False
    )
    with pytest.raises(DatasetError, match=r"row 2 \(sample 'd-000'\), field retrieval_context"):
        load_dataset(path)
