"""The report's figures, drawn with matplotlib's Agg canvas and returned as base64 PNG.

No pyplot state: every figure is a ``matplotlib.figure.Figure`` of its own, rendered and
closed at once, so a report can be built in any thread and without a display.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image, ImageOps

MAX_BOXES = 40
DPI = 80
PAD_INCHES = 0.1  # savefig's own pad around a tight box
MARGIN_INCHES = 3.0


def to_base64_png(fig: Figure) -> str:
    """The figure cut to its tight box (as ``savefig(bbox_inches="tight")``), in 256 colours.

    Drawn once, on a canvas with room to spare (``_add_margin``), then cut to what was drawn
    on it: savefig lays the figure out, asks every artist its extent and draws it again. A
    figure whose ink reaches its canvas's edge is left to savefig, which grows the canvas.
    256 colours make the PNG about a third of the
    size of a true-colour one, and the page as much lighter; heatmaps use 256-step colour
    maps, so no value is coarsened.
    """
    fig.set_dpi(DPI)
    _add_margin(fig)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    box = _ink_box(pixels)
    if box is None:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight", pad_inches=PAD_INCHES)
        picture = Image.open(buffer).convert("RGB")
    else:
        top, bottom, left, right = box
        picture = Image.fromarray(pixels[top:bottom, left:right, :3])
        picture = ImageOps.expand(picture, round(PAD_INCHES * DPI), fill="white")
    buffer = io.BytesIO()
    picture.quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _add_margin(fig: Figure) -> None:
    """Room around the axes for labels that run past the figure's edge: the canvas grows by
    MARGIN_INCHES on each side and every axes keeps its size and place in inches, so the cut
    tight box is what savefig's would be. A figure with a layout engine fits its canvas
    itself and is left alone."""
    if fig.get_layout_engine() is not None:
        return
    width, height = fig.get_size_inches()
    grown_w, grown_h = width + 2 * MARGIN_INCHES, height + 2 * MARGIN_INCHES
    for ax in fig.axes:
        place = ax.get_position(original=True)
        ax.set_position(
            (
                float((place.x0 * width + MARGIN_INCHES) / grown_w),
                float((place.y0 * height + MARGIN_INCHES) / grown_h),
                float(place.width * width / grown_w),
                float(place.height * height / grown_h),
            ),
            which="both",
        )
    fig.set_size_inches(grown_w, grown_h)


def _ink_box(pixels: np.ndarray) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) of what is drawn on the white canvas, the box savefig's
    tight box would enclose (found in the pixels: asking the artists for their extents costs
    as much as a draw); None when it touches the canvas's edge, so may run past it."""
    ink = (pixels[:, :, :3] != 255).any(axis=2)
    rows, columns = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not len(rows):
        return 0, pixels.shape[0], 0, pixels.shape[1]
    top, bottom, left, right = rows[0], rows[-1] + 1, columns[0], columns[-1] + 1
    if top == 0 or left == 0 or bottom == pixels.shape[0] or right == pixels.shape[1]:
        return None
    return int(top), int(bottom), int(left), int(right)


def _heatmap(ax, values: np.ndarray, rows: Iterable[str], cols: Iterable[str], vmin, vmax, cmap):
    rows, cols = list(rows), list(cols)
    image = ax.imshow(values, vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=8)
    if values.size <= 64:
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
    return image


def language_heatmap(table: pd.DataFrame, title: str) -> str:
    """Configuration by language: the mean score (``languages.language_means`` rows of one
    metric, pivoted), so a model that scores one language apart stands out as a colour."""
    wide = table.pivot_table(  # every language a column, also one where nothing scored
        index="configuration", columns="language", values="mean", aggfunc="first", dropna=False
    )
    return _means_figure(wide, title, (2.6, 0.9), 0.3)


def probe_heatmap(grid: pd.DataFrame) -> str:
    """Judge × (metric: probe): the detection rate of a directional probe, 1 − the share of
    rises of a robustness probe; 1 is what a fit judge gets."""
    table = grid.set_index("judge")
    return _means_figure(
        table,
        "probes: 1 = the judge behaves as the probe requires",
        (1.8, 0.42),
        0.35,
        "detected (or held)",
    )


def _means_figure(
    table: pd.DataFrame,
    title: str,
    width: tuple[float, float],
    row_height: float,
    label: str = "mean score",
) -> str:
    """A rows × columns table of mean scores as a 0–1 heatmap; ``width``: (margin, per
    column) in inches, so long row labels keep their room."""
    margin, per_column = width
    fig = Figure(figsize=(margin + per_column * table.shape[1], 1.0 + row_height * table.shape[0]))
    ax = fig.subplots()
    image = _heatmap(ax, table.to_numpy(float), table.index, table.columns, 0, 1, "viridis")
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title, fontsize=9)
    return to_base64_png(fig)


def spread_boxplot(spread: pd.DataFrame, metric: str, title: str) -> str:
    """Per configuration: the distribution over samples of the run-to-run SD."""
    rows = spread[(spread["metric"] == metric) & spread["sd"].notna()].copy()
    rows["config"] = (
        rows["judge"]
        + np.where(
            rows["embedding"] != "",
            " / " + rows["embedding"] + "@" + rows["dimension"].astype(str),
            "",
        )
        + np.where(rows["strictness"] > 0, " s=" + rows["strictness"].astype(str), "")
    )
    groups = list(rows.groupby("config")["sd"])[:MAX_BOXES]
    fig = Figure(figsize=(7, 0.8 + 0.3 * max(1, len(groups))))
    ax = fig.subplots()
    if groups:
        # the ticks set once, here: boxplot's own (manage_ticks) made and laid out 40 more
        ax.boxplot([g.to_numpy() for _, g in groups], vert=False, widths=0.6, manage_ticks=False)
        ax.set_yticks(range(1, len(groups) + 1), [str(name) for name, _ in groups], fontsize=7)
        ax.set_ylim(0.5, len(groups) + 0.5)
    ax.set_xlabel("run-to-run SD of a sample's score (over repeats)")
    ax.set_title(title, fontsize=9)
    return to_base64_png(fig)


def strictness_curve(table: pd.DataFrame) -> str:
    """Run-to-run SD and cost (or calls) per score against strictness, one line per judge."""
    fig = Figure(figsize=(8, 3))
    left, right = fig.subplots(1, 2)
    cost_known = table["cost_per_score"].notna().all() and (table["cost_per_score"] > 0).any()
    usage, label = (
        ("cost_per_score", "cost per score ($)")
        if cost_known
        else ("calls_per_score", "calls per score")
    )
    for (metric, judge), block in table.groupby(["metric", "judge"]):
        block = block.sort_values("strictness")
        name = f"{judge} ({metric})"
        left.plot(block["strictness"], block["mean_run_sd"], marker="o", label=name)
        right.plot(block["strictness"], block[usage], marker="o", label=name)
    left.set(xlabel="strictness", ylabel="mean run-to-run SD")
    right.set(xlabel="strictness", ylabel=label)
    left.legend(fontsize=7)
    return to_base64_png(fig)


def variance_bars(components: pd.DataFrame) -> str:
    """Share of each variance component, one stacked bar per metric and strictness."""
    data = components.dropna(subset=["share"]).copy()
    data["bar"] = data["metric"] + np.where(
        data["strictness"] > 0, " s=" + data["strictness"].astype(str), ""
    )
    table = data.pivot_table(index="bar", columns="component", values="share", aggfunc="first")
    table = table.fillna(0)
    fig = Figure(figsize=(8, 1.2 + 0.45 * max(1, len(table))))
    ax = fig.subplots()
    left = np.zeros(len(table))
    for column in table.columns:
        ax.barh(table.index, table[column], left=left, label=column)
        left += table[column].to_numpy()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of score variance")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    return to_base64_png(fig)


def pareto_plot(ranking: pd.DataFrame) -> tuple[str | None, list[str]]:
    """Quality (validity or consensus agreement, with 95% CI) against cost and latency, for the
    metrics where some judge could be assessed; and one line for each panel left out and why
    (a figure with nothing on it says less than a sentence)."""
    assessed = ranking[np.isfinite(ranking["quality"].to_numpy(float))]
    notes = [
        f"{metric}: no Pareto plot — no judge could be assessed on it"
        for metric in sorted(set(ranking["metric"]) - set(assessed["metric"]))
    ]
    costs = assessed["cost_per_score"].to_numpy(float)
    axes_wanted = [("latency_per_score_s", "latency per score (s)")]
    if np.isfinite(costs).any() and (np.nan_to_num(costs) > 0).any():
        axes_wanted.insert(0, ("cost_per_score", "cost per score ($)"))
    elif len(assessed):
        notes.append("no cost axis: every cost is 0 or unknown (local or unpriced models)")
    metrics = sorted(assessed["metric"].unique())
    if not metrics:
        return None, notes
    fig = Figure(figsize=(4 * len(axes_wanted), 2.8 * len(metrics)))
    # spacing fixed for the panels' ticks, labels and titles; the outer edge is cut to the ink
    # (``to_base64_png``). A constrained layout made the same figure in twice the time (0.5 s)
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1, wspace=0.3, hspace=0.5)
    axes = np.atleast_2d(fig.subplots(len(metrics), len(axes_wanted), squeeze=False))
    for row, metric in zip(axes, metrics, strict=True):
        block = assessed[assessed["metric"] == metric]
        for ax, (column, label) in zip(row, axes_wanted, strict=True):
            _pareto_panel(ax, block, column, label, metric)
    return to_base64_png(fig), notes


def _pareto_panel(ax: Any, block: pd.DataFrame, column: str, label: str, metric: str) -> None:
    x = block[column].fillna(0).to_numpy(float)
    y = block["quality"].to_numpy(float)
    err = np.vstack([y - block["ci_low"].to_numpy(float), block["ci_high"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=np.nan_to_num(np.abs(err)), fmt="none", ecolor="grey", lw=1)
    colours = np.where(block["pareto"].to_numpy(bool), "tab:red", "tab:blue")
    ax.scatter(x, y, c=colours, zorder=3)
    for xi, yi, name in zip(x, y, block["judge"], strict=True):
        ax.annotate(str(name), (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points")
    basis = str(block["basis"].iloc[0])
    ylabel = "accuracy on pairs" if basis.startswith("pairwise") else "tau-b, consensus"
    ax.set(xlabel=label, ylabel=ylabel)
    # plain numbers: matplotlib's offset ("1e-5+2.4256") hides near-equal latencies' values
    ax.ticklabel_format(axis="both", style="plain", useOffset=False)
    ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    ax.set_title(f"{metric} (red: Pareto-optimal)", fontsize=9)


def reliability_curves(curve: pd.DataFrame) -> str:
    """The reliability curve of each criterion (a panel each, three a row), one line per judge:
    the observed share (of pass; of answers right) against the mean predicted probability per
    bin, the diagonal a calibrated judge."""
    metrics = sorted(curve["metric"].unique())
    columns = min(3, len(metrics))
    rows = -(-len(metrics) // columns)
    fig = Figure(figsize=(3.4 * columns, 3.2 * rows))
    every = np.atleast_1d(fig.subplots(rows, columns)).ravel()
    fig.subplots_adjust(wspace=0.3, hspace=0.45)
    for ax in every[len(metrics) :]:
        ax.set_visible(False)
    axes = every[: len(metrics)]
    for ax, metric in zip(axes, metrics, strict=True):
        ax.plot([0, 1], [0, 1], color="#999", linestyle="--", linewidth=1)
        for judge, block in curve[curve["metric"] == metric].groupby("judge"):
            ax.plot(block["predicted"], block["observed"], marker="o", label=str(judge))
        ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="predicted probability", title=metric)
        ax.legend(fontsize=7)
    for ax in every[::columns]:
        ax.set_ylabel("observed share")
    return to_base64_png(fig)
