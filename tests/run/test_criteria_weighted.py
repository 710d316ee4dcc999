"""A criterion weighted by log-probabilities through the whole chain on the scripted judge
(needs critlogprobs' scripted alternatives): a judge that returns them gets ``logprobs`` cells
whose score is the expected value; one that returns none gets ``missing`` cells, scored by the
plain answer, never silently."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from conftest import matrix_dict
from judgegrid import api

CRITERIA = [
    {
        "name": "polite",
        "definition": "Is the reply polite?",
        "type": "binary",
        "strictness": 3,
        "weighting": "auto",
    },
    {
        "name": "helpful",
        "definition": "How helpful is the reply?",
        "type": "scale",
        "scale": {1: "no help", 2: "some help", 3: "helpful"},
        "weighting": "logprobs",
    },
]


def test_weighted_cells_say_what_they_got(tmp_path: Path, scripted_provider):
    def alternatives(step, prompt, model, text):
        if "judge-b" in model:
            return None  # judge b returns no log-probabilities
        return (
            {"pass": math.log(0.7), "fail": math.log(0.3)}
            if '"verdict"' in text
            else {"1": math.log(0.2), "2": math.log(0.5), "3": math.log(0.3)}
        )

    scripted_provider.alternatives = alternatives
    matrix = matrix_dict(metrics=[], embeddings=[], criteria=CRITERIA, repeats=1)
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    run = api.run_grid(path, limit=3, run_dir=tmp_path / "run")
    s = run.scores
    assert run.complete and set(s["status"]) == {"scored"}
    a, b = s[s["judge"] == "a"], s[s["judge"] == "b"]
    assert set(a["weighting"]) == {"logprobs"} and set(b["weighting"]) == {"missing"}
    assert (b["score"] == b["answer"]).all()
    polite = a[a["metric"] == "polite"]
    assert polite["score"].to_numpy() == pytest.approx([0.7] * len(polite))  # P(pass)
    helpful = a[a["metric"] == "helpful"]
    assert helpful["score"].to_numpy() == pytest.approx([0.2 + 1.0 + 0.9] * len(helpful))
    probabilities = json.loads(helpful.iloc[0]["details"])["probabilities"]
    assert probabilities == pytest.approx({"1.0": 0.2, "2.0": 0.5, "3.0": 0.3})
    again = api.run_grid(path, limit=3, run_dir=tmp_path / "again")  # from the cache
    assert len(again.calls) == 0
    assert set(again.scores["weighting"]) == {"logprobs", "missing"}
