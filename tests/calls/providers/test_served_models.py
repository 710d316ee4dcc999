"""The local models served over HTTP (``judgegrid serve-local``), reached through litellm's
OpenAI-compatible route as vLLM or Ollama would be: real answers, a judge server that dies
mid-run, and a resume after it is back."""

from __future__ import annotations

import json
import urllib.request

import pytest
import yaml

from conftest import ROOT
from judgegrid import resume_run, run_grid
from judgegrid.calls.providers.serve import LocalServers, free_port, plan_servers

pytestmark = pytest.mark.local_models

KILL_AFTER_CELLS = 4


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def servers():
    planned = plan_servers(judge_port=free_port(), embedding_port=free_port(), threads=1)
    with LocalServers(planned) as running:
        yield running


@pytest.fixture(scope="module")
def http_matrix(servers, tmp_path_factory):
    """local-http.yaml as shipped, pointed at this test's ports, cut to its first sample: every
    metric still runs (one sample is a cell per metric and ResponseRelevancy setting), and the
    resume redoes half the real calls it did on two."""
    matrix = yaml.safe_load((ROOT / "model_matrices" / "local-http.yaml").read_text())
    matrix["defaults"]["judge"]["api-base"] = servers.by_model("smollm2-135m").api_base
    matrix["defaults"]["embedding"]["api-base"] = servers.by_model("multilingual-e5-small").api_base
    matrix["limit"] = 1
    path = tmp_path_factory.mktemp("http") / "local-http.yaml"
    path.write_text(yaml.safe_dump(matrix, sort_keys=False))
    return path


def test_the_judge_server_constrains_answers_to_an_openai_json_schema(servers):
    schema = {
        "type": "object",
        "properties": {"verdict": {"type": "integer", "enum": [0, 1]}},
        "required": ["verdict"],
        "additionalProperties": False,
    }
    judge = servers.by_model("smollm2-135m")
    reply = _post(
        f"{judge.api_base}/chat/completions",
        {
            "model": "smollm2-135m",
            "messages": [{"role": "user", "content": "Is Paris in France? Answer in JSON."}],
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
            "temperature": 0,
            "max_tokens": 20,
        },
    )
    assert json.loads(reply["choices"][0]["message"]["content"])["verdict"] in (0, 1)


def test_a_run_whose_judge_server_dies_fails_cells_by_cause_and_resumes_to_completion(
    servers, http_matrix, tmp_path
):
    judge = servers.by_model("smollm2-135m")

    def kill_the_judge(tally, cell, status):
        if tally.done == KILL_AFTER_CELLS and judge.process is not None:
            judge.kill()

    first = run_grid(http_matrix, run_dir=tmp_path / "run", on_progress=kill_the_judge)
    # 7 metrics; response_relevancy: 2 dimensions × 2 strictness = 4; the other 6 metrics 1 each
    assert first.expected_cells == len(first.scores) == 10
    assert set(first.scores["status"]) <= {"scored", "failed"}
    scored, failed = (first.scores[first.scores["status"] == s] for s in ("scored", "failed"))
    assert len(scored) >= 1  # real answers arrived over HTTP before the kill
    assert failed["error"].str.len().gt(0).all()
    assert failed["error"].str.contains("Connection error|connect", case=False).any()
    calls = first.calls
    assert set(calls[calls["kind"] == "completion"]["model"]) == {"openai/smollm2-135m"}
    # embeddings come after a judge's answer: on a loaded machine the kill may come first
    assert set(calls[calls["kind"] == "embedding"]["model"]) <= {"openai/multilingual-e5-small"}

    judge.start()  # back on the same port
    second = resume_run(tmp_path / "run", retry_failed=True)
    assert len(second.scores) == 10 and set(second.scores["status"]) <= {"scored", "failed"}
    still_failed = second.scores[second.scores["status"] == "failed"]
    assert not still_failed["error"].str.contains("Connection error|connect", case=False).any()
    assert still_failed["error"].str.len().gt(0).all()  # a weak judge's bad answers, by cause
    assert (second.scores["status"] == "scored").sum() > len(scored)
    every = second.calls
    assert set(every[every["kind"] == "embedding"]["model"]) == {"openai/multilingual-e5-small"}
