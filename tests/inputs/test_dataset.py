"""Data sets: formats, legacy aliases, precise errors, the demo set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from judgegrid.analyses.stats.intervals import wilson_interval
from judgegrid.core.errors import DatasetError
from judgegrid.inputs.dataset import load_dataset, load_demo
from judgegrid.inputs.formats import mapping_lines

ROOT = Path(__file__).resolve().parents[2]

ROWS = [
    {
        "id": "a",
        "question": "Q1?",
        "answer": "A1.",
        "contexts": ["c1", "c2"],
        "ground_truth": "R1.",
    },
    {"id": "b", "user_input": "Q2?", "response": "A2.", "retrieved_contexts": ["c3"]},
]


def test_jsonl_with_legacy_aliases(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS))
    data = load_dataset(path)
    a, b = data.samples
    assert (a.user_input, a.response, a.retrieved_contexts, a.reference) == (
        "Q1?",
        "A1.",
        ["c1", "c2"],
        "R1.",
    )
    assert b.reference is None and b.is_missing("reference")


def test_csv_with_contexts_as_json_list(tmp_path: Path):
    path = tmp_path / "d.csv"
    frame = pd.DataFrame(
        [
            {**r, "contexts": json.dumps(r.pop("contexts"))}
            if "contexts" in r
            else {**r, "retrieved_contexts": json.dumps(r.pop("retrieved_contexts"))}
            for r in [dict(x) for x in ROWS]
        ]
    )
    frame.to_csv(path, index=False)
    a, b = load_dataset(path).samples
    assert a.retrieved_contexts == ["c1", "c2"] and b.retrieved_contexts == ["c3"]
    assert b.reference is None


def test_parquet(tmp_path: Path):
    path = tmp_path / "d.parquet"
    pd.DataFrame(
        [
            {
                "id": "p1",
                "user_input": "Q?",
                "response": "A.",
                "retrieved_contexts": ["x", "y"],
                "reference": "R.",
            }
        ]
    ).to_parquet(path)
    (sample,) = load_dataset(path).samples
    assert sample.retrieved_contexts == ["x", "y"]


def test_bad_json_line_is_named(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{not json\n")
    with pytest.raises(DatasetError, match=r"d.jsonl: line 2: not valid JSON"):
        load_dataset(path)


def test_wrong_field_type_names_sample_and_field(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "s9", "user_input": "Q", "contexts": 7}))
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert "line 1 (sample 's9'), field contexts: Input should be a valid list" in str(info.value)


def test_contexts_as_plain_text_asks_for_a_list_or_a_delimiter(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "s9", "user_input": "Q", "contexts": "not a list"}))
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert "line 1 (sample 's9'), field contexts: not a list ('not a list')" in str(info.value)
    assert "--list-delimiter" in str(info.value)


def test_duplicate_ids(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n" + json.dumps(ROWS[0]))
    with pytest.raises(DatasetError, match="id 'a' is also used at line 1"):
        load_dataset(path)


def test_unknown_format(tmp_path: Path):
    path = tmp_path / "d.xlsx"
    path.write_text("")
    with pytest.raises(DatasetError, match="unknown format"):
        load_dataset(path)


def test_demo_set_has_varied_samples_and_contrasts():
    demo = load_demo()
    assert len(demo) >= 31
    contrasts = {}
    for s in demo:
        if s.contrast:
            contrasts.setdefault((s.contrast.group, s.contrast.metric), []).append(s.contrast)
    kinds = {c.kind for group in contrasts.values() for c in group}
    assert {
        "grounded",
        "hallucinated",
        "complete",
        "incomplete",
        "noncommittal",
        "off-topic",
        "relevant first",
        "noise first",
    } <= kinds
    for group in contrasts.values():  # each contrast has a best and a worse member
        assert sorted(c.rank for c in group) == list(range(1, len(group) + 1))


def test_the_demo_runs_samples_in_four_languages_with_eight_relevancy_pairs():
    """model_matrices/local.yaml scores the first 21 samples: in each of the seeds' languages
    one sample with every field (so every metric is scored in it) and two ResponseRelevancy
    pairs of the same kinds (complete against noncommittal, against off-topic) — eight pairs,
    enough for a Wilson interval to exclude chance when a judge ranks them all."""
    matrix = yaml.safe_load((ROOT / "model_matrices" / "local.yaml").read_text(encoding="utf-8"))
    demo = load_demo().head(matrix["limit"])
    fields = ("user_input", "response", "retrieved_contexts", "reference")
    by_language: dict[str, list] = {}
    for s in demo:
        by_language.setdefault(s.language, []).append(s)
    assert set(by_language) == {"en", "vi", "zh", "ru"}
    for language, samples in by_language.items():
        assert any(all(not s.is_missing(f) for f in fields) for s in samples), language
        pairs = {
            s.contrast.group
            for s in samples
            if s.contrast and s.contrast.metric == "response_relevancy"
        }
        kinds = {
            s.contrast.kind
            for s in samples
            if s.contrast and s.contrast.metric == "response_relevancy"
        }
        assert len(pairs) == 2 and kinds == {"complete", "noncommittal", "off-topic"}, language
    assert wilson_interval(8, 8)[0] > 0.5 and wilson_interval(7, 8)[0] > 0.5


def test_columns_a_criterion_names_are_kept_as_text_and_others_refused_as_before(tmp_path: Path):
    path = tmp_path / "d.csv"
    pd.DataFrame(
        [
            {"user_input": "Q1?", "response": "A1.", "tone": "curt", "stars": 2},
            {"user_input": "Q2?", "response": "A2.", "tone": None, "stars": 5},
        ]
    ).to_csv(path, index=False)
    data = load_dataset(path, extra=("tone", "stars"))
    first, second = data.samples
    assert first.extra == {"tone": "curt", "stars": "2"}
    assert second.extra == {"stars": "5"} and second.is_missing("tone")
    assert first.value_of("tone") == "curt" and first.value_of("response") == "A1."
    assert data.mapping is not None
    assert "kept for the criteria: tone, stars" in mapping_lines(data.mapping)
    with pytest.raises(DatasetError, match="field tone: unknown field"):
        load_dataset(path)  # no criterion names it: the same refusal as before
