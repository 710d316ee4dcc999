"""Data sets: formats, legacy aliases, precise errors, the demo set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from judgegrid.dataset import load_dataset, load_demo
from judgegrid.errors import DatasetError

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
    assert len(demo) >= 12
    assert all(s.user_input and s.response and s.retrieved_contexts and s.reference for s in demo)
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
        "relevant first",
        "noise first",
    } <= kinds
    for group in contrasts.values():  # each contrast has a best and a worse member
        assert sorted(c.rank for c in group) == list(range(1, len(group) + 1))


def test_the_first_six_demo_samples_hold_a_whole_contrast_per_metric():
    # model_matrices/local.yaml scores only these six (limit: 6) to stay within ten minutes
    first = load_demo().head(6)
    groups: dict[str, list[int]] = {}
    for s in first:
        assert s.contrast is not None
        groups.setdefault(s.contrast.metric, []).append(s.contrast.rank)
    assert set(groups) == {"faithfulness", "response_relevancy", "context_precision"}
    assert all(len(ranks) == 2 for ranks in groups.values())
