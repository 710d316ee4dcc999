"""Generated bad inputs through the console script (``fuzz_targets``: the inputs and the
properties). A bounded, derandomized number of examples: the same inputs on every run of the
suite; ``benches/fuzz.py`` is the long campaign."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from judgegrid.testing.strategies import Mutation
from support.fuzz_targets import (
    CliExample,
    check_cli,
    ci_settings,
    cli_examples,
    closed,
    open_class,
    valid_cli_examples,
)


@ci_settings(max_examples=10)
@given(cli_examples())
def test_the_cli_refuses_bad_input_cleanly_and_its_commands_agree(example: CliExample):
    """Exit 0 or 2 (3: failed cells), no crash, nothing left on a refusal, no key shown or
    written, and what ``run`` refuses ``validate`` and ``plan`` refuse too."""
    failures = closed(check_cli(example))  # the classes still open: their own tests below
    assert not failures, "\n".join(map(str, failures))


@ci_settings(max_examples=3)
@given(valid_cli_examples())
def test_the_valid_inputs_run(example: CliExample):
    """The unmutated inputs must pass every property too (else the failures above could be the
    generator's, not the tool's)."""
    assert check_cli(example) == []


# -- issue 39: mutations that must be refused, each a class of its own ----------------------------

VALID_MATRIX = {
    "name": "fuzz",
    "judges": [{"id": "scripted/judge-a", "label": "a"}],
    "embeddings": [{"id": "scripted/bow", "label": "bow", "dimensions": [16]}],
    "metrics": ["faithfulness", "response_relevancy"],
    "limit": 1,
    "repeats": 1,
    "retry": {"initial_interval": "1ms", "max_interval": "2ms"},
}
RECORD = {
    "id": "s0",
    "user_input": "Who wrote it?",
    "response": "Ann.",
    "retrieved_contexts": ["Ann wrote it."],
    "reference": "Ann.",
}


def _example(path: tuple, value, kind: str, due: str, data: bool = False) -> CliExample:
    """The valid matrix and record with ``value`` at ``path`` (in the record: ``data``)."""
    matrix = json.loads(json.dumps(VALID_MATRIX))
    records = [dict(RECORD)]
    tree = records if data else matrix
    for part in path[:-1]:
        tree = tree[part]
    tree[path[-1]] = value
    return CliExample(matrix, records, "jsonl", Mutation(kind, path, value, due), None, data)


MUST_REFUSE = [
    ("repeats: true", _example(("repeats",), True, "boolean for a number",
                               "a boolean where a number is due"),
     "accepted: a boolean where a number is due"),
    ("dimensions: [true]", _example(("embeddings", 0, "dimensions", 0), True,
                                    "boolean for a number", "a boolean where a number is due"),
     "accepted: a boolean where a number is due"),
    ("dimensions: [16, 16]", _example(("embeddings", 0, "dimensions"), [16, 16],
                                      "duplicate member", ""), "IntegrityError"),
    ("a label's score NaN", _example((0, "labels"), {"faithfulness": float("nan")},
                                     "non-finite number", "NaN or infinity where a number is due",
                                     data=True), "NaN or infinity"),
    ("an empty sample id", _example((0, "id"), "", "odd name",
                                    "an empty or multi-line sample id", data=True),
     "accepted: an empty or multi-line sample id"),
    ("a sample id with a newline", _example((0, "id"), "s\n0", "odd name",
                                            "an empty or multi-line sample id", data=True),
     "accepted: an empty or multi-line sample id"),
    ("a label that names no metric", _example((0, "labels"), {"faithfulnesss": 1.0},
                                              "misspelt key", "a key that names nothing",
                                              data=True), "accepted: a key that names nothing"),
]  # fmt: skip


@pytest.mark.parametrize(
    "example",
    [pytest.param(e, marks=open_class(c), id=name) for name, e, c in MUST_REFUSE],
)
def test_what_must_be_refused_is_refused_by_every_command(example: CliExample):
    failures = check_cli(example)
    assert not failures, "\n".join(map(str, failures))
