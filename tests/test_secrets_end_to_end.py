"""A key written into an ``api_base`` (its userinfo and its query string) or read into a header
from the environment reaches the model server, and is written nowhere: not in the run directory,
the cache, or anything the commands print; a key written where it does not belong (a header's
value, a label's note, a Spring placeholder's default) is refused, and written nowhere either.

The commands run as the console script in a process of their own, against the fault server on
127.0.0.1, so every way out of the process is seen: files, the run database and its write-ahead
log, the cache, the terminal. One judge's server is gone, so failures are written too.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import yaml

from judgegrid.testing.fault_server import FaultServer

USERINFO_KEY = "sk-proj-UserInfoKey0123456789abcdefXYZ"
QUERY_KEY = "gw-QueryKey9876543210zyxwvuABCDEFq"  # no provider prefix: masked by its name
SAMPLES = [
    {"id": "s1", "user_input": "Who wrote it?", "response": "Ann.", "retrieved_contexts": ["Ann"]},
    {"id": "s2", "user_input": "When?", "response": "In 1999.", "retrieved_contexts": ["1999"]},
]


def keyed(url: str) -> str:
    """``url`` with both keys in it: ``http://user:KEY@host:port/v1?key=KEY&api-version=1``."""
    return url.replace("http://", f"http://user:{USERINFO_KEY}@") + f"?key={QUERY_KEY}&v=1"


def secrets_in(data: bytes) -> list[str]:
    """Which of the keys (or the Basic credentials made of one) ``data`` holds."""
    basic = base64.b64encode(f"user:{USERINFO_KEY}".encode())
    forms = {"userinfo key": USERINFO_KEY.encode(), "query key": QUERY_KEY.encode()}
    forms |= {"basic credentials": basic, "key middle": USERINFO_KEY[8:24].encode()}
    return [name for name, form in forms.items() if form in data]


def leaks(
    *roots: Path, inputs: Path, find: Callable[[bytes], list[str]] = secrets_in
) -> dict[str, list[str]]:
    """Every file under the roots (the databases and their -wal files included) holding a key
    (``find``: which), but for the user's own ``inputs``."""
    found = {}
    for root in roots:
        for path in root.rglob("*"):
            if inputs in path.parents:
                continue
            if path.is_file() and (names := find(path.read_bytes())):
                found[str(path)] = names
    return found


def judgegrid(
    cwd: Path, cache: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JUDGEGRID_CACHE_DIR": str(cache), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", "from judgegrid.entry import main; main()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_key_in_an_api_base_is_used_and_never_written(tmp_path, server: FaultServer):
    server.reset_counts()
    cache = tmp_path / "cache"
    base = keyed(server.url)
    dead = keyed("http://127.0.0.1:9/v1")  # refused at once: errors carry the URL's way
    options = {"api_base": base, "timeout": "5s", "max_tokens": 200}
    matrix = {
        "name": "secrets",
        "defaults": {"judge": options, "embedding": {"api_base": base}},
        "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
        "judges": [
            {"id": "openai/fake-a", "label": "a"},
            {"id": "openai/fake-b", "label": "unreachable", "options": {"api_base": dead}},
        ],
        "embeddings": [{"id": "openai/fake-embed", "label": "embed", "dimensions": [16]}],
        "metrics": ["faithfulness", "response_relevancy"],
        "repeats": 1,
    }
    inputs = tmp_path / "in"  # the user's files: the only place a key is written
    inputs.mkdir()
    (inputs / "m.yaml").write_text(yaml.safe_dump(matrix), encoding="utf-8")
    (inputs / "d.jsonl").write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    printed: list[str] = []

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        done = judgegrid(tmp_path, cache, *args)
        printed.append(done.stdout + done.stderr)
        return done

    assert command("validate", "in/m.yaml", "-d", "in/d.jsonl").returncode == 0, printed[-1]
    assert command("plan", "in/m.yaml", "-d", "in/d.jsonl").returncode == 0, printed[-1]
    run = command("run", "in/m.yaml", "-d", "in/d.jsonl", "--reports-dir", "reports")
    assert run.returncode == 3, printed[-1]  # judge b's cells failed: its server is gone
    (run_dir,) = (tmp_path / "reports").iterdir()
    assert command("report", str(run_dir)).returncode == 0, printed[-1]
    assert command("export", str(run_dir), "--out", "x.csv").returncode == 0, printed[-1]
    resumed = command("run", "--resume", str(run_dir), "--retry-failed")
    assert resumed.returncode == 2, printed[-1]  # the key was never kept: it cannot call again
    assert "judges[0].options.api_base" in resumed.stderr and "masked" in resumed.stderr

    # the calls reached the server with the URL's credentials as written
    assert server.requests >= 4
    for target, authorization in server.received:
        assert f"key={QUERY_KEY}" in unquote(target), target
        scheme, _, credentials = authorization.partition(" ")
        assert (scheme, base64.b64decode(credentials).decode()) == ("Basic", f"user:{USERINFO_KEY}")
    # ... and reached nothing else: not one file, not one printed line holds a key
    assert leaks(tmp_path, cache, inputs=inputs) == {}
    assert [secrets_in(text.encode()) for text in printed] == [[]] * len(printed)
    # what was written says where the calls went, with the credentials masked
    resolved = (run_dir / "matrix.resolved.yaml").read_text()
    assert "api_base: http://***@127.0.0.1:" in resolved and "/v1?key=***&v=1" in resolved
    assert "unreachable" in printed[2] and "connection error" in printed[2]
    # ... and the run said at its start that it could not be resumed, and what to do instead
    assert "--resume cannot finish it; run the matrix again (the cache answers" in run.stderr


HEADER_KEY = "sk-or-v1-HeaderKey0123456789abcdefXYZ"  # read from the environment
WRITTEN_KEY = "sk-ant-WrittenKey0123456789abcdefXYZ"  # written into a header, refused
NOTE_KEY = "sk-proj-NoteKey0123456789abcdefXYZw"  # pasted into a label's note, refused
DEFAULT_KEY = "sk-or-v1-DefaultKey0123456789abcdXYZ"  # a Spring placeholder's default, refused
FIELD_KEYS = {"header": HEADER_KEY, "written": WRITTEN_KEY, "note": NOTE_KEY}
FIELD_KEYS |= {"default": DEFAULT_KEY}


def field_keys_in(data: bytes) -> list[str]:
    """Which of the keys of FIELD_KEYS (or a telling middle part of one) ``data`` holds."""
    return [
        name
        for name, key in FIELD_KEYS.items()
        if key.encode() in data or key[9:25].encode() in data
    ]


def test_a_key_in_a_header_a_note_or_a_default_is_written_nowhere(tmp_path, server: FaultServer):
    server.reset_counts()
    cache = tmp_path / "cache"
    headers = {"Authorization": "Bearer ${E2E_HEADER_KEY}", "X-Title": "judgegrid"}
    judge = {"id": "openai/fake-a", "label": "a"}
    matrix = {
        "name": "headers",
        "defaults": {"judge": {"api_base": server.url, "extra": {"extra_headers": headers}}},
        "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
        "judges": [judge],
        "metrics": ["faithfulness"],
        "repeats": 1,
    }
    written = {
        **matrix,
        "defaults": {"judge": {"extra": {"extra_headers": {"x-api-key": WRITTEN_KEY}}}},
    }
    spring = (
        "spring:\n  ai:\n    openai:\n      base-url: https://openrouter.ai/api\n"
        f"      api-key: ${{OPENROUTER_API_KEY:{DEFAULT_KEY}}}\n"
        "    chat-models:\n      list:\n        - id: a\n"
        "          options: {model: openai/gpt-4o-mini}\n"
    )
    inputs = tmp_path / "in"  # the user's files: the only place a key is written
    inputs.mkdir()
    (inputs / "m.yaml").write_text(yaml.safe_dump(matrix), encoding="utf-8")
    (inputs / "w.yaml").write_text(yaml.safe_dump(written), encoding="utf-8")
    (inputs / "application.yaml").write_text(spring, encoding="utf-8")
    (inputs / "d.jsonl").write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    notes = f"sample_id,metric,annotator,value,note\ns1,faithfulness,ann,1,mine: {NOTE_KEY}\n"
    (inputs / "l.csv").write_text(notes, encoding="utf-8")
    printed: list[str] = []

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        done = judgegrid(tmp_path, cache, *args, env={"E2E_HEADER_KEY": HEADER_KEY})
        printed.append(done.stdout + done.stderr)
        return done

    assert command("validate", "in/m.yaml", "-d", "in/d.jsonl").returncode == 0, printed[-1]
    run = command("run", "in/m.yaml", "-d", "in/d.jsonl", "--reports-dir", "reports")
    assert run.returncode == 0, printed[-1]
    (run_dir,) = (tmp_path / "reports").iterdir()
    assert command("report", str(run_dir)).returncode == 0, printed[-1]
    assert command("export", str(run_dir), "--out", "x.csv").returncode == 0, printed[-1]
    refused = {
        "a key written in a header": ("validate", "in/w.yaml", "-d", "in/d.jsonl"),
        "a key in a label's note": ("labels", "import", str(run_dir), "in/l.csv"),
        "a key as a Spring default": ("validate", "in/application.yaml"),
        "a key as a Spring default, init": ("init", "j.yaml", "--from", "in/application.yaml"),
    }
    for why, args in refused.items():
        assert command(*args).returncode == 2, (why, printed[-1])

    # the header reached the server with the key the environment holds
    assert server.requests >= 2
    assert {authorization for _, authorization in server.received} == {f"Bearer {HEADER_KEY}"}
    # ... and no key reached anything else: not one file, not one printed line
    assert leaks(tmp_path, cache, inputs=inputs, find=field_keys_in) == {}
    assert [field_keys_in(text.encode()) for text in printed] == [[]] * len(printed)
    # the run keeps the variable's name, so a resumed run reads it again
    assert "Bearer ${E2E_HEADER_KEY}" in (run_dir / "matrix.resolved.yaml").read_text()
