"""The WikiEval pairs judged pairwise by the embedded models, before the run side exists.

    python benches/pairwise_wikieval.py ../shared/validation/wikieval_pairs.jsonl --limit 12

Issue 34's pieces that need no criteria loader, wired by hand: each line of the pairs file made
into its two pairwise items (``inputs.pairwise.wikieval_items``: faithfulness and answer
relevance, the better answer first in a seeded half), each pair shown to each judge in both
orders (``metrics.pairwise``: the prompt, the swap), the verdicts read back and measured
(``analyses.pairwise.verdicts``: position bias, validity). Calls go straight to litellm's local
provider (greedy, one call per order, no cache, no run directory): a first look at what the
embedded judges make of a pairwise question, not the run side's figures. Prints the tables and
the time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from judgegrid.analyses.pairwise.verdicts import combined, position_bias, validity
from judgegrid.calls.providers import register_local_models
from judgegrid.calls.providers.gateway import litellm_module
from judgegrid.inputs.pairwise import WIKIEVAL_ASPECTS, people_table, wikieval_items
from judgegrid.metrics.pairwise import (
    PairwiseCriterion,
    pairwise_prompt,
    position_of,
    presentations,
    winner_of,
)

JUDGES = ("local/smollm2-135m", "local/gemma-3-270m")


def criteria() -> dict[str, PairwiseCriterion]:
    return {
        aspect: PairwiseCriterion(definition=question, fields=fields)
        for aspect, (question, _, _, fields) in WIKIEVAL_ASPECTS.items()
    }


def ask(model: str, messages: list, schema: type) -> str | None:
    litellm = litellm_module()
    response = litellm.completion(
        model=model,
        messages=messages,
        temperature=0.0,
        max_tokens=96,
        seed=42,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
        },
    )
    return response.choices[0].message.content


def judge_items(judge: str, items: list, crits: dict[str, PairwiseCriterion]) -> list[dict]:
    """Every item in both orders by one judge: its verdicts in the pairs' own terms."""
    rows = []
    for item in items:
        crit = crits[item.aspect]
        prompt = pairwise_prompt(crit)
        for order, shown in presentations(item.pair, crit):
            text = ask(judge, prompt.messages(shown), prompt.output)
            try:
                verdict = position_of(prompt.output.model_validate_json(text or ""), crit)
                winner = winner_of(verdict, order)
            except ValueError:
                winner = None
            rows.append(
                {
                    "judge": judge,
                    "aspect": item.aspect,
                    "pair": item.pair.id,
                    "order": order,
                    "winner": winner,
                }
            )
    return rows


def print_tables(verdicts: pd.DataFrame, people: pd.DataFrame) -> None:
    """Position bias and validity per aspect (each judge's figures as soon as it is done)."""
    for aspect in WIKIEVAL_ASPECTS:
        mine = verdicts[verdicts["aspect"] == aspect]
        judges = mine["judge"].nunique()
        print(f"\n## {aspect}: {len(mine) // (2 * judges)} pairs, both orders")
        bias = position_bias(mine).drop(columns=["missing", "ci_method"])
        print(bias.to_string(index=False, float_format="%.2f"))
        theirs = people[people["pair"].isin(mine["pair"])]
        valid = validity(combined(mine), theirs).drop(columns=["missing"])
        print(valid.to_string(index=False, float_format="%.2f"), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--judges", nargs="*", default=list(JUDGES))
    args = parser.parse_args()
    lines = args.pairs.read_text(encoding="utf-8").splitlines()[: args.limit]
    items = [item for line in lines for item in wikieval_items(json.loads(line))]
    register_local_models(args.judges)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    crits, people = criteria(), people_table(items)
    for judge in args.judges:
        started = time.monotonic()
        verdicts = pd.DataFrame(judge_items(judge, items, crits))
        elapsed = time.monotonic() - started
        print(f"\n# {judge}: {len(verdicts)} judgings in {elapsed:.0f} s", flush=True)
        print(f"unreadable answers: {int(verdicts['winner'].isna().sum())}")
        print_tables(verdicts, people)


if __name__ == "__main__":
    main()
