"""How a run reads its grid and where it scores it: the options that travel together as one value.

``run_grid``'s keyword arguments, ``judgegrid run``'s and ``judgegrid plan``'s options become
one ``RunOptions`` (as httpx's clients take one ``Timeout`` or ``Limits``), built and checked
once; ``check_run``, ``prepare_run`` and the plan take it whole instead of repeating a list of
parameters. A resumed run takes the few options a run directory does not fix as one
``ResumeOptions``, from ``resume_run`` or ``run --resume`` down to ``prepare_resume``: spelt out
three times, the lists had drifted apart. Each field is checked strictly where it is read (a
whole number is not "2").
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import ConfigDict, Field, ValidationError

from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.validation import PublicModel, problem_from
from judgegrid.core.values import Number

PositiveInt = Annotated[int, Field(ge=1)]
Margin = Annotated[Number, Field(gt=0, lt=1)]


class RunOptions(PublicModel):
    """The options of a run beside its matrix and data set (each overrides the matrix's own)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    door: ClassVar[str] = "RunOptions"

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


class ResumeOptions(PublicModel):
    """The options of a resumed run: its matrix, data set and limit are the run directory's, so
    only whether to retry, the cache, where the shards are scored and, for an imported run,
    the judges added to it may change."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    door: ClassVar[str] = "ResumeOptions"

    retry_failed: bool = Field(False, description="Score the run's failed cells again.")
    use_cache: bool | None = Field(
        None, description="Read and write the cross-run cache; None: as the run was started."
    )
    workers: PositiveInt | None = Field(None, description="Worker processes (execution.workers).")
    backend: str | None = Field(None, description="processes or ray (execution.backend).")
    address: str | None = Field(None, description="ray only: a running cluster's address.")
    add_judges: str | tuple[dict[str, Any], ...] | dict[str, Any] | None = Field(
        None,
        description="An imported run only: judges to call beside its recorded ones, on the same "
        "samples: a YAML file of judges: [...] (the matrix's judge syntax; criteria: [{name, "
        "definition}] gives an imported criterion's question), the judges as dicts, or that "
        "file's mapping.",
    )


Options = TypeVar("Options", RunOptions, ResumeOptions)


def run_options(**given: Any) -> RunOptions:
    """``RunOptions`` from keyword arguments; OptionError naming each bad one."""
    return _built(RunOptions, given)


def check_margin(margin: float | None) -> None:
    """A non-inferiority margin (``--margin``) lies in (0, 1): one check for ``report`` and
    ``label``, which take the margin beside a run rather than in ``RunOptions``."""
    if margin is not None and not 0 < margin < 1:
        raise OptionError("--margin", [Problem("", f"expected a number in (0, 1), got {margin}")])


def resume_options(**given: Any) -> ResumeOptions:
    """``ResumeOptions`` from keyword arguments; OptionError naming each bad one."""
    return _built(ResumeOptions, given)


def _built(kind: type[Options], given: dict[str, Any]) -> Options:
    try:
        return kind(**given)
    except ValidationError as exc:
        raise OptionError("", [problem_from(err, kind) for err in exc.errors()]) from None
