"""judgegrid: score RAG metrics under a grid of judges and embedding models, and see the spread.

Importing judgegrid keeps everything offline by default: Hugging Face libraries are told not to
reach a hub (``HF_HUB_OFFLINE=1``) and litellm reads its bundled price table instead of fetching
one (``LITELLM_LOCAL_MODEL_COST_MAP=True``). Set either variable yourself to override.

The public names below are imported when first used (PEP 562): ``import judgegrid`` alone loads
none of pandas, scipy or matplotlib, so the console script (``judgegrid.entry``) can start work
in a second process before the tool's 1.5 s of imports.
"""

import os
from typing import TYPE_CHECKING

from judgegrid.core.lazy import lazy_exports

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if TYPE_CHECKING:
    from judgegrid.api import (
        GridResult,
        ImportResult,
        PairsResult,
        export_run,
        import_verdicts,
        load_run,
        rebuild_report,
        resume_run,
        run_grid,
        run_pairs,
    )
    from judgegrid.core.criterion import Criterion
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
    from judgegrid.inputs.peers import criterion_from_peer
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

# each public name and the module it comes from
_HOMES = {
    **dict.fromkeys(
        [
            "GridResult",
            "ImportResult",
            "PairsResult",
            "export_run",
            "import_verdicts",
            "load_run",
            "rebuild_report",
            "resume_run",
            "run_grid",
            "run_pairs",
        ],
        "judgegrid.api",
    ),
    **dict.fromkeys(
        [
            "DatasetError",
            "InputError",
            "JudgegridError",
            "JudgeOutputError",
            "MatrixError",
            "OptionError",
            "ProviderError",
            "RunDirError",
            "ScoringError",
        ],
        "judgegrid.core.errors",
    ),
    **dict.fromkeys(["Dataset", "Sample"], "judgegrid.core.sample"),
    "Criterion": "judgegrid.core.criterion",
    "load_dataset": "judgegrid.inputs.dataset",
    "criterion_from_peer": "judgegrid.inputs.peers",
    **dict.fromkeys(["Matrix", "load_matrix"], "judgegrid.inputs.matrix"),
    **dict.fromkeys(
        [
            "METRICS",
            "AnswerRelevancy",
            "ContextEntityRecall",
            "ContextPrecision",
            "ContextRecall",
            "Faithfulness",
            "NoiseSensitivity",
            "ResponseRelevancy",
        ],
        "judgegrid.metrics",
    ),
    **dict.fromkeys(["SampleScore", "ascore_sample", "score_sample"], "judgegrid.run.single"),
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


__all__ = [
    "METRICS",
    "AnswerRelevancy",
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextRecall",
    "Criterion",
    "Dataset",
    "DatasetError",
    "Faithfulness",
    "GridResult",
    "ImportResult",
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
    "criterion_from_peer",
    "export_run",
    "import_verdicts",
    "load_dataset",
    "load_matrix",
    "load_run",
    "rebuild_report",
    "resume_run",
    "run_grid",
    "run_pairs",
    "score_sample",
]
