"""Valid answers to prompts that are not judgegrid's: an instance of the JSON schema asked for.

The fault server answers judgegrid's own prompts with scripted, sensible answers
(``answers.py``). Another harness measured on the same server (Ragas, in
``benches/bench_vs_ragas.py``) asks with its own prompts; it gets an instance of the JSON schema
its request names, in ``response_format`` or in the prompt text ("… complies with the following
schema …"), so it parses every reply as it would a real model's and no NaN comes from the server.
"""

from __future__ import annotations

import json
from typing import Any

# How Ragas' prompts (PydanticPrompt) introduce the output schema in their text.
SCHEMA_MARKERS = ("following schema as specified in JSON Schema:", "JSON Schema:")
ITEMS = 2  # items in every array: enough for a statement list, a verdict list


def schema_in_request(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks its answer to fit, if it names one."""
    fmt = body.get("response_format") or {}
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        if isinstance(spec.get("schema"), dict):
            return spec["schema"]
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
    for marker in SCHEMA_MARKERS:
        at = text.find(marker)
        if at < 0:
            continue
        start = text.find("{", at)
        try:
            schema, _ = json.JSONDecoder().raw_decode(text[start:])
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(schema, dict):
            return schema
    return None


def instance_of(schema: dict[str, Any], defs: dict[str, Any] | None = None, name: str = "") -> Any:
    """A value that validates against ``schema``: 1 for integers (a verdict that holds), 0 for
    a field named like ``noncommittal``, two items per array, a short text per string."""
    defs = defs if defs is not None else schema.get("$defs", schema.get("definitions", {}))
    if "$ref" in schema:
        return instance_of(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, name)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [s for s in schema.get(key, []) if s.get("type") != "null"]
        if options:
            return instance_of(options[0], defs, name)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if kind == "object":
        return {
            key: instance_of(sub, defs, key) for key, sub in schema.get("properties", {}).items()
        }
    if kind == "array":
        count = max(int(schema.get("minItems", 0)), ITEMS)
        return [instance_of(schema.get("items", {}), defs, name) for _ in range(count)]
    if kind == "integer":
        return 0 if "noncommittal" in name else 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return f"A short {name or 'text'} for the benchmark."
