"""What the view reads of ``run.sqlite``: read-only SQL, one page at a time.

A metric's cells (sample × configuration, repeats folded into mean, SD and status counts) come
from one GROUP BY over the scores table and are kept per metric for the life of the server, a
few numbers per cell, with each sample's disagreement and instability over all configurations;
``fold`` computes them for every metric before the server answers, so no request waits for the
GROUP BY (a second or more on 200,000 score rows). Texts (answers, details, prompts and
replies) are read per sample, when the browser asks for that sample.

A criterion of the user's own is a metric here too, with two more things per cell: its wording
(a coordinate of the grid like the judge: each wording its own column, or the wordings folded
into one cell per configuration) and the judge's answers (how many repeats answered each label,
level, pass or fail) beside the weighting each repeat got (log-probabilities or missing).
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgegrid.analyses import categories, category_names
from judgegrid.calls.embedder import truncate_and_normalise
from judgegrid.core.criterion import CriterionSpec
from judgegrid.core.digest import text_sha
from judgegrid.core.errors import OptionError, Problem
from judgegrid.core.sample import Sample
from judgegrid.inputs.probes import PROBES
from judgegrid.metrics.response_relevancy import cosine_similarities
from judgegrid.store.database import open_read_only

CONFIG_COLUMNS = ["judge", "embedding", "dimension", "strictness", "wording"]
SORTS = ("disagreement", "instability", "wording", "id")
STATUSES = ("scored", "failed", "skipped")
FOLDS = ("wording",)  # what the Samples grid may fold into one cell beside the repeats
PER_PAGE_MAX = 200
CALLS_PER_PAGE = 20
NEEDLE_CHARS = 60  # how much of a sample's text identifies its prompts in the calls table


def config_key(
    judge: str, embedding: str, dimension: int, strictness: int, wording: int = 0
) -> str:
    """A configuration as one string: the columns of the grid, the ``a``/``b`` of a comparison.
    A criterion's other wordings end in ``|k``; its definition (wording 0) and every built-in
    metric's configuration keep the four parts they always had."""
    key = f"{judge}|{embedding}|{int(dimension)}|{int(strictness)}"
    return f"{key}|{int(wording)}" if wording else key


def config_label(
    judge: str, embedding: str, dimension: int, strictness: int, wording: int | None = None
) -> str:
    """'a · bow@64 · s=3'; with ``wording`` (a criterion with several): '… · definition' or
    '… · wording k'; ``wording`` -1: the wordings folded, '… · all wordings'."""
    parts = [judge]
    if embedding:
        parts.append(f"{embedding}@{dimension}" if dimension else embedding)
    if strictness:
        parts.append(f"s={strictness}")
    if wording is not None:
        parts.append(wording_name(wording))
    return " · ".join(parts)


def wording_name(wording: int) -> str:
    """How the view names a criterion's wording: its definition, or its k-th other wording."""
    if wording < 0:
        return "all wordings"
    return "definition" if wording == 0 else f"wording {wording}"


def answer_names(spec: CriterionSpec) -> dict[float, str]:
    """Each category's score -> the answer as the judge gives it (pass, a label, a level)."""
    return dict(zip(categories(spec), category_names(spec), strict=True))


def answer_name(spec: CriterionSpec, value: float | None) -> str | None:
    """The answer whose score is ``value`` (None for none; the number itself for no answer's)."""
    if value is None or pd.isna(value):
        return None
    for score, name in answer_names(spec).items():
        if math.isclose(score, float(value), abs_tol=1e-9):
            return name
    return f"{float(value):g}"


Counts = dict[float, int]  # a cell's answers: category score -> repeats that gave it


@dataclass
class Filters:
    """A Samples page request, checked (``app.parse_filters`` refuses anything else)."""

    metric: str
    sort: str = "disagreement"
    judges: tuple[str, ...] = ()
    embeddings: tuple[str, ...] = ()
    wordings: tuple[int, ...] = ()  # a criterion's wordings shown (none: all)
    fold: str = ""  # "wording": a configuration's wordings folded into one cell
    language: str = ""
    status: str = ""
    text: str = ""
    page: int = 1
    per_page: int = 50


@dataclass
class RunView:
    """One run database, opened read-only, and the samples of the run (as the label page keeps
    them). ``cells`` caches each metric's folded cells. ``metrics`` holds the built-in metrics,
    then the criteria (``criteria``: the run's, by name)."""

    database: Path
    samples: dict[str, Sample]
    metrics: list[str]
    embedding_models: dict[str, str]  # embedding label -> model id (for the stored vectors)
    criteria: dict[str, CriterionSpec] = field(default_factory=dict)
    _db: sqlite3.Connection = field(init=False)
    _cells: dict[str, pd.DataFrame] = field(default_factory=dict, init=False)
    _answers: dict[str, pd.DataFrame] = field(default_factory=dict, init=False)
    _ranked: dict[str, pd.DataFrame] = field(default_factory=dict, init=False)
    _configs: dict[str, pd.DataFrame] = field(default_factory=dict, init=False)
    _judges: list[str] | None = field(default=None, init=False)
    _embeddings: list[str] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._db = open_read_only(self.database, check_same_thread=False)

    def close(self) -> None:
        self._db.close()

    # -- the grid ------------------------------------------------------------------------------

    def wordings(self, metric: str) -> int:
        """How many wordings ``metric`` has: a criterion's definitions, 1 for a built-in one."""
        spec = self.criteria.get(metric)
        return len(spec.definitions) if spec is not None else 1

    def cells(self, metric: str) -> pd.DataFrame:
        """Each (sample, configuration) of ``metric``: repeats, scored/failed/skipped, mean and
        SD of the scored repeats (SD: n-1, None below two), the repeats weighted by
        log-probabilities and those that asked and got none (a criterion's; 0 for a metric)."""
        if metric not in self._cells:
            weighted = (
                " TOTAL(status = 'scored' AND weighting = 'logprobs') AS logprobs,"
                " TOTAL(status = 'scored' AND weighting = 'missing') AS missing"
                if metric in self.criteria
                else " 0 AS logprobs, 0 AS missing"  # a built-in metric is never weighted
            )
            frame = pd.read_sql_query(
                "SELECT sample_id, judge, embedding, dimension, strictness, wording,"
                " COUNT(*) AS n, SUM(status = 'scored') AS scored,"
                " SUM(status = 'failed') AS failed, SUM(status = 'skipped') AS skipped,"
                " AVG(CASE WHEN status = 'scored' THEN score END) AS mean,"
                " AVG(CASE WHEN status = 'scored' THEN score * score END) AS square,"
                + weighted
                + " FROM scores WHERE metric = ?"
                " GROUP BY sample_id, judge, embedding, dimension, strictness, wording",
                self._db,
                params=(metric,),
            )
            self._cells[metric] = with_spread(frame)
        return self._cells[metric]

    def answers(self, metric: str) -> pd.DataFrame:
        """A criterion's scored answers counted per (sample, configuration, wording, answer):
        what the grid shows of each cell beside the mean (empty for a built-in metric)."""
        if metric not in self._answers:
            columns = ["sample_id", *CONFIG_COLUMNS, "answer", "count"]
            frame = pd.DataFrame(columns=columns)
            if metric in self.criteria:
                frame = pd.read_sql_query(
                    "SELECT sample_id, judge, embedding, dimension, strictness, wording, answer,"
                    " COUNT(*) AS count FROM scores"
                    " WHERE metric = ? AND status = 'scored' AND answer IS NOT NULL"
                    " GROUP BY sample_id, judge, embedding, dimension, strictness, wording,"
                    " answer",
                    self._db,
                    params=(metric,),
                )
            self._answers[metric] = frame
        return self._answers[metric]

    def ranked(self, metric: str) -> pd.DataFrame:
        """``rank_samples`` over all of ``metric``'s configurations (the unfiltered grid),
        kept like the cells."""
        if metric not in self._ranked:
            self._ranked[metric] = rank_samples(self.cells(metric))
        return self._ranked[metric]

    def fold(self) -> None:
        """Fold every metric's cells, rank its samples (a criterion's answers counted too) and read
        the judges and embedding models now, at start-up, so the first Samples page is answered
        from memory."""
        for metric in self.metrics:
            self.ranked(metric)
            self.configs(metric)
            self.answers(metric)
        self.judges()
        self.embeddings()
        if self.metrics:  # the page the app opens on, once: what pandas loads on first use too
            self.samples_page(Filters(metric=self.metrics[0]))

    def configs(self, metric: str) -> pd.DataFrame:
        """The configurations of ``metric`` in a stable order, one row each (kept: every
        Samples page names them)."""
        if metric not in self._configs:
            self._configs[metric] = ordered_configs(self.cells(metric))
        return self._configs[metric]

    def last_labelled(self) -> float | None:
        """When the newest label was given (None: no label): read at each visit, since the
        labelling page beside the view writes labels while it serves."""
        row = self._db.execute("SELECT MAX(labelled_at) FROM labels").fetchone()
        return float(row[0]) if row and row[0] is not None else None

    def judges(self) -> list[str]:
        """The run's judges, read once: every Samples request checks its filter against
        them, and the DISTINCT scans the whole scores table."""
        if self._judges is None:
            rows = self._db.execute("SELECT DISTINCT judge FROM scores ORDER BY 1")
            self._judges = [r[0] for r in rows]
        return self._judges

    def embeddings(self) -> list[str]:
        """The run's embedding models, read once (as ``judges``)."""
        if self._embeddings is None:
            rows = self._db.execute("SELECT DISTINCT embedding FROM scores ORDER BY 1")
            self._embeddings = [r[0] for r in rows if r[0]]
        return self._embeddings

    def languages(self) -> list[str]:
        return sorted({s.language for s in self.samples.values() if s.language})

    def matching_text(self, text: str) -> set[str]:
        """Ids of the samples whose id or any text holds ``text`` (case-insensitive)."""
        needle = text.casefold()
        return {
            sample_id
            for sample_id, sample in self.samples.items()
            if needle in sample_id.casefold() or any(needle in t.casefold() for t in _texts(sample))
        }

    def samples_page(self, filters: Filters) -> dict[str, Any]:
        """One page of the Samples grid: rows of samples in the chosen order, a cell per
        configuration, and the total, so the browser never holds the whole run."""
        cells = self.cells(filters.metric)
        if filters.judges:
            cells = cells[cells["judge"].isin(filters.judges)]
        if filters.embeddings:
            cells = cells[cells["embedding"].isin(filters.embeddings)]
        if filters.wordings:
            cells = cells[cells["wording"].isin(filters.wordings)]
        if filters.fold == "wording":
            gaps = wording_gaps(cells)  # measured before the wordings are folded
            cells = fold_wordings(cells)
        narrowed = filters.judges or filters.embeddings or filters.wordings or filters.fold
        ranked = rank_samples(cells) if narrowed else self.ranked(filters.metric)
        if filters.fold == "wording":
            ranked = ranked.assign(wording=ranked["sample_id"].map(gaps))
        keep = pd.Series(True, index=ranked.index)
        if filters.language:
            languages = {k: s.language or "" for k, s in self.samples.items()}
            keep &= ranked["sample_id"].map(languages).eq(filters.language)
        if filters.status == "scored":
            keep &= ranked["failed"].eq(0) & ranked["skipped"].eq(0)
        elif filters.status:
            keep &= ranked[filters.status].gt(0)
        if filters.text:
            keep &= ranked["sample_id"].isin(self.matching_text(filters.text))
        ranked = sort_samples(ranked[keep], filters.sort)
        total = len(ranked)
        pages = max(1, math.ceil(total / filters.per_page))
        if filters.page > pages:
            raise past_the_last("page", filters.page, pages)
        start = (filters.page - 1) * filters.per_page
        shown = ranked.iloc[start : start + filters.per_page]
        if filters.fold:
            columns = ordered_configs(cells)
        else:
            columns = self.configs(filters.metric)
            columns = columns[columns["config"].isin(cells["config"].unique())]
        shown_cells = cells[cells["sample_id"].isin(shown["sample_id"])]
        by_cell = {
            (str(record["sample_id"]), str(record["config"])): record
            for record in shown_cells.to_dict("records")
        }
        spec = self.criteria.get(filters.metric)
        given = self._given(filters, set(shown["sample_id"])) if spec is not None else {}
        several = self.wordings(filters.metric) > 1
        return {
            "metric": filters.metric,
            "total": total,
            "page": filters.page,
            "pages": pages,
            "per_page": filters.per_page,
            "columns": column_entries(columns, several),
            "rows": [
                {
                    "id": sample_id,
                    "question": _excerpt(self.samples.get(sample_id)),
                    "probe": probe_mark(self.samples.get(sample_id)),
                    "language": getattr(self.samples.get(sample_id), "language", None),
                    "disagreement": json_number(disagreement),
                    "instability": json_number(instability),
                    "wording_gap": json_number(gap),
                    "cells": [
                        _cell(by_cell, sample_id, key, spec, given) for key in columns["config"]
                    ],
                }
                for sample_id, disagreement, instability, gap in zip(
                    shown["sample_id"].astype(str),
                    shown["disagreement"],
                    shown["instability"],
                    shown["wording"],
                    strict=True,
                )
            ],
        }

    def _given(self, filters: Filters, shown: set[str]) -> dict[tuple[str, str], Counts]:
        """The answers of the shown samples' cells, counted per (sample, configuration), under
        the page's filters (folded: each configuration's wordings counted together)."""
        frame = self.answers(filters.metric)
        frame = frame[frame["sample_id"].isin(shown)]
        if filters.judges:
            frame = frame[frame["judge"].isin(filters.judges)]
        if filters.wordings:
            frame = frame[frame["wording"].isin(filters.wordings)]
        if filters.fold == "wording":
            frame = frame.assign(wording=-1)
        given: dict[tuple[str, str], Counts] = {}
        columns = [frame[c].tolist() for c in ["sample_id", *CONFIG_COLUMNS, "answer", "count"]]
        for sample_id, j, e, d, s, w, answer, count in zip(*columns, strict=True):
            counts = given.setdefault((str(sample_id), config_key(j, e, d, s, w)), {})
            counts[float(answer)] = counts.get(float(answer), 0) + int(count)
        return given

    # -- one sample ----------------------------------------------------------------------------

    def sample_cells(self, sample_id: str, metric: str) -> list[dict[str, Any]]:
        """Every repeat of every configuration of one sample and metric, with its details."""
        rows = self._db.execute(
            "SELECT judge, embedding, dimension, strictness, wording, repeat, status, score,"
            " answer, weighting, reason, error, details, calls, tokens_in, tokens_out, cost,"
            " latency_s FROM scores WHERE metric = ? AND sample_id = ?"
            " ORDER BY judge, embedding, dimension, strictness, wording, repeat",
            (metric, sample_id),
        ).fetchall()
        spec = self.criteria.get(metric)
        several = self.wordings(metric) > 1
        return [
            {
                "config": config_key(j, e, d, s, w),
                "label": config_label(j, e, d, s, w if several else None),
                "judge": j,
                "embedding": e,
                "dimension": d,
                "strictness": s,
                "wording": w,
                "repeat": r,
                "status": status,
                "score": score,
                "answer": answer_name(spec, answer) if spec is not None else None,
                "weighting": weighting,
                "reason": reason,
                "error": error,
                "details": json.loads(details) if details else None,
                "calls": calls,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "cost": cost,
                "latency_s": latency,
            }
            for (j, e, d, s, w, r, status, score, answer, weighting, reason, error, details,
                 calls, tokens_in, tokens_out, cost, latency) in rows
        ]  # fmt: skip

    def has_sample(self, sample_id: str) -> bool:
        return sample_id in self.samples

    def cosines(self, embedding: str, dimension: int, anchor: str, texts: list[str]) -> list[Any]:
        """cos(E(anchor), E(text)) from the vectors the run stored, None where one is missing
        (the figures ResponseRelevancy averaged)."""
        model = self.embedding_models.get(embedding)
        if model is None or not texts:
            return [None] * len(texts)
        wanted = [anchor, *texts]
        vectors = self._vectors(model, dimension, wanted)
        if anchor not in vectors:
            return [None] * len(texts)
        return [
            float(cosine_similarities(vectors[anchor], vectors[t][None, :])[0])
            if t in vectors
            else None
            for t in texts
        ]

    def _vectors(self, model: str, dimension: int, texts: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for requested in (dimension, 0):
            for text in texts:
                if text in found:
                    continue
                row = self._db.execute(
                    "SELECT vector FROM embeddings WHERE model = ? AND dimension = ?"
                    " AND text_sha = ?",
                    (model, requested, text_sha(text)),
                ).fetchone()
                if row is None:
                    continue
                vector = np.frombuffer(row[0], dtype=np.float32)
                if requested == 0 and dimension and dimension <= len(vector):
                    vector = truncate_and_normalise(vector, dimension)[0]
                found[text] = vector
        return found

    def calls(self, sample_id: str, judge: str, page: int) -> dict[str, Any]:
        """A page of the judge's calls whose prompt holds this sample's question, response or
        first context (calls are keyed by content, not by sample), oldest first."""
        sample = self.samples[sample_id]
        needles = [n for n in (_needle(t) for t in _texts(sample)[:3]) if n][:3] or [sample_id]
        where = " OR ".join("instr(c.request, ?) > 0" for _ in needles)
        total = self._db.execute(
            f"SELECT COUNT(*) FROM calls c WHERE c.label = ? AND ({where})", (judge, *needles)
        ).fetchone()[0]
        pages = max(1, math.ceil(total / CALLS_PER_PAGE))
        if page > pages:
            raise past_the_last("page", page, pages)
        rows = self._db.execute(
            "SELECT c.id, n.step, c.model, c.attempt, c.status, c.http_status, c.error,"
            " c.finish_reason, c.request, c.response, c.tokens_in, c.tokens_out, c.cost,"
            " c.latency_s FROM calls c LEFT JOIN step_names n ON n.key = c.step_key"
            f" WHERE c.label = ? AND ({where}) ORDER BY c.id LIMIT ? OFFSET ?",
            (judge, *needles, CALLS_PER_PAGE, (page - 1) * CALLS_PER_PAGE),
        ).fetchall()
        names = ["id", "step", "model", "attempt", "status", "http_status", "error"]
        names += ["finish_reason", "request", "response", "tokens_in", "tokens_out", "cost"]
        names += ["latency_s"]
        return {
            "judge": judge,
            "total": total,
            "page": page,
            "pages": pages,
            "calls": [dict(zip(names, row, strict=True)) for row in rows],
        }


def past_the_last(name: str, number: int, last: int) -> OptionError:
    """A page asked for beyond the last that exists (the server answers it with a 400)."""
    return OptionError(name, [Problem("", f"{number} is past the last page ({last})")])


def wording_gaps(cells: pd.DataFrame) -> pd.Series:
    """Per sample: the largest gap between two wordings' means of one configuration (a
    criterion's answer moving with its wording); NaN where no configuration has two wordings
    scored (a built-in metric, a criterion of one wording, the wordings folded)."""
    if not cells["wording"].gt(0).any():  # one wording (every built-in metric): no GROUP BY
        return pd.Series(dtype=float, index=pd.Index([], name="sample_id"))
    per = cells.groupby(["sample_id", *CONFIG_COLUMNS[:-1]])["mean"]
    gap = (per.max() - per.min()).where(per.count() >= 2)
    return gap.groupby(level="sample_id").max()


def rank_samples(cells: pd.DataFrame) -> pd.DataFrame:
    """Per sample: disagreement (largest gap between two judges' means over their
    configurations), instability (the largest SD of repeats of any configuration), wording
    (``wording_gaps``) and status counts. NaN where it cannot be measured (one judge; fewer
    than two scored repeats; fewer than two wordings)."""
    if cells.empty:
        columns = ["sample_id", "disagreement", "instability", "wording", "failed", "skipped"]
        return pd.DataFrame(columns=[*columns, "scored"])
    by_judge = cells.groupby(["sample_id", "judge"])["mean"].mean()
    grouped = by_judge.groupby(level="sample_id")
    spread = grouped.max() - grouped.min()
    judges = by_judge.notna().groupby(level="sample_id").sum()
    spread = spread.where(judges >= 2)
    frame = cells.groupby("sample_id").agg(
        instability=("sd", "max"),
        failed=("failed", "sum"),
        skipped=("skipped", "sum"),
        scored=("scored", "sum"),
    )
    frame["disagreement"] = spread
    frame["wording"] = wording_gaps(cells)
    return frame.reset_index()


def sort_samples(frame: pd.DataFrame, sort: str) -> pd.DataFrame:
    """Largest first (unmeasurable last), ties and ``id`` by sample id."""
    if sort == "id":
        return frame.sort_values("sample_id", kind="stable")
    ordered = frame.sort_values("sample_id", kind="stable")
    return ordered.sort_values(sort, ascending=False, na_position="last", kind="stable")


def with_spread(frame: pd.DataFrame) -> pd.DataFrame:
    """The cells with the SD of their scored repeats (from the mean of squares; n-1, None
    below two) and their configuration's key. ``square`` is kept: folding needs it."""
    k = frame["scored"].astype(float)
    variance = (frame["square"] - frame["mean"] ** 2).clip(lower=0) * k / (k - 1)
    frame["sd"] = np.sqrt(variance.where(k >= 2))
    frame["config"] = [
        config_key(*row) for row in frame[CONFIG_COLUMNS].itertuples(index=False, name=None)
    ]
    return frame


def fold_wordings(cells: pd.DataFrame) -> pd.DataFrame:
    """Each configuration's wordings as one cell (wording -1): its repeats under every wording
    pooled, so the SD is the spread over wordings and repeats together."""
    if cells.empty:
        return cells
    keys = ["sample_id", *CONFIG_COLUMNS[:-1]]
    scored = cells["scored"].astype(float)
    pooled = cells.assign(
        total=cells["mean"].fillna(0) * scored, squares=cells["square"].fillna(0) * scored
    )
    sums = ["n", "scored", "failed", "skipped", "logprobs", "missing", "total", "squares"]
    frame = pooled.groupby(keys, as_index=False)[sums].sum()
    k = frame["scored"].astype(float)
    frame["mean"] = (frame.pop("total") / k).where(k > 0)
    frame["square"] = (frame.pop("squares") / k).where(k > 0)
    frame["wording"] = -1
    return with_spread(frame)


def column_entries(columns: pd.DataFrame, several: bool) -> list[dict[str, Any]]:
    """The configurations of ``columns`` (``ordered_configs``) as the pages name them: key,
    label (with the wording where the criterion has ``several``), judge and wording."""
    return [
        {
            "key": key,
            "label": config_label(j, e, d, s, w if several else None),
            "judge": j,
            "wording": int(w),
        }
        for j, e, d, s, w, key in zip(
            *(columns[c].tolist() for c in [*CONFIG_COLUMNS, "config"]), strict=True
        )
    ]


def probe_mark(sample: Sample | None) -> dict[str, str] | None:
    """What marks a probe's row (None for a user's sample): the probe, its kind (a robustness
    probe must not score better than its base, a directional one must score worse) and the
    sample it changed."""
    if sample is None or sample.probe is None:
        return None
    tag = sample.probe
    return {"name": tag.name, "kind": PROBES[tag.name].kind, "base": tag.base}


def ordered_configs(cells: pd.DataFrame) -> pd.DataFrame:
    """The configurations of ``cells``, one row each, in the grid's order."""
    frame = cells[[*CONFIG_COLUMNS, "config"]].drop_duplicates("config")
    return frame.sort_values(CONFIG_COLUMNS).reset_index(drop=True)


def _cell(
    by_cell: dict[tuple[str, str], dict[Any, Any]],
    sample_id: str,
    key: str,
    spec: CriterionSpec | None = None,
    given: dict[tuple[str, str], Counts] | None = None,
) -> dict[str, Any] | None:
    row = by_cell.get((sample_id, key))
    if row is None:
        return None
    cell = {
        "mean": json_number(row["mean"]),
        "sd": json_number(row["sd"]),
        "n": int(row["n"]),
        "scored": int(row["scored"]),
        "failed": int(row["failed"]),
        "skipped": int(row["skipped"]),
    }
    if spec is not None:
        cell |= criterion_cell(spec, (given or {}).get((sample_id, key), {}), row)
    return cell


def criterion_cell(spec: CriterionSpec, counts: Counts, row: dict[Any, Any]) -> dict[str, Any]:
    """What a criterion's cell shows beside its mean: each answer given with its count (in the
    criterion's order), the modal answer (None on a tie: no single answer, the analyses' rule),
    and how many scored repeats were weighted by log-probabilities or asked for them in vain."""
    ordered = sorted(counts.items())
    top = max(counts.values(), default=0)
    modes = [value for value, k in ordered if k == top]
    return {
        "answers": [[answer_name(spec, value), k] for value, k in ordered],
        "answer": answer_name(spec, modes[0]) if len(modes) == 1 else None,
        "logprobs": int(row.get("logprobs") or 0),
        "missing": int(row.get("missing") or 0),
    }


def json_number(value: Any) -> float | None:
    """A mean as JSON holds it: rounded, and None where pandas has NaN (JSON has no NaN)."""
    return None if value is None or pd.isna(value) else round(float(value), 4)


def _texts(sample: Sample) -> list[str]:
    return [
        t
        for t in (sample.user_input, sample.response, *(sample.retrieved_contexts or []),
                  sample.reference)
        if t
    ]  # fmt: skip


def _excerpt(sample: Sample | None) -> str:
    return ((sample.user_input or "") if sample else "")[:160]


def _needle(text: str) -> str:
    """The start of ``text`` up to its first character that JSON would escape (the prompt is
    stored as JSON, sometimes JSON within JSON): a plain substring of any stored request."""
    cut = len(text)
    for i, char in enumerate(text):
        if char in "\"\\<>&'" or not (" " <= char <= "~"):
            cut = i
            break
    needle = text[: min(cut, NEEDLE_CHARS)]
    return needle if len(needle) >= 12 else ""
