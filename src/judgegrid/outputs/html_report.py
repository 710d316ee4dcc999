"""The self-contained HTML report: every table and figure of a run in one file.

Figures are embedded as base64 PNG, there is no script and no external resource, and every
string that comes from the data (sample ids and texts, judge labels, error messages) passes
through ``html.escape`` (directly or through ``frame_table``), so a sample that
contains markup is shown as text.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from judgegrid.analyses import (
    NO_VERDICT,
    Analysis,
    by_judge_and_embedding,
    configuration_labels,
    embedding_config,
    weighting_notes,
)
from judgegrid.outputs import plots
from judgegrid.outputs.card_short import count_words, figure_words, flag_list, short_verdict
from judgegrid.outputs.forest import forest_svg, position_block
from judgegrid.outputs.frame_table import frame_table, is_missing
from judgegrid.outputs.heat_table import heat_table
from judgegrid.outputs.markup import esc
from judgegrid.outputs.tables_text import (
    TRUE_SCORE_NOTE,
    accuracy_table,
    both_true_scores,
    true_score_for_display,
    usage_for_display,
)

MAX_ROWS = 200
MAX_AGREEMENT_FIGURES = 4
MAX_SAMPLES = 20  # rows of the least-stable and most-disagreed tables
SECTIONS = {
    "decision": "Decision: which judge, per metric",
    "overview": "Overview",
    "recommendation": "Judges ranked: validity, cost, time",
    "means": "Mean scores: judge × embedding",
    "languages": "By language",
    "stability": "Run-to-run stability",
    "agreement": "Agreement between judges",
    "embeddings": "Agreement between embedding models and dimensions",
    "variance": "Variance components and decision study",
    "strictness": "Strictness trade-off",
    "validity": "Validity: people's labels, preferences and designed contrasts",
    "criteria": "Your criteria: agreement, people, calibration, wording",
    "pairwise": "Pairwise criteria: both orders, position bias, people, win rates",
    "probes": "Probes: copies of the samples made worse in known ways",
    "failures": "Failures",
    "samples": "Least stable samples",
    "disagreed": "Most disagreed samples",
    "methods": "How missing data and uncertainty are handled",
}

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 1.5em;max-width:1200px;color:#222;
overflow-wrap:anywhere}
.wide{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12px;margin:.5em 0;overflow-wrap:normal}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#f3f3f3}.frame .n{text-align:right;white-space:nowrap}
.note{color:#555;font-size:13px}img{max-width:100%}
.decisions{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:1em}
.decision{border:1px solid #ddd;border-radius:6px;padding:.4em .9em}
.decision h3{margin:.3em 0;font-size:16px}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:13px;margin-left:.4em}
.badge.named{background:#1a7f37;color:#fff}.badge.none{background:#eee;color:#555}
.chips{margin:.2em 0 .4em}.chip{display:inline-block;border:1px solid #ccc;border-radius:10px;
padding:0 8px;margin:0 .3em .2em 0;font-size:12px;color:#333}
.chip.flag{border-color:#d4a72c;background:#fff8c5}
.decision details{font-size:13px;color:#333}.decision code{white-space:normal}
.forest{max-width:100%;height:auto}
nav a{margin-right:1em}
.heats{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
.heat caption{font-size:12px;text-align:left;caption-side:top}.heat td{text-align:center}
"""


def frame_html(frame: pd.DataFrame, csv_name: str | None = None, index: bool = False) -> str:
    """An escaped HTML table, cut at MAX_ROWS with a pointer to the full CSV."""
    if frame is None or frame.empty:
        return '<p class="note">(no rows)</p>'
    frame, methods = _split_method_columns(_one_configuration_column(frame))
    body = f'<div class="wide">{frame_table(frame.head(MAX_ROWS), index=index)}</div>'
    note = ""
    if len(frame) > MAX_ROWS:
        note = f"first {MAX_ROWS} of {len(frame)} rows"
    if csv_name:
        note += ("; " if note else "") + f"full table: tables/{esc(csv_name)}.csv"
    method_notes = "".join(f'<p class="note">{esc(m)}</p>' for m in methods)
    return body + (f'<p class="note">{note}</p>' if note else "") + method_notes


COORDINATES = ("judge", "embedding", "dimension", "strictness")


def _one_configuration_column(frame: pd.DataFrame) -> pd.DataFrame:
    """A table's judge, embedding, dimension and strictness as one ``configuration`` column,
    named as the report names a configuration everywhere (``judge / embedding @ dimension
    (s=strictness)``): four columns, two of them empty or 0 on a judge-only metric's rows, made
    the widest tables wider than the page. Only in a table with an embedding and a dimension
    column (the strictness table keeps its axis); one that has the column already (the language
    means) shows it alone."""
    if not {"embedding", "dimension"} <= set(frame.columns):
        return frame
    present = [c for c in COORDINATES if c in frame.columns]
    if "configuration" in frame.columns:
        return frame.drop(columns=present)
    names = _configurations(frame if "strictness" in present else frame.assign(strictness=0))
    at = list(frame.columns).index(present[0])
    merged = frame.drop(columns=present)
    merged.insert(at, "configuration", names)
    return merged


def _configurations(rows: pd.DataFrame) -> list[str]:
    """Each row's configuration (``configuration_labels``); without a judge column, its embedding
    and strictness alone (``(judge only)`` where a metric has no embedding)."""
    if "judge" in rows.columns:
        return configuration_labels(rows)
    embeddings = embedding_config(rows["embedding"], rows["dimension"])
    return [f"{e} (s={s})" if s else e for e, s in zip(embeddings, rows["strictness"], strict=True)]


# Columns of sentences rather than figures, by name: the method a statistic used, or why it is
# undefined on a row; '*missing' columns say how missing data was handled.
NOTE_COLUMNS = {"ci_method": "interval", "method": "method", "note": "note"}


def _split_method_columns(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Columns of sentences (``NOTE_COLUMNS``, missing-data handling) are said under the table
    instead of in it: once when every row says the same, else each sentence once, numbered, the
    cells keeping only its number. The same sentence on every row made each row many lines tall
    and the table wider than the page."""
    notes: list[str] = []
    numbered = 0
    for column in list(frame.columns):
        label = _note_label(column)
        if label is None:
            continue
        texts = [_sentence(value) for value in frame[column]]
        said = list(dict.fromkeys(text for text in texts if text))
        if said and (len(said) > 1 or not all(texts)):
            marks = {text: f"[{numbered + k}]" for k, text in enumerate(said, 1)}
            numbered += len(marks)
            notes += [f"{mark} {label}: {text}" for text, mark in marks.items()]
            frame = frame.assign(**{str(column): [marks.get(text, "") for text in texts]})
        else:  # every row says the same, or none says anything
            notes += [f"{label}: {text}" for text in said]
            frame = frame.drop(columns=column)
    return frame, notes


def _note_label(column: Hashable) -> str | None:
    """How a column of sentences is introduced under its table (None: a column of figures)."""
    name = str(column)
    if name.endswith("missing"):
        prefix = name.removesuffix("missing").rstrip("_")
        return "missing data" + (f" ({prefix})" if prefix else "")
    return NOTE_COLUMNS.get(name)


def _sentence(value: object) -> str:
    return "" if is_missing(value) else str(value)


def image(data: str, alt: str) -> str:
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{data}">'


CONSISTENCY_SECTIONS = (
    "means",
    "languages",
    "stability",
    "agreement",
    "embeddings",
    "variance",
    "samples",
    "disagreed",
)  # drawn from ``bundle.consistency_tables`` alone


def render_sections(
    analysis: Analysis,
    keys: Iterable[str],
    *,
    sample_info: Mapping[str, Mapping[str, Any]],
    metric_titles: Mapping[str, str],
    view_command: str = "",
    overview: list[str] | None = None,
    summary_sections: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, str]:
    """The HTML of the named sections (keys of SECTIONS), each from the tables it shows, so a
    report's sections can be drawn in more than one process."""
    draw: dict[str, Callable[[], str]] = {
        "decision": lambda: _decision(analysis),
        "overview": lambda: (
            _overview(overview or [], summary_sections or {})
            + _usage(analysis.table("usage_by_model"))
        ),
        "recommendation": lambda: _recommendation(analysis),
        "means": lambda: _means(analysis, metric_titles),
        "languages": lambda: _languages(analysis, metric_titles),
        "stability": lambda: _stability(analysis, metric_titles),
        "agreement": lambda: _agreement(analysis, "judge"),
        "embeddings": lambda: _agreement(analysis, "embedding"),
        "variance": lambda: _variance(analysis),
        "strictness": lambda: _strictness(analysis),
        "validity": lambda: _validity(analysis),
        "criteria": lambda: _criteria(analysis),
        "pairwise": lambda: _pairwise(analysis),
        "probes": lambda: _probes(analysis),
        "failures": lambda: (
            frame_html(analysis.table("failures_by_metric"), "failures_by_metric")
            + frame_html(analysis.table("failure_causes"), "failure_causes")
        ),
        "samples": lambda: _samples(analysis, sample_info, view_command),
        "disagreed": lambda: _disagreed(analysis, sample_info, view_command),
        "methods": _methods,
    }
    return {key: draw[key]() for key in keys}


def render(
    analysis: Analysis,
    *,
    title: str,
    overview: list[str],
    summary_sections: Mapping[str, pd.DataFrame],
    sample_info: Mapping[str, Mapping[str, Any]],
    metric_titles: Mapping[str, str],
    view_command: str = "",
    drawn: Mapping[str, str] | None = None,
) -> str:
    """The whole report as one HTML string; ``view_command`` (``judgegrid view RUN_DIR``) is
    given beside each sample worth a look; ``drawn``: sections already rendered
    (``render_sections``), by key."""
    drawn = drawn or {}
    parts = {**drawn}
    parts |= render_sections(
        analysis,
        [key for key in SECTIONS if key not in drawn],
        sample_info=sample_info,
        metric_titles=metric_titles,
        view_command=view_command,
        overview=overview,
        summary_sections=summary_sections,
    )
    nav = " ".join(f'<a href="#{key}">{esc(name)}</a>' for key, name in SECTIONS.items())
    body = "\n".join(
        f'<section id="{key}"><h2>{esc(SECTIONS[key])}</h2>\n{parts[key]}</section>'
        for key in SECTIONS
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><h1>{esc(title)}</h1><nav>{nav}</nav>\n{body}\n</body></html>\n"
    )


def _overview(lines: list[str], sections: Mapping[str, pd.DataFrame]) -> str:
    items = "".join(f"<li>{esc(line.lstrip('- '))}</li>" for line in lines)
    tables = "".join(
        f"<h3>{esc(name)}</h3>" + frame_html(table, index=True) for name, table in sections.items()
    )
    legend = (
        '<p class="note">Cells read "mean ± mean run-to-run SD [failed cells]"; means use scored '
        "cells only.</p>"
    )
    return f"<ul>{items}</ul>{legend}{tables}"


def _usage(table: pd.DataFrame) -> str:
    """Requests, tokens and cost per judge and embedding entry; in batch mode the batch price
    paid beside what the same calls cost live."""
    if table.empty:
        return ""
    note = (
        '<p class="note">Batched requests are paid at litellm\'s batch price; "cost if live" '
        "is what the same calls cost as live calls.</p>"
        if int(table["batched"].sum())
        else ""
    )
    shown = usage_for_display(table)
    return "<h3>Usage and cost by model</h3>" + frame_html(shown, "usage_by_model") + note


def _recommendation(a: Analysis) -> str:
    notes = _notes(a.notes)
    ranking = a.table("judge_ranking")
    figure = ""
    if not ranking.empty:
        png, why_not = plots.pareto_plot(ranking)
        figure = (image(png, "Pareto plot") if png else "") + "".join(
            f'<p class="note">{esc(line)}</p>' for line in why_not
        )
    return notes + frame_html(ranking, "judge_ranking") + figure


def _decision(a: Analysis) -> str:
    """Per metric: the verdict as a badge, its basis and flags as chips, the evidence as a
    forest plot, and the full reason one click away."""
    card = a.card
    if card.empty:
        return '<p class="note">No metric was scored, so there is no decision to make.</p>'
    evidence = a.table("decision_evidence")
    blocks = "".join(
        decision_block(record, _metric_rows(evidence, str(record["metric"])))
        for record in card.to_dict("records")
    )
    return f'<div class="decisions">{blocks}</div><p class="note">{esc(LADDER_NOTE)}</p>'


LADDER_NOTE = (
    "Basis, strongest first: people (labels), preference pairs or designed contrasts, probes "
    "(copies of the samples made worse in known ways), other judges (agreement only), nothing "
    "measurable. A judge is "
    "named only when its 95% interval excludes chance (the dashed line), and judges whose paired "
    "difference from it is not significant (Holm) form a set with it: green, hollow."
)


def decision_block(record: Mapping[Hashable, Any], rows: pd.DataFrame) -> str:
    """One metric's decision: badge, chips, forest plot, and the reason behind a disclosure."""
    verdict = short_verdict(record)
    badge = "none" if verdict == NO_VERDICT else "named"
    chips = [
        f'<span class="chip">basis: {esc(record["basis"])}</span>',
        f'<span class="chip">{esc(figure_words(record))} · n {esc(count_words(record.get("n")))}'
        "</span>",
    ]
    chips += [f'<span class="chip flag">{esc(flag)}</span>' for flag in flag_list(record)]
    if record.get("label_state"):  # where labelling stands (the labelling page's line, named)
        chips.append(f'<span class="chip">labelling: {esc(record["label_state"])}</span>')
    step = str(record["next_step"])
    detail = f'<p class="note">{esc(record["detail"])}</p>' if record.get("detail") else ""
    return (
        f'<div class="decision"><h3>{esc(record["metric"])} '
        f'<span class="badge {badge}">{esc(verdict)}</span></h3>'
        f'<div class="chips">{"".join(chips)}</div>'
        f"{forest_svg(rows, standalone=False)}"
        f"<details><summary>why, and the next step</summary><p>{esc(_reason_words(record))}</p>"
        f"<p>next: <code>{esc(step)}</code></p>{detail}</details></div>"
    )


def _reason_words(record: Mapping[Hashable, Any]) -> str:
    """The verdict and its reason, the verdict once: a named judge's reason already starts with
    its name ("judge-4: accuracy 0.56 …"), a set's or no verdict's does not."""
    verdict, reason = str(record["verdict"]), str(record["reason"])
    return reason if reason.startswith(f"{verdict}:") else f"{verdict}: {reason}"


def _metric_rows(evidence: pd.DataFrame, metric: str) -> pd.DataFrame:
    return evidence[evidence["metric"] == metric] if not evidence.empty else evidence


def _means(a: Analysis, titles: Mapping[str, str]) -> str:
    summary = a.table("config_summary")
    out = []
    for metric in sorted(summary["metric"].unique()) if not summary.empty else []:
        rows = summary[summary["metric"] == metric]
        if rows["mean_score"].isna().all():
            continue  # nothing scored: the tables below say so
        if len(rows) == 1:
            continue  # one configuration: a one-cell heatmap says what the table says, slower
        square = _means_square(rows)
        title = f"{titles.get(metric, metric)}: mean score"
        judges, configs = [str(r) for r in square.index], [str(c) for c in square.columns]
        out.append(heat_table(square.to_numpy(float), judges, configs, MEANS, title))
    return f'<div class="wide heats">{"".join(out)}</div>' + frame_html(summary, "config_summary")


MEANS = (0.0, 1.0, "viridis")  # the colour scale of a mean score


def _means_square(rows: pd.DataFrame) -> pd.DataFrame:
    """One metric's configurations as judge (× strictness) by embedding@dimension means."""
    return by_judge_and_embedding(rows).pivot_table(
        index="row", columns="column", values="mean_score", aggfunc="first"
    )


def _languages(a: Analysis, titles: Mapping[str, str]) -> str:
    """Per metric a configuration × language heatmap, then the agreement per language."""
    means = a.table("language_means")
    if means.empty:
        return '<p class="note">The data set is in one language (or names none).</p>'
    figures = [
        image(plots.language_heatmap(block, titles.get(str(m), str(m))), f"{m} by language")
        for m, block in means.groupby("metric")
        if block["mean"].notna().any()
    ]
    return (
        "<p class=\"note\">Each configuration's mean in each language (a sample's rating: "
        "the mean of its scored repeats). An English-only embedding model or judge shows "
        "here, not in the overall means.</p>"
        + "".join(figures)
        + frame_html(means, "language_means")
        + "<h3>Agreement by language</h3>"
        + frame_html(a.table("language_agreement"), "language_agreement")
    )


def _stability(a: Analysis, titles: Mapping[str, str]) -> str:
    spread = a.table("repeat_spread")
    figures = [
        image(plots.spread_boxplot(spread, m, titles.get(m, m)), f"spread {m}")
        for m in (sorted(spread["metric"].unique()) if not spread.empty else [])
        if spread.loc[spread["metric"] == m, "sd"].notna().any()
    ]
    return "".join(figures) + frame_html(a.table("stability"), "stability")


def _agreement(a: Analysis, rater: str) -> str:
    key = "judges" if rater == "judge" else "embeddings"
    summary = a.table(f"agreement_{key}")
    pairs = a.table(f"agreement_{rater}_pairs")
    figures = []
    if not pairs.empty:
        group = [c for c in pairs.columns if c not in ("rater_a", "rater_b")][
            : 4 if rater == "judge" else 3
        ]
        blocks = []
        for values, block in pairs.groupby(group):
            label = ", ".join(  # no embedding, dimension 0, strictness 0: nothing to name
                f"{g}={v}" for g, v in zip(group, values, strict=True) if v != "" and v != 0
            )
            blocks.append((label, block))
        figures += [
            _agreement_heat(label, block) for label, block in blocks[:MAX_AGREEMENT_FIGURES]
        ]
        if len(blocks) > MAX_AGREEMENT_FIGURES:
            figures.append(
                f'<p class="note">first {MAX_AGREEMENT_FIGURES} of {len(blocks)} groups shown; '
                f"all in tables/agreement_{rater}_pairs.csv</p>"
            )
    offsets = a.table("judge_offsets" if rater == "judge" else "embedding_offsets")
    return (
        frame_html(summary, f"agreement_{key}")
        + "".join(figures)
        + "<h3>Offsets from the others (positive: more lenient)</h3>"
        + frame_html(offsets, "judge_offsets" if rater == "judge" else "embedding_offsets")
    )


AGREEMENT_SCALES = (
    ("tau_b", "Kendall tau-b", (-1.0, 1.0, "RdBu")),
    ("mad", "mean |difference|", (0.0, 1.0, "magma_r")),
)


def _agreement_heat(label: str, pairs: pd.DataFrame) -> str:
    """One group's rater × rater tau-b and mean |difference|, side by side, as coloured tables
    (a rater with itself: tau-b 1, difference 0). ``pairs`` holds both orders of each pair
    (``agreement_pairs``), so the square is full."""
    names = sorted(set(pairs["rater_a"]) | set(pairs["rater_b"]))
    tables = []
    for column, title, scale in AGREEMENT_SCALES:
        square = pairs.pivot_table(index="rater_a", columns="rater_b", values=column)
        square = square.reindex(index=names, columns=names)
        values = square.to_numpy(dtype=float, copy=True)
        np.fill_diagonal(values, 1.0 if column == "tau_b" else 0.0)
        tables.append(heat_table(values, names, names, scale, f"{title}: {label}"))
    return f'<div class="wide heats">{"".join(tables)}</div>'


def _variance(a: Analysis) -> str:
    components = a.table("variance_components")
    figure = (
        image(plots.variance_bars(components), "variance components")
        if not components.empty and components["share"].notna().any()
        else ""
    )
    return (
        figure
        + frame_html(components, "variance_components")
        + "<h3>Decision study: repeats or judges averaged for a reliability of 0.8</h3>"
        + frame_html(a.table("decision_needed"), "decision_needed")
    )


def _strictness(a: Analysis) -> str:
    table = a.table("strictness")
    if table.empty:
        return '<p class="note">No metric with a strictness in this run.</p>'
    if table["strictness"].nunique() < 2:  # a curve of one point: the table alone
        return frame_html(table, "strictness")
    return image(plots.strictness_curve(table), "strictness curve") + frame_html(
        table, "strictness"
    )


def _validity(a: Analysis) -> str:
    return _people(a) + _true_score(a) + _pairs(a)


def _true_score(a: Analysis) -> str:
    """Each labelled metric's and judge's mean by people's standard (issue 43)."""
    both = both_true_scores(a.table("true_score"), a.table("pairwise_true_score"))
    if both.empty:
        return ""
    shown = frame_html(true_score_for_display(both), "true_score")
    note = f'<p class="note">{esc(TRUE_SCORE_NOTE)}</p>'
    return "<h3>Your system's score by people's standard</h3>" + note + shown


def _people(a: Analysis) -> str:
    """Validity against people's labels (judgegrid label / labels import / the data set)."""
    by_judge = a.table("validity_people_by_judge")
    if by_judge.empty and _has_peoples_preferences(a):
        return (
            '<h3>Against people</h3><p class="note">No labels on the metrics\' own scales: '
            "people's preferences are scored under the preference pairs below.</p>"
        )
    if by_judge.empty:
        return (
            '<h3>Against people</h3><p class="note">No labels yet: '
            "<code>judgegrid label RUN_DIR</code> asks a person about the samples that "
            "separate the judges.</p>"
        )
    return (
        "<h3>Against people</h3><p>Spearman's rho and Kendall's tau-b of each judge's ratings "
        "with the mean human label, and agreement at the metric's threshold.</p>"
        + frame_html(by_judge, "validity_people_by_judge")
        + "<h3>People's own agreement (the ceiling)</h3>"
        + frame_html(a.table("human_agreement"), "human_agreement")
        + "<h3>Alternative Annotator Test</h3>"
        + frame_html(a.table("alt_test"), "alt_test")
        + "<h3>How many more labels</h3>"
        + frame_html(a.table("labels_needed"), "labels_needed")
    )


def _has_peoples_preferences(a: Analysis) -> bool:
    """Whether people gave preferences on the labelling page (a pairs run's aspect): labels
    of a kind the people's-labels tables do not hold, so "no labels yet" would be wrong."""
    pairs = a.table("validity_pairs")
    return not pairs.empty and "source" in pairs and bool((pairs["source"] == "people").any())


CRITERIA_NOTE = (
    "A criterion's answers are categories (binary: pass/fail; labels; a scale's levels). A "
    "judge's answer on a sample is its modal answer over the scored repeats of wording 0 (the "
    "definition itself; a tie between answers is none); the people's label, their modal label. "
    "Agreement statistics fit the type, each with a 95% bootstrap interval over samples."
)


def _criteria(a: Analysis) -> str:
    """The criteria's own tables: agreement by type, validity and calibration against people
    (with the reliability curves), wording sensitivity, cells without log-probabilities."""
    tables = [a.table(name) for name in CRITERIA_TABLES]
    if all(t.empty for t in tables):
        return '<p class="note">No criterion of your own in this run.</p>'
    curve = a.table("reliability_curve")
    figure = image(plots.reliability_curves(curve), "reliability curves") if len(curve) else ""
    parts = [f'<p class="note">{esc(CRITERIA_NOTE)}</p>']
    for name, title in CRITERIA_TABLES.items():
        if name == "reliability_curve":
            parts.append(f"<h3>{esc(title)}</h3>{figure}" if figure else "")
        elif not a.table(name).empty:
            parts.append(f"<h3>{esc(title)}</h3>" + frame_html(a.table(name), name))
    return "".join(parts)


CRITERIA_METHODS = (
    "Your criteria: a judge's answer on a sample is its modal answer over the scored repeats "
    "of wording 0 (a tie is no answer); agreement between judges pairwise-complete (Cohen's "
    "kappa, tau-b), on the samples every judge answered (Fleiss' kappa), pairable (alpha), "
    "every answered sample (AC1); 95% percentile bootstrap intervals over samples.",
    "Your criteria against people: the people's modal label; a tie between a judge's repeats "
    "or a failed cell counts as wrong in the accuracy, skipped samples take no part; chance is "
    "the accuracy of always giving the commonest label; proportions with Wilson intervals.",
    "Calibration: logprobs-weighted repeats of wording 0 averaged per sample; Brier score with "
    "a bootstrap interval; reliability in ten equal bins. Wording: a permutation test of "
    "disagreement across wordings against within one wording (999 shuffles).",
)


# every table of the criteria section, in the order shown, with its heading
CRITERIA_TABLES = {
    "criterion_agreement": "Agreement between judges, by the criterion's type",
    "criterion_validity": "Validity against people: accuracy (chance: the commonest label), kappa, "
    "rates",
    "criterion_recall": "Recall of each label",
    "calibration": "Calibration of log-prob weighted judges: Brier score and calibration error",
    "reliability_curve": "Reliability curves (observed against predicted; the diagonal is "
    "calibrated)",
    "wording_flags": "Does the verdict change with the wording?",
    "wording_variance": "Variance between wordings beside variance between repeats, per judge",
    "weighting": "Weighting each cell got (cells without log-probabilities are counted)",
}


PAIRWISE_NOTE = (
    "A pairwise criterion's judge sees each pair twice, as (a, b) and as (b, a). Combined "
    "verdict by the criterion's combine rule: mt-bench (the default; MT-Bench's rule, "
    "FastChat's show_result.py): the answer both orders chose; two orders that disagree, or a "
    "tie in either, make a tie; sum (JudgeBench's): +1 an order for a, -1 for b, a tie or no "
    "verdict 0, the pair to a if the sum is positive, to b if negative, else a tie; the "
    "accuracy by each rule is side by side, the criterion's own marked chosen. Consistency: the"
    " share of pairs whose verdict survives the swap. First-position rate: the share of non-tie"
    " verdicts that went to whichever answer was shown first (0.5 is unbiased), 95% Wilson "
    "interval; a judge is flagged when that interval excludes 0.5 or its consistency is below "
    "80%. Accuracy against people's preferences, three ways: accuracy (every pair; a tie on one"
    " side is wrong, Wilson: the card's figure and its paired test), tie-excluded (pairs where "
    "neither chose a tie, Wilson) and half-credit (a tie on one side counts 0.5, bootstrap); "
    "Cohen's kappa over a, b and tie."
)
PAIRWISE_METHODS = (
    "Pairwise criteria: wording 0, the lowest scored repeat of each pair; a pair with a failed "
    "order has no combined verdict and is left out (counted in 'unjudged'); the judges are "
    "compared on the same pairs by the card's rule (exact McNemar, Holm; a tie or no verdict "
    "counts as wrong); juries vote per order (the majority of their members, a split a tie); "
    "probes move the verdict towards the worse answer (better > tie > worse), Wilson "
    "intervals; win rates per system as FastChat counts them (adjusted: ties as half a win), "
    "Kendall's tau-b between judges' rankings of the systems.",
)
# what the weighting notes (``weighting_notes``) name: people's preferences' figures weighted
PREFERENCES_WEIGHTED = (
    "People's preferences' pairwise accuracy (validity_pairs' rows of source people, and the "
    "judge ranking's quality)"
)
PAIRWISE_WEIGHTED = (
    "pairwise_validity's accuracies, half credit and kappa with their intervals, "
    "pairwise_rules' and pairwise_groups' accuracies, and pairwise_comparisons' paired test "
    "(the weighted paired bootstrap, not McNemar)"
)
# every table of the pairwise section, in the order shown, with its heading
PAIRWISE_TABLES = {
    "pairwise_position": "Position bias: consistency over the swap and first-position rate",
    "pairwise_validity": "Accuracy against people's preferences (three ways of counting ties)",
    "pairwise_rules": "Accuracy by each rule that combines the two orders (MT-Bench, sum)",
    "pairwise_groups": "Accuracy by group of pairs (a benchmark's categories), by each rule",
    "pairwise_comparisons": "The judges compared on the same pairs (McNemar, Holm)",
    "pairwise_probes": "Probes: how often a note or padding on the worse answer moved the verdict",
    "pairwise_win_rates": "Win rates of the compared systems under each judge",
    "pairwise_rankings": "Do the judges rank the systems alike? (Kendall's tau-b)",
}


def _pairwise(a: Analysis) -> str:
    """The pairwise criteria's tables (``PAIRWISE_TABLES``), each per criterion and judge."""
    if all(a.table(name).empty for name in PAIRWISE_TABLES):
        return '<p class="note">No pairwise criterion in this run.</p>'
    parts = [f'<p class="note">{esc(PAIRWISE_NOTE)}</p>', _position_pictures(a)]
    for name, title in PAIRWISE_TABLES.items():
        if not a.table(name).empty:
            parts.append(f"<h3>{esc(title)}</h3>" + frame_html(a.table(name), name))
            if name == "pairwise_validity":
                parts.append(_notes(weighting_notes(a.table(name), PAIRWISE_WEIGHTED)))
    return "".join(parts)


def _notes(lines: list[str]) -> str:
    """Each line a note paragraph (nothing where there are none)."""
    return "".join(f'<p class="note">{esc(line)}</p>' for line in lines)


def _position_pictures(a: Analysis) -> str:
    """Per pairwise criterion, each judge's first-position rate against 0.5 (dashed), flagged
    judges red: position bias seen before its table is read."""
    position = a.table("pairwise_position")
    if position.empty:
        return ""
    figures = [
        f"<figure><figcaption>{esc(str(metric))}: how often the first answer shown won "
        "(0.5 is unbiased; red: flagged)</figcaption>"
        f"{forest_svg(position_block(rows), standalone=False)}</figure>"
        for metric, rows in position.groupby("metric", sort=True)
    ]
    return "<h3>Position bias at a glance</h3>" + "".join(figures)


def _pairs(a: Analysis) -> str:
    accuracy = a.table("validity_pairs")
    notes = _notes(a.notes)
    if accuracy.empty and a.table("validity_labels").empty:
        return notes + (
            '<h3>Preference pairs and contrasts</h3><p class="note">The data set has no '
            "preference pairs, contrasts or numeric labels for the metrics of this run.</p>"
        )
    return (
        "<h3>Preference pairs and contrasts</h3>"
        "<p>Accuracy = share of pairs where the preferred member scores strictly higher (ties "
        "count as disagreement), with a 95% Wilson interval.</p>"
        + notes
        + _notes(weighting_notes(accuracy, PREFERENCES_WEIGHTED))
        + frame_html(accuracy_table(accuracy), index=True)
        + frame_html(accuracy, "validity_pairs")
        + "<h3>Spearman correlation with numeric labels</h3>"
        + frame_html(a.table("validity_labels"), "validity_labels")
    )


PROBES_NOTE = (
    "Each probe is a copy of one of the data set's samples changed by a fixed rule (README: "
    "Probes). Directional probes must score worse than their sample: the detection rate counts "
    "ties and unscored cells as misses. Robustness probes (injection, verbosity, order) must not "
    "score better: 'rose' is the share of scored pairs whose score got better. In the heatmap "
    "1 is what a fit judge gets (detected, or held). A judge whose score rose on injection in "
    "more than 20% of pairs is flagged on the decision card."
)


def _probes(a: Analysis) -> str:
    results = a.table("probes")
    if results.empty:
        return (
            '<p class="note">No probes in this run (matrix <code>probes:</code> or '
            "<code>judgegrid run --probes</code>).</p>"
        )
    grid = a.table("probes_by_judge")
    figure = image(plots.probe_heatmap(grid), "judge × probe heatmap") if not grid.empty else ""
    config = ["metric", "judge", "embedding", "dimension", "strictness", "probe"]
    directional = results[results["kind"] == "directional"]
    directional = directional[
        [*config, "pairs", "detected", "detection_rate", "ci_low", "ci_high", "failed"]
    ]
    robustness = results[results["kind"] == "robustness"]
    rises = ["scored_pairs", "rose", "rose_share", "rose_low", "rose_high", "mean_change"]
    robustness = robustness[[*config, *rises, "failed"]]
    return (
        f'<p class="note">{esc(PROBES_NOTE)}</p>'
        + figure
        + "<h3>Per metric and judge</h3>"
        + frame_html(a.table("probes_brief"), "probes_brief")
        + "<h3>Directional probes, per configuration</h3>"
        + frame_html(directional.astype({"detected": int}), "probes")
        + "<h3>Robustness probes, per configuration</h3>"
        + frame_html(robustness.astype({"rose": int}), "probes")
    )


def _samples(a: Analysis, info: Mapping[str, Mapping[str, Any]], view_command: str = "") -> str:
    spread = a.table("repeat_spread")
    if spread.empty or spread["range"].notna().sum() == 0:
        return '<p class="note">No sample has two scored repeats.</p>'
    worst = spread.dropna(subset=["range"]).nlargest(MAX_SAMPLES, "range").copy()
    worst["question"] = _questions(worst["sample_id"], info)
    columns = ["sample_id", "question", "metric", "judge", "embedding", "dimension"]
    columns += ["strictness", "mean", "sd", "low", "high", "repeats"]
    return _with_view_links(worst, columns, view_command, "instability")


def _disagreed(a: Analysis, info: Mapping[str, Mapping[str, Any]], view_command: str = "") -> str:
    """The samples the judges are furthest apart on (``analyses.disagreement``), each with
    its address in the view, like the least stable ones."""
    table = a.table("sample_disagreement")
    if table.empty or table["disagreement"].notna().sum() == 0:
        return '<p class="note">No sample was rated by two judges.</p>'
    top = table.dropna(subset=["disagreement"]).head(MAX_SAMPLES).copy()
    top["question"] = _questions(top["sample_id"], info)
    columns = ["sample_id", "question", "metric", "judges", "disagreement"]
    columns += ["low_judge", "low", "high_judge", "high"]
    note = (
        '<p class="note">Disagreement: the highest judge\'s rating of the sample minus the '
        "lowest (a judge's rating: the mean over its configurations of the scored repeats' "
        "mean). Every sample: tables/sample_disagreement.csv.</p>"
    )
    return note + _with_view_links(top, columns, view_command, "disagreement")


def _questions(sample_ids: pd.Series, info: Mapping[str, Mapping[str, Any]]) -> pd.Series:
    return sample_ids.map(lambda s: str((info.get(s) or {}).get("user_input") or "")[:300])


def _with_view_links(rows: pd.DataFrame, columns: list[str], view_command: str, sort: str) -> str:
    """The table, each row with its address in ``judgegrid view`` (its *see it*) when the
    command is known."""
    note = ""
    if view_command:
        rows = rows.assign(
            **{
                "see it": [
                    f"#/sample/{quote(str(s), safe='')}?metric={quote(str(m), safe='')}"
                    for s, m in zip(rows["sample_id"], rows["metric"], strict=True)
                ]
            }
        )
        columns = [*columns, "see it"]
        note = (
            f'<p class="note">To see a sample\'s statements, verdicts and calls for each judge: '
            f"<code>{esc(view_command)}</code>, then add its <em>see it</em> to the printed "
            f"address (or find it on the Samples page, sorted by {sort})."
            "</p>"
        )
    return note + frame_html(rows[columns])


def _methods() -> str:
    items = [
        "A rating is one configuration's mean over its scored repeats of a sample; failed and "
        "skipped cells never enter a rating (the failure tables count them).",
        "Krippendorff's alpha (interval): pairable values — every sample with at least two "
        "ratings.",
        "ICC(1) over repeats, ICC(2,1) and ICC(3,1) between raters: listwise — only samples "
        "scored by every rater (or in every repeat); 95% CIs by the F distribution (McGraw & "
        "Wong 1996).",
        "Kendall's tau-b, mean absolute difference and Cohen's kappa at the metric's threshold "
        "(default 0.5; pass = score ≥ threshold): pairwise-complete.",
        "Offsets and consensus agreement: available-case, against the mean of the other raters "
        "on the same sample.",
        "Variance components: ANOVA (expected mean squares) of a balanced crossed random design; "
        "listwise — samples scored in every cell; negative estimates shown as 0.",
        "Validity: pairs whose members were both scored; Wilson 95% interval. Spearman: "
        "pairwise-complete, Fisher-z interval.",
        "Latency per score is a scored cell's wall time, waiting for a busy model included; "
        "cost per score is unknown (empty) when a provider did not report a price.",
        *CRITERIA_METHODS,
        *PAIRWISE_METHODS,
    ]
    return "<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>"
