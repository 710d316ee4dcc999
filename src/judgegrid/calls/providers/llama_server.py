"""llama-cpp-python's OpenAI-compatible server, taking OpenAI's ``json_schema`` response format.

``python -m judgegrid.calls.providers.llama_server --model X.gguf --model_alias NAME --port P`` runs
``llama_cpp.server`` as it is (same arguments), with one adapter in front: llama-cpp-python 0.3
constrains output to a JSON schema only when it is sent as ``{"type": "json_object", "schema":
S}`` and refuses OpenAI's ``{"type": "json_schema", "json_schema": {"schema": S}}``, which is what
litellm sends and what vLLM, llama.cpp's own C++ server and Ollama take. The adapter rewrites the
second form into the first, so a judge reaches this server exactly as it would reach those.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def llama_response_format(body: dict[str, Any]) -> dict[str, Any]:
    """The request with an OpenAI ``json_schema`` response format in llama-cpp-python's form."""
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        rewritten: dict[str, Any] = {"type": "json_object"}
        if schema is not None:
            rewritten["schema"] = schema
        return {**body, "response_format": rewritten}
    return body


class JsonSchemaAdapter:
    """ASGI middleware: chat-completion bodies go through ``llama_response_format``."""

    def __init__(self, app: App):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/chat/completions"):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        body = b"".join(chunks)
        with contextlib.suppress(ValueError, AttributeError, TypeError):
            # not a JSON object: left as it is, the server answers it as it would
            body = json.dumps(llama_response_format(json.loads(body))).encode("utf-8")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()  # a disconnect, later
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def main(argv: list[str] | None = None) -> None:
    """Parse llama_cpp.server's own arguments, build its app, serve it behind the adapter."""
    import argparse

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_args_from_model(parser, Settings)
    args = parser.parse_args(argv)
    server: Any = parse_model_from_args(ServerSettings, args)  # typed as the class, is one
    model: Any = parse_model_from_args(ModelSettings, args)
    app = create_app(server_settings=server, model_settings=[model])
    print(f"llama.cpp server on http://{server.host}:{server.port}/v1", file=sys.stderr, flush=True)
    uvicorn.run(JsonSchemaAdapter(app), host=server.host, port=server.port, log_level="warning")


if __name__ == "__main__":
    main()
