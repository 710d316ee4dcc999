"""How a run reads its grid and where it scores it: the options that travel together as one value.

``run_grid``'s keyword arguments, ``judgegrid run``'s and ``judgegrid plan``'s options become
one ``RunOptions`` (as httpx's clients take one ``Timeout`` or ``Limits``), built and checked
once; ``check_run``, ``prepare_run`` and the plan take it whole instead of repeating a list of
parameters. Each field is checked strictly where it is read (a whole number is not "2").
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgegrid.core.errors import OptionError
from judgegrid.core.validation import problem_from

PositiveInt = Annotated[int, Field(ge=1)]
Margin = Annotated[float, Field(gt=0, lt=1)]


class RunOptions(BaseModel):
    """The options of a run beside its matrix and data set (each overrides the matrix's own)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    limit: PositiveInt | None = Field(None, description="Score only the first N samples.")
    use_cache: bool = Field(True, description="Read and write the cross-run cache.")
    columns: dict[str, str] | None = Field(
        None, description="Sample fields read from other column names ({'user_input': 'q'})."
    )
    list_delimiter: str | None = Field(None, description="Splits a list field's text cell.")
    workers: PositiveInt | None = Field(None, description="Worker processes (execution.workers).")
    backend: str | None = Field(None, description="processes or ray (execution.backend).")
    address: str | None = Field(None, description="ray only: a running cluster's address.")
    margin: Margin | None = Field(
        None, description="The decision card's non-inferiority margin (decision.margin)."
    )
    probes: bool = Field(False, description="The default probes when the matrix has none.")
    criteria: tuple[Any, ...] = Field(
        (),
        description="Criteria added to the matrix's: Criterion objects, or DeepEval's GEval and "
        "Ragas' AspectCritic, RubricsScore or DiscreteMetric (read when the data set is).",
    )


def run_options(**given: Any) -> RunOptions:
    """``RunOptions`` from keyword arguments; OptionError naming each bad one."""
    try:
        return RunOptions(**given)
    except ValidationError as exc:
        raise OptionError("", [problem_from(err, RunOptions) for err in exc.errors()]) from None
