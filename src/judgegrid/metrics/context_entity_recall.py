"""ContextEntityRecall (Ragas ``context_entity_recall``): the reference's entities found in the
contexts.

Two judge steps: extract the entities of the reference, and those of the joined contexts. The
score is set-based, as in Ragas' newer implementation (legacy Ragas divided by the length of the
entity list, duplicates included). Entities are compared after case folding and whitespace
normalisation, so "Eiffel  Tower" and "eiffel tower" are one entity.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Annotated

from pydantic import BaseModel, Field

from judgegrid.core.context import Judge, ScoreContext
from judgegrid.core.question import Question
from judgegrid.core.sample import Sample
from judgegrid.metrics.base import (
    Metric,
    MetricResult,
    NoParams,
    tightened_shape,
)
from judgegrid.metrics.prompt import Example, Prompt

STEP = "entities"
MAX_ENTITIES = 32
MAX_ENTITY_CHARS = 100
REQUESTED_ENTITY_CHARS = 40


class Entities(BaseModel):
    entities: list[Annotated[str, Field(max_length=MAX_ENTITY_CHARS)]] = Field(
        max_length=MAX_ENTITIES
    )


class TextInput(BaseModel):
    text: str = Field(title="Text")


ENTITIES_PROMPT = Prompt(
    instruction="List the unique named entities of the text: people, places, organisations, "
    "dates, events, and numbers with their units. Write each one once, as it appears in the text.",
    input=TextInput,
    output=Entities,
    reply_format='{"entities": ["...", "..."]}',
    examples=(
        Example(
            TextInput(
                text="Neil Armstrong walked on the Moon on 20 July 1969, in the Apollo 11 mission."
            ),
            Entities(entities=["Apollo 11", "Neil Armstrong", "20 July 1969", "the Moon"]),
        ),
    ),
)


async def extract_entities(judge: Judge, text: str) -> list[str]:
    shape = tightened_shape(Entities, {"entities": REQUESTED_ENTITY_CHARS})
    answer = await judge.ask(
        Question(
            STEP, ENTITIES_PROMPT.messages(TextInput(text=text)), Entities, request_shape=shape
        )
    )
    return [e.strip() for e in answer.entities if e.strip()]


# -- pure scoring ----------------------------------------------------------------------------


def normalise_entity(entity: str) -> str:
    return " ".join(entity.split()).casefold()


def entity_set(entities: Iterable[str]) -> set[str]:
    """The distinct entities, normalised; blank ones dropped."""
    return {normalise_entity(e) for e in entities if e.strip()}


def entity_recall(reference_entities: Iterable[str], context_entities: Iterable[str]) -> float:
    """|set(ref) ∩ set(ctx)| / |set(ref)|; no reference entity → 0.0."""
    reference, context = entity_set(reference_entities), entity_set(context_entities)
    return len(reference & context) / len(reference) if reference else 0.0


# -- the steps that ask ----------------------------------------------------------------------


class ContextEntityRecall(Metric[NoParams]):
    name = "context_entity_recall"
    human_question = (
        "What share of the reference's named things"
        " (people, places, dates, numbers) appear in the contexts? (0: none … 1: all)"
    )
    title = "ContextEntityRecall"
    description = "Share of the reference's entities that also occur in the retrieved contexts"
    judge_calls = "2: entities of the reference, of the joined contexts"
    required_fields = ("reference", "retrieved_contexts")

    async def compute(self, sample: Sample, ctx: ScoreContext) -> MetricResult:
        reference, context = await asyncio.gather(  # two independent calls
            extract_entities(ctx.judge, sample.reference or ""),
            extract_entities(ctx.judge, "\n".join(sample.retrieved_contexts or [])),
        )
        score = entity_recall(reference, context)
        wanted = entity_set(reference)
        missing = sorted(wanted - entity_set(context))
        reason = f"{len(wanted) - len(missing)} of {len(wanted)} reference entities in the contexts"
        if missing:
            reason += f"; missing: {', '.join(missing)}"
        details = {"reference_entities": reference, "context_entities": context}
        return MetricResult(score, reason, details)
