"""`judgegrid init`: a first, commented matrix for one's own models and data.

The judges and embedding models come from the providers whose keys the environment has (one
table, ``PROVIDERS``), else from the embedded local models (their one registry,
``calls/providers/local_models.py``), so that what is written validates and plans at once. A
data set given is read as a run would read it, and the mapping detected is written as
``columns:``; with none, a small template of samples is written beside the matrix. A Spring AI
``application.yaml`` given with ``--from`` is translated as the loader reads it
(``inputs/spring.py``); a promptfoo ``promptfooconfig.yaml`` gives its model-graded assertions
as criteria, judged by the models the keys allow, and its tests' vars as the data set beside the
matrix when they hold what the criteria read (``inputs/promptfoo.py``); what of it has no place
in the matrix (a threshold, a var) is said in the matrix's comments and in ``Starter.notices``.
Each block is dumped by the YAML library (so every value is quoted as it must be) under a
comment that says what it is for. An existing file is replaced only when asked
(``overwrite``), never an input, the promptfoo config's test files included
(``store.output_file``).
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from judgegrid.calls.providers.local_models import EMBEDDERS, JUDGES
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.errors import InputError, MatrixError, Problem
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.matrix import inspect_matrix_data, read_matrix_text
from judgegrid.inputs.promptfoo import Notice, PromptfooConfig, read_promptfoo
from judgegrid.inputs.spring import is_spring, spring_matrix_data
from judgegrid.inputs.textfile import yaml_problem
from judgegrid.inputs.yaml_text import load_yaml
from judgegrid.store.output_file import check_output_file, make_folder

DEFAULT_NAME = "judgegrid.yaml"
TEMPLATE_SUFFIX = ".dataset.jsonl"


@dataclass(frozen=True)
class Provider:
    """A hosted provider: the variable its key is read from, and a small judge and embedding
    model of it (litellm ids, checked against litellm's model map in the tests)."""

    name: str
    key_env: str
    judge: str
    embedding: str | None = None


PROVIDERS = (
    Provider("openai", "OPENAI_API_KEY", "openai/gpt-4o-mini", "openai/text-embedding-3-small"),
    Provider("anthropic", "ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    Provider("gemini", "GEMINI_API_KEY", "gemini/gemini-2.5-flash", "gemini/gemini-embedding-001"),
    Provider("mistral", "MISTRAL_API_KEY", "mistral/mistral-small-latest", "mistral/mistral-embed"),
    Provider("deepseek", "DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    Provider("openrouter", "OPENROUTER_API_KEY", "openrouter/openai/gpt-4o-mini"),
)
# Two samples in Ragas' names that every metric can score: a template to copy and extend.
TEMPLATE_SAMPLES = (
    {
        "id": "canal",
        "user_input": "Who completed the Panama Canal, and when did it open?",
        "response": "The United States completed the Panama Canal, which opened on 15 August 1914.",
        "retrieved_contexts": [
            "The Panama Canal opened to shipping on 15 August 1914. The United States built it "
            "after an earlier French attempt failed in the 1880s.",
            "The canal is about 82 kilometres long and connects the Atlantic with the Pacific.",
        ],
        "reference": "The United States completed it; it opened on 15 August 1914.",
    },
    {
        "id": "everest",
        "user_input": "How high is Mount Everest?",
        "response": "Mount Everest is 8,849 metres high, the highest mountain above sea level.",
        "retrieved_contexts": [
            "A 2020 survey by China and Nepal measured Mount Everest at 8,848.86 metres.",
            "Everest lies in the Mahalangur Himal, on the border of Nepal and China.",
        ],
        "reference": "About 8,849 metres (8,848.86 m, measured in 2020).",
    },
)


@dataclass
class Starter:
    """What ``init`` wrote: the matrix, the template (if any), what was chosen from where, the
    data set of a promptfoo config's vars (if any, with its number of samples) and what of the
    config is not carried (``warning: …`` and ``note: …`` lines naming the file and place)."""

    matrix: Path
    template: Path | None = None
    chosen: list[str] = field(default_factory=list)
    samples: Path | None = None
    sample_count: int = 0
    notices: list[str] = field(default_factory=list)


def init_matrix(
    path: str | os.PathLike[str] = DEFAULT_NAME,
    *,
    dataset: str | os.PathLike[str] | None = None,
    spring: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    overwrite: bool = False,
) -> Starter:
    """Write a commented starter matrix at ``path`` (and a data set beside it when no
    ``dataset`` is given: a promptfoo config's vars, else a template), its folder made if
    missing; OptionError, with nothing written, if a file is in the way (replaced only with
    ``overwrite``, and never the ``dataset`` or the ``spring`` file it reads, nor a test file
    of it, nor a file in a run directory)."""
    target = Path(path)
    env = os.environ if environ is None else environ
    source = _source_kind(spring) if spring is not None else None
    promptfoo = (
        read_promptfoo(Path(spring)) if source == "promptfoo" and spring is not None else None
    )
    template, samples = _data_files(target, dataset, source, promptfoo)
    inputs = [Path(given) for given in (dataset, spring) if given is not None]
    inputs += list(promptfoo.files) if promptfoo else []
    for written in [p for p in (target, template, samples) if p is not None]:
        check_output_file(written, None, overwrite=overwrite, inputs=inputs)
    if source == "spring" and spring is not None:
        blocks, chosen = _spring_blocks(spring)
    elif promptfoo is not None:
        blocks, chosen = _promptfoo_blocks(promptfoo, env)
    else:
        blocks, chosen = _model_blocks(env)
    if samples is not None and promptfoo is not None:
        data_blocks, data_note = _vars_blocks(samples, promptfoo)
    else:
        data_blocks, data_note = _data_blocks(target, dataset, template)
    make_folder(target)
    target.write_text(_render(_header(chosen, data_note), [*blocks, *data_blocks]), "utf-8")
    if template is not None:
        _write_jsonl(template, TEMPLATE_SAMPLES)
    if samples is not None and promptfoo is not None:
        _write_jsonl(samples, promptfoo.samples)
    count = len(promptfoo.samples) if samples is not None and promptfoo else 0
    notices = _said(promptfoo, with_vars=not dataset) if promptfoo else []
    return Starter(target, template, chosen, samples, count, notices)


def _data_files(
    target: Path,
    dataset: str | os.PathLike[str] | None,
    source: str | None,
    promptfoo: PromptfooConfig | None,
) -> tuple[Path | None, Path | None]:
    """The data set written beside the matrix, if any: the template, or a promptfoo config's
    vars (none when the user names a data set, nor beside a Spring file, whose grid is the
    demo's)."""
    beside = target.with_name(target.stem + TEMPLATE_SUFFIX)
    if dataset or source == "spring":
        return None, None
    if promptfoo is not None and promptfoo.samples:
        return None, beside
    return beside, None


def _write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """Samples as JSON Lines, one a line, as the data set loader reads them."""
    lines = [json.dumps(record, ensure_ascii=False) for record in records]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _said(promptfoo: PromptfooConfig, with_vars: bool) -> list[str]:
    """The config's notices as lines naming it: the vars' only when its vars were the
    candidates for the data set (not beside a ``--dataset``)."""
    notices = promptfoo.notices if with_vars else promptfoo.criteria_notices
    return [notice.render(promptfoo.source) for notice in notices]


Block = tuple[str, dict[str, Any]]


def _model_blocks(env: Mapping[str, str]) -> tuple[list[Block], list[str]]:
    """Judges and embeddings of the providers with a key set, else the local models."""
    keyed = [p for p in PROVIDERS if env.get(p.key_env)]
    if keyed:
        judges = [{"id": p.judge, "options": {"api-key-env": p.key_env}} for p in keyed]
        embeddings = [
            {"id": p.embedding, "options": {"api-key-env": p.key_env}} for p in keyed if p.embedding
        ]
        chosen = [f"{p.name} (key in {p.key_env})" for p in keyed]
    else:
        judges = [{"id": j} for j in JUDGES]
        embeddings = []
        chosen = ["the embedded local models (no provider key is set)"]
    local_embeddings = not embeddings
    if local_embeddings:
        embeddings = [{"id": e} for e in EMBEDDERS]
    keys = ", ".join(p.key_env for p in PROVIDERS)
    # The small local judges answer in a few hundred tokens; a cap keeps a loop short.
    max_tokens = 1000 if keyed else 256
    blocks: list[Block] = [
        (
            "Options every judge and embedding entry inherits (Spring AI's default-options).\n"
            "temperature 0 keeps a judge's answers as repeatable as the provider allows.",
            {"defaults": {"judge": {"temperature": 0.0, "max-tokens": max_tokens}}},
        ),
        (
            "The judges: litellm model ids. Each one is scored on every metric, then compared.\n"
            f"Keys are read from the environment:\n{keys}.\n"
            "Write the variable's NAME under options.api-key-env, never the key itself.",
            {"judges": judges},
        ),
        (
            "Embedding models, for the metrics that compare vectors (response_relevancy)."
            + (
                "\nThese run in-process on the CPU: no key, no network." if local_embeddings else ""
            ),
            {"embeddings": embeddings},
        ),
        (
            "Metrics scored under every judge (`judgegrid metrics` lists them and their options).",
            {"metrics": ["faithfulness", "response_relevancy", "context_precision"]},
        ),
    ]
    return blocks, chosen


# A promptfoo config's own top-level keys: one of them, and no spring:, says the file is one.
PROMPTFOO_KEYS = ("tests", "defaultTest", "prompts", "providers")


def _source_kind(source: str | os.PathLike[str]) -> str:
    """What ``--from`` names: a Spring AI ``application.yaml`` (``spring:``) or a promptfoo
    config (``tests:``, ``prompts:``, ...); InputError naming the file for anything else."""
    try:
        raw = load_yaml(read_matrix_text(source))
    except yaml.YAMLError as exc:
        raise InputError(str(source), [yaml_problem(exc)]) from None
    if is_spring(raw):
        return "spring"
    if isinstance(raw, dict) and any(key in raw for key in PROMPTFOO_KEYS):
        return "promptfoo"
    message = (
        "neither a Spring AI configuration (no spring: key) nor a promptfoo config (no tests:, "
        "defaultTest:, prompts: or providers:)"
    )
    raise InputError(str(source), [Problem("", message)])


def _promptfoo_blocks(
    promptfoo: PromptfooConfig, env: Mapping[str, str]
) -> tuple[list[Block], list[str]]:
    """The judges of the providers whose keys are set (else the local models), judged on the
    config's model-graded assertions as criteria (the grader's model stays the user's choice:
    the grid compares judges for it), under a comment that says each threshold not carried.
    No metric, no embedding model: the assertions are what the config scores by."""
    model_blocks, chosen = _model_blocks(env)
    kept = [b for b in model_blocks if not {"embeddings", "metrics"} & set(b[1])]
    criteria = [_criterion_entry(c) for c in promptfoo.criteria]
    comment = (
        f"The model-graded assertions of {promptfoo.source}: llm-rubric and\n"
        "model-graded-closedqa each a binary criterion (pass or fail), g-eval a scale of\n"
        "0..10, on the fields promptfoo's grader reads. strictness: 3 asks three verdicts of a\n"
        "binary criterion, the majority wins."
    )
    said = _notice_lines(promptfoo.criteria_notices)
    return [*kept, (comment + said, {"criteria": criteria})], [
        *chosen,
        f"the rubrics of {promptfoo.source}",
    ]


def _criterion_entry(criterion: CriterionSpec) -> dict[str, Any]:
    """A criterion as the matrix's ``criteria:`` entry: what it asks, a scale's levels."""
    entry: dict[str, Any] = {
        "name": criterion.name,
        "type": criterion.type,
        "definition": criterion.definition,
        "fields": list(criterion.fields),
    }
    if criterion.scale:
        entry["scale"] = dict(criterion.scale)
    return entry


def _vars_blocks(samples: Path, promptfoo: PromptfooConfig) -> tuple[list[Block], str]:
    """The data set of the config's vars, beside the matrix, under a comment naming each var
    written and the field it became, and what of the vars was not."""
    read = ", ".join(f"{var} → {column}" for var, column in promptfoo.mapping.items())
    said = (
        f"The samples: the tests' vars of {promptfoo.source} ({len(promptfoo.samples)} "
        f"samples), written beside this file. The vars read: {read}."
    )
    comment = textwrap.fill(said, width=96) + _notice_lines(promptfoo.sample_notices)
    return [(comment, {"dataset": samples.name})], f"samples: the tests' vars, {samples.name}"


def _notice_lines(notices: Iterable[Notice]) -> str:
    """Notices as comment lines, each at its place, wrapped to the matrix's width."""
    lines = [
        textwrap.fill(f"{n.where}: {n.message}", width=96, subsequent_indent="  ") for n in notices
    ]
    return "".join(f"\n{line}" for line in lines)


def _spring_blocks(source: str | os.PathLike[str]) -> tuple[list[Block], list[str]]:
    """The matrix a Spring ``application.yaml`` means, as the loader reads it."""
    raw = load_yaml(read_matrix_text(source))
    _, problems = inspect_matrix_data(raw)  # what validate would refuse in the matrix written
    if problems:
        raise MatrixError(str(source), problems)
    data, _ = spring_matrix_data(raw)
    comments = {
        "defaults": "spring.ai.chat-models / embedding-models default-options, and the key's\n"
        "variable from spring.ai.openai.api-key (the key stays in the environment).",
        "judges": "spring.ai.chat-models.list; the provider follows spring.ai.openai.base-url.",
        "embeddings": "spring.ai.embedding-models.list, their dimensions kept.",
        "retry": "spring.ai.retry (its backoff flattened; Spring AI's default max-attempts).",
        "metrics": "Metrics scored under every judge (the Spring file names none: all of them).\n"
        "Keep those you need; `judgegrid metrics` lists them and their options.",
    }
    blocks = [(comments.get(k, f"from {source}"), {k: v}) for k, v in data.items() if v != {}]
    return blocks, [f"the Spring AI configuration {source}"]


def _data_blocks(
    target: Path, dataset: str | os.PathLike[str] | None, template: Path | None
) -> tuple[list[Block], str]:
    """The data set: the user's file with the mapping detected, else the template (or the
    demo's samples beside a Spring file)."""
    if dataset is None:
        name = template.name if template else "demo"
        comment = (
            "The samples to score: a template beside this file; replace them with yours."
            if template
            else "The samples to score: the demo's; name your data set's file here."
        )
        return [(comment, {"dataset": name})], f"samples: {name}"
    read = load_dataset(dataset)
    where = os.path.relpath(Path(dataset).resolve(), target.resolve().parent)
    blocks: list[Block] = [
        (f"The samples to score ({len(read.samples)} read from it).", {"dataset": where})
    ]
    if read.mapping is not None:
        columns = {sample: own for own, sample in read.mapping.fields}
        blocks.append(
            (
                f"How its fields were read (detected: {read.mapping.scheme}): the sample's field\n"
                "→ the file's own name. Edit to map them otherwise.",
                {"columns": columns},
            )
        )
    return blocks, f"samples: {dataset}"


def _header(chosen: list[str], data_note: str) -> str:
    return (
        "A judgegrid model matrix, written by `judgegrid init`.\n"
        f"Models from: {'; '.join(chosen)}. {data_note.capitalize()}.\n"
        "Check it with `judgegrid validate`, see the calls and cost with `judgegrid plan`,\n"
        "then `judgegrid run`."
    )


def _render(header: str, blocks: list[Block]) -> str:
    parts = [_comment(header)]
    for comment, value in blocks:
        dumped = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100)
        parts.append(_comment(comment) + dumped)
    return "\n".join(parts)


def _comment(text: str) -> str:
    return "".join(f"# {line}".rstrip() + "\n" for line in text.splitlines())
