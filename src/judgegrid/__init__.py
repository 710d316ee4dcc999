"""judgegrid: score RAG metrics under a grid of judges and embedding models, and see the spread.

Importing judgegrid keeps everything offline by default: Hugging Face libraries are told not to
reach a hub (``HF_HUB_OFFLINE=1``) and litellm reads its bundled price table instead of fetching
one (``LITELLM_LOCAL_MODEL_COST_MAP=True``). Set either variable yourself to override.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from judgegrid.api import GridResult, load_run, resume_run, run_grid
from judgegrid.dataset import load_dataset
from judgegrid.matrix import Matrix, load_matrix
from judgegrid.metrics import METRICS, Faithfulness, ResponseRelevancy
from judgegrid.sample import Dataset, Sample
from judgegrid.single import SampleScore, ascore_sample, score_sample

__version__ = "0.1.0"

__all__ = [
    "METRICS",
    "Dataset",
    "Faithfulness",
    "GridResult",
    "Matrix",
    "ResponseRelevancy",
    "Sample",
    "SampleScore",
    "ascore_sample",
    "load_dataset",
    "load_matrix",
    "load_run",
    "resume_run",
    "run_grid",
    "score_sample",
]
