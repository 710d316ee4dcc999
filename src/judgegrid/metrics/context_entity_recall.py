"""ContextEntityRecall (Ragas ``context_entity_recall``): the reference's entities found in the
contexts.

Set-based, as in Ragas' newer implementation (legacy Ragas divided by the length of the entity
list, duplicates included). Entities are compared after case folding and whitespace
normalisation. Pure scoring only so far; the prompts and the judge step come with issue 3.
"""

from __future__ import annotations

from collections.abc import Iterable


def normalise_entity(entity: str) -> str:
    return " ".join(entity.split()).casefold()


def entity_recall(reference_entities: Iterable[str], context_entities: Iterable[str]) -> float:
    """|set(ref) ∩ set(ctx)| / |set(ref)|; no reference entity → 0.0."""
    reference = {normalise_entity(e) for e in reference_entities if e.strip()}
    context = {normalise_entity(e) for e in context_entities if e.strip()}
    return len(reference & context) / len(reference) if reference else 0.0
