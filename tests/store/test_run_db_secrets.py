"""The run database, the resolved matrix and the cache are written through the one redaction:
whatever a caller hands them, a URL's credentials and secret-named fields never reach a file."""

from __future__ import annotations

import sqlite3

import numpy as np

from judgegrid.core.records import BatchRecord, CallRecord
from judgegrid.inputs.matrix import parse_matrix
from judgegrid.store.cache import ResultCache
from judgegrid.store.run_db import RunStore
from judgegrid.store.run_dir import resolved_matrix_yaml

KEY = "sk-proj-Abcdefghijklmnop0123456789"
QUERY_KEY = "gw-Query0123456789abcdefghijklmn"
BASE = f"https://me:{KEY}@gw.example.com/v1?key={QUERY_KEY}&api-version=1"


def every_byte(path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_no_write_path_of_the_run_database_keeps_a_key(tmp_path):
    db = tmp_path / "run.sqlite"
    store = RunStore(db)
    store.record_call(
        CallRecord(
            kind="completion",
            model="openai/x",
            label="x",
            step_key="k",
            attempt=1,
            status="error",
            request={"model": "openai/x", "api_base": BASE, "messages": []},
            error=f"openai/x: connection error: POST {BASE} refused",
        )
    )
    store.save_batch(
        BatchRecord(
            "file-1",
            None,
            "x",
            "/v1/chat/completions",
            "failed",
            ("c1",),
            0.0,
            detail=f"upload to {BASE} failed: key {KEY}",
        )
    )
    store.set_meta("matrix", {"judges": [{"options": {"api_base": BASE}}]})
    store.close()
    assert KEY.encode() not in every_byte(db) and QUERY_KEY.encode() not in every_byte(db)
    conn = sqlite3.connect(db)
    request, error = conn.execute("SELECT request, error FROM calls").fetchone()
    detail = conn.execute("SELECT detail FROM batches").fetchone()[0]
    masked = "https://***@gw.example.com/v1?key=***&api-version=1"
    assert masked in request and masked in error and masked in detail
    assert "sk-…6789" in detail
    conn.close()
    reopened = RunStore(db)
    assert reopened.get_meta("matrix")["judges"][0]["options"]["api_base"] == masked
    reopened.close()


def test_the_resolved_matrix_names_the_endpoint_without_its_credentials():
    matrix = parse_matrix(
        f"""
defaults:
  judge: {{api_base: "{BASE}"}}
judges: [{{id: openai/a}}, {{id: openai/b, options: {{api_base: "http://u:{KEY}@127.0.0.1:9/v1"}}}}]
metrics: [faithfulness]
""",
        "m.yaml",
    )
    text = resolved_matrix_yaml(matrix, "d.jsonl")
    assert KEY not in text and QUERY_KEY not in text
    assert "api_base: https://***@gw.example.com/v1?key=***&api-version=1" in text
    assert "api_base: http://***@127.0.0.1:9/v1" in text


def test_the_cache_keeps_no_key_shaped_name(tmp_path):
    """The Python API's score_sample reads no matrix: a key pasted as a model id still never
    reaches the cache file."""
    cache = ResultCache(tmp_path / "cache.sqlite")
    cache.put_answer(
        "k", model=f"openai/{KEY}", label=KEY, step="s", answer={"a": 1}, usage={"calls": 1}
    )
    cache.put_vectors(f"openai/{KEY}", 4, {"text": np.ones(4, dtype=np.float32)})
    assert cache.get_answer("k") == ({"a": 1}, {"calls": 1})  # found by its content address
    cache.close()
    assert KEY.encode() not in every_byte(tmp_path / "cache.sqlite")
