"""The forest plot of a metric's decision evidence: one dot and whisker per judge, names escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd

from judgegrid.outputs.forest import LABEL, NAME_CHARS, PLOT, forest_svg

SVG = "{http://www.w3.org/2000/svg}"


def _rows(**judges):
    return pd.DataFrame(
        [
            {
                "judge": j,
                "measure": "rho",
                "value": v,
                "low": lo,
                "high": hi,
                "n": 9,
                "chance": 0.0,
                "role": role,
            }
            for j, (v, lo, hi, role) in judges.items()
        ]
    )


def test_each_judge_is_a_dot_on_its_interval_with_chance_dashed():
    svg = ET.fromstring(
        forest_svg(_rows(a=(0.5, 0.0, 1.0, "chosen"), b=(-0.5, -1.0, 0.0, "measured")))
    )
    dots = svg.findall(f".//{SVG}circle")
    assert [float(d.get("cx")) for d in dots] == [LABEL + 0.75 * PLOT, LABEL + 0.25 * PLOT]
    assert dots[0].get("fill") != "#fff" and dots[1].get("fill") == "#fff"  # chosen: filled
    whiskers = [w for w in svg.findall(f".//{SVG}g/{SVG}line")]
    assert [(float(w.get("x1")), float(w.get("x2"))) for w in whiskers] == [
        (LABEL + 0.5 * PLOT, LABEL + PLOT),
        (LABEL, LABEL + 0.5 * PLOT),
    ]
    dashed = [line for line in svg.iter(f"{SVG}line") if line.get("stroke-dasharray")]
    assert [float(line.get("x1")) for line in dashed] == [LABEL + 0.5 * PLOT]  # chance, rho 0


def test_a_hostile_name_is_text_and_a_long_one_is_cut_with_its_full_name_on_hover():
    hostile = '<script>alert("x")</script>&judge-with-a-name-far-too-long-to-show'
    text = forest_svg(_rows(**{hostile: (0.2, float("nan"), float("nan"), "chosen")}))
    assert "<script>" not in text
    svg = ET.fromstring(text)
    assert svg.find(f".//{SVG}g/{SVG}title").text.startswith(hostile)
    shown = [t.text for t in svg.iter(f"{SVG}text") if t.text and t.text.startswith("<scr")]
    assert shown and shown[0].endswith("…") and len(shown[0]) <= NAME_CHARS


def _shown_names(svg: ET.Element) -> list[str]:
    """The judges' names as the plot writes them (right-aligned before the axis)."""
    return [t.text or "" for t in svg.iter(f"{SVG}text") if t.get("text-anchor") == "end"]


def test_names_cut_to_fit_still_tell_the_judges_apart():
    """One jury with two embedding models: its two rows differ only at the end of their long
    names, so cutting the tail made both read 'jury(smollm2-135m + g…'."""
    jury = "jury(smollm2-135m + gemma-270m)"
    names = [f"{jury} / minilm", f"{jury} / e5-small"]
    names += ["gemma-270m / e5-small", "smollm2-135m / minilm"]
    rows = _rows(**{name: (0.5, 0.2, 0.8, "measured") for name in names})
    shown = _shown_names(ET.fromstring(forest_svg(rows)))
    assert len(shown) == len(names) and len(set(shown)) == len(names), shown
    assert all(len(name) <= NAME_CHARS for name in shown), shown
    assert shown[2:] == names[2:]  # a name that fits is shown whole


def test_no_evidence_draws_nothing():
    assert forest_svg(_rows()) == ""
