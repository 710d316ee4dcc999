"""The peers' criteria objects made offline by their installed libraries: DeepEval's GEval needs a
model to be built (else it asks for an OpenAI key); ``NoModel`` is one that is never called."""

from __future__ import annotations

import os

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")  # before deepeval is imported

from typing import Any

from deepeval.metrics import GEval
from deepeval.models import DeepEvalBaseLLM


class NoModel(DeepEvalBaseLLM):
    """A DeepEval model that is never called: converting a GEval calls nothing."""

    def __init__(self) -> None:
        super().__init__("no-model")

    def load_model(self, *args: Any, **kwargs: Any) -> Any:
        return None

    def generate(self, *args: Any, **kwargs: Any) -> str:
        raise AssertionError("the drop-in must not call the peer's model")

    async def a_generate(self, *args: Any, **kwargs: Any) -> str:
        raise AssertionError("the drop-in must not call the peer's model")

    def get_model_name(self, *args: Any, **kwargs: Any) -> str:
        return "no-model"


def geval(**kwargs: Any) -> GEval:
    return GEval(model=NoModel(), **kwargs)
