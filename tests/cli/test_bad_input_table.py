"""A table of bad inputs, through the CLI and the Python API, against a live fault server.

Every row must end in judgegrid's own exception (API) or exit code 2 (CLI), with a message that
names the culprit (file, line, field, sample or option), no traceback on the terminal, and not
one request reaching the model server: bad input is refused before anything is spent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from judgegrid import (
    ContextRecall,
    Faithfulness,
    ResponseRelevancy,
    load_run,
    rebuild_report,
    resume_run,
    run_grid,
    run_pairs,
    score_sample,
)
from judgegrid.cli import EXIT_BAD_INPUT, app
from judgegrid.core.errors import DatasetError, InputError, MatrixError, OptionError, RunDirError
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.matrix import load_matrix
from judgegrid.metrics import resolve_metric_name
from judgegrid.store.run_dir import RESOLVED_MATRIX
from judgegrid.testing.fault_server import FaultServer, start_fault_server

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
    """The temporary directory of one row and the server its matrices point at."""

    tmp: Path
    server: FaultServer

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
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return str(path)

    def jsonl(self, name: str, records: list[Any]) -> str:
        return self.write(name, "".join(json.dumps(r) + "\n" for r in records))

    def data(self) -> str:
        return self.jsonl("data.jsonl", SAMPLES)

    def run_dir(self) -> str:
        """A finished one-sample run (the server's request count is reset after it)."""
        run = run_grid(self.matrix(), self.data(), run_dir=self.tmp / "run", limit=1)
        self.server.reset_counts()
        return str(run.run_dir)


@dataclass
class Row:
    """One bad input: CLI arguments or an API call, and the words that must name the culprit."""

    cli: Callable[[Place], list[str]] | None = None
    api: Callable[[Place], Any] | None = None
    names: tuple[str, ...] = ()
    error: type[InputError] = InputError
    one_line: bool = False  # the whole message is one line


def matrix_text(text: str) -> Callable[[Place], list[str]]:
    return lambda p: ["validate", p.write("m.yaml", text)]


ROWS: dict[str, Row] = {
    # --- the matrix, through the CLI -------------------------------------------------------
    "matrix missing": Row(cli=lambda p: ["run", str(p.tmp / "nope.yaml")], names=("nope.yaml",)),
    "matrix is a directory": Row(cli=lambda p: ["validate", str(p.tmp)], names=(str,)),
    "matrix empty": Row(cli=matrix_text(""), names=("m.yaml", "expected a mapping")),
    "matrix not yaml": Row(cli=matrix_text("judges: [a, b\nmetrics: x\n"), names=("line",)),
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
        names=("--format", "excel", "ragas or wide"),
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
        names=("--columns", "qestion=user_input", "not a sample field"),
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
        error=DatasetError,
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
}


DEEPEVAL_CONTEXT_ONLY = {"input": "Q?", "actual_output": "A.", "context": ["Ann wrote it."]}
MIXED_SCHEMES = [
    {"user_input": "Q?", "response": "A."},
    {"input": "Q2?", "actual_output": "A2."},
]


def _dataset_dict(p: Place) -> str:
    """A folder as Hugging Face's DatasetDict.save_to_disk leaves it: one folder per split."""
    folder = p.tmp / "dd"
    folder.mkdir()
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


@pytest.fixture(scope="module")
def server():
    srv = start_fault_server()
    yield srv
    srv.stop()


def test_the_table_is_long_enough():
    assert len(ROWS) >= 40
    assert sum(r.cli is not None for r in ROWS.values()) >= 30
    assert sum(r.api is not None for r in ROWS.values()) >= 15


@pytest.mark.parametrize("name", list(ROWS))
def test_bad_input_is_named_and_calls_nothing(name, tmp_path, server: FaultServer, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.chdir(tmp_path)  # a row that wrongly starts a run writes its reports/ here
    place = Place(tmp_path, server)
    row = ROWS[name]
    if row.cli is not None:
        argv = row.cli(place)
        server.reset_counts()
        result = runner.invoke(
            app, [*argv, *(["--no-progress"] if argv[0] in ("run", "pairs") else [])]
        )
        message = result.output
        assert result.exit_code == EXIT_BAD_INPUT, (result.exit_code, message, result.exception)
    else:
        assert row.api is not None
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
