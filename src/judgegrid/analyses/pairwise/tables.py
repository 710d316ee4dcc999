"""A run's pairwise criteria (``type: pairwise``) through ``pairwise.verdicts``, one criterion at
a time, into the tables the report writes and the card's evidence.

A pairwise criterion's cell is one pair (a sample) judged in both orders
(``metrics.pairwise.PairwiseMetric``); its score row's details keep each order's verdict.
``verdict_rows`` reads them back as one row per order, the table every function of
``pairwise.verdicts`` takes. Rules stated once here:

- **which rows**: wording 0 (the criterion as defined), the lowest scored repeat of each cell
  (a pair's verdict is not averaged over repeats: a category cannot be); a failed or skipped
  cell gives no verdict in either order, so its pair has no combined verdict;
- **the people's preference of a pair**: the modal label of its annotators (a, b or tie in the
  pair's terms, ``criteria.people_answers``; a tie between labels leaves the pair out);
- **probes** (``inputs.pairwise``' injection and verbosity on a sample): each probe's base is
  the sample it was made from, its worse answer the one the data set's people did not prefer;
- **systems**: what wrote answers a and b, as the cell recorded them (``details.systems``);
- **the combination rule**: the criterion's ``combine`` (MT-Bench's by default, or JudgeBench's
  sum) makes the combined verdict every table and the card read; ``pairwise_rules`` gives the
  accuracy under both rules side by side, and ``pairwise_groups`` the same per group of pairs
  where the samples carry one (``sample_info[id]["group"]``: an imported benchmark's category).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from judgegrid.analyses.frames.criteria import (
    Criteria,
    category_names,
    definition_rows,
    details_of,
    people_answers,
)
from judgegrid.analyses.frames.juries import jury_rows
from judgegrid.analyses.pairwise import verdicts as pairwise
from judgegrid.analyses.validity.criteria import PeopleRight, weighted_right
from judgegrid.analyses.validity.true_score import drawn_of, pairwise_true_scores
from judgegrid.core.pairwise import COMBINE_RULES, ORDERS, Combine

TABLES = (
    "pairwise_position",
    "pairwise_combined",
    "pairwise_validity",
    "pairwise_rules",
    "pairwise_groups",
    "pairwise_comparisons",
    "pairwise_probes",
    "pairwise_win_rates",
    "pairwise_rankings",
    "pairwise_true_score",
)
VERDICT_COLUMNS = ["metric", *pairwise.VERDICT_COLUMNS]
PEOPLE_COLUMNS = ["metric", "pair", "preferred"]


def pairwise_criteria(criteria: Criteria) -> dict[str, Any]:
    """The run's criteria of type pairwise, by name."""
    return {name: spec for name, spec in criteria.items() if spec.type == "pairwise"}


def judged_rows(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """The scored cells of the pairwise criteria on wording 0, the lowest repeat of each
    (probes' cells too; juries' rows left out: a jury's verdicts are voted per order here)."""
    names = set(pairwise_criteria(criteria))
    if scores.empty or not names:
        return scores.iloc[0:0]
    rows = definition_rows(scores)
    rows = rows[rows["metric"].isin(names) & (rows["status"] == "scored")]
    rows = rows[~jury_rows(rows["judge"])]
    return rows.sort_values("repeat", kind="stable").drop_duplicates(
        ["metric", "judge", "sample_id"], keep="first"
    )


def judged_cells(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """``judged_rows`` with what the tables read from each cell's details, read once: the
    winner of each order (columns ``ab`` and ``ba``, None where the order has none) and the
    systems (``system_a`` and ``system_b``: what wrote each answer, None where the details do
    not name two)."""
    rows = judged_rows(scores, criteria)
    read = _read_details(rows["details"])
    return rows.drop(columns="details").assign(**{c: read[c] for c in (*ORDERS, *SYSTEMS)})


SYSTEMS = ("system_a", "system_b")
# the fields of a pairwise cell's details the tables read, for pyarrow's JSON reader
_DETAILS_SCHEMA = pa.schema(
    [
        ("orders", pa.struct([(o, pa.struct([("winner", pa.string())])) for o in ORDERS])),
        ("systems", pa.list_(pa.string())),
    ]
)


def _read_details(details: pd.Series) -> dict[str, Any]:
    """Each cell's winners and systems from its details (JSON text, or a dict). Half a million
    cells are read by pyarrow's JSON reader as one document of lines (a second, where
    ``json.loads`` a cell took twenty), their text never a Python string; details it cannot
    read so (not JSON text, a winner that is no text) are read one by one, as ``details_of``
    reads them."""
    document = _json_lines(details)
    if document is not None:
        options = pa_json.ParseOptions(
            explicit_schema=_DETAILS_SCHEMA, unexpected_field_behavior="ignore"
        )
        try:
            table = pa_json.read_json(pa.BufferReader(document), parse_options=options)
        except pa.ArrowInvalid:
            pass
        else:
            orders = table.column("orders")
            read: dict[str, Any] = {
                o: pd.array(pc.struct_field(orders, [o, "winner"]), dtype="str") for o in ORDERS
            }
            return read | _arrow_systems(table.column("systems").combine_chunks())
    return _details_one_by_one(details.to_numpy(object))


def _json_lines(details: pd.Series) -> pa.Buffer | None:
    """The cells' details as one document, a line each, made by Arrow from the column's own
    text; None where a cell is not text, is empty or holds a line break (a line a cell is
    then not a cell a line)."""
    try:
        texts = pa.array(details.array, type=pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if texts.null_count or pc.any(pc.equal(pc.binary_length(texts), 0)).as_py():
        return None
    newline = pa.scalar("\n", pa.large_string())
    lines = pc.binary_join_element_wise(texts, pa.scalar("", pa.large_string()), newline)
    bounds = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset :][[0, len(lines)]]
    document = lines.buffers()[2][bounds[0] : bounds[1]]
    breaks = np.count_nonzero(np.frombuffer(document, dtype=np.uint8) == ord("\n"))
    return document if breaks == len(texts) else None


def _details_one_by_one(texts: np.ndarray) -> dict[str, Any]:
    """``_read_details`` of details Arrow cannot read as lines, a cell at a time."""
    details = [details_of(t) for t in texts]
    out: dict[str, list[Any]] = {o: [] for o in ORDERS}
    for found in details:
        orders = found.get("orders")
        for order in ORDERS:
            given = orders.get(order) if isinstance(orders, dict) else None
            out[order].append(given.get("winner") if isinstance(given, dict) else None)
    named = [_two_systems(found.get("systems")) for found in details]
    return out | {s: [n[k] if n else None for n in named] for k, s in enumerate(SYSTEMS)}


def _two_systems(systems: Any) -> tuple[str, str] | None:
    """What wrote answers a and b, where a cell's ``systems`` names two (as text)."""
    if isinstance(systems, list) and len(systems) == 2:
        return str(systems[0]), str(systems[1])
    return None


def _arrow_systems(systems: pa.Array) -> dict[str, pd.api.extensions.ExtensionArray]:
    """``_two_systems`` of each cell, from the column of lists pyarrow read (a missing name
    reads "None", as ``str`` writes it), without a Python object a cell."""
    two = pc.fill_null(pc.equal(pc.list_value_length(systems), 2), False)
    named = pc.if_else(two, systems, pa.scalar(None, systems.type))
    unnamed = pa.scalar(None, pa.string())
    return {
        name: pd.array(
            pc.if_else(two, pc.fill_null(pc.list_element(named, k), "None"), unnamed),
            dtype="str",
        )
        for k, name in enumerate(SYSTEMS)
    }


def verdict_rows(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """One row per pairwise criterion, judge, pair and order: the winner in the pair's terms
    (``VERDICT_COLUMNS``), read from each cell's details."""
    return cell_verdicts(judged_cells(scores, criteria))


def cell_verdicts(cells: pd.DataFrame) -> pd.DataFrame:
    """``verdict_rows`` of ``judged_cells``' table."""
    keys = cells[["metric", "judge", "sample_id"]].rename(columns={"sample_id": "pair"})
    each = [
        keys.assign(order=order, winner=cells[order].array, at=2 * np.arange(len(cells)) + k)
        for k, order in enumerate(ORDERS)
    ]
    rows = pd.concat(each, ignore_index=True).sort_values("at", kind="stable")
    rows = rows[rows["winner"].notna().to_numpy(bool)]
    return rows[VERDICT_COLUMNS].reset_index(drop=True)


def cell_systems(cells: pd.DataFrame) -> pd.DataFrame:
    """Per criterion and pair: what wrote answers a and b (``metric, pair, system_a,
    system_b``), as its first cell (``judged_cells``) that names them recorded them."""
    named = cells[cells["system_a"].notna().to_numpy(bool)]
    named = named.drop_duplicates(["metric", "sample_id"], keep="first")
    return pd.DataFrame(
        {
            "metric": named["metric"].array,
            "pair": named["sample_id"].array,
            **{s: named[s].array for s in SYSTEMS},
        },
        columns=["metric", "pair", *SYSTEMS],
    )


def people_preferences(labels: pd.DataFrame | None, criteria: Criteria) -> pd.DataFrame:
    """Per pairwise criterion and pair: the people's modal preference, a, b or tie
    (``PEOPLE_COLUMNS``)."""
    found = pairwise_criteria(criteria)
    answers = people_answers(labels, found)
    if answers.empty:
        return pd.DataFrame(columns=PEOPLE_COLUMNS)
    names = np.empty(len(answers), dtype=object)
    code = answers["code"].to_numpy(int)
    for metric, at in answers.groupby("metric", sort=False).indices.items():
        names[at] = np.asarray(category_names(found[str(metric)]), dtype=object)[code[at]]
    return pd.DataFrame(
        {"metric": answers["metric"], "pair": answers["sample_id"], "preferred": names},
        columns=PEOPLE_COLUMNS,
    )


def probe_rows(
    sample_info: Mapping[str, Mapping[str, Any]], people: pd.DataFrame, criteria: Criteria
) -> pd.DataFrame:
    """Per pairwise criterion's probe: ``metric, pair, base, probe, worse`` (the answer its
    base's people did not prefer; a probe whose base has no such answer is left out)."""
    names = set(pairwise_criteria(criteria))
    preferred = {(m, p): w for m, p, w in people[["metric", "pair", "preferred"]].to_numpy()}
    rows = []
    for sample_id, info in sample_info.items():
        tag = info.get("probe") or {}
        if tag.get("metric") not in names:
            continue
        worse = {"a": "b", "b": "a"}.get(preferred.get((tag["metric"], tag["base"]), ""))
        if worse is not None:
            rows.append(
                {
                    "metric": tag["metric"],
                    "pair": sample_id,
                    "base": tag["base"],
                    "probe": tag["name"],
                    "worse": worse,
                }
            )
    return pd.DataFrame(rows, columns=["metric", "pair", "base", "probe", "worse"])


def group_rows(sample_info: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """``pair, group``: each sample's group where its info names one (an imported benchmark's
    category), for ``pairwise_groups``."""
    rows = [
        {"pair": sid, "group": str(info["group"])}
        for sid, info in sample_info.items()
        if info.get("group") not in (None, "")
    ]
    return pd.DataFrame(rows, columns=["pair", "group"])


def probe_ids(sample_info: Mapping[str, Mapping[str, Any]]) -> set[str]:
    """The samples that are probes (kept out of everything but the probe moves)."""
    return {sid for sid, info in sample_info.items() if info.get("probe")}


@dataclass(frozen=True)
class PairInputs:
    """What one criterion's tables read besides its verdicts: the people's preferences, its
    probes, the systems of its pairs (each without the metric column), the probes' ids, the
    rule that combines a pair's two orders and the pairs' groups (``pair, group``)."""

    people: pd.DataFrame
    probes: pd.DataFrame
    systems: pd.DataFrame
    probed: set[str]
    rule: Combine = "mt-bench"
    groups: pd.DataFrame | None = None
    # the labels' weights (``frames.label_weights.sample_weights``) and what they stand for in
    # words (``sampling_words``): the criterion's own draws weight its people's preferences
    metric: str = ""
    weights: pd.DataFrame | None = None
    sampling: str = ""


def pairwise_run_tables(
    scores: pd.DataFrame,
    labels: pd.DataFrame | None,
    criteria: Criteria,
    sample_info: Mapping[str, Mapping[str, Any]] | None = None,
    panels: Sequence[Sequence[str]] = (),
    weights: pd.DataFrame | None = None,
    sampling: Mapping[str, str] | None = None,
) -> tuple[dict[str, pd.DataFrame], dict[str, PeopleRight]]:
    """Every pairwise table of the run (``TABLES``, each with a ``metric`` column first) and,
    per criterion with people's preferences, the card's evidence (right or wrong per pair and
    judge, the combined verdict against the people's; a tie or no verdict is wrong) with its
    no-information rate. ``scores``: every row, the probes' too; ``labels``: the criteria's
    people's labels (``sample_id, metric, annotator, value``); ``panels``: the juries;
    ``weights``: each labelled pair's (``frames.label_weights.sample_weights``: the criterion
    queue's draws), which the card's evidence and the true score read, ``sampling`` their
    words (None: every pair counts once)."""
    info = sample_info or {}
    found = pairwise_criteria(criteria)
    cells = judged_cells(scores, found)
    verdicts = cell_verdicts(cells)
    people = people_preferences(labels, found)
    probes, systems = probe_rows(info, people, found), cell_systems(cells)
    parts: dict[str, list[pd.DataFrame]] = {name: [] for name in TABLES}
    right: dict[str, PeopleRight] = {}
    for metric in sorted(found):
        mine = verdicts[verdicts["metric"] == metric].drop(columns="metric")
        if mine.empty:
            continue
        inputs = PairInputs(
            people=_of(people, metric),
            probes=_of(probes, metric),
            systems=_of(systems, metric),
            probed=probe_ids(info),
            rule=found[metric].combine,
            groups=group_rows(info),
            metric=metric,
            weights=weights,
            sampling=(sampling or {}).get(metric, ""),
        )
        tables, evidence = criterion_tables(_with_juries(mine, panels), inputs)
        if evidence is not None:
            right[metric] = evidence
        for name, table in tables.items():
            if not table.empty:
                parts[name].append(table.assign(metric=metric)[["metric", *table.columns]])
    return {name: _joined(frames) for name, frames in parts.items()}, right


def _of(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    return table[table["metric"] == metric].drop(columns="metric")


def _with_juries(verdicts: pd.DataFrame, panels: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The verdicts with each jury's, voted per order (``pairwise.jury_verdicts``)."""
    juries = [pairwise.jury_verdicts(verdicts, list(p)) for p in panels if len(p) > 1]
    return pd.concat([verdicts, *[j for j in juries if not j.empty]], ignore_index=True)


def criterion_tables(
    verdicts: pd.DataFrame, inputs: PairInputs
) -> tuple[dict[str, pd.DataFrame], PeopleRight | None]:
    """One criterion's tables from its verdicts (juries' too) and the card's evidence (None
    without people's preferences): the probes' pairs count only in the probe moves."""
    own = verdicts[~verdicts["pair"].isin(inputs.probed)]
    orders = pairwise.order_table(own)  # once: each rule and table combines the same pivot
    each = {way: pairwise.combined_orders(orders, way) for way in COMBINE_RULES}
    both = each[inputs.rule]
    rates = pairwise.win_rates(both, inputs.systems)
    tables = {
        "pairwise_position": pairwise.position_bias(own, orders=orders, both=each["mt-bench"]),
        "pairwise_combined": both,
        "pairwise_win_rates": rates,
        "pairwise_rankings": pairwise.ranking_agreement(rates),
    }
    if not inputs.probes.empty:
        tables["pairwise_probes"] = pairwise.probe_moves(
            pairwise.combined(verdicts, inputs.rule), inputs.probes
        )
    people = inputs.people
    if people.empty:
        return tables, None
    # once a rule: the join of a million verdicts with the people's preferences
    merged = {way: pairwise.with_people(table, people) for way, table in each.items()}
    right = pairwise.right_table(both, people, merged[inputs.rule])  # the comparisons' and card's
    evidence = None
    if not right.empty:
        judged = people.drop_duplicates("pair").set_index("pair")["preferred"].reindex(right.index)
        labelled = pairwise.category_codes(judged)
        evidence = weighted_right(right, labelled, inputs.weights, inputs.metric)
    weights = None if evidence is None else evidence.weights  # the card's, or None: all 1
    tables["pairwise_validity"] = pairwise.validity(
        both, people, merged[inputs.rule], weights, inputs.sampling
    )
    tables["pairwise_rules"] = pairwise.rule_accuracy(
        own, people, inputs.rule, orders, merged, weights, inputs.sampling
    )
    if inputs.groups is not None and not inputs.groups.empty:
        tables["pairwise_groups"] = pairwise.group_accuracy(
            own, people, inputs.groups, inputs.rule, weights, inputs.sampling
        )
    tables["pairwise_comparisons"] = pairwise.comparisons(
        both, people, right, weights, inputs.sampling
    )
    drawn = drawn_of(inputs.weights, inputs.metric, inputs.sampling)
    tables["pairwise_true_score"] = pairwise_true_scores(both, people, inputs.systems, drawn)
    return tables, evidence


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["metric"])


def position_flag_words(position: pd.DataFrame, metric: str) -> list[str]:
    """The card's flags of a pairwise criterion: each judge whose first-position rate's
    interval excludes 0.5 or whose verdicts survive the swap less than 80% of the time, one
    flag a reason, each naming its judge (the card shows a flag a line)."""
    if position.empty:
        return []
    mine = position[(position["metric"] == metric) & (position["flag"].astype(str) != "")]
    return [
        f"{r['judge']}: {reason}"
        for r in mine.to_dict("records")
        for reason in str(r["flag"]).split(pairwise.FLAG_SEPARATOR)
    ]


def without_pairwise(scores: pd.DataFrame, criteria: Criteria) -> pd.DataFrame:
    """The rows of every metric but the pairwise criteria (whose probes are not pointwise)."""
    names = set(pairwise_criteria(criteria))
    if not names or scores.empty:
        return scores
    return scores[~scores["metric"].isin(names)]
