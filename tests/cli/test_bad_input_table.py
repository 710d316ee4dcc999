"""A table of bad inputs, through the CLI and the Python API, against a live fault server.

Every row must end in judgegrid's own exception (API) or exit code 2 (CLI), with a message that
names the culprit (file, line, field, sample or option), no traceback on the terminal, not one
request reaching the model server, and no new file or directory under the working directory
(where the reports directory is) or the cache: bad input is refused before anything is spent
or made. Families of rows (``families``) give every reader and command the empty inputs (an
empty file, blank lines, a header alone, empty records) and every execution and batch option
bad in each way; ``test_no_empty_input_is_an_unexpected_error`` walks the same through the
console script, where an unexpected error would be caught and logged as a crash.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import sqlite3
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from deepeval.metrics.g_eval.utils import Rubric
from deepeval.test_case import LLMTestCaseParams
from ragas.metrics import AspectCritic
from typer.testing import CliRunner

from judgegrid import (
    ContextRecall,
    Criterion,
    Faithfulness,
    Matrix,
    ResponseRelevancy,
    Sample,
    api,
    ascore_sample,
    load_run,
    rebuild_report,
    resume_run,
    run_grid,
    run_pairs,
    score_sample,
)
from judgegrid.cli import EXIT_BAD_INPUT, app, main
from judgegrid.core.errors import DatasetError, InputError, MatrixError, OptionError, RunDirError
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.matrix import load_matrix
from judgegrid.inputs.recorded.formats import FORMATS
from judgegrid.metrics import resolve_metric_name
from judgegrid.store.run_dir import RESOLVED_MATRIX
from judgegrid.testing.fault_server import FaultServer, start_fault_server
from support.peer_objects import geval

KEY_ENV = "JUDGEGRID_TABLE_KEY"
KEY = "sk-proj-TableKey0123456789abcdefXYZ9"
SAMPLES = [
    {"id": "s1", "user_input": "Who wrote it?", "response": "Ann.", "retrieved_contexts": ["Ann"]},
    {"id": "s2", "user_input": "When?", "response": "In 1999.", "retrieved_contexts": ["1999"]},
]
PAIR = {
    "id": "p1",
    "question": "Who?",
    "context": "Ann wrote it.",
    "answer": "Ann.",
    "ungrounded_answer": "Bob.",
    "poor_answer": "Someone.",
}
runner = CliRunner()


@dataclass
class Place:
    """The temporary directory of one row and the server its matrices point at; ``made``: what
    the row itself wrote there (its inputs), which a refusal may not add to."""

    tmp: Path
    server: FaultServer
    made: list[Path] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    def matrix(self, name: str = "m.yaml", **overrides: Any) -> str:
        options = {"api_base": self.url, "api_key_env": KEY_ENV, "timeout": "2s"}
        data: dict[str, Any] = {
            "name": "table",
            "defaults": {"judge": {"max_tokens": 200, **options}, "embedding": options},
            "retry": {"initial_interval": "1ms", "max_interval": "2ms", "max_attempts": 2},
            "judges": [{"id": "openai/fake-a", "label": "a"}, {"id": "openai/fake-b"}],
            "embeddings": [{"id": "openai/fake-embed", "dimensions": [16]}],
            "metrics": ["faithfulness", "response_relevancy"],
            "repeats": 1,
        }
        data.update(overrides)
        return self.write(name, yaml.safe_dump(data, sort_keys=False))

    def write(self, name: str, text: str | bytes) -> str:
        path = self.tmp / name
        self.made.append(path)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    def jsonl(self, name: str, records: list[Any]) -> str:
        return self.write(name, "".join(json.dumps(r) + "\n" for r in records))

    def data(self) -> str:
        return self.jsonl("data.jsonl", SAMPLES)

    def run_dir(self, **overrides: Any) -> str:
        """A finished one-sample run (the server's request count is reset after it; the cache
        is not used, so that a refusal after it would be seen to make one)."""
        self.made.append(self.tmp / "run")
        matrix = self.matrix("run.yaml", **overrides)
        run = run_grid(matrix, self.data(), run_dir=self.tmp / "run", limit=1, use_cache=False)
        self.server.reset_counts()
        return str(run.run_dir)

    def table(self, name: str, frame: pd.DataFrame) -> str:
        """``frame`` as a Parquet or Arrow file (by the name's extension)."""
        path = self.tmp / name
        self.made.append(path)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if name.endswith(".parquet"):
            pq.write_table(table, path)
        else:
            with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
                w.write_table(table)
        return str(path)


@dataclass
class Row:
    """One bad input: CLI arguments or an API call, and the words that must name the culprit."""

    cli: Callable[[Place], list[str]] | None = None
    api: Callable[[Place], Any] | None = None
    names: tuple[str, ...] = ()
    error: type[InputError] = InputError
    one_line: bool = False  # the whole message is one line
    family: str = ""  # the kind of bad input (``families``); "" for the hand-written rows


ALIAS_BOMB = (
    "\n".join(
        ['l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
        + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    )
    + "\njudges: *l8\nmetrics: [faithfulness]\n"
)
GIVEN_TWICE = "repeats: 1\njudges: [{id: openai/gpt-4o-mini}]\nrepeats: 3\n"


def matrix_text(text: str) -> Callable[[Place], list[str]]:
    return lambda p: ["validate", p.write("m.yaml", text)]


ROWS: dict[str, Row] = {
    # --- the matrix, through the CLI -------------------------------------------------------
    "matrix missing": Row(cli=lambda p: ["run", str(p.tmp / "nope.yaml")], names=("nope.yaml",)),
    "matrix is a directory": Row(cli=lambda p: ["validate", str(p.tmp)], names=(str,)),
    "matrix empty": Row(cli=matrix_text(""), names=("m.yaml", "expected a mapping")),
    "matrix not yaml": Row(cli=matrix_text("judges: [a, b\nmetrics: x\n"), names=("line",)),
    # YAML's own features (issue 39): refused by the bounded loader before anything walks them
    "matrix an alias bomb": Row(cli=matrix_text(ALIAS_BOMB), names=("m.yaml", "line 6", "bomb")),
    "matrix an alias bomb, run": Row(
        cli=lambda p: ["run", p.write("m.yaml", ALIAS_BOMB)], names=("m.yaml", "alias bomb")
    ),
    "matrix an alias bomb, api": Row(
        api=lambda p: load_matrix(p.write("m.yaml", ALIAS_BOMB)),
        names=("m.yaml", "alias bomb"),
        error=MatrixError,
    ),
    "matrix a key given twice": Row(
        cli=matrix_text(GIVEN_TWICE), names=("m.yaml", "line 3", "'repeats' is given twice")
    ),
    "matrix a key given twice, api": Row(
        api=lambda p: load_matrix(p.write("m.yaml", GIVEN_TWICE)),
        names=("line 3", "first at line 1"),
        error=MatrixError,
    ),
    "matrix an alias inside itself": Row(
        cli=matrix_text("judges: &j [*j]\n"), names=("m.yaml", "its own anchor")
    ),
    "matrix a list": Row(cli=matrix_text("- judges\n"), names=("m.yaml", "mapping")),
    "matrix not utf-8": Row(cli=matrix_text(b"name: caf\xe9\n"), names=("m.yaml", "UTF-8")),
    "field misspelt": Row(
        cli=lambda p: ["validate", p.matrix(judgs=[])], names=("judgs", "did you mean 'judges'")
    ),
    "option misspelt": Row(
        cli=lambda p: ["validate", p.matrix(defaults={"judge": {"temprature": 0}})],
        names=("defaults.judge.temprature", "did you mean 'temperature'"),
    ),
    "unknown metric": Row(
        cli=lambda p: ["validate", p.matrix(metrics=["faithfullness"])],
        names=("metrics[0]", "faithfullness"),
    ),
    "unknown metric parameter": Row(
        cli=lambda p: ["run", p.matrix(metrics=[{"name": "faithfulness", "strictnes": 2}])],
        names=("metrics[0]", "strictnes"),
    ),
    "temperature a word": Row(
        cli=lambda p: [
            "run",
            p.matrix(judges=[{"id": "openai/x", "options": {"temperature": "hot"}}]),
        ],
        names=("judges[0].options.temperature", "hot"),
    ),
    "repeats zero": Row(cli=lambda p: ["run", p.matrix(repeats=0)], names=("repeats",)),
    "strictness zero": Row(cli=lambda p: ["run", p.matrix(strictness=[0])], names=("strictness",)),
    "no judges": Row(cli=lambda p: ["run", p.matrix(judges=[])], names=("judges",)),
    "duplicate labels": Row(
        cli=lambda p: ["run", p.matrix(judges=[{"id": "openai/x"}, {"id": "openai/x"}])],
        names=("judges[1]", "label"),
    ),
    "literal key": Row(
        cli=lambda p: [
            "run",
            p.matrix(judges=[{"id": "openai/x", "options": {"api_key_env": KEY}}]),
        ],
        names=("judges[0].options.api_key_env",),
    ),
    "key variable unset": Row(
        cli=lambda p: [
            "run",
            p.matrix(judges=[{"id": "openai/x", "options": {"api_key_env": "NO_SUCH_VAR_X"}}]),
        ],
        names=("NO_SUCH_VAR_X",),
    ),
    "api base not a url": Row(
        cli=lambda p: [
            "run",
            p.matrix(judges=[{"id": "openai/x", "options": {"api_base": "localhost:1"}}]),
        ],
        names=("judges[0].options.api_base", "localhost:1"),
    ),
    "unknown provider": Row(
        cli=lambda p: ["run", p.matrix(judges=[{"id": "nosuchprovider/model-x"}])],
        names=("judges[0]", "nosuchprovider/model-x"),
    ),
    "dimensions above the model": Row(
        cli=lambda p: [
            "run",
            p.matrix(embeddings=[{"id": "local/all-minilm-l6-v2", "dimensions": [1024]}]),
        ],
        names=("embeddings[0].dimensions", "1024"),
    ),
    "embedding metric without embeddings": Row(
        cli=lambda p: ["run", p.matrix(embeddings=[])], names=("response_relevancy", "embedding")
    ),
    "retry attempts zero": Row(
        cli=lambda p: ["run", p.matrix(retry={"max_attempts": 0})], names=("retry.max_attempts",)
    ),
    "duration unreadable": Row(
        cli=lambda p: ["run", p.matrix(retry={"initial_interval": "2 parsecs"})],
        names=("retry.initial_interval", "2 parsecs"),
    ),
    "concurrency zero": Row(
        cli=lambda p: ["run", p.matrix(concurrency={"total": 0})], names=("concurrency.total",)
    ),
    # --- the data set, through the CLI -----------------------------------------------------
    "data set missing": Row(
        cli=lambda p: ["run", p.matrix(), "-d", str(p.tmp / "gone.jsonl")], names=("gone.jsonl",)
    ),
    "data set format unknown": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.txt", "hello")], names=("d.txt",)
    ),
    "data set bad json line": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.jsonl", '{"id": "a"}\n{oops\n')],
        names=("d.jsonl", "line 2"),
    ),
    "data set not utf-8 (csv)": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.csv", b"id,user_input\na,caf\xe9\n")],
        names=("d.csv", "UTF-8"),
    ),
    "data set json not a list": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.json", '{"id": "a"}')],
        names=("d.json", "list"),
    ),
    "data set empty": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.jsonl", "\n")], names=("d.jsonl",)
    ),
    "data set unknown field": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.jsonl("d.jsonl", [{"id": "a", "qestion": "?"}])],
        names=("'a'", "qestion"),
    ),
    "data set contexts a string": Row(
        cli=lambda p: [
            "run",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{"id": "a", "retrieved_contexts": "x"}]),
        ],
        names=("'a'", "retrieved_contexts"),
    ),
    "data set duplicate ids": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.jsonl("d.jsonl", [SAMPLES[0], SAMPLES[0]])],
        names=("s1",),
    ),
    "data set parquet broken": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.write("d.parquet", b"PAR1 not really")],
        names=("d.parquet",),
    ),
    "data set field too long": Row(
        cli=lambda p: [
            "run",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{**SAMPLES[0], "response": "x" * 300_000}]),
        ],
        names=("s1", "response"),
    ),
    "unknown language": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [SAMPLES[0], {**SAMPLES[0], "id": "s2", "language": "Elvish"}]),
        ],
        names=("s2", "language", "Elvish"),
    ),
    "label not a number": Row(
        cli=lambda p: [
            "run",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{**SAMPLES[0], "labels": {"faithfulness": "high"}}]),
        ],
        names=("s1", "labels.faithfulness"),
    ),
    "label preference without pair": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{**SAMPLES[0], "labels": {"preferred": 1}}]),
        ],
        names=("s1", "labels", "pair"),
    ),
    "label preference not 0 or 1": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{**SAMPLES[0], "labels": {"pair": "x", "preferred": 3}}]),
        ],
        names=("s1", "labels.preferred"),
    ),
    # --- other tools' data sets: malformed or ambiguous, one line each ----------------------
    "deepeval context only": Row(
        cli=lambda p: ["validate", p.matrix(), "-d", p.jsonl("d.jsonl", [DEEPEVAL_CONTEXT_ONLY])],
        names=("line 1", "field context", "ideal context", "--columns retrieved_contexts=context"),
        one_line=True,
    ),
    "mixed naming schemes": Row(
        cli=lambda p: ["validate", p.matrix(), "-d", p.jsonl("d.jsonl", MIXED_SCHEMES)],
        names=(
            "line 2",
            "field input",
            "a DeepEval name in a data set of Ragas names",
            "--columns",
        ),
        one_line=True,
    ),
    "list delimiter splits a context": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.write("d.csv", 'user_input,retrieved_contexts\nQ?,"Paris, the capital, is big"\n'),
            "--list-delimiter",
            ",",
        ],
        names=("row 2", "field retrieved_contexts", "cuts a sentence apart"),
        one_line=True,
    ),
    "list delimiter would cut a list": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.write("d.csv", 'user_input,retrieved_contexts\nQ?,"[""a|b"", ""c""]"\n'),
            "--list-delimiter",
            "|",
        ],
        names=("row 2", "field retrieved_contexts", "drop --list-delimiter"),
        one_line=True,
    ),
    "contexts plain text, no delimiter": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.write("d.csv", "user_input,retrieved_contexts\nQ?,Paris is big\n"),
        ],
        names=("row 2", "field retrieved_contexts", "not a list", "--list-delimiter"),
        one_line=True,
    ),
    "empty item between delimiters": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.write("d.csv", "input,actual_output,retrieval_context\nQ?,A.,a||b\n"),
        ],
        names=("row 2", "field retrieval_context", "empty item"),
        one_line=True,
    ),
    "two names for one field": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{"question": "Q?", "user_input": "Q?", "response": "A."}]),
        ],
        names=("line 1", "fields question and user_input", "two names"),
        one_line=True,
    ),
    "columns name a missing column": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{"question": "Q?"}]),
            "--columns",
            "user_input=qestion",
        ],
        names=("--columns", "user_input=qestion", "did you mean 'question'"),
        one_line=True,
    ),
    "columns name an unknown field": Row(
        cli=lambda p: ["validate", p.matrix(), "-d", p.data(), "--columns", "user_inptu=id"],
        names=("--columns", "user_inptu", "did you mean 'user_input'"),
        one_line=True,
    ),
    "columns malformed": Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.data(), "--columns", "user_input"],
        names=("--columns", "FIELD=COLUMN"),
        one_line=True,
    ),
    "columns clash with the file's own field": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{"user_input": "Q?", "q": "Q?"}]),
            "--columns",
            "user_input=q",
        ],
        names=("line 1", "field user_input", "also given by --columns user_input=q"),
        one_line=True,
    ),
    "no field of a known scheme": Row(
        cli=lambda p: ["validate", p.matrix(), "-d", p.write("d.csv", "q\nQ?\n")],
        names=("row 2", "field q", "Ragas names", "DeepEval names", "--columns FIELD=q"),
        one_line=True,
    ),
    "a multi-turn deepeval golden": Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{"scenario": "Book a table", "turns": []}]),
        ],
        names=("line 1", "field scenario", "multi-turn"),
        one_line=True,
    ),
    "a DatasetDict folder": Row(
        cli=lambda p: ["validate", p.matrix(), "-d", _dataset_dict(p)],
        names=("dd", "name one", "train", "test"),
        one_line=True,
    ),
    "a folder not saved by save_to_disk": Row(
        cli=lambda p: ["run", p.matrix(), "-d", str(p.tmp)], names=(str, "save_to_disk")
    ),
    "columns with --resume": Row(
        cli=lambda p: ["run", "--resume", p.run_dir(), "--columns", "user_input=q"],
        names=("--resume", "--columns"),
    ),
    "export format unknown": Row(
        cli=lambda p: ["export", p.run_dir(), "--format", "excel"],
        names=("--format", "excel", "ragas, wide or true-score"),
    ),
    "export to an unknown extension": Row(
        cli=lambda p: ["export", p.run_dir(), "--out", str(p.tmp / "x.xlsx")],
        names=("--out", ".xlsx"),
    ),
    "export of a plain directory": Row(
        cli=lambda p: ["export", str(p.tmp)], names=(str, "not a run directory")
    ),
    "api: columns name an unknown field": Row(
        api=lambda p: run_grid(p.matrix(), SAMPLES, columns={"qestion": "user_input"}),
        names=("--columns", "qestion=user_input", "unknown sample field 'qestion'"),
        error=OptionError,
    ),
    # --- options on the command line ---------------------------------------------------------
    "limit zero": Row(cli=lambda p: ["run", p.matrix(), "--limit", "0"], names=("--limit",)),
    "fail-under above one": Row(
        cli=lambda p: ["run", p.matrix(), "--fail-under", "1.5"], names=("--fail-under",)
    ),
    "retry-failed without resume": Row(
        cli=lambda p: ["run", p.matrix(), "--retry-failed"], names=("--retry-failed", "--resume")
    ),
    "resume with a data set": Row(
        cli=lambda p: ["run", "--resume", p.run_dir(), "-d", p.data()],
        names=("--resume", "--dataset"),
    ),
    # --- run directories ---------------------------------------------------------------------
    "report of a missing directory": Row(
        cli=lambda p: ["report", str(p.tmp / "norun")], names=("norun",)
    ),
    "report of a plain directory": Row(
        cli=lambda p: ["report", str(p.tmp)], names=(str, "not a run directory")
    ),
    "resume of a plain directory": Row(
        cli=lambda p: ["run", "--resume", str(p.tmp)], names=("not a run directory",)
    ),
    "run database replaced": Row(
        cli=lambda p: ["report", _spoil_db(p)], names=("run.sqlite", "not a run database")
    ),
    "run matrix edited badly": Row(
        cli=lambda p: ["run", "--resume", _spoil_matrix(p)], names=(RESOLVED_MATRIX, "repeats")
    ),
    # --- pairs files -------------------------------------------------------------------------
    "pairs file missing": Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", str(p.tmp / "none.jsonl")],
        names=("none.jsonl",),
    ),
    "pairs bad json": Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.write("p.jsonl", "{no\n")],
        names=("p.jsonl", "line 1"),
    ),
    "pairs field missing": Row(
        cli=lambda p: [
            "pairs",
            p.matrix(),
            "--pairs",
            p.jsonl("p.jsonl", [{**PAIR, "answer": ""}]),
        ],
        names=("p.jsonl", "line 1", "answer"),
    ),
    "pairs unknown judge": Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.jsonl("p.jsonl", [PAIR]), "--judge", "zz"],
        names=("zz",),
    ),
    "pairs not utf-8": Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.write("p.jsonl", b'{"id": "\xff"}\n')],
        names=("p.jsonl", "UTF-8"),
    ),
    # --- the Python API ----------------------------------------------------------------------
    "api: limit negative": Row(
        api=lambda p: run_grid(p.matrix(), p.data(), limit=-1), names=("limit",), error=OptionError
    ),
    "api: matrix of the wrong type": Row(
        api=lambda p: run_grid(42),
        names=("matrix", "int"),
        error=OptionError,  # type: ignore[arg-type]
    ),
    "api: data set of the wrong type": Row(
        api=lambda p: run_grid(p.matrix(), 3.5),
        names=("dataset", "float"),
        error=OptionError,  # type: ignore[arg-type]
    ),
    "api: matrix dict misspelt": Row(
        api=lambda p: run_grid(yaml.safe_load(Path(p.matrix()).read_text()) | {"repeat": 2}),
        names=("repeat", "did you mean 'repeats'"),
        error=MatrixError,
    ),
    "api: matrix file bad": Row(
        api=lambda p: load_matrix(p.write("m.yaml", "judges: 3\n")),
        names=("m.yaml", "judges"),
        error=MatrixError,
    ),
    "api: data set file bad": Row(
        api=lambda p: load_dataset(p.write("d.jsonl", "[1]\n")),
        names=("d.jsonl",),
        error=DatasetError,
    ),
    "api: load_dataset of a number": Row(
        api=lambda p: load_dataset(7),
        names=("dataset", "int"),
        error=DatasetError,  # type: ignore[arg-type]
    ),
    "api: load_matrix of None": Row(
        api=lambda p: load_matrix(None),
        names=("matrix", "NoneType"),
        error=MatrixError,  # type: ignore[arg-type]
    ),
    "api: data set list of dicts bad": Row(
        api=lambda p: run_grid(p.matrix(), [{"id": "a", "user_input": 3}]),
        names=("'a'", "user_input"),
        error=DatasetError,
    ),
    "api: metric parameter misspelt": Row(
        api=lambda p: ResponseRelevancy(strictnes=2),
        names=("response_relevancy", "strictnes", "did you mean 'strictness'"),
        error=OptionError,
    ),
    "api: metric parameter out of range": Row(
        api=lambda p: ResponseRelevancy(strictness=0), names=("strictness",), error=OptionError
    ),
    "api: sample not a mapping": Row(
        api=lambda p: score_sample(Faithfulness(), "Who?", judge="openai/x"),  # type: ignore[arg-type]
        names=("sample", "str"),
        error=OptionError,  # an argument of the wrong type
    ),
    "api: sample field misspelt": Row(
        api=lambda p: score_sample(Faithfulness(), {"user_inptu": "?"}, judge="openai/x"),
        names=("user_inptu",),
        error=DatasetError,
    ),
    "api: sample lacks a needed field": Row(
        api=lambda p: score_sample(ContextRecall(), SAMPLES[0], judge="openai/x"),
        names=("s1", "reference"),
        error=DatasetError,
    ),
    "api: judge option misspelt": Row(
        api=lambda p: score_sample(
            Faithfulness(), SAMPLES[0], judge="openai/x", judge_options={"max-tokns": 3}
        ),
        names=("judge_options", "max_tokns", "did you mean 'max_tokens'"),
        error=MatrixError,
    ),
    "api: literal key in options": Row(
        api=lambda p: score_sample(
            Faithfulness(), SAMPLES[0], judge="openai/x", judge_options={"api_key_env": KEY}
        ),
        names=("judge_options.api_key_env",),
        error=MatrixError,
    ),
    "api: unknown judge provider": Row(
        api=lambda p: score_sample(Faithfulness(), SAMPLES[0], judge="nosuchprovider/m"),
        names=("nosuchprovider/m",),
        error=MatrixError,
    ),
    "api: embedding metric without embeddings": Row(
        api=lambda p: score_sample(ResponseRelevancy(), SAMPLES[0], judge="openai/x"),
        names=("embeddings", "response_relevancy"),
        error=OptionError,
    ),
    "api: resume a missing directory": Row(
        api=lambda p: resume_run(p.tmp / "missing"), names=("missing",), error=RunDirError
    ),
    "api: load a plain directory": Row(
        api=lambda p: load_run(p.tmp), names=("not a run directory",), error=RunDirError
    ),
    "api: a missing key variable": Row(
        api=lambda p: score_sample(Faithfulness(), SAMPLES[0], judge="openai/x"),
        names=("OPENAI_API_KEY", "judge"),
        error=MatrixError,
    ),
    "api: strictness out of range": Row(
        api=lambda p: score_sample(Faithfulness(), SAMPLES[0], judge="openai/x", strictness=0),
        names=("strictness",),
        error=OptionError,
    ),
    "api: metric name unknown": Row(
        api=lambda p: resolve_metric_name("faithfullness"),
        names=("faithfullness", "did you mean 'faithfulness'"),
        error=OptionError,
    ),
    "api: rebuild a replaced database": Row(
        api=lambda p: rebuild_report(_spoil_db(p)), names=("run.sqlite",), error=RunDirError
    ),
    "api: pairs file bad": Row(
        api=lambda p: run_pairs(p.matrix(), p.write("p.jsonl", "[]\n")),
        names=("p.jsonl", "line 1"),
        error=DatasetError,
    ),
    # --- secrets: a name shaped like a key is refused, as every report shows it --------------
    "judge label a key": Row(
        cli=lambda p: ["run", p.matrix(judges=[{"id": "openai/fake-a", "label": KEY}])],
        names=("judges[0].label", "looks like an API key", "a label is shown in every report"),
    ),
    "judge id a key, no label": Row(
        cli=lambda p: ["validate", p.matrix(judges=[{"id": f"openai/{KEY}"}])],
        names=("judges[0].id", "looks like an API key"),
    ),
    "embedding label a key": Row(
        cli=lambda p: [
            "plan",
            p.matrix(embeddings=[{"id": "openai/fake-embed", "label": KEY, "dimensions": [16]}]),
        ],
        names=("embeddings[0].label", "looks like an API key"),
    ),
    "jury member a key": Row(
        cli=lambda p: ["validate", p.matrix(juries=[["a", KEY]])],
        names=("juries[0]", "looks like an API key"),
    ),
    "label a URL with credentials": Row(
        cli=lambda p: [
            "run",
            p.matrix(judges=[{"id": "openai/fake-a", "label": "https://u:pw@gw.example/v1"}]),
        ],
        names=("judges[0].label", "looks like an API key"),
    ),
    "annotator option a key (import)": Row(
        cli=lambda p: [
            "labels",
            "import",
            p.run_dir(),
            p.write("l.csv", "sample_id,metric,value\ns1,faithfulness,1\n"),
            "--annotator",
            KEY,
        ],
        names=("--annotator", "looks like an API key", "an annotator's name is shown"),
    ),
    "annotator column a key": Row(
        cli=lambda p: [
            "labels",
            "import",
            p.run_dir(),
            p.write("l.csv", f"sample_id,metric,annotator,value\ns1,faithfulness,{KEY},1\n"),
        ],
        names=("l.csv", "annotator", "looks like an API key"),
    ),
    "annotator option a key (label page)": Row(
        cli=lambda p: ["label", p.run_dir(), "--annotator", KEY],
        names=("--annotator", "looks like an API key"),
    ),
    # the viewer's Label page stores its labels under this name too: exported, shown in reports
    "annotator option a key (view)": Row(
        cli=lambda p: ["view", p.run_dir(), "--annotator", KEY],
        names=("--annotator", "looks like an API key"),
    ),
    "api: import_labels annotator a key": Row(
        api=lambda p: api.import_labels(
            p.run_dir(), p.write("l.csv", "sample_id,metric,value\ns1,faithfulness,1\n"), KEY
        ),
        names=("--annotator", "looks like an API key"),
        error=OptionError,
    ),
    # --- end of secrets -----------------------------------------------------------------------
    # -- files and servers (issue 31 items 4, 6, 9) ----------------------------------------------
    "view on a port in use": Row(
        cli=lambda p: ["view", p.run_dir(), "--port", _busy_port()],
        names=("--port", "in use", "--port 0"),
        one_line=True,
    ),
    "label --left-after unreadable": Row(
        cli=lambda p: ["label", p.run_dir(), "--left-after", "soon"],
        names=("--left-after", "'soon'", "20m or 2h"),
        one_line=True,
    ),
    "label --left-after under a minute": Row(
        cli=lambda p: ["label", p.run_dir(), "--left-after", "10s"],
        names=("--left-after", "at least 1 minute", "10 seconds"),
        one_line=True,
    ),
    "label --left-after negative": Row(
        cli=lambda p: ["label", p.run_dir(), "--left-after", "-1h"],
        names=("--left-after", "'-1h'"),
        one_line=True,
    ),
    "label on a port in use": Row(
        cli=lambda p: ["label", p.run_dir(), "--port", _busy_port()],
        names=("--port", "in use", "--port 0"),
        one_line=True,
    ),
    "export onto a directory": Row(
        cli=lambda p: ["export", p.run_dir(), "--out", _folder(p)],
        names=("--out", "out.csv", "is a directory"),
        one_line=True,
    ),
    "labels export onto a directory": Row(
        cli=lambda p: ["labels", "export", p.run_dir(), "-o", _folder(p)],
        names=("--out", "out.csv", "is a directory"),
        one_line=True,
    ),
    "export to .json": Row(
        cli=lambda p: ["export", p.run_dir(), "--out", str(p.tmp / "x.json")],
        names=("--out", "x.json", "'.json'", ".csv, .jsonl, .parquet"),
        one_line=True,
    ),
    "labels export to an unknown extension": Row(
        cli=lambda p: ["labels", "export", p.run_dir(), "-o", str(p.tmp / "x.json")],
        names=("--out", "x.json", "'.json'", ".csv, .jsonl, .parquet"),
        one_line=True,
    ),
    "labels export to no extension": Row(
        cli=lambda p: ["labels", "export", p.run_dir(), "-o", str(p.tmp / "labels")],
        names=("--out", "no extension", ".csv, .jsonl, .parquet"),
        one_line=True,
    ),
    "export of no run into a missing folder": Row(
        cli=lambda p: ["export", str(p.tmp / "norun"), "--out", str(p.tmp / "new" / "x.csv")],
        names=("norun",),
    ),
    "labels import with --annotator and an annotator column": Row(
        cli=lambda p: ["labels", "import", p.run_dir(), _label_file(p), "--annotator", "other"],
        names=("--annotator", "names its annotators (ann)", "leave out one"),
        one_line=True,
    ),
    "labels import with a blank --annotator": Row(
        cli=lambda p: ["labels", "import", p.run_dir(), _label_file(p), "--annotator", " "],
        names=("--annotator", "a name is needed"),
        one_line=True,
    ),
    "label with --batch 0": Row(
        cli=lambda p: ["label", p.run_dir(), "--batch", "0"],
        names=("--batch", "greater than or equal to 1"),
    ),
    "label with --again and --batch": Row(
        cli=lambda p: ["label", p.run_dir(), "--again", "--batch", "2"],
        names=("--again", "--batch has no draw to pace"),
        one_line=True,
    ),
    # typer's range lets 0 through: the margin's own check, as report's, refuses it
    "label with --margin 0": Row(
        cli=lambda p: ["label", p.run_dir(), "--margin", "0"],
        names=("--margin", "expected a number in (0, 1), got 0"),
        one_line=True,
    ),
    "label with an empty --annotator": Row(
        cli=lambda p: ["label", p.run_dir(), "--annotator", ""],
        names=("--annotator", "a name is needed"),
        one_line=True,
    ),
    "view with an empty --annotator": Row(
        cli=lambda p: ["view", p.run_dir(), "--annotator", ""],
        names=("--annotator", "a name is needed"),
        one_line=True,
    ),
}


# --- families: every reader and command meets the same kinds of bad input ---------------------
#
# The empty-input family (EMPTY_FAMILIES) is walked again through the console script by
# test_no_empty_input_is_an_unexpected_error.

EMPTY_FILE, BLANK_LINES, HEADER_ONLY, EMPTY_RECORDS = (
    "empty file",
    "blank lines",
    "header only",
    "empty records",
)
EMPTY_FAMILIES = (EMPTY_FILE, BLANK_LINES, HEADER_ONLY, EMPTY_RECORDS)
EXECUTION, BATCH = "execution options", "batch options"
EMPTY_BYTES = {EMPTY_FILE: (b"", "empty (0 bytes)"), BLANK_LINES: (b"\n  \n\t\n", "blank lines")}
SAMPLE_JSONL = json.dumps(SAMPLES[0]) + "\n"
SAMPLE_CSV = "user_input,response\nQ?,A.\n"
LABEL_HEADER = "sample_id,metric,annotator,value\n"
# Samples no metric of the table's matrix (faithfulness, response_relevancy) can read at all.
NO_NEEDED_FIELDS = [{"id": "r", "reference": "Ann."}, {"id": "q", "reference_contexts": ["x"]}]

# How each command takes a data set, a matrix, a pairs file, a label file or a run directory.
DATA_COMMANDS: dict[str, Callable[[Place, str], list[str]]] = {
    "run": lambda p, d: ["run", p.matrix(), "-d", d],
    "validate": lambda p, d: ["validate", p.matrix(), "-d", d],
    "plan": lambda p, d: ["plan", p.matrix(), "-d", d],
}
MATRIX_COMMANDS: dict[str, Callable[[Place, str], list[str]]] = {
    "run": lambda p, m: ["run", m],
    "validate": lambda p, m: ["validate", m],
    "plan": lambda p, m: ["plan", m],
    "pairs": lambda p, m: ["pairs", m, "--pairs", p.jsonl("pairs.jsonl", [PAIR])],
}
RUN_COMMANDS: dict[str, Callable[[Place, str], list[str]]] = {
    "report": lambda p, r: ["report", r],
    "export": lambda p, r: ["export", r],
    "run --resume": lambda p, r: ["run", "--resume", r],
    "label": lambda p, r: ["label", r],
    "view": lambda p, r: ["view", r],
    "labels export": lambda p, r: ["labels", "export", r],
    "labels import": lambda p, r: ["labels", "import", r, p.write("ok.csv", LABEL_HEADER)],
}
RUN_API: dict[str, Callable[[str], Any]] = {
    "rebuild_report": rebuild_report,
    "load_run": load_run,
    "resume_run": resume_run,
    "export_run": api.export_run,
}


def _family(rows: dict[str, Row], family: str, name: str, row: Row) -> None:
    row.family = family
    rows[f"{family}: {name}"] = row


def _data_file(p: Place, name: str, content: bytes | pd.DataFrame) -> str:
    if isinstance(content, pd.DataFrame):
        return p.table(name, content)
    return p.write(name, content)


def _batched_run(p: Place) -> str:
    """A finished run whose matrix as run has batch mode on (as if it had run in batch mode)."""
    run_dir = Path(p.run_dir())
    resolved = yaml.safe_load((run_dir / RESOLVED_MATRIX).read_text())
    resolved["defaults"]["batch"] = True
    (run_dir / RESOLVED_MATRIX).write_text(yaml.safe_dump(resolved, sort_keys=False))
    return str(run_dir)


def _spoil_run_file(p: Place, file: str, content: bytes) -> str:
    run_dir = Path(p.run_dir())
    (run_dir / file).write_bytes(content)
    for stale in run_dir.glob("run.sqlite-*"):
        stale.unlink()
    return str(run_dir)


def empty_input_rows() -> dict[str, Row]:
    """An empty file, a file of blank lines, a header alone and empty records, for every reader
    (matrix, data set in each format, pairs, labels, column map, a run's own files) through
    every command that reads it, and through the Python API."""
    rows: dict[str, Row] = {}
    for family, (content, words) in EMPTY_BYTES.items():
        for command, argv in MATRIX_COMMANDS.items():
            _family(
                rows,
                family,
                f"matrix, {command}",
                Row(
                    cli=lambda p, a=argv, c=content: a(p, p.write("m.yaml", c)),
                    names=("m.yaml", words),
                ),
            )
        for ext in ("jsonl", "json", "csv", "parquet", "arrow"):
            said = words if ext in ("jsonl", "json", "csv") or not content else ext.title()
            for command, argv in DATA_COMMANDS.items():
                _family(
                    rows,
                    family,
                    f"data set .{ext}, {command}",
                    Row(
                        cli=lambda p, a=argv, e=ext, c=content: a(p, p.write(f"d.{e}", c)),
                        names=(f"d.{ext}", said),
                    ),
                )
            _family(
                rows,
                family,
                f"data set .{ext}, api",
                Row(
                    api=lambda p, e=ext, c=content: run_grid(p.matrix(), p.write(f"d.{e}", c)),
                    names=(f"d.{ext}", said),
                    error=DatasetError,
                ),
            )
        _family(
            rows,
            family,
            "pairs file",
            Row(
                cli=lambda p, c=content: ["pairs", p.matrix(), "--pairs", p.write("p.jsonl", c)],
                names=("p.jsonl", words),
            ),
        )
        _family(
            rows,
            family,
            "pairs file, api",
            Row(
                api=lambda p, c=content: run_pairs(p.matrix(), p.write("p.jsonl", c)),
                names=("p.jsonl", words),
                error=DatasetError,
            ),
        )
        for ext in ("csv", "jsonl"):
            _family(
                rows,
                family,
                f"label file .{ext}",
                Row(
                    cli=lambda p, e=ext, c=content: [
                        "labels",
                        "import",
                        p.run_dir(),
                        p.write(f"l.{e}", c),
                    ],
                    names=(f"l.{ext}", words),
                ),
            )
            _family(
                rows,
                family,
                f"label file .{ext}, api",
                Row(
                    api=lambda p, e=ext, c=content: api.import_labels(
                        p.run_dir(), p.write(f"l.{e}", c)
                    ),
                    names=(f"l.{ext}", words),
                    error=DatasetError,
                ),
            )
        for command in DATA_COMMANDS:
            columns = " " if content else ""
            _family(
                rows,
                family,
                f"column map, {command}",
                Row(
                    cli=lambda p, cmd=command, c=columns: [
                        *DATA_COMMANDS[cmd](p, p.data()),
                        "--columns",
                        c,
                    ],
                    names=("--columns", "empty"),
                ),
            )
        run_db_words = ("run.sqlite", "empty (0 bytes)" if not content else "not a run database")
        for file, said in (
            (RESOLVED_MATRIX, (RESOLVED_MATRIX, words)),
            ("run.sqlite", run_db_words),
        ):
            for command, argv in RUN_COMMANDS.items():
                _family(
                    rows,
                    family,
                    f"{file}, {command}",
                    Row(
                        cli=lambda p, a=argv, f=file, c=content: a(p, _spoil_run_file(p, f, c)),
                        names=said,
                    ),
                )
            for call, function in RUN_API.items():
                _family(
                    rows,
                    family,
                    f"{file}, api {call}",
                    Row(
                        api=lambda p, fn=function, f=file, c=content: fn(_spoil_run_file(p, f, c)),
                        names=said,
                        error=RunDirError,
                    ),
                )

    headers: dict[str, bytes | pd.DataFrame] = {
        "csv": b"user_input,response\n",
        "parquet": pd.DataFrame({"user_input": pd.Series([], dtype=str)}),
        "arrow": pd.DataFrame({"user_input": pd.Series([], dtype=str)}),
        "json": b"[]",
    }
    for ext, content in headers.items():
        said = "only a header row" if ext == "csv" else "no samples"
        for command, argv in DATA_COMMANDS.items():
            _family(
                rows,
                HEADER_ONLY,
                f"data set .{ext}, {command}",
                Row(
                    cli=lambda p, a=argv, e=ext, c=content: a(p, _data_file(p, f"d.{e}", c)),
                    names=(f"d.{ext}", said),
                ),
            )
    _family(
        rows,
        HEADER_ONLY,
        "label file .csv",
        Row(
            cli=lambda p: ["labels", "import", p.run_dir(), p.write("l.csv", LABEL_HEADER)],
            names=("l.csv", "only a header row"),
        ),
    )

    blank_row = pd.DataFrame({"user_input": ["Q?", None], "response": ["A.", None]})
    records: dict[str, tuple[bytes | pd.DataFrame, str]] = {
        "jsonl": ((SAMPLE_JSONL + "{}\n").encode(), "line 2"),
        "json": (json.dumps([SAMPLES[0], {}]).encode(), "item 1"),
        "csv": ((SAMPLE_CSV + ",\n").encode(), "row 3"),
        "parquet": (blank_row, "row 1"),
        "arrow": (blank_row, "row 1"),
    }
    for ext, (content, where) in records.items():
        for command, argv in DATA_COMMANDS.items():
            _family(
                rows,
                EMPTY_RECORDS,
                f"data set .{ext}, {command}",
                Row(
                    cli=lambda p, a=argv, e=ext, c=content: a(p, _data_file(p, f"d.{e}", c)),
                    names=(f"d.{ext}", where, "an empty record"),
                ),
            )
    _family(
        rows,
        EMPTY_RECORDS,
        "a record of an id alone",
        Row(
            cli=lambda p: ["run", p.matrix(), "-d", p.jsonl("d.jsonl", [SAMPLES[0], {"id": "x"}])],
            names=("line 2", "'x'", "an empty record"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "a sample with none of the fields the metrics need",
        Row(
            cli=lambda p: [
                "run",
                p.matrix(),
                "-d",
                p.jsonl("d.jsonl", NO_NEEDED_FIELDS),
            ],
            names=("'r'", "none of the fields the metrics need", "user_input"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "a sample with none of the fields the metrics need, validate",
        Row(
            cli=lambda p: [
                "validate",
                p.matrix(),
                "-d",
                p.jsonl("d.jsonl", NO_NEEDED_FIELDS),
            ],
            names=("'r'", "none of the fields the metrics need"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "api: a list with an empty dict",
        Row(
            api=lambda p: run_grid(p.matrix(), [SAMPLES[0], {}]),
            names=("item 1", "an empty record"),
            error=DatasetError,
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "api: a DataFrame with an empty row",
        Row(
            api=lambda p: run_grid(p.matrix(), blank_row),
            names=("row 1", "an empty record"),
            error=DatasetError,
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "api: a sample with none of the fields the metrics need",
        Row(
            api=lambda p: run_grid(p.matrix(), NO_NEEDED_FIELDS),
            names=("'r'", "none of the fields the metrics need"),
            error=DatasetError,
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "no sample has every field of any metric",
        Row(
            cli=lambda p: ["run", p.matrix(), "-d", p.jsonl("d.jsonl", [{"user_input": "Q?"}])],
            names=("d.jsonl", "every cell would be skipped", "faithfulness: user_input"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "api: score_sample of an empty dict",
        Row(
            api=lambda p: score_sample(Faithfulness(), {}, judge="openai/x"),
            names=("an empty record",),
            error=DatasetError,
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "pairs file",
        Row(
            cli=lambda p: ["pairs", p.matrix(), "--pairs", p.write("p.jsonl", "{}\n")],
            names=("p.jsonl", "line 1", "missing or empty"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "label file .jsonl",
        Row(
            cli=lambda p: ["labels", "import", p.run_dir(), p.write("l.jsonl", "{}\n")],
            names=("l.jsonl", "line 1"),
        ),
    )
    _family(
        rows,
        EMPTY_RECORDS,
        "label file .csv",
        Row(
            cli=lambda p: [
                "labels",
                "import",
                p.run_dir(),
                p.write("l.csv", LABEL_HEADER + ",,,\n"),
            ],
            names=("l.csv", "row 2"),
        ),
    )
    return rows


BATCHED = {"defaults": {"batch": True}}


def option_rows() -> dict[str, Row]:
    """Every execution option (``--workers``, ``--backend``, ``--address``, the matrix's
    ``execution:``) and batch option (``batch:``) bad in each way, on a new run and a resumed
    one, and the other options checked before the run directory is made."""
    rows: dict[str, Row] = {}
    bad_flags: dict[str, tuple[list[str], tuple[str, ...]]] = {
        "workers zero": (["--workers", "0"], ("--workers",)),
        "workers negative": (["--workers", "-3"], ("--workers",)),
        "workers a word": (["--workers", "two"], ("--workers",)),
        "backend unknown": (["--backend", "gpu"], ("backend", "gpu")),
        "backend empty": (["--backend", ""], ("--backend", "empty")),
        "address without ray": (["--address", "auto"], ("address", "ray")),
        "address empty": (["--backend", "ray", "--address", " "], ("--address", "empty")),
    }
    for name, (flags, names) in bad_flags.items():
        _family(
            rows, EXECUTION, name, Row(cli=lambda p, f=flags: ["run", p.matrix(), *f], names=names)
        )
        _family(
            rows,
            EXECUTION,
            f"{name}, resume",
            Row(cli=lambda p, f=flags: ["run", "--resume", p.run_dir(), *f], names=names),
        )
    _family(
        rows,
        EXECUTION,
        "workers with batch mode",
        Row(
            cli=lambda p: ["run", p.matrix(**BATCHED), "--workers", "2"],
            names=("execution.workers", "batch mode"),
        ),
    )
    _family(
        rows,
        EXECUTION,
        "workers with batch mode, resume",
        Row(
            cli=lambda p: ["run", "--resume", _batched_run(p), "--retry-failed", "-w", "2"],
            names=("execution.workers", "batch mode"),
        ),
    )
    in_matrix: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
        "execution workers zero": ({"workers": 0}, ("execution.workers",)),
        "execution backend unknown": ({"backend": "gpu"}, ("execution.backend", "gpu")),
        "execution field misspelt": ({"adress": "auto"}, ("adress", "did you mean 'address'")),
        "execution address without ray": ({"address": "auto"}, ("address", "ray")),
        "execution workers a word": ({"workers": "many"}, ("execution.workers", "many")),
    }
    for name, (block, names) in in_matrix.items():
        _family(
            rows,
            EXECUTION,
            name,
            Row(cli=lambda p, b=block: ["run", p.matrix(execution=b)], names=names),
        )
    api_calls: dict[str, tuple[Callable[[Place], Any], tuple[str, ...]]] = {
        "api: workers zero": (lambda p: run_grid(p.matrix(), p.data(), workers=0), ("workers",)),
        "api: workers a word": (
            lambda p: run_grid(p.matrix(), p.data(), workers="two"),  # type: ignore[arg-type]
            ("workers",),
        ),
        "api: backend unknown": (
            lambda p: run_grid(p.matrix(), p.data(), backend="gpu"),
            ("backend", "gpu"),
        ),
        "api: workers with batch mode": (
            lambda p: run_grid(p.matrix(**BATCHED), p.data(), workers=2),
            ("execution.workers", "batch mode"),
        ),
        "api: resume with a backend unknown": (
            lambda p: resume_run(p.run_dir(), backend="gpu"),
            ("backend", "gpu"),
        ),
    }
    for name, (call, names) in api_calls.items():
        _family(rows, EXECUTION, name, Row(api=call, names=names, error=OptionError))

    batch: dict[str, tuple[Any, tuple[str, ...]]] = {
        "batch a word": ("yes", ("defaults.batch",)),
        "batch window not in hours": ({"completion_window": "1 day"}, ("completion_window",)),
        "batch max lines zero": ({"max_lines": 0}, ("defaults.batch.max_lines",)),
        "batch max bytes too small": ({"max_bytes": 10}, ("defaults.batch.max_bytes",)),
        "batch poll interval unreadable": ({"poll_interval": "soon"}, ("poll_interval", "soon")),
        "batch retry unknown": ({"retry": "never"}, ("defaults.batch.retry",)),
        "batch field misspelt": (
            {"complation_window": "24h"},
            ("complation_window", "did you mean 'completion_window'"),
        ),
    }
    for name, (setting, names) in batch.items():
        _family(
            rows,
            BATCH,
            name,
            Row(cli=lambda p, b=setting: ["run", p.matrix(defaults={"batch": b})], names=names),
        )
    _family(
        rows,
        BATCH,
        "batch on an entry, max lines zero",
        Row(
            cli=lambda p: [
                "run",
                p.matrix(judges=[{"id": "openai/fake-a", "batch": {"max_lines": 0}}]),
            ],
            names=("judges[0].batch.max_lines",),
        ),
    )
    _family(
        rows,
        BATCH,
        "batch for a provider without a batch API",
        Row(
            cli=lambda p: ["run", p.matrix(judges=[{"id": "ollama/llama3", "batch": True}])],
            names=("judges[0].batch", "ollama"),
        ),
    )
    _family(
        rows,
        BATCH,
        "api: batch max lines zero",
        Row(
            api=lambda p: run_grid(p.matrix(defaults={"batch": {"max_lines": 0}}), p.data()),
            names=("defaults.batch.max_lines",),
            error=MatrixError,
        ),
    )
    _family(
        rows,
        EXECUTION,
        "max-cost of an unpriced model",
        Row(
            cli=lambda p: ["run", p.matrix(), "-d", p.data(), "--max-cost", "0"],
            names=("--max-cost", "unknown"),
        ),
    )
    _family(
        rows,
        EXECUTION,
        "reports-dir a file",
        Row(
            cli=lambda p: ["run", p.matrix(), "-d", p.data(), "--reports-dir", p.write("f", "x")],
            names=("--reports-dir", "a file"),
        ),
    )
    return rows


ROWS.update(empty_input_rows())
ROWS.update(option_rows())


# --- one door (issue 31: validate, plan, run, pairs and the API give one verdict) -------------

# Bad matrices every command that reads a matrix must refuse alike, before printing anything
# else: sizes past their bounds, settings run would refuse, models no provider serves.
ONE_DOOR_MATRICES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "repeats past the bound": ({"repeats": 10**12}, ("repeats", "1000000")),
    "cells past the ceiling": (
        {"repeats": 1_000_000, "strictness": [1, 2]},
        ("grid", "12,000,000 cells", "10,000,000"),
    ),
    "batch mode with workers": (
        {**BATCHED, "execution": {"workers": 2}},
        ("execution.workers", "batch mode"),
    ),
    "judge no provider serves": (
        {"judges": [{"id": "nosuch/model"}]},
        ("judges[0].id", "nosuch/model"),
    ),
    "batch window past 24h": (
        {"defaults": {"batch": {"completion_window": "99h"}}},
        ("completion_window", "24h"),
    ),
    "batch bytes past the provider's": (
        {"defaults": {"batch": {"max_bytes": 10**20}}},
        ("max_bytes", "209715200"),
    ),
    "batch lines past the provider's": (
        {"defaults": {"batch": {"max_lines": 50_001}}},
        ("max_lines", "50000"),
    ),
    "probes per metric past the bound": (
        {"probes": {"per_metric": 10**9}},
        ("probes.per_metric", "1000"),
    ),
    "probes none of the metrics can have": (
        {"probes": ["foreign_first"]},
        ("probes.names", "foreign_first", "context_precision"),
    ),
    "ray address not an address": (
        {"execution": {"backend": "ray", "address": "notaurl"}},
        ("execution.address", "notaurl", "ray://host:port"),
    ),
    # hours are a unit now (1h); days are not
    "duration in days": (
        {"retry": {"initial_interval": "1ms", "max_interval": "1d", "max_attempts": 2}},
        ("retry.max_interval", "1d"),
    ),
}
ONE_DOOR_COMMANDS = ("validate", "plan", "run")


def every_door(
    name: str, overrides: dict[str, Any], names: tuple[str, ...], one_line: bool = False
) -> dict[str, Row]:
    """A bad matrix through validate, plan, run and run_grid."""
    rows = {
        f"{name}, {command}": Row(
            cli=lambda p, c=command: [c, p.matrix(**overrides), "-d", p.data()],
            names=names,
            one_line=one_line,
        )
        for command in ONE_DOOR_COMMANDS
    }
    rows[f"{name}, api"] = Row(
        api=lambda p: run_grid(p.matrix(**overrides), p.data()), names=names, one_line=one_line
    )
    return rows


def one_door_rows() -> dict[str, Row]:
    """Each bad matrix through validate, plan and run; bad options and arguments through the
    CLI and every public function (a wrong type is an OptionError naming the argument and the
    type it takes, before any directory or call)."""
    rows: dict[str, Row] = {}
    for name, (overrides, names) in ONE_DOOR_MATRICES.items():
        rows |= every_door(f"one door: {name}", overrides, names)
    rows["one door: ray address not a url, --address"] = Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.data(), "--backend", "ray", "--address", "x"],
        names=("address", "ray://host:port"),
    )
    rows["one door: ray address nothing answers at"] = Row(
        cli=lambda p: [
            *("run", p.matrix(), "-d", p.data(), "--backend", "ray"),
            *("--address", "ray://127.0.0.1:1"),
        ],
        names=("execution.address", "no Ray cluster answers at ray://127.0.0.1:1"),
    )
    rows["one door: ray address nothing answers at, validate"] = Row(
        cli=lambda p: [
            *("validate", p.matrix(execution={"backend": "ray", "address": "127.0.0.1:1"})),
            *("-d", p.data()),
        ],
        names=("execution.address", "no Ray cluster answers"),
    )
    rows["one door: pairs file with one id twice"] = Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.jsonl("p.jsonl", [PAIR, PAIR])],
        names=("p.jsonl", "line 2", "'p1'", "line 1"),
    )
    rows["one door: pairs file with one id twice, api"] = Row(
        api=lambda p: run_pairs(p.matrix(), p.jsonl("p.jsonl", [PAIR, {**PAIR}, PAIR])),
        names=("line 2", "line 3", "'p1'"),
        error=DatasetError,
    )
    rows.update(argument_rows())
    return rows


def argument_rows() -> dict[str, Row]:
    """Every public function given an argument of the wrong type, or out of range."""
    sample = SAMPLES[0]
    calls: dict[str, tuple[Callable[[Place], Any], tuple[str, ...]]] = {
        "load_run(123)": (lambda p: load_run(123), ("run_dir", "str or Path", "int")),
        "resume_run(123)": (lambda p: resume_run(123), ("run_dir", "str or Path")),
        "rebuild_report(123)": (lambda p: rebuild_report(123), ("run_dir", "str or Path")),
        "export_run(123)": (lambda p: api.export_run(123), ("run_dir", "str or Path")),
        "export_run format 5": (
            lambda p: api.export_run(p.run_dir(), format=5),
            ("format", "str", "int"),
        ),
        "run_grid matrix 5": (lambda p: run_grid(5), ("matrix", "Matrix", "int")),
        "run_grid on_progress 5": (
            lambda p: run_grid(p.matrix(), p.data(), on_progress=5),
            ("on_progress", "a callable"),
        ),
        "run_grid margin a word": (
            lambda p: run_grid(p.matrix(), p.data(), margin="x"),
            ("margin", "float", "str 'x'"),
        ),
        "run_grid margin out of range": (
            lambda p: run_grid(p.matrix(), p.data(), margin=2),
            ("margin", "< 1", "got 2"),
        ),
        "run_grid workers a numeral": (
            lambda p: run_grid(p.matrix(), p.data(), workers="2"),
            ("workers", "int", "str '2'"),
        ),
        "run_grid columns a list": (
            lambda p: run_grid(p.matrix(), p.data(), columns=["user_input"]),
            ("columns", "Mapping[str, str]", "list"),
        ),
        "run_grid columns to a number": (
            lambda p: run_grid(p.matrix(), p.data(), columns={"user_input": 5}),
            ("columns", "Mapping[str, str]"),
        ),
        "run_grid probes yes": (
            lambda p: run_grid(p.matrix(), p.data(), probes="yes"),
            ("probes", "bool", "'yes'"),
        ),
        "run_grid keyword misspelt": (
            lambda p: run_grid(p.matrix(), p.data(), worker=2),
            ("worker", "did you mean 'workers'"),
        ),
        "run_grid use_cache a word": (
            lambda p: run_grid(p.matrix(), p.data(), use_cache="no"),
            ("use_cache", "bool"),
        ),
        "plan_grid limit a numeral": (
            lambda p: api.plan_grid(p.matrix(), p.data(), limit="1"),
            ("limit", "int"),
        ),
        "run_pairs path 5": (lambda p: run_pairs(p.matrix(), 5), ("pairs_path", "str or Path")),
        "run_pairs repeats zero": (
            lambda p: run_pairs(p.matrix(), p.jsonl("p.jsonl", [PAIR]), repeats=0),
            ("repeats", "≥ 1"),
        ),
        "score_sample without a judge": (
            lambda p: score_sample(Faithfulness(), sample),
            ("judge", "required"),
        ),
        "score_sample keyword misspelt": (
            lambda p: score_sample(Faithfulness(), sample, judje="openai/x"),
            ("judje", "did you mean 'judge'"),
        ),
        "score_sample dimension zero": (
            lambda p: score_sample(
                ResponseRelevancy(), sample, judge="openai/x", embeddings="openai/e", dimension=0
            ),
            ("dimension", "≥ 1", "got 0"),
        ),
        "score_sample repeat negative": (
            lambda p: score_sample(Faithfulness(), sample, judge="openai/x", repeat=-1),
            ("repeat", "≥ 0", "got -1"),
        ),
        "score_sample strictness a numeral": (
            lambda p: score_sample(Faithfulness(), sample, judge="openai/x", strictness="3"),
            ("strictness", "int", "str '3'"),
        ),
        "score_sample strictness past 20": (
            lambda p: score_sample(Faithfulness(), sample, judge="openai/x", strictness=21),
            ("strictness", "≤ 20"),
        ),
        "score_sample metric a name": (
            lambda p: score_sample("faithfulness", sample, judge="openai/x"),
            ("metric", "Metric", "str"),
        ),
        "ascore_sample judge a number": (
            lambda p: asyncio.run(ascore_sample(Faithfulness(), sample, judge=5)),
            ("judge", "str", "int"),
        ),
    }
    return {
        f"one door: api {name}": Row(api=call, names=names, error=OptionError)
        for name, (call, names) in calls.items()
    }


ROWS.update(one_door_rows())


# criteria (issue 32) -----------------------------------------------------------------------
# Each refused by validate, plan, run and run_grid alike, in one line naming the place.

POLITE = {"name": "polite", "definition": "Is the reply polite?", "type": "binary"}
BETTER = {
    "name": "better",
    "definition": "Which reply is better?",
    "type": "pairwise",
    "compare": ["response", "response_b"],
}
RUBRIC_GAP = {**POLITE, "type": "scale", "scale": {1: "bad", 3: "good"}}
NO_LOGPROBS = {
    "judges": [{"id": "anthropic/claude-3-5-haiku-20241022", "label": "haiku"}],
    "criteria": [{**POLITE, "weighting": "logprobs"}],
}
CRITERIA_MATRICES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "criterion without a definition": (
        {"criteria": [{"name": "polite", "type": "binary"}]},
        ("criteria[0].definition",),
    ),
    "criterion field no sample has": (
        {"criteria": [{**POLITE, "fields": ["response", "tone"]}]},
        ("criteria[0].fields", "no sample of", "'tone'"),
    ),
    "criterion scale with a gap": ({"criteria": [RUBRIC_GAP]}, ("criteria[0].scale", "miss [2]")),
    "criterion scale of one level": (
        {"criteria": [{**RUBRIC_GAP, "scale": {1: "all"}}]},
        ("criteria[0].scale", "two levels"),
    ),
    "criterion labels without scores": (
        {"criteria": [{**POLITE, "type": "labels", "labels": ["good", "bad"]}]},
        ("criteria[0].labels", "without scores"),
    ),
    "criterion named like a metric": (
        {"criteria": [{**POLITE, "name": "responserelevancy"}]},
        ("criteria[0].name", "response_relevancy"),
    ),
    "criterion wordings that repeat": (
        {"criteria": [{**POLITE, "wordings": ["Is it kind?", "is it  KIND?"]}]},
        ("criteria[0].wordings", "repeats wordings[0]"),
    ),
    "criterion logprobs on a judge without them": (
        NO_LOGPROBS,
        ("criteria[0].weighting", "judges[0] (anthropic/claude-3-5-haiku-20241022)"),
    ),
    # pairwise criteria (issue 34)
    "pairwise criterion without compare": (
        {"criteria": [{**BETTER, "compare": None}]},
        ("criteria[0]", "compare:", "[response, response_b]"),
    ),
    "pairwise compared column no sample has": (
        {"criteria": [BETTER]},
        ("criteria[0].compare", "no sample of", "'response_b'"),
    ),
    "pairwise compared column also shown": (
        {"criteria": [{**BETTER, "fields": ["user_input", "response"]}]},
        ("criteria[0]", "response is compared"),
    ),
    "pairwise compared with itself": (
        {"criteria": [{**BETTER, "compare": ["response", "answer"]}]},
        ("criteria[0].compare", "compared with itself"),
    ),
    "pairwise odd scale without ties": (
        {"criteria": [{**BETTER, "ties": False, "scale": {1: "A", 2: "same", 3: "B"}}]},
        ("criteria[0]", "3 levels", "ties: false"),
    ),
    "pairwise systems on a pointwise criterion": (
        {"criteria": [{**POLITE, "systems": ["x", "y"]}]},
        ("criteria[0]", "only for type pairwise"),
    ),
}


def criteria_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for name, (overrides, names) in CRITERIA_MATRICES.items():
        rows |= every_door(name, overrides, names, one_line=True)
    labelled = [SAMPLES[0], {**SAMPLES[1], "labels": {"polite": "yes"}}]
    for command in ONE_DOOR_COMMANDS:
        rows[f"criterion label that is no answer of it, {command}"] = Row(
            cli=lambda p, c=command: [
                *(c, p.matrix(criteria=[POLITE]), "-d", p.jsonl("l.jsonl", labelled)),
            ],
            names=("sample 's2'.labels.polite", "'yes'", "1 or 0 (pass or fail)"),
            one_line=True,
        )
        paired = [{**SAMPLES[0], "response_b": "Bob."}, {**SAMPLES[1], "response_b": "In 2001."}]
        paired[1]["labels"] = {"better": "left"}
        rows[f"pairwise label that is no answer of it, {command}"] = Row(
            cli=lambda p, c=command, d=paired: [
                *(c, p.matrix(criteria=[BETTER]), "-d", p.jsonl("l.jsonl", d)),
            ],
            names=("sample 's2'.labels.better", "'left'", "a (1), tie (0.5), b (0)"),
            one_line=True,
        )
    return rows


ROWS.update(criteria_rows())


# the peers' criteria (issue 32, section 5): a promptfoo config through `init --from`, and
# criteria handed to run_grid and plan_grid beside the matrix; nothing written, nothing asked

RUBRIC_AT_1 = "tests:\n  - assert:\n      - {type: contains, value: x}\n      - type: llm-rubric\n"
PROMPTFOO_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "promptfoo rubric without a value": (RUBRIC_AT_1, ("tests[0].assert[1]", "rubric's text")),
    "promptfoo rubric with the test's variables": (
        RUBRIC_AT_1 + "        value: Mentions {{topic}}\n",
        ("tests[0].assert[1]", "test's variables"),
    ),
    "promptfoo not yaml": ("tests: [a, b\n", ("promptfooconfig.yaml", "line 2")),
    "promptfoo a key given twice": (
        "tests: []\ntests: [{assert: [{type: llm-rubric, value: x}]}]\n",
        ("promptfooconfig.yaml", "line 2", "'tests' is given twice"),
    ),
    "promptfoo without a rubric": (
        "tests:\n  - assert: [{type: contains, value: x}]\n",
        ("promptfooconfig.yaml", "no llm-rubric assertion"),
    ),
    "promptfoo tests in a missing file": (
        "tests: file://nope.yaml\n",
        ("tests: file://nope.yaml", "file not found"),
    ),
    "promptfoo rubric in a file": (
        "defaultTest:\n  assert: [{type: llm-rubric, value: 'file://r.txt'}]\n",
        ("defaultTest.assert[0]", "not read"),
    ),
    # YAML's own features (issue 39): a boolean where a name is due, binary data
    "promptfoo an assertion's type a boolean": (
        "tests:\n  - assert:\n      - {type: llm-rubric, value: x}\n"
        "      - {type: off, value: y}\n",
        ("tests[0].assert[1].type", "not a name (False)", "YAML reads yes/no/on/off/true/false"),
    ),
    "promptfoo a variable named on": (
        "tests:\n  - vars: {on: why}\n    assert: [{type: llm-rubric, value: x}]\n",
        ("promptfooconfig.yaml", "line 2", "the key 'on'", "write 'on' in quotes"),
    ),
    "promptfoo binary data": (
        "tests:\n  - assert: [{type: !!binary aGk=, value: x}]\n",
        ("promptfooconfig.yaml", "line 2", "binary data (!!binary)"),
    ),
}


TONE = {**POLITE, "name": "tone"}  # the matrix's own criterion, first in the merged list
GAPPY = {
    "name": "Gappy",
    "criteria": "Is it good?",
    "evaluation_params": [LLMTestCaseParams.ACTUAL_OUTPUT],
    "rubric": [
        Rubric(score_range=(0, 2), expected_outcome="Bad."),
        Rubric(score_range=(7, 10), expected_outcome="Good."),
    ],
}


def _handed(p: Place, criteria: list[Any], matrix: dict[str, Any] | None = None) -> Any:
    return run_grid(p.matrix(**(matrix or {})), p.data(), criteria=criteria)


def peer_rows() -> dict[str, Row]:
    rows = {
        f"{name}, init --from": Row(
            cli=lambda p, t=text: [
                *("init", str(p.tmp / "judgegrid.yaml")),
                *("--from", p.write("promptfooconfig.yaml", t)),
            ],
            names=("promptfooconfig.yaml", *names),
            error=MatrixError,
        )
        for name, (text, names) in PROMPTFOO_FILES.items()
    }
    polite = Criterion(**POLITE)
    rows["handed criterion named like the matrix's, api"] = Row(
        api=lambda p: _handed(p, [polite], {"criteria": [POLITE]}),
        names=("criteria: [0] 'polite'.name", "a criterion of the matrix"),
        error=OptionError,
        one_line=True,
    )
    rows["handed criteria named alike, api"] = Row(
        api=lambda p: api.plan_grid(p.matrix(), p.data(), criteria=[polite, polite]),
        names=("[1] 'polite'.name", "name of [0] 'polite'"),
        error=OptionError,
        one_line=True,
    )
    rows["handed criterion named like a metric, api"] = Row(
        api=lambda p: _handed(p, [AspectCritic(name="Faithfulness", definition="Is it?")]),
        names=("[0] AspectCritic 'Faithfulness'.name", "built-in metric faithfulness"),
        error=OptionError,
        one_line=True,
    )
    rows["handed GEval with a rubric gap, api"] = Row(
        api=lambda p: _handed(p, [geval(**GAPPY)]),
        names=("criteria: [0] GEval 'Gappy'", "[3, 4, 5, 6]"),
        error=OptionError,
        one_line=True,
    )
    rows["handed object that is no criterion, api"] = Row(
        api=lambda p: _handed(p, [Faithfulness()]),
        names=("run_grid: criteria", "PeerCriterion", "Faithfulness"),
        error=OptionError,
    )
    rows["handed criterion field no sample has, api"] = Row(
        api=lambda p: _handed(
            p, [Criterion(**{**POLITE, "fields": ("response", "tone")})], {"criteria": [TONE]}
        ),
        names=("criteria: [0] 'polite'.fields", "no sample of", "'tone'"),
        error=OptionError,
        one_line=True,
    )
    rows["handed criterion weighted by logprobs a judge cannot give, api"] = Row(
        api=lambda p: run_grid(
            p.matrix(judges=NO_LOGPROBS["judges"]),
            p.data(),
            criteria=[Criterion(**NO_LOGPROBS["criteria"][0])],
        ),
        names=("criteria: [0] 'polite'.weighting", "anthropic/claude-3-5-haiku-20241022"),
        error=OptionError,
        one_line=True,
    )
    return rows


ROWS.update(peer_rows())


# -- files a command writes, and the environment (issue 39) ------------------------------------

SPRING_FILE = Path(__file__).parents[1] / "data" / "spring_application.yaml"
TABLE_WRITERS = {"export": "--out", "labels export": "--out"}


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"sample_id": ["s1"], "score": [0.5]})


def _cache_dir_at(p: Place, value: str) -> Place:
    """JUDGEGRID_CACHE_DIR set to ``value`` (the ``cache_dir`` fixture sets it back after)."""
    os.environ["JUDGEGRID_CACHE_DIR"] = value
    return p


def _into_run(p: Place, name: str) -> list[str]:
    """A finished run, and ``-o`` naming a file ``name`` inside it."""
    run = p.run_dir()
    return [run, "-o", str(Path(run) / name)]


def _table_writer_rows(command: str, option: str) -> dict[str, Row]:
    """``export -o`` or ``labels export -o`` over each file it may not write."""
    argv = command.split()
    cases: dict[str, tuple[Callable[[Place], list[str]], tuple[str, ...]]] = {
        "over an existing file": (
            lambda p: [p.run_dir(), "-o", p.write("mine.csv", "mine\n")],
            ("mine.csv", "already exists", "--overwrite"),
        ),
        "over the run's data set, --overwrite": (
            lambda p: [p.run_dir(), "-o", str(p.tmp / "data.jsonl"), "--overwrite"],
            ("data.jsonl", "one of this command's own inputs"),
        ),
        "over a run's scores.csv, --overwrite": (
            lambda p: [*_into_run(p, "scores.csv"), "--overwrite"],
            ("scores.csv", "inside the run directory"),
        ),
        "a new file in a run directory": (
            lambda p: _into_run(p, "mine.csv"),
            ("mine.csv", "inside the run directory"),
        ),
        "into a folder that is a file": (
            lambda p: [p.run_dir(), "-o", str(Path(p.write("f", "x")) / "t.csv")],
            ("t.csv", "is a file, not a folder"),
        ),
    }
    return {
        f"paths: {command} {case}": Row(
            cli=lambda p, args=args: [*argv, *args(p)], names=(option, *names)
        )
        for case, (args, names) in cases.items()
    }


def paths_rows() -> dict[str, Row]:
    """A file a command writes: an existing one only with --overwrite, never one of the
    command's inputs nor a file in a run directory, even with it; a cache folder in the
    environment that is a file, named by its variable, before a run directory is made."""
    rows: dict[str, Row] = {}
    for command, option in TABLE_WRITERS.items():
        rows |= _table_writer_rows(command, option)
    rows["paths: write_table over an existing file, api"] = Row(
        api=lambda p: api.write_table(_frame(), Path(p.write("mine.csv", "mine\n"))),
        names=("mine.csv", "already exists", "overwrite=True"),
        error=OptionError,
    )
    rows["paths: write_table over the run's data set, api"] = Row(
        api=lambda p: api.write_table(
            _frame(),
            p.tmp / "data.jsonl",
            overwrite=True,
            inputs=api.run_input_files(p.run_dir()),
        ),
        names=("data.jsonl", "one of this command's own inputs"),
        error=OptionError,
    )
    rows["paths: write_table_file over a run's scores.csv, api"] = Row(
        api=lambda p: api.write_table_file(
            _frame(), Path(p.run_dir()) / "scores.csv", "--output", overwrite=True
        ),
        names=("scores.csv", "inside the run directory"),
        error=OptionError,
    )
    rows["paths: init over an existing file"] = Row(
        cli=lambda p: ["init", p.write("m.yaml", "mine\n")],
        names=("m.yaml", "already exists", "--overwrite"),
    )
    rows["paths: init over an existing file, api"] = Row(
        api=lambda p: api.init_matrix(p.write("m.yaml", "mine\n")),
        names=("m.yaml", "already exists"),
        error=OptionError,
    )
    rows["paths: init its template over an existing file"] = Row(
        cli=lambda p: ["init", str(Path(p.write("new.dataset.jsonl", "x")).parent / "new.yaml")],
        names=("new.dataset.jsonl", "already exists"),
    )
    rows["paths: init over its own --dataset, --overwrite"] = Row(
        cli=lambda p: ["init", p.data(), "--dataset", str(p.tmp / "data.jsonl"), "--overwrite"],
        names=("data.jsonl", "one of this command's own inputs"),
    )
    rows["paths: init over its own --dataset, api"] = Row(
        api=lambda p: api.init_matrix(p.data(), dataset=p.tmp / "data.jsonl", overwrite=True),
        names=("data.jsonl", "one of this command's own inputs"),
        error=OptionError,
    )
    rows["paths: init over its own --from, --overwrite"] = Row(
        cli=lambda p: [
            *("init", p.write("application.yaml", SPRING_FILE.read_text())),
            *("--from", str(p.tmp / "application.yaml"), "--overwrite"),
        ],
        names=("application.yaml", "one of this command's own inputs"),
    )
    rows["paths: init into a run directory"] = Row(
        cli=lambda p: ["init", str(Path(p.run_dir()) / "m.yaml"), "--overwrite"],
        names=("m.yaml", "inside the run directory"),
    )
    rows |= _cache_env_rows("a file", lambda p: p.write("cachefile", "x"))
    rows |= _cache_env_rows("in a file", lambda p: str(Path(p.write("cachefile", "x")) / "sub"))
    return rows


def _cache_env_rows(case: str, value: Callable[[Place], str]) -> dict[str, Row]:
    """JUDGEGRID_CACHE_DIR naming ``case`` through every command and function that opens the
    cache: named by its variable, and no run directory made."""
    names = ("JUDGEGRID_CACHE_DIR", "is a file, not a folder")
    commands: dict[str, Callable[[Place], list[str]]] = {
        "cache stats": lambda p: ["cache", "stats"],
        "cache clear": lambda p: ["cache", "clear"],
        "run": lambda p: ["run", p.matrix(), "-d", p.data()],
        "plan": lambda p: ["plan", p.matrix(), "-d", p.data()],
        "validate": lambda p: ["validate", p.matrix(), "-d", p.data()],
    }
    rows = {
        f"paths: JUDGEGRID_CACHE_DIR {case}, {name}": Row(
            cli=lambda p, argv=argv: argv(_cache_dir_at(p, value(p))), names=names
        )
        for name, argv in commands.items()
    }
    functions: dict[str, Callable[[Place], Any]] = {
        "run_grid": lambda p: run_grid(p.matrix(), p.data()),
        "plan_grid": lambda p: api.plan_grid(p.matrix(), p.data()),
        "cache_stats": lambda p: api.cache_stats(),
        "resume_run": lambda p: resume_run(p.run_dir(), use_cache=True),
    }
    for name, call in functions.items():
        rows[f"paths: JUDGEGRID_CACHE_DIR {case}, {name}"] = Row(
            api=lambda p, call=call: call(_cache_dir_at(p, value(p))),
            names=names,
            error=OptionError,
        )
    return rows


ROWS.update(paths_rows())
# names checked against what exists, on every data source and against the run's own metrics and
# criteria (issue 39): a name that does not exist, or one given twice in any order or spelling,
# and files in another shape than their name, named as what they are

RUN_FILE_API: dict[str, Callable[[str], Any]] = {
    **RUN_API,
    "export_labels": api.export_labels,
    "import_labels": lambda r: api.import_labels(r, "l.csv"),
    "open_view": lambda r: api.open_view(r, "ann"),
    "open_label_view": lambda r: api.open_label_view(r, "ann"),
}
TWICE_RECORD = '{"id": "s1", "user_input": "Q?", "response": "A.", "user_input": "Q again?"}\n'
TWICE_NAMES = ["id", "user_input", "response", "user_input"]
TWICE_ROW = ["s1", "Q?", "A.", "Q again?"]
TWICE_TABLE = pd.DataFrame([TWICE_ROW], columns=TWICE_NAMES)
TWICE_FILES: dict[str, str] = {
    "d.jsonl": TWICE_RECORD,
    "d.json": f"[{TWICE_RECORD.strip()}]",
    "d.csv": ",".join(TWICE_NAMES) + "\n" + ",".join(TWICE_ROW) + "\n",
    "d.parquet": "",
    "d.arrow": "",
}
LINES_IN_JSON = "".join(json.dumps(s) + "\n" for s in SAMPLES)
SHAPES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "JSON Lines named .json": (
        "d.json",
        LINES_IN_JSON,
        ("d.json", "looks like JSON Lines", ".jsonl"),
    ),
    "one JSON array named .jsonl": (
        "d.jsonl",
        json.dumps(SAMPLES, indent=1),
        ("d.jsonl", "looks like one JSON array", "name the file .json"),
    ),
    "a CSV separated by ';'": (
        "d.csv",
        "id;user_input;response\ns1;Q?;A.\n",
        ("d.csv", "line 1", "the header is separated by ';', not ','"),
    ),
    "a CSV separated by tabs": (
        "d.csv",
        "id\tuser_input\tresponse\ns1\tQ?\tA.\n",
        ("d.csv", "the header is separated by tabs, not ','"),
    ),
}
BAD_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "an unknown column": (
        "user_input=questoin,response=answer",
        ("user_input=questoin", "unknown column 'questoin'", "did you mean 'question'", "known:"),
    ),
    "one column to two fields": (
        "response=question,user_input=question",
        (
            "user_input=question",
            "column 'question' is mapped to two fields, response and user_input",
        ),
    ),
    "a column with no value": (
        "user_input=question,response=answer,reference=gt",
        ("reference=gt", "column 'gt' has no value in any sample"),
    ),
}
OWN_NAMES = [{"id": "s1", "question": "Q?", "answer": "A.", "gt": ""}]
PROPERTIES = "spring.ai.openai.api-key=${OPENAI_API_KEY}\nspring.ai.openai.chat.options.model=x\n"
SPRING_SAYS = ("application.properties", "Spring's .properties form is not read", "spring: {ai:")


def _pairs_dir(p: Place) -> str:
    """A judgegrid pairs directory: the pairs file it read named, one aspect's run inside."""
    parent = p.tmp / "pairs-run"
    parent.mkdir()
    p.made.append(parent)
    Path(p.run_dir()).rename(parent / "faithfulness")
    (parent / "pairs_source.txt").write_text("p.jsonl")
    return str(parent)


def _twice_file(p: Place, name: str, text: str) -> str:
    """A data set file naming user_input twice: as written, or a Parquet or Arrow table built
    column by column (pandas' writer would refuse the repeat itself)."""
    if text:
        return p.write(name, text)
    path = p.tmp / name
    p.made.append(path)
    table = pa.table([pa.array([v]) for v in TWICE_ROW], names=TWICE_NAMES)
    if name.endswith(".parquet"):
        pq.write_table(table, path)
    else:
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
    return str(path)


def _matrix_with_columns(p: Place, columns: str) -> str:
    """A matrix whose own columns: map is ``columns`` (FIELD=COLUMN,…), over a data set of
    its own names."""
    p.jsonl("own.jsonl", OWN_NAMES)
    mapped = dict(item.split("=") for item in columns.split(","))
    return p.matrix(columns=mapped, dataset="own.jsonl")


def _polite_run(p: Place) -> str:
    """A finished run with a criterion of its own beside the two metrics."""
    return p.run_dir(criteria=[POLITE])


def _labels(p: Place, text: str, name: str = "l.csv") -> str:
    return p.write(name, text)


def names_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    inside = ("run.sqlite", "a file, not a run directory", "it is inside the run directory")
    pairs_says = ("a judgegrid pairs directory", "judgegrid report", "read one aspect's run")
    for command, argv in RUN_COMMANDS.items():
        rows[f"names: a run's file for its folder, {command}"] = Row(
            cli=lambda p, a=argv: a(p, str(Path(p.run_dir()) / "run.sqlite")), names=inside
        )
        if command != "report":  # report reads a pairs directory whole
            rows[f"names: a pairs directory, {command}"] = Row(
                cli=lambda p, a=argv: a(p, _pairs_dir(p)), names=pairs_says
            )
    rows["names: a file outside any run, report"] = Row(
        cli=lambda p: ["report", p.data()],
        names=("data.jsonl", "a file, not a run directory: name the run's folder"),
    )
    for name, call in RUN_FILE_API.items():
        rows[f"names: a run's file for its folder, api {name}"] = Row(
            api=lambda p, c=call: c(str(Path(p.run_dir()) / "summary.md")),
            names=("summary.md", *inside[1:]),
            error=RunDirError,
        )
        if name != "rebuild_report":
            rows[f"names: a pairs directory, api {name}"] = Row(
                api=lambda p, c=call: c(_pairs_dir(p)), names=pairs_says, error=RunDirError
            )
    # the run's own metrics and criteria, with a did-you-mean
    known = "known: faithfulness, response_relevancy, polite"
    rows["names: label --metric not in the run"] = Row(
        cli=lambda p: ["label", _polite_run(p), "--metric", "politeness"],
        names=("--metric", "'politeness'", "did you mean 'polite'", known),
    )
    rows["names: label --metric a built-in the run did not score"] = Row(
        cli=lambda p: ["label", _polite_run(p), "--metric", "context_recall"],
        names=(
            "context_recall is not in this run",
            "it has faithfulness, response_relevancy, polite",
        ),
    )
    rows["names: label --metric twice in two spellings"] = Row(
        cli=lambda p: [
            "label",
            p.run_dir(),
            "--metric",
            "faithfulness",
            "--metric",
            "Faithfulness",
        ],
        names=("'Faithfulness' (2nd) names the same metric as 'faithfulness' (1st)",),
    )
    rows["names: label --metric not in the run, api"] = Row(
        api=lambda p: api.open_label_view(_polite_run(p), "ann", ["politeness"]),
        names=("--metric", "did you mean 'polite'", known),
        error=OptionError,
    )
    rows["names: label --metric twice, api"] = Row(
        api=lambda p: api.open_label_session(p.run_dir(), "ann", ["faithfulness", "faithfulness"]),
        names=("metric 'faithfulness' is given twice (1st and 2nd)",),
        error=OptionError,
    )
    label_files = {
        "a metric not in the run": (
            LABEL_HEADER + "s1,politeness,ann,1\n",
            ("row 2", "'politeness'", "did you mean 'polite'", known),
        ),
        "a misspelt column": (
            "sample_id,metrc,annotator,value\ns1,polite,ann,1\n",
            ("row 2", "unknown field metrc", "did you mean 'metric'"),
        ),
        "a column twice": (
            "sample_id,metric,annotator,value,metric\ns1,polite,ann,1,polite\n",
            ("line 1", "column 'metric' is given twice (2nd and 5th)"),
        ),
        "separated by ';'": (
            "sample_id;metric;annotator;value\ns1;polite;ann;1\n",
            ("line 1", "the header is separated by ';', not ','"),
        ),
    }
    for name, (text, says) in label_files.items():
        rows[f"names: labels import, {name}"] = Row(
            cli=lambda p, t=text: ["labels", "import", _polite_run(p), _labels(p, t)],
            names=("l.csv", *says),
        )
        rows[f"names: labels import, {name}, api"] = Row(
            api=lambda p, t=text: api.import_labels(_polite_run(p), _labels(p, t)),
            names=("l.csv", *says),
            error=DatasetError,
        )
    rows["names: labels import, one JSON array"] = Row(
        cli=lambda p: [
            *("labels", "import", p.run_dir()),
            p.write("l.jsonl", json.dumps([{"sample_id": "s1", "metric": "faithfulness"}])),
        ],
        names=("l.jsonl", "looks like one JSON array", "write one record a line"),
    )
    # every data source: a field given twice, a file in another shape than its name
    for file, content in TWICE_FILES.items():
        kind = "field" if file.startswith("d.json") else "column"
        says = (file, f"{kind} 'user_input' is given twice (2nd and 4th)")
        for command, argv in DATA_COMMANDS.items():
            rows[f"names: a field twice in {file}, {command}"] = Row(
                cli=lambda p, a=argv, f=file, c=content: a(p, _twice_file(p, f, c)), names=says
            )
        rows[f"names: a field twice in {file}, api"] = Row(
            api=lambda p, f=file, c=content: run_grid(p.matrix(), _twice_file(p, f, c)),
            names=says,
            error=DatasetError,
        )
    rows["names: a DataFrame column twice, api"] = Row(
        api=lambda p: run_grid(p.matrix(), TWICE_TABLE),
        names=("<DataFrame>", "column 'user_input' is given twice"),
        error=DatasetError,
    )
    for shape, (file, text, says) in SHAPES.items():
        for command, argv in DATA_COMMANDS.items():
            rows[f"names: {shape}, {command}"] = Row(
                cli=lambda p, a=argv, f=file, t=text: a(p, p.write(f, t)), names=says
            )
        rows[f"names: {shape}, api"] = Row(
            api=lambda p, f=file, t=text: run_grid(p.matrix(), p.write(f, t)),
            names=says,
            error=DatasetError,
        )
    # the column map, from the option, the matrix and Python
    for bad, (columns, says) in BAD_COLUMNS.items():
        for command, argv in DATA_COMMANDS.items():
            rows[f"names: --columns {bad}, {command}"] = Row(
                cli=lambda p, a=argv, c=columns: [
                    *a(p, p.jsonl("own.jsonl", OWN_NAMES)),
                    "--columns",
                    c,
                ],
                names=("--columns", *says),
            )
        rows[f"names: columns: {bad}, the matrix's"] = Row(
            cli=lambda p, c=columns: ["validate", _matrix_with_columns(p, c)],
            names=("m.yaml", f"columns.{says[0].split('=')[0]}:", *says[1:]),
        )
        rows[f"names: columns: {bad}, the matrix's, api"] = Row(
            api=lambda p, c=columns: run_grid(_matrix_with_columns(p, c)),
            names=("m.yaml", f"columns.{says[0].split('=')[0]}:", *says[1:]),
            error=MatrixError,
        )
        rows[f"names: columns= {bad}, api"] = Row(
            api=lambda p, c=columns: run_grid(
                p.matrix(), p.jsonl("own.jsonl", OWN_NAMES), columns=api.parse_columns(c)
            ),
            names=("--columns", *says),
            error=OptionError,
        )
    # a judge, a jury or a metric named twice, in another order or spelling
    rows |= every_door(
        "names: a jury given twice in another order",
        {"juries": [["a", "openai/fake-b"], ["openai/fake-b", "a"]]},
        ("juries[1]", "the same jury as juries[0] (a, openai/fake-b), in another order"),
    )
    rows |= every_door(
        "names: a jury member twice",
        {"juries": [["a", "openai/fake-b", "a"]]},
        ("juries[0]", "judge 'a' is given twice (1st and 3rd)"),
    )
    rows |= every_door(
        "names: a jury member unknown",
        {"juries": [["a", "openai/fake-c"]]},
        ("juries[0]", "unknown judge 'openai/fake-c'", "did you mean 'openai/fake-b'"),
    )
    rows |= every_door(
        "names: a metric twice in two spellings",
        {"metrics": ["faithfulness", "response_relevancy", "Faithfulness"]},
        ("metrics[2].name", "'Faithfulness' (3rd) names the same metric as 'faithfulness' (1st)"),
    )
    pairs_judges = {
        "twice": (["a", "a"], ("--judge", "judge 'a' is given twice (1st and 2nd)")),
        "misspelt": (["openai/fake-c"], ("--judge", "did you mean 'openai/fake-b'", "known: a")),
    }
    for name, (judges, says) in pairs_judges.items():
        chosen = [arg for judge in judges for arg in ("--judge", judge)]
        rows[f"names: pairs --judge {name}"] = Row(
            cli=lambda p, j=chosen: [
                "pairs",
                p.matrix(),
                "--pairs",
                p.jsonl("p.jsonl", [PAIR]),
                *j,
            ],
            names=says,
        )
        rows[f"names: pairs --judge {name}, api"] = Row(
            api=lambda p, j=judges: run_pairs(p.matrix(), p.jsonl("p.jsonl", [PAIR]), judges=j),
            names=says,
            error=MatrixError,
        )
    pair_twice = json.dumps(PAIR)[:-1] + ', "answer": "Ann again."}\n'
    rows["names: a pairs file with a field twice"] = Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.write("p.jsonl", pair_twice)],
        names=("p.jsonl", "line 1", "field 'answer' is given twice"),
    )
    rows["names: a pairs file with a field twice, api"] = Row(
        api=lambda p: run_pairs(p.matrix(), p.write("p.jsonl", pair_twice)),
        names=("p.jsonl", "line 1", "field 'answer' is given twice"),
        error=DatasetError,
    )
    misspelt = {**{k: v for k, v in PAIR.items() if k != "question"}, "qestion": "Who?"}
    rows["names: a pairs file with a field misspelt"] = Row(
        cli=lambda p: ["pairs", p.matrix(), "--pairs", p.jsonl("p.jsonl", [misspelt])],
        names=("p.jsonl", "line 1", "missing or empty: question", "'qestion' meant as 'question'"),
    )
    rows["names: a pairs file with a field misspelt, api"] = Row(
        api=lambda p: run_pairs(p.matrix(), p.jsonl("p.jsonl", [misspelt])),
        names=("p.jsonl", "line 1", "'qestion' meant as 'question'"),
        error=DatasetError,
    )
    # Spring's .properties for its application.yaml
    for command, argv in {**MATRIX_COMMANDS, "init --from": None}.items():
        rows[f"names: a Spring .properties file, {command}"] = Row(
            cli=(
                (lambda p, a=argv: a(p, p.write("application.properties", PROPERTIES)))
                if argv is not None
                else lambda p: [
                    *("init", str(p.tmp / "judgegrid.yaml")),
                    *("--from", p.write("application.properties", PROPERTIES)),
                ]
            ),
            names=SPRING_SAYS,
        )
    rows["names: a Spring .properties file, api"] = Row(
        api=lambda p: run_grid(p.write("application.properties", PROPERTIES), SAMPLES),
        names=SPRING_SAYS,
        error=MatrixError,
    )
    return rows


ROWS.update(names_rows())


SPRING_KEY_DEFAULT = f"""spring:
  ai:
    openai:
      base-url: https://openrouter.ai/api
      api-key: ${{OPENROUTER_API_KEY:{KEY}}}
    chat-models:
      list:
        - id: a
          options: {{model: openai/gpt-4o-mini}}
judgegrid: {{metrics: [faithfulness]}}
"""
NOTE_HEADER = "sample_id,metric,annotator,value,note\n"
PROBABILITY_HEADER = "sample_id,metric,annotator,value,probability\n"


def _headers(headers: Any) -> dict[str, Any]:
    """Matrix overrides: judge a sends ``extra_headers``."""
    options = {"extra": {"extra_headers": headers}}
    return {"judges": [{"id": "openai/fake-a", "label": "a", "options": options}]}


def _keyed_run(p: Place) -> str:
    """A finished run under --no-cache whose api_base carries credentials (masked as stored)."""
    keyed = p.url.replace("http://", f"http://user:{KEY}@")
    options = {"api_base": keyed, "api_key_env": KEY_ENV, "timeout": "2s"}
    return p.run_dir(defaults={"judge": {"max_tokens": 200, **options}, "embedding": options})


def secrets_rows() -> dict[str, Row]:
    """Secrets where they would be written down (issue 39): a credential header written in the
    matrix, a ``${VAR}`` header the environment lacks, a Spring key given as a placeholder's
    default, a key in a label's note; and the resume of a run whose api_base carried
    credentials, under --no-cache (its refusal promises no cache)."""
    refused = ("judges[0].options.extra", "a credential must not be written in the matrix")
    rows: dict[str, Row] = {}
    for name, headers, words in [
        ("a bearer key", {"Authorization": f"Bearer {KEY}"}, ("Authorization", "${")),
        ("a short x-api-key", {"x-api-key": "abc123"}, ("extra_headers.x-api-key",)),
        ("a key under another name", {"X-Trace": KEY}, ("extra_headers.X-Trace",)),
    ]:
        rows |= every_door(f"secrets: header {name}", _headers(headers), (*refused, *words))
    rows |= every_door(
        "secrets: headers not a mapping",
        _headers("Bearer x"),
        ("judges[0].options.extra", "extra_headers: expected a mapping of header names to text"),
    )
    unset = _headers({"Authorization": "Bearer ${JUDGEGRID_TABLE_UNSET}"})
    unset_words = ("judges[0]", "JUDGEGRID_TABLE_UNSET is not set")
    for command in ("validate", "run"):  # the plan asks for no key
        rows[f"secrets: header variable not set, {command}"] = Row(
            cli=lambda p, c=command: [c, p.matrix(**unset), "-d", p.data()], names=unset_words
        )
    rows["secrets: header variable not set, api"] = Row(
        api=lambda p: run_grid(p.matrix(**unset), p.data()), names=unset_words, error=MatrixError
    )
    spring = ("application.yaml", "spring.ai.openai.api-key", "${OPENROUTER_API_KEY}")
    for command in ("validate", "run"):
        rows[f"secrets: spring key as a default, {command}"] = Row(
            cli=lambda p, c=command: [c, p.write("application.yaml", SPRING_KEY_DEFAULT)],
            names=(*spring, "looks like an API key"),
        )
    rows["secrets: spring key as a default, init --from"] = Row(
        cli=lambda p: [
            *("init", str(p.tmp / "judgegrid.yaml")),
            *("--from", p.write("application.yaml", SPRING_KEY_DEFAULT)),
        ],
        names=spring,
    )
    rows["secrets: spring key as a default, api"] = Row(
        api=lambda p: run_grid(p.write("application.yaml", SPRING_KEY_DEFAULT), p.data()),
        names=spring,
        error=MatrixError,
    )
    # a key in a Spring base-url: init would write it into the matrix it makes
    keyed_url = f"http://user:{KEY}@127.0.0.1:8000"
    userinfo = ("application.yaml", "spring.ai.openai.base-url", "carries credentials", "api-key")
    for command in ("validate", "run"):
        rows[f"secrets: spring base-url with a key, {command}"] = Row(
            cli=lambda p, c=command: [c, _spring(p, keyed_url), "-d", p.data()], names=userinfo
        )
    rows["secrets: spring base-url with a key, init --from"] = Row(
        cli=lambda p: [
            *("init", str(p.tmp / "judgegrid.yaml")),
            *("--from", _spring(p, keyed_url)),
        ],
        names=userinfo,
    )
    rows["secrets: spring base-url with a key, api"] = Row(
        api=lambda p: run_grid(_spring(p, keyed_url), p.data()), names=userinfo, error=MatrixError
    )
    note_words = ("l.csv", "row 2", "note:", "looks like an API key", "take the key out")
    noted = NOTE_HEADER + f"s1,faithfulness,ann,1,my key is {KEY}\n"
    rows["secrets: a key in a label note, labels import"] = Row(
        cli=lambda p: ["labels", "import", p.run_dir(), p.write("l.csv", noted)], names=note_words
    )
    rows["secrets: a key in a label note, api"] = Row(
        api=lambda p: api.import_labels(p.run_dir(), p.write("l.csv", noted)),
        names=note_words,
        error=DatasetError,
    )
    # a label's draw probability (an export writes it; a weight is 1 / (N q)) out of (0, 1]
    for value, through in (("0", "cli"), ("1.5", "cli"), ("1.5", "api"), ("often", "api")):
        drawn = PROBABILITY_HEADER + f"s1,faithfulness,ann,1,{value}\n"
        says = ("l.csv", "row 2", "probability", "a number in (0, 1]", repr(value))
        name = f"labels import, probability {value}" + (", api" if through == "api" else "")
        rows[name] = (
            Row(
                cli=lambda p, t=drawn: ["labels", "import", p.run_dir(), p.write("l.csv", t)],
                names=says,
            )
            if through == "cli"
            else Row(
                api=lambda p, t=drawn: api.import_labels(p.run_dir(), p.write("l.csv", t)),
                names=says,
                error=DatasetError,
            )
        )
    masked = (
        "judges[0].options.api_base",
        "masked",
        "under --no-cache nothing was kept in the cache",
    )
    rows["secrets: resume a run whose api_base had credentials, under --no-cache"] = Row(
        cli=lambda p: ["run", "--resume", _keyed_run(p), "--retry-failed"],
        names=(*masked, "api_key_env"),
    )
    rows["secrets: resume a run whose api_base had credentials, api"] = Row(
        api=lambda p: resume_run(_keyed_run(p), retry_failed=True), names=masked, error=MatrixError
    )
    return rows


ROWS.update(secrets_rows())


# issue 39, values not what they look like (types): YAML's booleans and special floats where a
# number or a name is due, lists whose members must differ, the public models' own errors, and
# inputs that were wrongly accepted

BOOL_NUMBER = ("boolean True", "not a number")
QUOTE_IT = ("YAML reads yes/no/on/off/true/false", "in quotes")
# a key YAML reads as a boolean is refused by the loader, at its line (a dict's: by the model)
BOOLEAN_KEY = ("m.yaml", "line ", "the key 'true'", *QUOTE_IT)
NOT_FINITE = ("finite number",)
EMBED = "openai/fake-embed"
TYPES_MATRICES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "repeats a boolean": ({"repeats": True}, ("repeats", *BOOL_NUMBER)),
    "dimensions a boolean": (
        {"embeddings": [{"id": EMBED, "dimensions": [True]}]},
        ("embeddings[0].dimensions[0]", *BOOL_NUMBER),
    ),
    "strictness a boolean": ({"strictness": [True]}, ("strictness[0]", *BOOL_NUMBER)),
    "max-tokens a boolean": (
        {"judges": [{"id": "openai/fake-a", "options": {"max_tokens": True}}]},
        ("judges[0].options.max_tokens", *BOOL_NUMBER),
    ),
    "temperature a boolean": (
        {"judges": [{"id": "openai/fake-a", "options": {"temperature": False}}]},
        ("judges[0].options.temperature", "boolean False", "not a number"),
    ),
    "probes per-metric a boolean": (
        {"probes": {"per_metric": True}},
        ("probes.per_metric", *BOOL_NUMBER),
    ),
    "a judge's id a boolean": ({"judges": [{"id": True}]}, ("judges[0].id", *QUOTE_IT)),
    "a judge's label a boolean": (
        {"judges": [{"id": "openai/fake-a", "label": False}]},
        ("judges[0].label", "write 'no' in quotes"),
    ),
    "a metric named on": ({"metrics": [True]}, ("metrics[0]", *QUOTE_IT)),
    "a criterion's labels yes and no": (
        {"criteria": [{**POLITE, "type": "labels", "labels": {True: 1, False: 0}}]},
        BOOLEAN_KEY,
    ),
    "a criterion's scale level a boolean": (
        {"criteria": [{**POLITE, "type": "scale", "scale": {True: "bad", 2: "good"}}]},
        BOOLEAN_KEY,
    ),
    "temperature .nan": (
        {"judges": [{"id": "openai/fake-a", "options": {"temperature": float("nan")}}]},
        ("judges[0].options.temperature", *NOT_FINITE),
    ),
    "top-p .inf": (
        {"judges": [{"id": "openai/fake-a", "options": {"top_p": float("inf")}}]},
        ("judges[0].options.top_p", *NOT_FINITE),
    ),
    "timeout .inf": (
        {"judges": [{"id": "openai/fake-a", "options": {"timeout": float("inf")}}]},
        ("judges[0].options.timeout", *NOT_FINITE),
    ),
    "requests-per-minute .inf": (
        {"judges": [{"id": "openai/fake-a", "requests_per_minute": float("inf")}]},
        ("judges[0].requests_per_minute", *NOT_FINITE),
    ),
    "retry multiplier .inf": (
        {"retry": {"multiplier": float("inf")}},
        ("retry.multiplier", *NOT_FINITE),
    ),
    "decision margin .nan": ({"decision": {"margin": float("nan")}}, ("decision.margin",)),
    "a criterion's label score .nan": (
        {"criteria": [{**POLITE, "type": "labels", "labels": {"a": float("nan"), "b": 0}}]},
        ("criteria[0].labels.a", *NOT_FINITE),
    ),
    "a metric's threshold -.inf": (
        {"metrics": [{"name": "answer_relevancy", "threshold": float("-inf")}]},
        ("metrics[0].threshold", *NOT_FINITE),
    ),
    "dimensions given twice": (
        {"embeddings": [{"id": EMBED, "dimensions": [16, 16]}]},
        ("embeddings[0].dimensions", "dimensions[0] and dimensions[1]"),
    ),
    "strictness given twice": ({"strictness": [3, 3]}, ("strictness[0] and strictness[1]",)),
    "a metric's strictness given twice": (
        {"metrics": [{"name": "response_relevancy", "strictness": [2, 2]}]},
        ("metrics[0].strictness", "strictness[0] and strictness[1]"),
    ),
    "a metric named twice in two spellings": (
        {"metrics": ["faithfulness", "Faithfulness"]},
        ("metrics[1].name", "'Faithfulness' (2nd) names the same metric as 'faithfulness' (1st)"),
    ),
    "probes named twice": (
        {"probes": ["injection", "injection"]},
        ("probes.names", "names[0] and names[1]"),
    ),
    "a jury naming a judge twice": (
        {"juries": [["a", "a", "openai/fake-b"]]},
        ("juries[0]", "judge 'a' is given twice (1st and 2nd)"),
    ),
    "two juries of the same judges": (
        {"juries": [["a", "openai/fake-b"], ["openai/fake-b", "a"]]},
        ("juries[1]", "the same jury as juries[0]"),
    ),
    "fails-when naming a probe twice": (
        {"criteria": [{**POLITE, "fails_when": ["injection", "injection"]}]},
        ("criteria[0].fails_when", "fails_when[0] and fails_when[1]"),
    ),
    "a pairwise scale without a tie level": (
        {"criteria": [{**BETTER, "scale": {1: "A is better", 2: "B is better"}}]},
        ("criteria[0]", "no middle one for a tie", "ties: false"),
    ),
    "a dimension of a billion": (
        {"embeddings": [{"id": EMBED, "dimensions": [1_000_000_000]}]},
        ("embeddings[0].dimensions[0]", "1,000,000,000", "16,384"),
    ),
}
ID_CASES = {"empty": ("", "is empty"), "with a newline": ("s\n1", "control character '\\n'")}


def _hf_folder(p: Place, records: list[dict[str, Any]]) -> str:
    """A folder as Hugging Face's Dataset.save_to_disk leaves it: state.json and Arrow files."""
    folder = p.tmp / "hf"
    folder.mkdir()
    p.made.append(folder)
    p.table("hf/data-00000-of-00001.arrow", pd.DataFrame(records))
    (folder / "state.json").write_text(
        '{"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}'
    )
    return str(folder)


ID_SOURCES: dict[str, Callable[[Place, list[dict[str, Any]]], str]] = {
    "jsonl": lambda p, r: p.jsonl("d.jsonl", r),
    "json": lambda p, r: p.write("d.json", json.dumps(r)),
    "csv": lambda p, r: p.write("d.csv", pd.DataFrame(r).to_csv(index=False)),
    "parquet": lambda p, r: p.table("d.parquet", pd.DataFrame(r)),
    "arrow": lambda p, r: p.table("d.arrow", pd.DataFrame(r)),
    "save_to_disk folder": _hf_folder,
}


def _spring(p: Place, base_url: str) -> str:
    text = (
        "spring:\n  ai:\n    openai:\n"
        f"      base-url: {base_url}\n"
        f"      api-key: ${{{KEY_ENV}}}\n"
        "      chat:\n        options:\n          model: fake-a\n"
        "judgegrid:\n  metrics: [faithfulness]\n"
    )
    return p.write("application.yaml", text)


def types_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for name, (overrides, names) in TYPES_MATRICES.items():
        rows |= every_door(name, overrides, names)
    # a sample id that is empty or holds a newline, on every data source and door
    for case, (bad_id, said) in ID_CASES.items():
        records = [SAMPLES[0], {**SAMPLES[1], "id": bad_id}]
        # a CSV's empty cell is no id (one is made, as for a missing id); spaces are one
        spaces = [SAMPLES[0], {**SAMPLES[1], "id": "  "}]
        for source, write in ID_SOURCES.items():
            given = spaces if source == "csv" and case == "empty" else records
            for command in ONE_DOOR_COMMANDS:
                rows[f"sample id {case}, {source}, {command}"] = Row(
                    cli=lambda p, c=command, w=write, r=given: [c, p.matrix(), "-d", w(p, r)],
                    names=("field id", said),
                )
            rows[f"sample id {case}, {source}, api"] = Row(
                api=lambda p, w=write, r=given: run_grid(p.matrix(), w(p, r)),
                names=("field id", said),
                error=DatasetError,
            )
        rows[f"sample id {case}, a list of dicts, api"] = Row(
            api=lambda p, r=records: run_grid(p.matrix(), r), names=("id", said), error=DatasetError
        )
        rows[f"sample id {case}, Sample(...)"] = Row(
            api=lambda p, i=bad_id: Sample(id=i, user_input="Q?"),
            names=("Sample: id", said),
            error=DatasetError,
        )
        pair_id = "  " if case == "empty" else bad_id
        rows[f"pair id {case}, pairs"] = Row(
            cli=lambda p, i=pair_id: [
                *("pairs", p.matrix()),
                *("--pairs", p.jsonl("p.jsonl", [PAIR, {**PAIR, "id": i}])),
            ],
            names=("p.jsonl", "line 2", "the pair id"),
        )
        rows[f"pair id {case}, run_pairs"] = Row(
            api=lambda p, i=pair_id: run_pairs(p.matrix(), p.jsonl("p.jsonl", [{**PAIR, "id": i}])),
            names=("p.jsonl", "line 1", "the pair id"),
            error=DatasetError,
        )
    # a data set's values that are not what they look like
    odd_labels = {
        "a label's score NaN": ({"faithfulness": float("nan")}, "nan is no label"),
        "a label's score a boolean": ({"faithfulness": True}, "the boolean True is no label"),
        "a label named like no metric or criterion": (
            {"politeness": 1},
            "did you mean 'polite'? the run's: faithfulness, response_relevancy, polite",
        ),
    }
    for name, (labels, said) in odd_labels.items():
        data = [SAMPLES[0], {**SAMPLES[1], "labels": labels}]
        for command in ONE_DOOR_COMMANDS:
            rows[f"{name}, {command}"] = Row(
                cli=lambda p, c=command, d=data: [
                    *(c, p.matrix(criteria=[POLITE]), "-d", p.jsonl("l.jsonl", d)),
                ],
                names=("l.jsonl", "labels", said),
            )
        rows[f"{name}, api"] = Row(
            api=lambda p, d=data: run_grid(p.matrix(criteria=[POLITE]), p.jsonl("l.jsonl", d)),
            names=("l.jsonl", "labels", said),
            error=DatasetError,
        )
    rows["a sample id a boolean, jsonl"] = Row(
        cli=lambda p: [
            "validate",
            p.matrix(),
            "-d",
            p.jsonl("d.jsonl", [{**SAMPLES[0], "id": True}]),
        ],
        names=("d.jsonl", "line 1", "field id", "boolean True"),
    )
    # the public models raise judgegrid's errors (each is a ValidationError too)
    constructors: dict[str, tuple[Callable[[], Any], type[InputError], tuple[str, ...]]] = {
        "Criterion with a gap in its scale": (
            lambda: Criterion(**RUBRIC_GAP),
            OptionError,
            ("Criterion: scale", "miss [2]"),
        ),
        "Criterion with a bad name": (
            lambda: Criterion(**{**POLITE, "name": "Polite reply"}),
            OptionError,
            ("Criterion: name", "lower-case"),
        ),
        "Criterion with a wrong type": (
            lambda: Criterion(**{**POLITE, "strictness": "3"}),
            OptionError,
            ("Criterion: strictness", "valid integer"),
        ),
        "Criterion with labels yes and no": (
            lambda: Criterion(**{**POLITE, "type": "labels", "labels": {True: 1, False: 0}}),
            OptionError,
            ("Criterion: labels", *QUOTE_IT),
        ),
        "Sample with a NaN label": (
            lambda: Sample(id="s1", user_input="Q?", labels={"faithfulness": float("nan")}),
            DatasetError,
            ("Sample: labels", "nan is no label"),
        ),
        "Matrix with repeats true": (
            lambda: Matrix(judges=[{"id": "openai/x"}], metrics=["faithfulness"], repeats=True),
            MatrixError,
            ("Matrix: repeats", *BOOL_NUMBER),
        ),
        "RunOptions with limit 0": (
            lambda: api.RunOptions(limit=0),
            OptionError,
            ("RunOptions: limit", "greater than"),
        ),
        "ResumeOptions with workers true": (
            lambda: api.ResumeOptions(workers=True),
            OptionError,
            ("ResumeOptions: workers",),
        ),
        "ResponseRelevancy with a boolean strictness": (
            lambda: ResponseRelevancy(strictness=True),
            OptionError,
            ("strictness", "boolean True"),
        ),
    }
    for name, (call, error, names) in constructors.items():
        rows[f"{name}, api"] = Row(api=lambda p, c=call: c(), names=names, error=error)
    rows["run_grid margin NaN, api"] = Row(
        api=lambda p: run_grid(p.matrix(), p.data(), margin=float("nan")),
        names=("margin", "got nan"),
        error=OptionError,
    )
    rows["label's SessionAsk margin 1.5, api"] = Row(
        api=lambda p: api.open_label_view(p.run_dir(), "ann", None, api.SessionAsk(margin=1.5)),
        names=("--margin", "got 1.5"),
        error=OptionError,
    )
    rows["run --margin nan"] = Row(
        cli=lambda p: ["run", p.matrix(), "-d", p.data(), "--margin", "nan"],
        names=("--margin",),
    )
    # one check for a matrix's api-base and a Spring file's base-url, in defaults too
    for command in ONE_DOOR_COMMANDS:
        rows[f"Spring base-url without a scheme, {command}"] = Row(
            cli=lambda p, c=command: [c, _spring(p, "localhost:8000"), "-d", p.data()],
            names=("application.yaml", "spring.ai.openai.base-url", "not an http(s) URL"),
        )
    rows["Spring base-url without a scheme, api"] = Row(
        api=lambda p: run_grid(_spring(p, "localhost:8000"), p.data()),
        names=("spring.ai.openai.base-url", "not an http(s) URL"),
        error=MatrixError,
    )
    # YAML's booleans in a Spring file, refused by init (which writes the matrix) as by validate
    spring_booleans = {
        "a boolean id": (
            "      chat:\n        options:\n          model: fake-a\n"
            "    chat-models:\n      list:\n        - id: yes\n",
            ("spring.ai.chat-models.list[0].id", *QUOTE_IT),
        ),
        "a boolean option key": (
            "      chat:\n        options:\n          model: fake-a\n          on: 0.2\n",
            ("line 9", "the key 'on'", *QUOTE_IT),
        ),
        "a boolean api-key": (
            "      chat:\n        options:\n          model: fake-a\n",
            ("spring.ai.openai.api-key", "the boolean False", *QUOTE_IT),
        ),
        "a boolean base-url": (
            "      chat:\n        options:\n          model: fake-a\n",
            ("spring.ai.openai.base-url", "the boolean True", *QUOTE_IT),
        ),
        "a boolean HTTP code": (
            "      chat:\n        options:\n          model: fake-a\n"
            "    retry:\n      on-http-codes: [429, on]\n",
            ("spring.ai.retry.on-http-codes[1]", *BOOL_NUMBER),
        ),
    }
    for case, (tail, said) in spring_booleans.items():
        text = (
            f"spring:\n  ai:\n    openai:\n      base-url: http://127.0.0.1:9/v1\n"
            f"      api-key: ${{{KEY_ENV}}}\n{tail}judgegrid:\n  metrics: [faithfulness]\n"
        )
        if case == "a boolean api-key":
            text = text.replace(f"${{{KEY_ENV}}}", "no")
        if case == "a boolean base-url":
            text = text.replace("http://127.0.0.1:9/v1", "on")
        rows[f"Spring {case}, validate"] = Row(
            cli=lambda p, t=text: ["validate", p.write("application.yaml", t)],
            names=("application.yaml", *said),
        )
        rows[f"Spring {case}, init --from"] = Row(
            cli=lambda p, t=text: [
                *("init", str(p.tmp / "judgegrid.yaml")),
                *("--from", p.write("application.yaml", t)),
            ],
            names=("application.yaml", *said),
        )
    defaults = {"judge": {"api_base": "localhost:8000", "api_key_env": KEY_ENV}}
    rows |= every_door(
        "api-base without a scheme in defaults",
        {"defaults": defaults, "embeddings": [], "metrics": ["faithfulness"]},
        ("defaults.judge.api_base", "not an http(s) URL"),
    )
    # an option that names one thing twice
    rows["pairs --judge given twice"] = Row(
        cli=lambda p: [
            *("pairs", p.matrix(), "--pairs", p.jsonl("p.jsonl", [PAIR])),
            *("--judge", "a", "--judge", "a"),
        ],
        names=("--judge", "'a' is given twice"),
    )
    rows["serve-local --judge given twice"] = Row(
        cli=lambda p: ["serve-local", "--judge", "smollm2-135m", "--judge", "local/smollm2-135m"],
        names=("--judge", "name one model"),
    )
    rows["promptfoo metric: on, init --from"] = Row(
        cli=lambda p: [
            *("init", str(p.tmp / "judgegrid.yaml")),
            *(
                "--from",
                p.write(
                    "promptfooconfig.yaml",
                    RUBRIC_AT_1 + "        value: Is it?\n        metric: on\n",
                ),
            ),
        ],
        names=("promptfooconfig.yaml", "tests[0].assert[1].metric", *QUOTE_IT),
    )
    return rows


ROWS.update(types_rows())


# init --from promptfoo: an assertion's threshold and the tests' vars, now read, refused by name
# with nothing written (neither the matrix nor the data set of the vars)

RUBRIC_WITH = (
    "tests:\n  - vars: {question: 'Q?', answer: A.}\n"
    "    assert:\n      - {type: contains, value: x}\n      - type: llm-rubric\n"
    "        value: Is it right\n"
)


def _promptfoo_init(p: Place, text: str) -> list[str]:
    config = p.write("promptfooconfig.yaml", text)
    return ["init", str(p.tmp / "judgegrid.yaml"), "--from", config]


def _vars_data_set_in_the_way(p: Place) -> list[str]:
    """A file of the user's where init would write the data set of the tests' vars."""
    p.write("judgegrid.dataset.jsonl", "mine\n")
    return _promptfoo_init(p, RUBRIC_WITH)


def promptfoo_threshold_rows() -> dict[str, Row]:
    cases = {
        "threshold not a number": (
            RUBRIC_WITH + "        threshold: high\n",
            ("tests[0].assert[1].threshold", "a number from 0 to 1", "'high'"),
        ),
        "threshold outside 0..1": (
            RUBRIC_WITH + "        threshold: 80\n",
            ("tests[0].assert[1].threshold", "80 is outside 0..1"),
        ),
        "threshold a boolean": (
            RUBRIC_WITH + "        threshold: yes\n",
            ("tests[0].assert[1].threshold", "write the number"),
        ),
        "g-eval threshold below 0": (
            "tests:\n  - assert: [{type: g-eval, value: Is fluent, threshold: -0.5}]\n",
            ("tests[0].assert[0].threshold", "outside 0..1"),
        ),
        "test's own threshold not a number": (
            RUBRIC_WITH + "    threshold: half\n",
            ("tests[0].threshold", "a number from 0 to 1"),
        ),
        "vars not a mapping": (
            RUBRIC_WITH.replace("{question: 'Q?', answer: A.}", "[question, answer]"),
            ("tests[0].vars", "expected a mapping"),
        ),
        "defaultTest vars not a mapping": (
            "defaultTest: {vars: file://vars.yaml}\n" + RUBRIC_WITH,
            ("defaultTest.vars", "expected a mapping"),
        ),
        "a var read as a boolean": (
            RUBRIC_WITH.replace("answer: A.", "answer: yes"),
            ("tests[0].vars.answer", *QUOTE_IT),
        ),
        "a var that is no text": (
            RUBRIC_WITH.replace("answer: A.", "answer: {text: A.}"),
            ("tests[0].vars.answer", "expected text"),
        ),
    }
    rows = {
        f"promptfoo {name}, init --from": Row(
            cli=lambda p, t=text: _promptfoo_init(p, t),
            names=("promptfooconfig.yaml", *names),
            error=MatrixError,
        )
        for name, (text, names) in cases.items()
    }
    rows["promptfoo vars' data set in the way, init --from"] = Row(
        cli=_vars_data_set_in_the_way,
        names=("judgegrid.dataset.jsonl", "already exists", "--overwrite"),
    )
    return rows


ROWS.update(promptfoo_threshold_rows())


# `judgegrid import` (issue 41): each bad file of a recorded format refused by file, line and
# field, through the CLI and the Python API, before the run directory is made

VERDICT = {"sample_id": "s1", "judge": "gpt", "metric": "faithfulness", "score": 0.5}
JB_PAIR = {
    **{"pair_id": "p1", "source": "livebench-math", "question": "1+1?"},
    **{"response_A": "2", "response_B": "3", "label": "A>B", "judge_name": "arena_hard"},
    "judgments": [
        {"judgment": {"judge_model": "m"}, "decision": "A>B"},
        {"judgment": {"judge_model": "m"}, "decision": "B>A"},
    ],
}
PROMPTFOO_RESULTS = {
    "evalId": "eval-1",
    "results": {
        "version": 3,
        "results": [
            {
                **{"testIdx": 0, "promptIdx": 0, "provider": {"id": "echo", "label": "echo"}},
                "prompt": {"raw": "Q?"},
                "response": {"output": "A."},
                "gradingResult": {
                    "pass": True,
                    "score": 1,
                    "componentResults": [
                        {
                            **{"pass": True, "score": 1, "reason": "ok"},
                            "assertion": {"type": "llm-rubric", "value": "Is it right?"},
                        }
                    ],
                },
            }
        ],
    },
}


RAGAS_HEADER = "user_input,retrieved_contexts,response,faithfulness\n"
DEEPEVAL_RUN = {
    "testCases": [
        {
            **{"name": "test_case_0", "input": "Q?", "actualOutput": "A."},
            "metricsData": [
                {"name": "Bias", "score": 0.0, "success": True, "evaluationModel": "gpt-4.1"}
            ],
        }
    ]
}


def _ragas_parquet() -> bytes:
    """Ragas' result table as ``to_parquet`` writes it (a list of contexts in a cell)."""
    frame = pd.DataFrame(
        {"user_input": ["Q?"], "retrieved_contexts": [["c"]], "response": ["A."]}
        | {"faithfulness": [1.0]}
    )
    return frame.to_parquet()


def _without_success(document: dict[str, Any]) -> dict[str, Any]:
    spoiled = json.loads(json.dumps(document))
    del spoiled["testCases"][0]["metricsData"][0]["success"]
    return spoiled


def _without_pass(document: dict[str, Any]) -> dict[str, Any]:
    spoiled = json.loads(json.dumps(document))
    del spoiled["results"]["results"][0]["gradingResult"]["componentResults"][0]["pass"]
    return spoiled


BAD_RECORDED: dict[str, tuple[Callable[[Place], list[str]], tuple[str, ...]]] = {
    "malformed": (
        lambda p: [p.write("v.jsonl", json.dumps(VERDICT) + "\n{not json\n")],
        ("v.jsonl", "line 2", "not valid JSON"),
    ),
    "one sample id with two texts": (
        lambda p: [
            p.jsonl(
                "v.jsonl",
                [
                    {**VERDICT, "user_input": "Who?"},
                    {**VERDICT, "judge": "b", "user_input": "Why?"},
                ],
            )
        ],
        ("v.jsonl line 2: user_input", "sample 's1' has another user_input than at"),
    ),
    "a JudgeBench pair with two questions in two files": (
        lambda p: [
            p.jsonl("a.jsonl", [JB_PAIR]),
            p.jsonl("b.jsonl", [{**JB_PAIR, "question": "2+2?", "judge_name": "other"}]),
        ],
        ("b.jsonl line 1", "sample 'p1' has another user_input than at", "a.jsonl line 1"),
    ),
    "the same judge, sample and repeat twice": (
        lambda p: [p.jsonl("v.jsonl", [VERDICT, {**VERDICT, "score": 0.7}])],
        ("v.jsonl line 2", "judge 'gpt' on sample 's1'", "given twice", "v.jsonl line 1"),
    ),
    "a score outside the metric's range": (
        lambda p: [p.jsonl("v.jsonl", [{**VERDICT, "score": 1.5}])],
        ("v.jsonl line 1: score", "1.5 is outside faithfulness's range"),
    ),
    "a label of an unknown sample": (
        lambda p: [
            p.jsonl(
                "v.jsonl",
                [VERDICT, {**VERDICT, "sample_id": "s9", "judge": "ann", "source": "people"}],
            )
        ],
        ("v.jsonl line 2", "a label of sample 's9'"),
    ),
    "a long table read as JudgeBench": (
        lambda p: [p.jsonl("v.jsonl", [VERDICT]), "--format", "judgebench"],
        ("v.jsonl", "looks like a long file, not judgebench", "--format long"),
    ),
    "JudgeBench read as a long table": (
        lambda p: [p.jsonl("jb.jsonl", [JB_PAIR]), "--format", "long"],
        ("jb.jsonl", "looks like a judgebench file, not long", "--format judgebench"),
    ),
    "an empty file": (lambda p: [p.write("v.jsonl", b"")], ("v.jsonl", "empty")),
    "pairs and truth without a judge's verdict": (
        lambda p: [p.jsonl("jb.jsonl", [{k: v for k, v in JB_PAIR.items() if k != "judgments"}])],
        ("jb.jsonl", "no judge's verdict in the files"),
    ),
    "a long table read as an Inspect log": (
        lambda p: [p.write("v.json", json.dumps(VERDICT) + "\n"), "--format", "inspect"],
        ("v.json", "looks like a long file, not inspect", "--format long"),
    ),
    "an Inspect .eval log cut short": (
        lambda p: [_cut_eval_log(p, "log.eval")],
        ("log.eval", "not a readable Inspect log", "is the file cut short"),
    ),
    "promptfoo's results cut short": (
        lambda p: [p.write("results.json", json.dumps(PROMPTFOO_RESULTS, indent=2)[:150])],
        ("results.json", "not valid JSON", "is the file cut short"),
    ),
    "a promptfoo grading without its pass": (
        lambda p: [p.write("results.json", json.dumps(_without_pass(PROMPTFOO_RESULTS)))],
        ("results.results[0].gradingResult.componentResults[0]", "pass: expected true or false"),
    ),
    "Ragas' results cut short (a Parquet file)": (
        lambda p: [p.write("ragas.parquet", _ragas_parquet()[:300]), "--format", "ragas"],
        ("ragas.parquet", "not a readable Parquet file"),
    ),
    "a Ragas score that is no number": (
        lambda p: [p.write("ragas.csv", RAGAS_HEADER + "Q?,['c'],A.,high\n")],
        ("ragas.csv", "row 2: faithfulness", "not a number"),
    ),
    "a DeepEval test run cut short": (
        lambda p: [p.write("test_run.json", json.dumps(DEEPEVAL_RUN, indent=2)[:120])],
        ("test_run.json", "not valid JSON", "is the file cut short"),
    ),
    "a DeepEval metric result without its success": (
        lambda p: [p.write("test_run.json", json.dumps(_without_success(DEEPEVAL_RUN)))],
        ("test_run.json", "testCases[0].metricsData[0]", "success: expected true or false"),
    ),
    "Ragas' results read as DeepEval's": (
        lambda p: [p.write("ragas.csv", RAGAS_HEADER + "Q?,['c'],A.,1\n"), "--format", "deepeval"],
        ("ragas.csv", "looks like a ragas file, not deepeval", "--format ragas"),
    ),
    "DeepEval's test run read as Ragas'": (
        lambda p: [p.write("test_run.json", json.dumps(DEEPEVAL_RUN)), "--format", "ragas"],
        ("test_run.json", "looks like a deepeval file, not ragas", "--format deepeval"),
    ),
    "an empty Ragas results file": (
        lambda p: [p.write("ragas.csv", b""), "--format", "ragas"],
        ("ragas.csv", "empty"),
    ),
    "an empty DeepEval test run": (
        lambda p: [p.write("test_run.json", b""), "--format", "deepeval"],
        ("test_run.json", "empty"),
    ),
    "a list column's cell that is not a list": (
        lambda p: [p.jsonl("v.jsonl", [{**VERDICT, "retrieved_contexts": "Ann wrote it."}])],
        ("v.jsonl line 1: retrieved_contexts", "not a list", "JSON list"),
    ),
    "a line longer than the cap (a sparse file of 65 MiB)": (
        lambda p: [_sparse_line(p, "big.jsonl", 65 * 2**20)],
        ("big.jsonl", "line 1", "longer than 67,108,864 bytes"),
    ),
}


def _sparse_line(p: Place, name: str, size: int) -> str:
    """A file of one line of ``size`` bytes that takes no room on disk (a sparse file)."""
    path = p.tmp / name
    p.made.append(path)
    with path.open("wb") as file:
        file.truncate(size)
    return str(path)


def _cut_eval_log(p: Place, name: str) -> str:
    """A zip as Inspect's .eval log starts (its journal's first entry), cut before the zip's
    end, as a log still being written or copied short is."""
    whole = io.BytesIO()
    with zipfile.ZipFile(whole, "w") as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
        archive.writestr("samples/s1_epoch_1.json", json.dumps({"id": "s1", "epoch": 1}))
    return p.write(name, whole.getvalue()[:120])


def _import_api(p: Place, argv: list[str]) -> Any:
    files = [a for a in argv if a not in ("--format", *FORMATS)]
    fmt = argv[argv.index("--format") + 1] if "--format" in argv else "auto"
    return api.import_verdicts(files, p.tmp / "imported", format=fmt)


def import_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for name, (argv, names) in BAD_RECORDED.items():
        rows[f"import {name}"] = Row(
            cli=lambda p, a=argv: ["import", *a(p), "--out", str(p.tmp / "imported")],
            names=names,
        )
        rows[f"import {name}, api"] = Row(
            api=lambda p, a=argv: _import_api(p, a(p)), names=names, error=DatasetError
        )
    return rows


ROWS.update(import_rows())


# `run --resume RUN --add-judges FILE` on an imported run (issue 41): refused before any call,
# naming the judge's place in the file or the samples and fields the import lacks

TEXTS = {"user_input": "Who wrote it?", "response": "Ann.", "retrieved_contexts": ["Ann did."]}


def _imported(p: Place, verdict: dict[str, Any]) -> str:
    """An import of one verdict (the run directory counted as the row's own input)."""
    run = p.tmp / "imported"
    p.made.append(run)
    api.import_verdicts([p.jsonl("v.jsonl", [verdict])], run)
    return str(run)


def _added(p: Place, label: str) -> str:
    judges = {"judges": [{"id": "openai/fake-a", "label": label}]}
    return p.write("j.yaml", yaml.safe_dump(judges))


BAD_ADDED: dict[str, tuple[dict[str, Any], str, tuple[str, ...], type[InputError]]] = {
    "a judge added under an imported judge's name": (
        {**VERDICT, **TEXTS},
        "gpt",
        ("j.yaml", "judges[0].label", "'gpt' is an imported judge's name"),
        MatrixError,
    ),
    "a judge added where the import lacks the texts its metric reads": (
        {**VERDICT, "user_input": "Who wrote it?"},
        "new",
        ("metric faithfulness", "'s1' (response, retrieved_contexts)"),
        DatasetError,
    ),
}


def added_judge_rows() -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for name, (verdict, label, names, error) in BAD_ADDED.items():
        rows[f"run --resume --add-judges: {name}"] = Row(
            cli=lambda p, v=verdict, j=label: [
                *("run", "--resume", _imported(p, v), "--add-judges", _added(p, j))
            ],
            names=names,
        )
        rows[f"run --resume --add-judges: {name}, api"] = Row(
            api=lambda p, v=verdict, j=label: resume_run(_imported(p, v), add_judges=_added(p, j)),
            names=names,
            error=error,
        )
    return rows


ROWS.update(added_judge_rows())


DEEPEVAL_CONTEXT_ONLY = {"input": "Q?", "actual_output": "A.", "context": ["Ann wrote it."]}
MIXED_SCHEMES = [
    {"user_input": "Q?", "response": "A."},
    {"input": "Q2?", "actual_output": "A2."},
]


def _dataset_dict(p: Place) -> str:
    """A folder as Hugging Face's DatasetDict.save_to_disk leaves it: one folder per split."""
    folder = p.tmp / "dd"
    folder.mkdir()
    p.made.append(folder)
    (folder / "dataset_dict.json").write_text('{"splits": ["train", "test"]}')
    return str(folder)


def _spoil_db(p: Place) -> str:
    run_dir = Path(p.run_dir())
    (run_dir / "run.sqlite").write_bytes(b"not a database" * 200)
    for stale in run_dir.glob("run.sqlite-*"):
        stale.unlink()
    return str(run_dir)


def _spoil_matrix(p: Place) -> str:
    run_dir = Path(p.run_dir())
    path = run_dir / RESOLVED_MATRIX
    path.write_text(path.read_text().replace("repeats: 1", "repeats: -4"))
    return str(run_dir)


def _folder(p: Place) -> str:
    """An existing directory named like a file."""
    folder = p.tmp / "out.csv"
    folder.mkdir()
    p.made.append(folder)
    return str(folder)


def _label_file(p: Place) -> str:
    return p.write("l.csv", LABEL_HEADER + "s1,faithfulness,ann,1\n")


BUSY: list[socket.socket] = []  # listening sockets held until the module's end


def _busy_port() -> str:
    """A port on 127.0.0.1 another program is listening on."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    BUSY.append(held)
    return str(held.getsockname()[1])


@pytest.fixture(scope="module")
def server():
    srv = start_fault_server()
    yield srv
    srv.stop()


def test_the_table_is_long_enough():
    assert len(ROWS) >= 40
    assert sum(r.cli is not None for r in ROWS.values()) >= 30
    assert sum(r.api is not None for r in ROWS.values()) >= 15


def listing(*roots: Path) -> set[Path]:
    """Every file and directory under the roots (and the roots), to compare before and after."""
    return {path for root in roots if root.exists() for path in (root, *root.rglob("*"))}


def new_paths(before: set[Path], after: set[Path], made: list[Path]) -> list[Path]:
    """What appeared, less the row's own inputs (written by an API row's call itself)."""
    return sorted(
        path for path in after - before if not any(path == m or m in path.parents for m in made)
    )


@pytest.mark.parametrize("name", list(ROWS))
def test_bad_input_is_named_and_calls_nothing(
    name, tmp_path, server: FaultServer, monkeypatch, cache_dir
):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)  # a row that wrongly starts a run writes its reports/ here
    place = Place(tmp_path, server)
    row = ROWS[name]
    if row.cli is not None:
        argv = row.cli(place)
        place.made.clear()  # written before the listing: anything new is the command's
        before = listing(tmp_path, cache_dir)
        server.reset_counts()
        result = runner.invoke(
            app, [*argv, *(["--no-progress"] if argv[0] in ("run", "pairs") else [])]
        )
        message = result.output
        assert result.exit_code == EXIT_BAD_INPUT, (result.exit_code, message, result.exception)
    else:
        assert row.api is not None
        before = listing(tmp_path, cache_dir)
        server.reset_counts()
        with pytest.raises(row.error) as raised:
            row.api(place)
        message = str(raised.value)
    assert "Traceback" not in message
    if row.one_line:
        assert len(message.strip().splitlines()) == 1, message
    for word in row.names:
        expected = str(place.tmp) if word is str else word
        assert expected in message, (expected, message)
    assert KEY not in message and KEY[8:24] not in message
    assert server.requests == 0, f"{server.requests} requests reached the model server"
    assert not (tmp_path / "reports").exists(), "a run directory was made for bad input"
    made = new_paths(before, listing(tmp_path, cache_dir), place.made)
    assert not made, f"left behind by a refusal: {made}"


WALKED = [name for name, row in ROWS.items() if row.family in EMPTY_FAMILIES and row.cli]


def test_the_families_cover_every_reader_and_command():
    """The empty-input family reaches every command that reads a file, and each execution and
    batch option is bad in more than one way, on new and resumed runs."""
    families = {row.family for row in ROWS.values()}
    assert set(EMPTY_FAMILIES) | {EXECUTION, BATCH} <= families
    walked = " | ".join(WALKED)
    commands = [*DATA_COMMANDS, *MATRIX_COMMANDS, *RUN_COMMANDS]
    expected = {"run", "validate", "plan", "pairs", "report", "export", "label", "view"}
    assert expected <= set(commands)
    for command in commands:
        assert f", {command} |" in walked + " |", command
    for reader in (
        "matrix",
        ".jsonl",
        ".json",
        ".csv",
        ".parquet",
        ".arrow",
        "pairs file",
        "label file",
        "column map",
        RESOLVED_MATRIX,
        "run.sqlite",
    ):
        assert reader in walked, reader
    options = " | ".join(n for n, r in ROWS.items() if r.family in (EXECUTION, BATCH))
    for option in ("workers", "backend", "address", "execution", "batch", "resume"):
        assert sum(option in n for n in options.split(" | ")) >= 2, option


@pytest.mark.parametrize("name", WALKED)
def test_no_empty_input_is_an_unexpected_error(
    name, tmp_path, server: FaultServer, monkeypatch, capsys, cache_dir
):
    """The console script (``main``: an exception judgegrid did not expect is reported as a crash,
    logged under the cache's crash-logs/) meets each empty input with a refusal of its own."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    place = Place(tmp_path, server)
    argv = ROWS[name].cli(place)  # type: ignore[misc]
    capsys.readouterr()
    extra = ["--no-progress"] if argv[0] in ("run", "pairs") else []
    monkeypatch.setattr(sys, "argv", ["judgegrid", *argv, *extra])
    with pytest.raises(SystemExit) as exited:
        main()
    out = capsys.readouterr()
    text = out.out + out.err
    assert "unexpected error" not in text, text
    assert "Traceback" not in text
    assert exited.value.code == EXIT_BAD_INPUT, text
    assert not (cache_dir / "crash-logs").exists()


@pytest.mark.parametrize("content", [b"\n\n", b"not sqlite at all" * 10])
@pytest.mark.parametrize("command", [["cache", "stats"], ["cache", "clear"]])
def test_a_cache_file_that_is_not_one_is_named(content, command, monkeypatch, capsys, cache_dir):
    """The cache commands read the cache file itself: one that is not SQLite is named."""
    (cache_dir / "cache.sqlite").write_bytes(content)
    monkeypatch.setattr(sys, "argv", ["judgegrid", *command])
    with pytest.raises(SystemExit) as exited:
        main()
    text = "".join(capsys.readouterr())
    assert exited.value.code == EXIT_BAD_INPUT, text
    assert "cache.sqlite" in text and "not a judgegrid cache" in text
    assert "unexpected error" not in text
    assert not (cache_dir / "crash-logs").exists()


def test_a_refused_resume_keeps_the_failed_cells(tmp_path, server: FaultServer, monkeypatch):
    """--retry-failed drops the failed cells only when the run goes on: a resume refused on an
    option leaves them in the run's database (and no file beside it)."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    run_dir = Path(Place(tmp_path, server).run_dir())
    db = sqlite3.connect(run_dir / "run.sqlite")
    with db:
        db.execute("UPDATE scores SET status = 'failed', score = NULL")
    db.close()
    failed = len(load_run(run_dir)[0].query("status == 'failed'"))
    assert failed > 0
    for flags in (["--backend", "gpu"], ["--address", "auto"], ["--workers", "0"]):
        args = ["run", "--resume", str(run_dir), "--retry-failed", "--no-progress", *flags]
        result = runner.invoke(app, args)
        assert result.exit_code == EXIT_BAD_INPUT, result.output
        assert len(load_run(run_dir)[0].query("status == 'failed'")) == failed, flags
    assert sorted(p.name for p in run_dir.iterdir() if p.name.startswith("run.sqlite")) == [
        "run.sqlite"
    ]


# --- one door: refusals come before the plan --------------------------------------------------


def _before_the_plan_cases() -> dict[str, Callable[[Place], list[str]]]:
    cases: dict[str, Callable[[Place], list[str]]] = {
        f"{command} {name}": lambda p, c=command, o=overrides: [c, p.matrix(**o), "-d", p.data()]
        for name, (overrides, _) in ONE_DOOR_MATRICES.items()
        for command in ("plan", "run")
    }
    cases["run --backend dask"] = lambda p: ["run", p.matrix(), "-d", p.data(), "--backend", "dask"]
    cases["run --workers 2 in batch mode"] = lambda p: [
        "run",
        p.matrix(**BATCHED),
        "-d",
        p.data(),
        "--workers",
        "2",
    ]
    return cases


BEFORE_THE_PLAN = _before_the_plan_cases()


@pytest.mark.parametrize("name", list(BEFORE_THE_PLAN))
def test_a_refusal_prints_nothing_else(name, tmp_path, server: FaultServer, monkeypatch):
    """plan and run refuse before they print the plan: the refusal is all there is."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    argv = BEFORE_THE_PLAN[name](Place(tmp_path, server))
    result = runner.invoke(app, [*argv, *(["--no-progress"] if argv[0] == "run" else [])])
    assert result.exit_code == EXIT_BAD_INPUT, result.output
    assert "prompt tok" not in result.output and "cells:" not in result.output, result.output
    assert not (tmp_path / "reports").exists()


def test_validate_plan_and_run_agree_on_a_good_matrix(tmp_path, server, monkeypatch, cache_dir):
    """The other side of one door: what validate passes, plan plans and run runs."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    place = Place(tmp_path, server)
    matrix, data = place.matrix(), place.data()
    for argv in (["validate", matrix, "-d", data], ["plan", matrix, "-d", data]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)
    result = runner.invoke(app, ["run", matrix, "-d", data, "--limit", "1", "--no-progress"])
    assert result.exit_code in (0, 3), result.output  # scored (the fault server may fail some)
    assert (tmp_path / "reports").exists()


def test_validate_plan_and_run_agree_on_a_duration_in_hours(
    tmp_path, server, monkeypatch, cache_dir
):
    """``1h`` reads as 3,600 seconds through every door that reads a matrix."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    place = Place(tmp_path, server)
    retry = {"initial_interval": "1ms", "max_interval": "1h", "max_attempts": 2}
    matrix, data = place.matrix(retry=retry), place.data()
    assert load_matrix(matrix).retry.max_interval == 3600.0
    for argv in (["validate", matrix, "-d", data], ["plan", matrix, "-d", data]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)
    result = runner.invoke(app, ["run", matrix, "-d", data, "--limit", "1", "--no-progress"])
    assert result.exit_code in (0, 3), result.output


def test_probes_left_out_are_said(tmp_path, server, monkeypatch, cache_dir):
    """``--probes --limit 1``: the probes that take from another sample cannot be made from one
    sample, and the plan says so and why instead of leaving them out silently."""
    monkeypatch.setenv(KEY_ENV, KEY)
    place = Place(tmp_path, server)
    argv = ["plan", place.matrix(), "-d", place.data(), "--probes", "--limit", "1"]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if "probes not made for" in line]
    assert notes, result.output
    assert "foreign_contexts: takes its retrieved_contexts from another sample" in notes[0]
    assert "the data set has 1 sample" in notes[0]


# -- files and servers (issue 31 items 4, 6, 9): the outcomes that are not refusals -------------


@pytest.mark.parametrize(
    "command",
    [["export"], ["labels", "export"]],
    ids=["export", "labels export"],
)
def test_an_output_into_a_missing_folder_makes_the_folder(
    command, tmp_path, server: FaultServer, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)
    run_dir = Place(tmp_path, server).run_dir()
    out = tmp_path / "new" / "deeper" / "table.parquet"
    result = runner.invoke(app, [*command, run_dir, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "sample_id" in pq.read_table(out).column_names and str(out) in result.output
