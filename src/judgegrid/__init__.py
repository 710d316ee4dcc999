"""judgegrid: score RAG metrics under a grid of judges and embedding models, and see the spread.

Importing judgegrid keeps everything offline by default: Hugging Face libraries are told not to
reach a hub (``HF_HUB_OFFLINE=1``) and litellm reads its bundled price table instead of fetching
one (``LITELLM_LOCAL_MODEL_COST_MAP=True``). Set either variable yourself to override.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from judgegrid.api import (
    GridResult,
    PairsResult,
    export_run,
    load_run,
    rebuild_report,
    resume_run,
    run_grid,
    run_pairs,
)
from judgegrid.core.errors import (
    DatasetError,
    InputError,
    JudgegridError,
    JudgeOutputError,
    MatrixError,
    OptionError,
    ProviderError,
    RunDirError,
    ScoringError,
)
from judgegrid.core.sample import Dataset, Sample
from judgegrid.inputs.dataset import load_dataset
from judgegrid.inputs.matrix import Matrix, load_matrix
from judgegrid.metrics import (
    METRICS,
    AnswerRelevancy,
    ContextEntityRecall,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
    NoiseSensitivity,
    ResponseRelevancy,
)
from judgegrid.run.single import SampleScore, ascore_sample, score_sample

__version__ = "0.1.0"

__all__ = [
    "METRICS",
    "AnswerRelevancy",
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextRecall",
    "Dataset",
    "DatasetError",
    "Faithfulness",
    "GridResult",
    "InputError",
    "JudgeOutputError",
    "JudgegridError",
    "Matrix",
    "MatrixError",
    "NoiseSensitivity",
    "OptionError",
    "PairsResult",
    "ProviderError",
    "ResponseRelevancy",
    "RunDirError",
    "Sample",
    "SampleScore",
    "ScoringError",
    "ascore_sample",
    "export_run",
    "load_dataset",
    "load_matrix",
    "load_run",
    "rebuild_report",
    "resume_run",
    "run_grid",
    "run_pairs",
    "score_sample",
]
