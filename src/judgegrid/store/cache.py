"""The cross-run cache: judge answers and embedding vectors on disk, shared by every run.

Content-addressed. A judge answer is stored under its step key (``JudgeModel.step_key``): a hash
of the judge's label and model id, every generation option, the output mode, the messages, the
answer schema, the repeat and the generation index. So rerunning an identical grid makes no call,
changing one judge's temperature re-asks only that judge, repeat r never gets repeat r′'s sample,
and two judges never share an entry (unlike ragas #2983, whose key omits the model).
A vector is stored under (model, options that change vectors, requested dimension, text).

Only valid, schema-checked answers are stored: a failure is asked again next time. Nothing that
identifies a caller is stored, no request and no key: the entries are answers and usage figures,
under the model's id and label, which pass through the one redaction (``core.redaction``) on
their way in (the matrix refuses key-shaped ones; the Python API's ``score_sample`` does not
read a matrix).
The file is one SQLite database (WAL), safe to share by concurrent runs.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judgegrid.core.digest import text_sha
from judgegrid.core.errors import InputError, OptionError, Problem
from judgegrid.core.redaction import redact_text
from judgegrid.store.database import Writes, open_database, read_vectors, vector_blob
from judgegrid.store.output_file import folder_problem

CACHE_ENV = "JUDGEGRID_CACHE_DIR"
CACHE_FILE = "cache.sqlite"
XDG_ENV = "XDG_CACHE_HOME"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, label TEXT NOT NULL, step TEXT NOT NULL,
    answer TEXT NOT NULL, usage TEXT NOT NULL, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL, dimension INTEGER NOT NULL, text_sha TEXT NOT NULL,
    vector BLOB NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (model, dimension, text_sha)
);
"""


def default_cache_path() -> Path:
    """$JUDGEGRID_CACHE_DIR/cache.sqlite, else the user cache dir (XDG_CACHE_HOME or ~/.cache)."""
    return cache_folder()[0] / CACHE_FILE


def cache_folder() -> tuple[Path, str | None]:
    """The cache's folder and the environment variable that named it (None: ~/.cache's)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return _expanded(explicit), CACHE_ENV
    base = os.environ.get(XDG_ENV)
    if base:
        return _expanded(base) / "judgegrid", XDG_ENV
    return _expanded("~") / ".cache" / "judgegrid", None


def _expanded(path: str) -> Path:
    """``path`` with a leading ``~`` made the home folder; OptionError naming HOME when none
    can be found from it (``HOME=~``, a home-less account), where pathlib raises RuntimeError."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        home = os.environ.get("HOME")
        named = f"HOME={home}" if home is not None else "HOME"
        message = (
            f"no home folder can be found from it, and the cache's folder ({path}) is under "
            f"it; set HOME to your home folder, or {CACHE_ENV} to a folder you can write in"
        )
        raise OptionError(named, [Problem("", message)]) from None


def check_cache_folder() -> None:
    """OptionError naming the variable, before anything is made, when the cache's folder
    cannot hold it (a file in its place, a folder this user may not write in); a missing
    folder is made when the cache is first opened, as every writer makes one."""
    folder, variable = cache_folder()
    why = folder_problem(folder)
    if why is None:
        return
    named = f"{variable}={os.environ[variable]}" if variable else str(folder)
    hint = f"point {variable} at a folder you can write in, or unset it" if variable else ""
    hint = hint or f"set {CACHE_ENV} to a folder you can write in"
    raise OptionError(named, [Problem("", f"the cache's folder: {why}; {hint}")])


@dataclass(frozen=True)
class CacheStats:
    path: Path
    size_bytes: int
    answers_by_model: dict[str, int]
    vectors_by_model: dict[str, int]

    @property
    def answers(self) -> int:
        return sum(self.answers_by_model.values())

    @property
    def vectors(self) -> int:
        return sum(self.vectors_by_model.values())


class ResultCache:
    """Answers by step key, vectors by (model, dimension, text); ``hits`` counts reuses."""

    def __init__(self, path: str | Path | None = None):
        if path is None:
            check_cache_folder()
        self.path = Path(path) if path is not None else default_cache_path()
        try:
            self._db = open_database(self.path, _SCHEMA, timeout=30.0)  # shared by runs
        except sqlite3.DatabaseError as exc:  # a file that is not SQLite in the cache's place
            message = (
                f"not a judgegrid cache ({exc}); delete the file, or point {CACHE_ENV} at "
                "another directory"
            )
            raise InputError(str(self.path), [Problem("", message)]) from None
        self.writes = Writes(self._db)
        self.answer_hits = 0
        self.vector_hits = 0

    def close(self) -> None:
        self.writes.flush()
        self._db.close()

    # -- judge answers ---------------------------------------------------------------------

    def get_answer(self, key: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(answer, usage when first produced) or None."""
        row = self._db.execute("SELECT answer, usage FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        self.answer_hits += 1
        return json.loads(row[0]), json.loads(row[1])

    def usage_by_step(self, model: str) -> dict[str, list[dict[str, Any]]]:
        """The usage of the model's past answers, by step: what ``judgegrid plan`` expects of
        its next ones (output tokens, latency)."""
        rows = self._db.execute("SELECT step, usage FROM answers WHERE model = ?", (model,))
        out: dict[str, list[dict[str, Any]]] = {}
        for step, usage in rows:
            out.setdefault(step, []).append(json.loads(usage))
        return out

    def put_answer(
        self,
        key: str,
        *,
        model: str,
        label: str,
        step: str,
        answer: dict[str, Any],
        usage: dict[str, Any],
    ) -> None:
        self.writes.execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                redact_text(model),
                redact_text(label),
                step,
                json.dumps(answer, ensure_ascii=False),
                json.dumps(usage),
                time.time(),
            ),
        )

    # -- embedding vectors -----------------------------------------------------------------

    def get_vectors(
        self, model: str, dimension: int, texts: Iterable[str]
    ) -> dict[str, np.ndarray]:
        found = read_vectors(self._db, "vectors", model, dimension, texts)
        self.vector_hits += len(found)
        return found

    def put_vectors(self, model: str, dimension: int, vectors: dict[str, np.ndarray]) -> None:
        now = time.time()
        self.writes.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)",
            [
                (redact_text(model), dimension, text_sha(t), vector_blob(v), now)
                for t, v in vectors.items()
            ],
        )

    # -- maintenance -----------------------------------------------------------------------

    def stats(self) -> CacheStats:
        answers = dict(self._db.execute("SELECT model, count(*) FROM answers GROUP BY model"))
        vectors = dict(self._db.execute("SELECT model, count(*) FROM vectors GROUP BY model"))
        size = sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )
        return CacheStats(self.path, size, answers, vectors)

    def clear(self, model: str | None = None) -> tuple[int, int]:
        """Delete every entry (or one model's); returns (answers, vectors) deleted."""
        where, args = (
            (" WHERE model = ? OR model LIKE ?", (model, f"{model}|%")) if model else ("", ())
        )
        answers = self._db.execute(f"DELETE FROM answers{where}", args).rowcount
        vectors = self._db.execute(f"DELETE FROM vectors{where}", args).rowcount
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if model is None:
            self._db.execute("VACUUM")
        return answers, vectors
