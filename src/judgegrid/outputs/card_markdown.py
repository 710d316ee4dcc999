"""The decision card as a markdown table (summary.md), each metric's reasoning under it."""

from __future__ import annotations

import pandas as pd


def card_markdown(card: pd.DataFrame) -> str:
    """The card as a markdown table, each metric's reasoning under it."""
    if card.empty:
        return "No metric was scored, so there is no decision to make."
    lines = ["| metric | judge | basis | why | next step |", "|---|---|---|---|---|"]
    for record in card.to_dict("records"):
        row = {k: str(v) for k, v in record.items()}
        step = f"`{row['next_step']}`" if "judgegrid " in row["next_step"] else row["next_step"]
        lines.append(
            f"| {row['metric']} | **{row['verdict']}** | {row['basis']} | {row['reason']} | "
            f"{step} |"
        )
    reasons = [
        f"- **{record['metric']}**: {record['detail']}"
        for record in card.to_dict("records")
        if record["detail"]
    ]
    states = [
        f"- **{record['metric']}** labelling: {record['label_state']}"
        for record in card.to_dict("records")
        if record.get("label_state")
    ]
    return "\n".join(
        lines + (["", *reasons] if reasons else []) + (["", *states] if states else [])
    )
