"""Checks made before the first call: every model routable, every key present.

A matrix can be valid YAML naming models that no provider serves, or keys that the environment
lacks; both would fail every cell. These checks ask litellm's tables and the environment, never a
provider, so ``judgegrid validate`` and the start of a run can refuse such a matrix at once.
"""

from __future__ import annotations

import os
from typing import Any

from judgegrid.errors import MatrixError, Problem
from judgegrid.matrix import Matrix
from judgegrid.options import ModelOptions
from judgegrid.providers import local
from judgegrid.providers.gateway import litellm_module


def preflight(matrix: Matrix, source: str) -> None:
    """Problems that would stop every call, found before the first one: unknown models, keys."""
    problems = model_problems(matrix) + credential_problems(matrix)
    if problems:
        raise MatrixError(source, problems)


def model_problems(matrix: Matrix) -> list[Problem]:
    """Model ids that litellm cannot route (no provider prefix it knows, no local model)."""
    problems = []
    known_local = {"judges": local.JUDGE_MODEL, "embeddings": local.EMBEDDING_MODEL}
    entries = [("judges", i, j.id, j.options.api_base) for i, j in enumerate(matrix.judges)]
    entries += [
        ("embeddings", i, e.id, e.options.api_base) for i, e in enumerate(matrix.embeddings)
    ]
    for section, i, model, api_base in entries:
        if model.startswith("local/"):
            if model != f"local/{known_local[section]}":
                problems.append(
                    Problem(
                        f"{section}[{i}].id",
                        f"unknown local model '{model}'; "
                        f"the embedded one is local/{known_local[section]}",
                    )
                )
            continue
        if not _litellm_routes(model, api_base):
            problems.append(
                Problem(
                    f"{section}[{i}].id",
                    f"litellm cannot tell which provider serves '{model}'; write it as "
                    "provider/model (e.g. openai/gpt-4o-mini, openrouter/google/gemini-2.5-flash, "
                    "ollama/llama3.1)",
                )
            )
    return problems


def _litellm_routes(model: str, api_base: str | None) -> bool:
    litellm = litellm_module()
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception:
        return False
    return True


def credential_problems(matrix: Matrix, environ: dict[str, str] | None = None) -> list[Problem]:
    """Keys that calls would need but the environment lacks, found before any call is made.

    One problem per missing variable, naming every entry that needs it.
    """
    env = os.environ if environ is None else environ
    entries = [("judges", i, j.id, matrix.judge_options(j)) for i, j in enumerate(matrix.judges)]
    entries += [
        ("embeddings", i, e.id, matrix.embedding_options(e))
        for i, e in enumerate(matrix.embeddings)
    ]
    needed_by: dict[str, list[str]] = {}
    for section, i, model, options in entries:
        for variable in _missing_keys(model, options, env):
            needed_by.setdefault(variable, []).append(f"{section}[{i}] ({model})")
    return [
        Problem(
            users[0].split(" ")[0] if len(users) == 1 else "",
            f"the environment variable {variable} is not set; it holds the API key for "
            f"{', '.join(users)}",
        )
        for variable, users in needed_by.items()
    ]


def _missing_keys(model: str, options: ModelOptions, env: Any) -> list[str]:
    if options.api_key_env:
        return [] if env.get(options.api_key_env) else [options.api_key_env]
    if model.startswith("local/") or options.api_base:
        return []  # in-process models and self-served endpoints need no key by default
    litellm = litellm_module()  # deferred: importing it costs a second

    try:
        report = litellm.validate_environment(model=model)
    except Exception:  # an unknown provider: litellm will say so at call time
        return []
    return [k for k in report.get("missing_keys", []) if not env.get(k)]
