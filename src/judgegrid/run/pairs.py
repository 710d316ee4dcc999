"""Validity runs on a human-preference pairs file (the WikiEval format of the Ragas paper).

``run_pairs`` is the workflow behind ``judgegrid pairs``: one run directory per aspect inside a
parent directory, then the accuracy table over all of them.

Each line holds a question, a context and pairs of answers or contexts that annotators ranked:
``answer`` is preferred to ``ungrounded_answer`` on faithfulness and to ``poor_answer`` on
answer relevance; ``context_v1`` is preferred to ``context_v2`` (padded) on context relevance.
Every pair becomes two samples carrying labels (``pair``, ``preferred``, ``aspect``), scored by
the metrics that measure that aspect only, one run directory per aspect. No metric of the suite
measures context padding, so the context-relevance pairs are reported as not scored, never
forced onto a metric that answers another question.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import Field

from judgegrid.analyses import (
    ASPECT_METRICS,
    NO_METRIC_NOTE,
    best_words,
    binary_evidence,
    configuration_labels,
    pair_accuracy,
    pair_outcomes,
    preference_pairs,
    rule,
)
from judgegrid.core.arguments import checked
from judgegrid.core.errors import DatasetError, MatrixError, Problem
from judgegrid.core.names import each_given_twice, unknown_name
from judgegrid.core.records import SCORE_COLUMNS
from judgegrid.core.run_options import PositiveInt
from judgegrid.core.sample import Dataset, Sample, id_problem
from judgegrid.inputs.matrix import MAX_REPEATS, Matrix, MetricSpec
from judgegrid.inputs.textfile import jsonl_lines
from judgegrid.metrics import METRICS
from judgegrid.outputs.tables_text import accuracy_table
from judgegrid.run.orchestrate import (
    GridResult,
    MatrixArg,
    check_run,
    check_run_place,
    execute_run,
    read_matrix,
    rebuild_outputs,
    start_run,
)
from judgegrid.run.runner import ProgressHook
from judgegrid.store.run_db import DB_NAME, RunStore
from judgegrid.store.run_dir import PAIRS_SOURCE, new_run_dir, stored_sample_info

# aspect -> (preferred field, other field); both answers are read against the same context
ANSWER_ASPECTS = {
    "faithfulness": ("answer", "ungrounded_answer"),
    "answer_relevance": ("answer", "poor_answer"),
}
REQUIRED = ("id", "question", "context", "answer", "ungrounded_answer", "poor_answer")

# Table 1 of the Ragas paper (Es et al. 2023, arXiv 2309.15217): agreement with annotators,
# gpt-3.5-turbo-16k as judge.
RAGAS_PAPER = {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70}


def load_pairs(path: str | Path) -> list[dict[str, Any]]:
    """The pairs file's records; every bad line or missing field is named."""
    path = Path(path)
    expected = "one pair a line (JSON Lines, WikiEval format)"
    lines, problems = jsonl_lines(path, str(path), DatasetError, expected)  # missing: named
    records = []
    first_line: dict[str, str] = {}  # a pair's id: the line it was first given on
    for where, record in lines:
        if not isinstance(record, dict):
            problems.append(Problem(where, "expected a JSON object (one pair a line)"))
            continue
        missing = [f for f in REQUIRED if not isinstance(record.get(f), str) or not record[f]]
        if missing:
            problems.append(Problem(where, _missing_fields(missing, record)))
            continue
        bad_id = id_problem(record["id"], "pair")
        if bad_id is not None:
            problems.append(Problem(where, bad_id))
            continue
        if record["id"] in first_line:
            first = first_line[record["id"]]
            message = f"id {record['id']!r} is the id of {first} too; each pair needs its own id"
            problems.append(Problem(where, message))
            continue
        first_line[record["id"]] = where
        records.append(record)
    if problems:
        problems.sort(key=lambda p: int(p.where.removeprefix("line ")))  # in the file's order
        raise DatasetError(str(path), problems)
    if not records:
        raise DatasetError(str(path), [Problem("", "the file has no pairs")])
    return records


def _missing_fields(missing: list[str], record: dict[str, Any]) -> str:
    """The pair's fields it lacks, and a field it has that looks like one of them misspelt."""
    others = [str(k) for k in record if k not in REQUIRED]
    guesses = [
        f"is '{close[0]}' meant as '{field}'?"
        for field in missing
        if (close := difflib.get_close_matches(field, others, n=1))
    ]
    return f"missing or empty: {', '.join(missing)}" + (f"; {' '.join(guesses)}" if guesses else "")


def aspect_dataset(records: list[dict[str, Any]], aspect: str, source: str) -> Dataset:
    """Two samples per pair: the preferred answer and the other, labelled with the pair."""
    better, worse = ANSWER_ASPECTS[aspect]
    samples = []
    for record in records:
        pair = f"{record['id']}:{aspect}"
        for field, preferred in ((better, 1), (worse, 0)):
            samples.append(
                Sample(
                    id=f"{pair}:{'preferred' if preferred else 'other'}",
                    user_input=record["question"],
                    response=record[field],
                    retrieved_contexts=[record["context"]],
                    labels={"pair": pair, "preferred": preferred, "aspect": aspect},
                )
            )
    return Dataset(f"{source} ({aspect} pairs)", tuple(samples))


def aspect_metrics(matrix: Matrix, aspect: str) -> tuple[list[MetricSpec], list[str]]:
    """The metrics that measure an aspect (the matrix's own spec if it lists one, else the
    defaults), and the names not available in this build (skipped, with a note)."""
    listed = {spec.name: spec for spec in matrix.metrics}
    specs, unavailable = [], []
    for name in ASPECT_METRICS[aspect]:
        if name not in METRICS:
            unavailable.append(name)
            continue
        specs.append(listed.get(name, MetricSpec(name=name)))
    return specs, unavailable


def unavailable_metrics() -> list[str]:
    """Metrics an aspect maps to that this build's registry lacks (their pairs: not scored)."""
    names = [n for aspect in ANSWER_ASPECTS for n in ASPECT_METRICS[aspect]]
    return [n for n in names if n not in METRICS]


@dataclass
class PairsOutcome:
    accuracy: pd.DataFrame  # per source, aspect and configuration (tidy)
    table: pd.DataFrame  # configuration x aspect -> 'acc [CI] n'
    notes: list[str]
    paper: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)  # ``paper_comparison``


def pairs_outcome(
    scores: pd.DataFrame, sample_info: dict[str, dict[str, Any]], unavailable: list[str]
) -> PairsOutcome:
    pairs = preference_pairs(sample_info)
    accuracy = pair_accuracy(scores, pairs)
    notes = [f"context relevance pairs: {NO_METRIC_NOTE['context_relevance']}."]
    notes += [
        f"{name}: not in this build's metric registry, so its pairs were not scored"
        for name in unavailable
    ]
    paper = paper_comparison(scores, pairs)
    return PairsOutcome(accuracy, accuracy_table(accuracy), notes, paper)


PAPER_COLUMNS = [
    "aspect",
    "configurations",
    "best",
    "accuracy",
    "ci_low",
    "ci_high",
    "n",
    "unscored",
    "ragas_paper_gpt-3.5",
    "paper_inside_ci",
]
NOT_SEPARATED = "not_separated"  # the best's set, top first: listed under the table when long
BEST_CELL_CHARS = 100  # a set named in full within this; a longer one named in part


def paper_comparison(scores: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per aspect: this run's best configuration — chosen as the decision card chooses a judge:
    the top by accuracy, compared with every other configuration by exact McNemar tests on the
    same pairs, Holm-corrected; a set when it is not separated — with its 95% Wilson interval
    and the pairs it rests on (an unscored pair counts as wrong), beside the Ragas paper's figure
    and whether that figure lies inside the interval."""
    outcomes = pair_outcomes(scores, pairs) if not pairs.empty else pd.DataFrame()
    rows = []
    for aspect, paper in RAGAS_PAPER.items():
        block = outcomes[outcomes["aspect"] == aspect] if not outcomes.empty else outcomes
        row: dict[str, Any] = {"aspect": aspect, "configurations": 0, "best": "none scored"}
        if not block.empty:
            names = pd.Series(configuration_labels(block), index=block.index)
            if block["metric"].nunique() > 1:  # an aspect measured by two metrics
                names = block["metric"] + ": " + names
            row |= _best_configuration(block.assign(configuration=names))
        low = float(row.get("ci_low", float("nan")))
        high = float(row.get("ci_high", float("nan")))
        row["ragas_paper_gpt-3.5"] = paper
        row["paper_inside_ci"] = bool(low <= paper <= high) if np.isfinite(low) else None
        rows.append(row)
    table = pd.DataFrame(rows).reindex(columns=[*PAPER_COLUMNS, NOT_SEPARATED])
    table[NOT_SEPARATED] = [t if isinstance(t, list) else [] for t in table[NOT_SEPARATED]]
    return table.astype({"n": "Int64", "unscored": "Int64"})


def _best_configuration(block: pd.DataFrame) -> dict[str, Any]:
    right = block.pivot_table(index="pair", columns="configuration", values="agree", aggfunc="max")
    ruling = rule(binary_evidence(right))
    top = ruling.top
    if top is None:
        return {"configurations": right.shape[1], "best": "none scored"}
    mine = block[block["configuration"] == top.judge]
    return {
        "configurations": right.shape[1],
        "best": best_words(ruling),
        NOT_SEPARATED: [s.judge for s in ruling.tied] if len(ruling.tied) > 1 else [],
        "accuracy": top.quality,
        "ci_low": top.low,
        "ci_high": top.high,
        "n": top.n,
        "unscored": int((~mine["scored"].astype(bool)).sum()),
    }


def outcome_markdown(outcome: PairsOutcome, title: str) -> str:
    lines = [
        f"# {title}",
        "",
        "Pairwise-preference accuracy (Ragas paper protocol): share of "
        "pairs where the preferred member scores strictly higher; ties and pairs with a member "
        "not scored count as disagreement; [95% Wilson interval] and n pairs.",
        "",
    ]
    lines += [outcome.table.to_markdown() if not outcome.table.empty else "(no scored pairs)", ""]
    lines += ["## Beside the Ragas paper (gpt-3.5-turbo-16k as judge)", ""]
    lines += [
        "The best configuration is chosen as the decision card chooses a judge (exact McNemar "
        "tests on the same pairs, Holm-corrected; 'not separated' when they do not tell it from "
        "another). Read its figure with its interval and n: a few pairs can neither confirm nor "
        "refute the paper's.",
        "",
        paper_markdown(outcome.paper),
        "",
    ]
    lines += [f"- {note}" for note in outcome.notes]
    return "\n".join(lines) + "\n"


def paper_markdown(paper: pd.DataFrame) -> str:
    """The comparison with the paper as a table, a set of best configurations too long for its
    cell named in part there ('a or b (+16 more, listed below)') and in full under the table."""
    listed = [
        len(best) > BEST_CELL_CHARS and len(tied) > 1
        for best, tied in zip(paper["best"], paper[NOT_SEPARATED], strict=True)
    ]
    best = [
        _best_in_part(row[NOT_SEPARATED]) if long else row["best"]
        for row, long in zip(paper.to_dict("records"), listed, strict=True)
    ]
    shown = paper.drop(columns=NOT_SEPARATED).assign(best=best)
    lines = [shown.to_markdown(index=False, floatfmt=".2f")]
    for row, long in zip(paper.to_dict("records"), listed, strict=True):
        if long:
            tied = row[NOT_SEPARATED]
            heading = f"Not separated, {row['aspect']} ({len(tied)} configurations, best first):"
            lines += ["", heading, "", *(f"- {name}" for name in tied)]
    return "\n".join(lines)


def _best_in_part(tied: list[str]) -> str:
    """As many of the set's names as fit ``BEST_CELL_CHARS`` (the first always) and how many
    more are listed below."""
    for shown in range(len(tied) - 1, 1, -1):
        if len(cell := _named_in_part(tied, shown)) <= BEST_CELL_CHARS:
            return cell
    return _named_in_part(tied, 1)


def _named_in_part(tied: list[str], shown: int) -> str:
    more = len(tied) - shown
    return f"{' or '.join(tied[:shown])} (+{more} more, listed below): not separated"


@dataclass
class PairsResult:
    run_dir: Path
    aspect_runs: dict[str, GridResult]
    outcome: PairsOutcome


@checked
def run_pairs(
    matrix: MatrixArg,
    pairs_path: str | Path,
    *,
    reports_dir: str | Path = "reports",
    limit: PositiveInt | None = None,
    repeats: Annotated[int, Field(ge=1, le=MAX_REPEATS)] | None = None,
    judges: list[str] | None = None,
    on_progress: ProgressHook | None = None,
) -> PairsResult:
    """Score a human-preference pairs file: one run per aspect (faithfulness, answer relevance)
    with the metrics that measure it, then the per-judge x aspect accuracy table."""
    loaded, matrix_path = read_matrix(matrix)
    source = str(matrix_path or "<matrix>")
    records = load_pairs(pairs_path)[:limit]
    loaded = _narrowed(loaded, source, repeats, judges)
    name = loaded.name or (matrix_path.stem if matrix_path else "matrix")
    checked = {}  # every aspect's run checked before the parent directory is made
    for aspect in ANSWER_ASPECTS:
        specs, _ = aspect_metrics(loaded, aspect)
        if not specs:
            continue
        # the matrix's sample limit is for its own data set; pairs are limited by --limit
        update = {"metrics": specs, "name": f"{loaded.name}-{aspect}", "limit": None}
        sub = loaded.model_copy(update=update)
        checked[aspect] = check_run(sub, aspect_dataset(records, aspect, str(pairs_path)))
    check_run_place(reports_dir, None)
    parent = new_run_dir(reports_dir, f"{name}-pairs")
    runs: dict[str, GridResult] = {}
    for aspect, run in checked.items():
        runs[aspect] = execute_run(start_run(run, run_dir=parent / aspect), on_progress)
    (parent / PAIRS_SOURCE).write_text(str(pairs_path), encoding="utf-8")
    return PairsResult(parent, runs, write_pairs_outcome(parent))


def write_pairs_outcome(parent: Path) -> PairsOutcome:
    """pairs_accuracy.csv and pairs_summary.md from the aspect runs' databases (no model call)."""
    scores: list[pd.DataFrame] = []
    info: dict[str, Any] = {}
    for db in sorted(parent.glob(f"*/{DB_NAME}")):
        store = RunStore(db, read_only=True)  # read: the aspect runs are left as they are
        try:
            scores.append(store.scores_frame())
            info |= stored_sample_info(store)
        finally:
            store.close()
    frame = pd.concat(scores, ignore_index=True) if scores else pd.DataFrame(columns=SCORE_COLUMNS)
    outcome = pairs_outcome(frame, info, unavailable_metrics())
    outcome.accuracy.to_csv(parent / "pairs_accuracy.csv", index=False)
    source = (parent / PAIRS_SOURCE).read_text(encoding="utf-8").strip()
    title = f"judgegrid pairs {parent.name}: {source}"
    (parent / "pairs_summary.md").write_text(outcome_markdown(outcome, title), encoding="utf-8")
    return outcome


def _narrowed(matrix: Matrix, source: str, repeats: int | None, judges: list[str] | None) -> Matrix:
    """The matrix with fewer repeats or only the named judges (labels), for a quicker check."""
    update: dict[str, Any] = {}
    if repeats is not None:
        update["repeats"] = repeats
    if judges:
        labels = [matrix.judge_label(i) for i in range(len(matrix.judges))]
        problems = [
            Problem("--judge", unknown_name("judge", j, labels, "in the matrix"))
            for j in judges
            if j not in labels
        ]
        problems += [Problem("--judge", why) for why in each_given_twice("judge", judges)]
        if problems:
            raise MatrixError(source, problems)
        kept = [spec for spec, label in zip(matrix.judges, labels, strict=True) if label in judges]
        update["judges"] = [
            spec if spec.label else spec.model_copy(update={"label": spec.id}) for spec in kept
        ]
    return matrix.model_copy(update=update) if update else matrix


def rebuild_pairs_outputs(parent: str | Path) -> Path:
    """Every aspect run's outputs and the pairs summary, from the databases (no model call)."""
    parent = Path(parent)
    for sub in sorted(p.parent for p in parent.glob(f"*/{DB_NAME}")):
        rebuild_outputs(sub)
    write_pairs_outcome(parent)
    return parent / "pairs_summary.md"
